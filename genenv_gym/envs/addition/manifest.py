"""Padded addition, the third curriculum-efficacy design's family: its env ids and domain."""

from __future__ import annotations

from genenv_gym.envs.simulator_env_params import simulator_env_params
from genenv_gym.registry.client_params import ClientParams, TaskBound, benchmark_options
from genenv_gym.registry.env_entry import EnvEntry
from genenv_gym.registry.manifest import DomainSpec, Evaluator, Manifest

#: What judges its episodes (its records pin it): our own checker (no official evaluator).
EVALUATOR = Evaluator(
    "genenv-gym padded-addition exact match",
    "1",
    ("genenv_gym.envs.addition.domain", "genenv_gym.envs.one_line_answer"),
)

#: What makes a client's task costly to check, bounded (``options.task``; docs/serving.md).
TASK_BOUNDS = (TaskBound("answer characters", ("evaluation", "answer"), 4096),)
TASK_OPTIONS = benchmark_options(*TASK_BOUNDS)

MANIFEST = Manifest(
    package="addition",
    order=7,
    evaluator=EVALUATOR,
    entries=(
        EnvEntry(
            "GenEnv-PaddedAddition-v0",
            "genenv_gym.envs.addition.env:PaddedAdditionEnv",
            "a + b on 6-digit zero-padded least-significant-first operands, 11 levels of operand width "
            "(1-6 digits, half steps), a fixed 1,200-task held-out set: the third efficacy design's family",
            client=ClientParams(options=TASK_OPTIONS),
        ),
        EnvEntry(
            "GenEnv-Sim-PaddedAddition-v0",
            "genenv_gym.envs.simulator_env:SimulatorEnv",
            "padded-addition tasks generated at the agent's skill by the alpha-curriculum simulator",
            {"domain": "padded-addition"},
            client=simulator_env_params(task_bounds=TASK_BOUNDS),
        ),
    ),
    domains=(
        DomainSpec(
            "padded-addition",
            "genenv_gym.envs.addition.domain:PaddedAdditionDomain",
            task_writer="genenv_gym.envs.addition.task_writer:PaddedAdditionTaskWriter",
        ),
    ),
)
