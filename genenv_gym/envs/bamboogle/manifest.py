"""Bamboogle: its env ids, domains, data source, extra and paper column (read by the central modules)."""

from __future__ import annotations

from genenv_gym.envs.simulator_env_params import simulator_env_params
from genenv_gym.registry.client_params import (
    Choice,
    Choices,
    ClientParams,
    Integer,
    Real,
    TaskBound,
    benchmark_options,
)
from genenv_gym.registry.data_source import Source, Urls
from genenv_gym.registry.env_entry import EnvEntry
from genenv_gym.registry.manifest import DomainSpec, Evaluator, Extra, Manifest, PaperColumn

#: What makes a client's task costly to check, bounded (``options.task``; docs/serving.md).
TASK_BOUNDS = (TaskBound("golden answers (hops' answers)", ("evaluation", "golden_answers"), 64),)
TASK_OPTIONS = benchmark_options(*TASK_BOUNDS)

#: The Search-R1 loop's budget and grading, a client's choice; the retriever (its corpus path or server
#: URL) is the operator's.
LOOP = {
    "topk": Integer(1, 10),
    "max_turns": Integer(0, 8),
    "max_response_tokens": Integer(1, 4000),
    "max_obs_tokens": Integer(1, 4000),
    "reward": Choice(("em", "f1", "cover_em")),
    "extraction": Choice(("response", "reference")),
}
#: What a client of ``genenv serve`` may set (genenv_gym.registry.client_params).
CLIENT = ClientParams(kwargs=LOOP, options=TASK_OPTIONS)
SIM_DOMAIN = {
    **LOOP,
    "paraphrase": Real(0.0, 1.0),
    "answer_types": Choices(("entity", "date", "number", "yesno")),
}

ENTRIES: tuple[EnvEntry, ...] = (
    EnvEntry(
        "GenEnv-Bamboogle-v0",
        "genenv_gym.envs.bamboogle.env:BamboogleEnv",
        "Bamboogle (125 2-hop questions), Search-R1 loop (bm25 / http / closed-book), EM, cover-EM, F1",
        client=CLIENT,
    ),
    EnvEntry(
        "GenEnv-Sim-Bamboogle-v0",
        "genenv_gym.envs.simulator_env:SimulatorEnv",
        "generated 1-4 hop questions over a fictional world and its BM25 corpus, at the agent's skill",
        {"domain": "bamboogle_sim"},
        client=simulator_env_params(SIM_DOMAIN, task_bounds=TASK_BOUNDS),
    ),
)

SOURCE = Source(
    "bamboogle",
    "Bamboogle (125 two-hop questions, FlashRAG format)",
    (
        Urls(
            (
                (
                    "https://huggingface.co/datasets/RUC-NLPIR/FlashRAG_datasets/resolve/main/bamboogle/test.jsonl",
                    "test.jsonl",
                ),
            )
        ),
    ),
    "MIT",
    {"test.jsonl": 125},
    notes="FlashRAG's copy on the Hugging Face hub (the format Search-R1 reads)",
    label="Bamboogle",
)

#: What judges its episodes (its records pin it): our checker of Search-R1's exact match (no official
#: package).
EVALUATOR = Evaluator(
    "Search-R1 exact match",
    "1",
    (
        "genenv_gym.envs.bamboogle.domain",
        "genenv_gym.envs.bamboogle.episode",
        "genenv_gym.envs.bamboogle.extraction",
        "genenv_gym.envs.bamboogle.metrics",
        "genenv_gym.envs.bamboogle.world",
        "genenv_gym.envs.bamboogle.retrieval",
    ),
)

#: Its two actions as tools (a native tool call becomes Search-R1's tagged text).
_SEARCH_CALLS = "genenv_gym.envs.bamboogle.call_format:SEARCH_CALLS"
_SEARCH_TOOLS = "genenv_gym.envs.bamboogle.call_format:SEARCH_TOOLS"

MANIFEST = Manifest(
    package="bamboogle",
    order=4,
    evaluator=EVALUATOR,
    entries=ENTRIES,
    domains=(
        DomainSpec(
            "bamboogle",
            "genenv_gym.envs.bamboogle.domain:BamboogleDomain",
            call_format=_SEARCH_CALLS,
            tools=_SEARCH_TOOLS,
        ),
        DomainSpec(
            "bamboogle_sim",
            "genenv_gym.envs.bamboogle.sim_domain:BamboogleSimDomain",
            task_writer="genenv_gym.envs.bamboogle.task_writer:BamboogleTaskWriter",
            call_format=_SEARCH_CALLS,
            tools=_SEARCH_TOOLS,
        ),
    ),
    source=SOURCE,
    # The BM25 retriever over a Search-R1-format corpus.
    extra=Extra("bamboogle", ("bm25s",)),
    paper_columns=(
        PaperColumn("Bamboogle", 3, "GenEnv-Bamboogle-v0", "overall", "Search-R1 protocol, exact match"),
    ),
)
