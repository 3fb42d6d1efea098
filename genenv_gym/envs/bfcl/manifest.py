"""BFCL single-turn: its env ids, domain, data source and extra (read by the central modules)."""

from __future__ import annotations

from genenv_gym.envs.bfcl.categories import AST_CATEGORIES, NO_GROUND_TRUTH, RECORD_COUNTS, env_suffix
from genenv_gym.envs.simulator_env_params import simulator_env_params
from genenv_gym.registry.client_params import Choice, Choices, ClientParams, TaskBound, benchmark_options
from genenv_gym.registry.data_source import PipWheel, Source
from genenv_gym.registry.env_entry import EnvEntry
from genenv_gym.registry.manifest import DomainSpec, Evaluator, Extra, Manifest

#: What makes a client's task costly to check, bounded (``options.task``; docs/serving.md).
TASK_BOUNDS = (
    TaskBound("expected calls", ("evaluation", "ground_truth"), 128),
    TaskBound("functions", ("tools",), 256),
)
TASK_OPTIONS = benchmark_options(*TASK_BOUNDS)

BFCL_EVAL_VERSION = "2026.3.23"
_ENV = "genenv_gym.envs.bfcl.env:BFCLEnv"

#: Its actions are written as Python calls or as a JSON list (``action_format``).
ACTION_FORMAT = Choice(("python", "json"))

#: What a client of ``genenv serve`` may set (genenv_gym.registry.client_params).
CLIENT = ClientParams(
    kwargs={"categories": Choices(AST_CATEGORIES), "action_format": ACTION_FORMAT},
    options=TASK_OPTIONS,
)

ENTRIES: tuple[EnvEntry, ...] = (
    EnvEntry(
        "GenEnv-BFCL-v0",
        _ENV,
        f"BFCL v4, all {len(AST_CATEGORIES)} single-turn AST categories "
        f"({sum(RECORD_COUNTS.values()):,} records), official AST metric",
        client=CLIENT,
    ),
    *(
        EnvEntry(
            f"GenEnv-BFCL-{env_suffix(c)}-v0",
            _ENV,
            f"category `{c}` ({RECORD_COUNTS[c]:,})",
            {"categories": [c]},
            client=CLIENT,
        )
        for c in AST_CATEGORIES
    ),
    EnvEntry(
        "GenEnv-Sim-BFCL-v0",
        "genenv_gym.envs.simulator_env:SimulatorEnv",
        "BFCL-style tasks generated at the agent's skill by the alpha-curriculum simulator",
        {"domain": "bfcl"},
        client=simulator_env_params({"action_format": ACTION_FORMAT}, task_bounds=TASK_BOUNDS),
    ),
)

#: The official data of BFCL single- and multi-turn (one folder, one wheel).
SOURCE = Source(
    "bfcl",
    "Berkeley Function Calling Leaderboard v4",
    (PipWheel(f"bfcl-eval=={BFCL_EVAL_VERSION}", "bfcl_eval/data/", ("unused_datasets/", "README.md")),),
    "Apache-2.0",
    {
        **{f"BFCL_v4_{c}.json": n for c, n in RECORD_COUNTS.items()},
        **{
            f"possible_answer/BFCL_v4_{c}.json": n
            for c, n in RECORD_COUNTS.items()
            if c not in NO_GROUND_TRUTH
        },
        **{f"BFCL_v4_multi_turn_{c}.json": 200 for c in ("base", "miss_func", "miss_param", "long_context")},
    },
    {"multi_turn_func_doc/*.json": 8},
    f"from the official bfcl-eval {BFCL_EVAL_VERSION} wheel on PyPI (pip download; no other network)",
    label="BFCL",
)

#: What judges its episodes (its records pin it): the reimplementation of bfcl-eval's AST checker and
#: decoders.
EVALUATOR = Evaluator(
    "bfcl-eval",
    BFCL_EVAL_VERSION,
    (
        "genenv_gym.envs.bfcl.domain",
        "genenv_gym.envs.bfcl.checker",
        "genenv_gym.envs.bfcl.answer_index",
        "genenv_gym.envs.bfcl.decode",
        "genenv_gym.envs.bfcl.decode_errors",
        "genenv_gym.envs.bfcl.output_text",
        "genenv_gym.envs.bfcl.safe_arithmetic",
        "genenv_gym.envs.bfcl.literal_calls",
        "genenv_gym.envs.bfcl.java_js",
        "genenv_gym.envs.bfcl.safe_regex",
        "genenv_gym.envs.bfcl.categories",
    ),
)

MANIFEST = Manifest(
    package="bfcl",
    order=0,
    evaluator=EVALUATOR,
    entries=ENTRIES,
    domains=(
        DomainSpec(
            "bfcl",
            "genenv_gym.envs.bfcl.domain:BFCLDomain",
            task_writer="genenv_gym.envs.bfcl.task_writer:BFCLTaskWriter",
            call_format="genenv_gym.envs.bfcl.call_format:BFCL_CALLS",
            candidate_source="genenv_gym.envs.bfcl.candidates:BFCLCandidates",
            num_candidates=4,
        ),
    ),
    source=SOURCE,
    # BFCL's Java / JavaScript answers are parsed with the grammar versions the official checker pins.
    extra=Extra("bfcl", ("tree_sitter", "tree_sitter_java", "tree_sitter_javascript")),
)
