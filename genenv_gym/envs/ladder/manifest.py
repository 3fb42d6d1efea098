"""The ladder, the fourth and fifth curriculum-efficacy designs' family: its env ids and domains."""

from __future__ import annotations

from genenv_gym.envs.simulator_env_params import simulator_env_params
from genenv_gym.registry.client_params import ClientParams, TaskBound, benchmark_options
from genenv_gym.registry.env_entry import EnvEntry
from genenv_gym.registry.manifest import DomainSpec, Evaluator, Manifest

#: What judges its episodes (its records pin it): our own checker (no official evaluator).
EVALUATOR = Evaluator(
    "genenv-gym ladder step check",
    "1",
    ("genenv_gym.envs.ladder.domain", "genenv_gym.envs.one_line_answer"),
)

#: What makes a client's task costly to check, bounded (``options.task``; docs/serving.md).
TASK_BOUNDS = (TaskBound("answer characters", ("evaluation", "answer"), 4096),)
TASK_OPTIONS = benchmark_options(*TASK_BOUNDS)

MANIFEST = Manifest(
    package="ladder",
    order=8,
    evaluator=EVALUATOR,
    entries=(
        EnvEntry(
            "GenEnv-Ladder-v0",
            "genenv_gym.envs.ladder.env:LadderEnv",
            "write the labelled steps of a chain of secret permutations (4 symbols, 8 steps, one per level), "
            "an exhaustive 32-task held-out set: the fourth efficacy design's family",
            client=ClientParams(options=TASK_OPTIONS),
        ),
        EnvEntry(
            "GenEnv-Sim-Ladder-v0",
            "genenv_gym.envs.simulator_env:SimulatorEnv",
            "ladder tasks generated at the agent's skill by the alpha-curriculum simulator",
            {"domain": "ladder"},
            client=simulator_env_params(task_bounds=TASK_BOUNDS),
        ),
    ),
    domains=(
        DomainSpec("ladder", "genenv_gym.envs.ladder.domain:LadderDomain"),
        # The fifth efficacy design's family (docs/experiments/design5.md): 8 symbols a step, each its own.
        DomainSpec("ladder-disjoint", "genenv_gym.envs.ladder.domain:ladder_disjoint"),
    ),
)
