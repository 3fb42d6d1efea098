"""BFCL multi-turn: its env ids, domains, extra and paper column (its data is BFCL's, fetched with it)."""

from __future__ import annotations

from genenv_gym.envs.bfcl.manifest import BFCL_EVAL_VERSION
from genenv_gym.envs.simulator_env_params import simulator_env_params
from genenv_gym.registry.client_params import (
    Choice,
    Choices,
    ClientParams,
    Flag,
    Integer,
    TaskBound,
    benchmark_options,
)
from genenv_gym.registry.env_entry import EnvEntry
from genenv_gym.registry.manifest import DomainSpec, Evaluator, Extra, Manifest, PaperColumn

#: What makes a client's task costly to check, bounded (``options.task``; docs/serving.md).
TASK_BOUNDS = (
    TaskBound("turns", ("evaluation", "ground_truth"), 32),
    TaskBound("questions", ("evaluation", "question"), 32),
    TaskBound("expected calls", ("evaluation", "ground_truth", "*"), 512),
    TaskBound("functions", ("tools",), 256),
    TaskBound("involved classes", ("evaluation", "involved_classes"), 16),
)
TASK_OPTIONS = benchmark_options(*TASK_BOUNDS)

_ENV = "genenv_gym.envs.bfcl_multiturn.env:BFCLMultiTurnEnv"

#: Its actions are written as BFCL single-turn's are: ``[f(a=1)]`` or a JSON list.
_CALLS = "genenv_gym.envs.bfcl.call_format:BFCL_CALLS"

#: What a client of ``genenv serve`` may set (genenv_gym.registry.client_params). ``official_filler`` (a file
#: the env reads, whose values every env of the process then uses) is the operator's.
DOMAIN = {
    "max_steps_per_turn": Integer(1, 50),
    "strict_irrelevance": Flag(),
    "action_format": Choice(("python", "json")),
}
CATEGORIES = ("multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param", "multi_turn_long_context")
CLIENT = ClientParams(kwargs={"categories": Choices(CATEGORIES), **DOMAIN}, options=TASK_OPTIONS)

ENTRIES: tuple[EnvEntry, ...] = (
    EnvEntry(
        "GenEnv-BFCL-MultiTurn-v0",
        _ENV,
        "BFCL v4 multi-turn (800 entries: base, miss_func, miss_param, long_context) on live simulated "
        "backends, official per-turn state and response checker",
        client=CLIENT,
    ),
    EnvEntry(
        "GenEnv-BFCL-MultiTurnBase-v0",
        _ENV,
        "category `multi_turn_base` (200)",
        {"categories": ["multi_turn_base"]},
        client=CLIENT,
    ),
    EnvEntry(
        "GenEnv-BFCL-MultiTurnMissFunc-v0",
        _ENV,
        "category `multi_turn_miss_func` (200): a needed function's doc arrives at a later turn",
        {"categories": ["multi_turn_miss_func"]},
        client=CLIENT,
    ),
    EnvEntry(
        "GenEnv-BFCL-MultiTurnMissParam-v0",
        _ENV,
        "category `multi_turn_miss_param` (200): a turn lacks a needed parameter",
        {"categories": ["multi_turn_miss_param"]},
        client=CLIENT,
    ),
    EnvEntry(
        "GenEnv-BFCL-MultiTurnLongContext-v0",
        _ENV,
        "category `multi_turn_long_context` (200): backends padded with bulky distractor state",
        {"categories": ["multi_turn_long_context"]},
        client=CLIENT,
    ),
    EnvEntry(
        "GenEnv-BFCL-LongContext-Step-v0",
        "genenv_gym.envs.bfcl_multiturn.env:BFCLMultiTurnStepEnv",
        "the paper's protocol: each turn of the 200 long-context entries (734) as its own task after the "
        "ground truth of the earlier turns, official per-turn checker",
        {"categories": ["multi_turn_long_context"]},
        client=CLIENT,
    ),
    EnvEntry(
        "GenEnv-Sim-BFCL-MultiTurn-v0",
        "genenv_gym.envs.simulator_env:SimulatorEnv",
        "new BFCL multi-turn entries at 10 levels (random backend states, plans of documented calls executed "
        "on fresh backends, missing parameters / functions and long context at the top levels), official "
        "checker, at the agent's skill",
        {"domain": "bfcl_multiturn"},
        client=simulator_env_params(DOMAIN, task_bounds=TASK_BOUNDS),
    ),
)

#: What judges its episodes (its records pin it): bfcl-eval's multi-turn checker (state and response checks)
#: over our copies of its API classes.
EVALUATOR = Evaluator(
    "bfcl-eval",
    BFCL_EVAL_VERSION,
    (
        "genenv_gym.envs.bfcl_multiturn.domain",
        "genenv_gym.envs.bfcl_multiturn.episode",
        "genenv_gym.envs.bfcl_multiturn.checker",
        "genenv_gym.envs.bfcl_multiturn.executor",
        "genenv_gym.envs.bfcl_multiturn.calls",
        "genenv_gym.envs.bfcl_multiturn.module_calls",
        "genenv_gym.envs.bfcl_multiturn.state_copy",
        "genenv_gym.envs.bfcl_multiturn.long_context",
        "genenv_gym.envs.bfcl_multiturn.gorilla_file_system",
        "genenv_gym.envs.bfcl_multiturn.math_api",
        "genenv_gym.envs.bfcl_multiturn.message_api",
        "genenv_gym.envs.bfcl_multiturn.posting_api",
        "genenv_gym.envs.bfcl_multiturn.ticket_api",
        "genenv_gym.envs.bfcl_multiturn.trading_bot",
        "genenv_gym.envs.bfcl_multiturn.travel_api",
        "genenv_gym.envs.bfcl_multiturn.vehicle_control",
    ),
)

MANIFEST = Manifest(
    package="bfcl_multiturn",
    order=5,
    evaluator=EVALUATOR,
    entries=ENTRIES,
    domains=(
        DomainSpec(
            "bfcl_multiturn",
            "genenv_gym.envs.bfcl_multiturn.domain:BFCLMultiTurnDomain",
            task_writer="genenv_gym.envs.bfcl_multiturn.task_writer:BFCLMultiTurnTaskWriter",
            call_format=_CALLS,
        ),
        DomainSpec(
            "bfcl_multiturn_step",
            "genenv_gym.envs.bfcl_multiturn.domain:BFCLMultiTurnStepDomain",
            call_format=_CALLS,
        ),
    ),
    # MathAPI.logarithm returns an mpmath number, as the official backend does.
    extra=Extra("bfcl-multiturn", ("mpmath",)),
    paper_columns=(
        PaperColumn(
            "BFCL",
            1,
            "GenEnv-BFCL-LongContext-Step-v0",
            "overall",
            "each turn of the multi-turn long-context entries as its own task, official multi-turn checker",
        ),
    ),
)
