"""API-Bank: its env ids, domains, data source, extra and paper column (read by the central modules)."""

from __future__ import annotations

from genenv_gym.envs.simulator_env_params import simulator_env_params
from genenv_gym.registry.client_params import (
    Choice,
    Choices,
    ClientParams,
    Integer,
    TaskBound,
    benchmark_options,
)
from genenv_gym.registry.data_source import GitHubFiles, Source
from genenv_gym.registry.env_entry import EnvEntry
from genenv_gym.registry.manifest import DomainSpec, Evaluator, Extra, Manifest, PaperColumn

#: What makes a client's task costly to check, bounded (``options.task``; docs/serving.md).
TASK_BOUNDS = (
    TaskBound("expected calls", ("evaluation", "ground_truth"), 64),
    TaskBound("history turns", ("evaluation", "history"), 256),
    TaskBound("dialogue turns", ("evaluation", "turns"), 256),
    TaskBound("APIs", ("evaluation", "apis"), 64),
    # ROUGE-L compares every word of the reference with every word of the reply (a 60,000-character
    # reference took 32 s): the longest official reference reply has 1,335 characters.
    TaskBound("reference response characters", ("evaluation", "ground_truth", "text"), 1500),
)
TASK_OPTIONS = benchmark_options(*TASK_BOUNDS)

_ENV = "genenv_gym.envs.apibank.env:APIBankEnv"

_CALLS = "genenv_gym.envs.apibank.call_format:API_CALLS"

#: What a client of ``genenv serve`` may set (genenv_gym.registry.client_params).
_LEVELS = Choices(("level-1", "level-2"))
_SCORING = Choice(("official", "corrected"))
CLIENT = ClientParams(kwargs={"levels": _LEVELS, "scoring": _SCORING}, options=TASK_OPTIONS)
RESPONSE_CLIENT = ClientParams(kwargs={"levels": _LEVELS}, options=TASK_OPTIONS)
DIALOGUE_CLIENT = ClientParams(kwargs={"levels": _LEVELS, "max_steps": Integer(1, 100)}, options=TASK_OPTIONS)

ENTRIES: tuple[EnvEntry, ...] = (
    EnvEntry(
        "GenEnv-APIBank-v0",
        _ENV,
        "API-Bank level-1 (399 API-call samples, APIs described), 50 simulated APIs, official verdict",
        {"levels": ["level-1"]},
        client=CLIENT,
    ),
    EnvEntry(
        "GenEnv-APIBank-L2-v0",
        _ENV,
        "API-Bank level-2 (135 API-call samples, only ToolSearcher described: retrieve, then call)",
        {"levels": ["level-2"]},
        client=CLIENT,
    ),
    EnvEntry(
        "GenEnv-APIBank-Response-v0",
        "genenv_gym.envs.apibank.env:APIBankResponseEnv",
        "API-Bank response turns after an API result (375 + 103 samples), ROUGE-L F1 as officially",
        client=RESPONSE_CLIENT,
    ),
    EnvEntry(
        "GenEnv-APIBank-Dialogue-v0",
        "genenv_gym.envs.apibank.env:APIBankDialogueEnv",
        "API-Bank whole dialogues (214 + 50): the agent plays the AI side, APIs answer live with state kept; "
        "success when every recorded API effect is reached",
        client=DIALOGUE_CLIENT,
    ),
    EnvEntry(
        "GenEnv-Sim-APIBank-v0",
        "genenv_gym.envs.simulator_env:SimulatorEnv",
        "new API-Bank dialogues over the simulated APIs (tokens, dependent calls, distractors, retrieval), "
        "each checked by executing its reference call, at the agent's skill",
        {"domain": "apibank", "domain_kwargs": {"scoring": "corrected"}},
        client=simulator_env_params({"scoring": _SCORING}, task_bounds=TASK_BOUNDS),
    ),
)

SOURCE = Source(
    "apibank",
    "API-Bank (level-1 and level-2 dialogues, init databases, API catalogue)",
    (
        GitHubFiles(
            "AlibabaResearch/DAMO-ConvAI",
            "483554eae102996f5ec1f4feab4e78ef29c2a394",
            (
                "api-bank/lv1-lv2-samples/",
                "api-bank/init_database/",
                "api-bank/data/",
                "api-bank/lv3-samples/",
            ),
            strip=("api-bank/",),
        ),
    ),
    "Apache-2.0",
    {"data/all_apis.csv": None, "data/exceptions.json": None},
    {
        "lv1-lv2-samples/level-1-given-desc/*.jsonl": 214,
        "lv1-lv2-samples/level-2-toolsearcher/*.jsonl": 50,
        "init_database/*.json": 19,
    },
    "from the official GitHub repository at a fixed commit",
    label="API-Bank",
)

#: What judges its episodes (its records pin it): the official evaluation code at the commit the data comes
#: from.
EVALUATOR = Evaluator(
    "API-Bank (DAMO-ConvAI)",
    "483554eae102996f5ec1f4feab4e78ef29c2a394",
    (
        "genenv_gym.envs.apibank.domain",
        "genenv_gym.envs.apibank.dialogue",
        "genenv_gym.envs.apibank.official",
        "genenv_gym.envs.apibank.official_checks",
        "genenv_gym.envs.apibank.official_tool_search",
        "genenv_gym.envs.apibank.corrected",
        "genenv_gym.envs.apibank.extraction",
        "genenv_gym.envs.apibank.registry",
        "genenv_gym.envs.apibank.signatures",
        "genenv_gym.envs.apibank.world",
        "genenv_gym.envs.apibank.apis_personal",
        "genenv_gym.envs.apibank.apis_services",
        "genenv_gym.envs.apibank.apis_info",
        "genenv_gym.envs.apibank.rouge_score",
        "genenv_gym.envs.apibank.retrieval",
        "genenv_gym.envs.apibank.translate_languages",
    ),
)

MANIFEST = Manifest(
    package="apibank",
    order=3,
    evaluator=EVALUATOR,
    entries=ENTRIES,
    domains=(
        DomainSpec(
            "apibank",
            "genenv_gym.envs.apibank.domain:APIBankDomain",
            task_writer="genenv_gym.envs.apibank.task_writer:APIBankTaskWriter",
            call_format=_CALLS,
        ),
        DomainSpec(
            "apibank_response", "genenv_gym.envs.apibank.domain:APIBankResponseDomain", call_format=_CALLS
        ),
        DomainSpec(
            "apibank_dialogue", "genenv_gym.envs.apibank.domain:APIBankDialogueDomain", call_format=_CALLS
        ),
    ),
    source=SOURCE,
    # ROUGE-L of response turns with the package the official evaluation uses; ToolSearcher's BM25.
    extra=Extra("apibank", ("rouge", "bm25s")),
    paper_columns=(
        PaperColumn(
            "API-Bank", 2, "GenEnv-APIBank-v0", "overall", "level-1 API-call samples, official evaluator"
        ),
    ),
)
