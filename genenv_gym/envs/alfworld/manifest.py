"""ALFWorld: its env ids, domains, data source, extra and paper column (read by the central modules)."""

from __future__ import annotations

from genenv_gym.envs.alfworld.task_types import TASK_TYPE_NAMES, TASK_TYPES
from genenv_gym.envs.simulator_env_params import simulator_env_params
from genenv_gym.registry.client_params import (
    Choice,
    Choices,
    ClientParams,
    Integer,
    TaskBound,
    Text,
    benchmark_options,
)
from genenv_gym.registry.data_source import DownloadScript, Source
from genenv_gym.registry.env_entry import EnvEntry
from genenv_gym.registry.manifest import DomainSpec, Evaluator, Extra, Manifest, PaperColumn

#: What makes a client's task costly to check, bounded (``options.task``; docs/serving.md).
TASK_BOUNDS = (
    TaskBound("walkthrough steps", ("evaluation", "walkthrough"), 500),
    TaskBound("steps", ("evaluation", "max_steps"), 500),
)
TASK_OPTIONS = benchmark_options(*TASK_BOUNDS)

_ENV = "genenv_gym.envs.alfworld.env:ALFWorldEnv"

#: The splits of the official data (``json_2.1.1/<split>``).
SPLITS = ("train", "valid_seen", "valid_unseen")
#: The longest step budget a client may give an episode.
MAX_CLIENT_STEPS = 200

#: What a client of ``genenv serve`` may set (genenv_gym.registry.client_params): never a path; a game is
#: chosen by its id among the loaded ones, a task's game is looked up in the data dir's split.
_TASK_TYPES = Choices(TASK_TYPE_NAMES, single=True)
CLIENT = ClientParams(
    kwargs={"task_types": _TASK_TYPES, "split": Choice(SPLITS), "max_steps": Integer(1, MAX_CLIENT_STEPS)},
    options={**TASK_OPTIONS, "game": Text(300), "task_type": _TASK_TYPES},
)
STEP_CLIENT = ClientParams(kwargs={"task_types": _TASK_TYPES, "split": Choice(SPLITS)}, options=TASK_OPTIONS)
#: Each proposal of the simulator is proved solvable by the planner (seconds each): at most 4 per refill.
SIM_MAX_BATCH = 4

ENTRIES: tuple[EnvEntry, ...] = (
    EnvEntry(
        "GenEnv-ALFWorld-v0",
        _ENV,
        "ALFWorld on the real TextWorld engine: the 134 `valid_unseen` games, 50 steps, success rate",
        client=CLIENT,
    ),
    *(
        EnvEntry(
            f"GenEnv-ALFWorld-{t.suffix}-v0",
            _ENV,
            f"task type `{t.name}`",
            {"task_types": [t.name]},
            client=CLIENT,
        )
        for t in TASK_TYPES
    ),
    EnvEntry(
        "GenEnv-ALFWorld-Step-v0",
        "genenv_gym.envs.alfworld.step_env:ALFWorldStepEnv",
        "the paper's protocol: predict the expert's next command at every state of its walkthrough "
        "(788 tasks), exact match",
        client=STEP_CLIENT,
    ),
    EnvEntry(
        "GenEnv-Sim-ALFWorld-v0",
        "genenv_gym.envs.simulator_env:SimulatorEnv",
        "new goals over the real scenes, each checked solvable by the PDDL planner, at the agent's skill",
        {"domain": "alfworld", "batch_size": 1},
        client=simulator_env_params(
            {"max_steps": Integer(1, MAX_CLIENT_STEPS)}, max_batch=SIM_MAX_BATCH, task_bounds=TASK_BOUNDS
        ),
    ),
)

SOURCE = Source(
    "alfworld",
    "ALFWorld (TextWorld games over ALFRED scenes)",
    (DownloadScript("alfworld-download", "alfworld", "ALFWORLD_DATA", "GitHub release assets"),),
    "MIT",
    {"logic/alfred.pddl": None, "logic/alfred.twl2": None},
    {"json_2.1.1/valid_unseen/*/*/game.tw-pddl": 134},
    "runs the official alfworld-download script (needs the alfworld extra and GitHub release assets)",
    label="ALFWorld",
    fixtures="genenv_gym.envs.alfworld.tiny:offline_fixtures",
)

#: The admissible commands of a state: up to 64 become CandidateActions' choices.
_CANDIDATES = 64

#: What judges its episodes (its records pin it): a win in ALFWorld 0.4.2's engine (textworld 1.7.0).
EVALUATOR = Evaluator(
    "alfworld",
    "0.4.2",
    (
        "genenv_gym.envs.alfworld.domain",
        "genenv_gym.envs.alfworld.step_domain",
        "genenv_gym.envs.alfworld.episode",
        "genenv_gym.envs.alfworld.engine",
        "genenv_gym.envs.alfworld.commands",
        "genenv_gym.envs.alfworld.pddl_state",
        "genenv_gym.envs.alfworld.game_logic",
        "genenv_gym.envs.alfworld.textgen_fast",
    ),
)

MANIFEST = Manifest(
    package="alfworld",
    order=1,
    evaluator=EVALUATOR,
    entries=ENTRIES,
    domains=(
        DomainSpec(
            "alfworld",
            "genenv_gym.envs.alfworld.domain:ALFWorldDomain",
            task_writer="genenv_gym.envs.alfworld.task_writer:ALFWorldTaskWriter",
            num_candidates=_CANDIDATES,
        ),
        DomainSpec(
            "alfworld_step",
            "genenv_gym.envs.alfworld.step_domain:ALFWorldStepDomain",
            num_candidates=_CANDIDATES,
        ),
    ),
    source=SOURCE,
    extra=Extra("alfworld", ("textworld", "alfworld")),
    paper_columns=(
        PaperColumn(
            "ALFWorld",
            0,
            "GenEnv-ALFWorld-Step-v0",
            "overall",
            "next expert action at every state of the 134 valid_unseen walkthroughs, exact match",
        ),
    ),
)
