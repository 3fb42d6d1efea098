"""Digits, the trainer's CPU miniature: its env ids and domain (read by the central modules)."""

from __future__ import annotations

from genenv_gym.envs.digits.domain import DigitsDomain
from genenv_gym.envs.simulator_env_params import simulator_env_params
from genenv_gym.registry.client_params import ClientParams, TaskBound, benchmark_options
from genenv_gym.registry.env_entry import EnvEntry
from genenv_gym.registry.manifest import DomainSpec, Evaluator, Manifest

#: What judges its episodes (its records pin it): our own checker (no official evaluator).
EVALUATOR = Evaluator(
    "genenv-gym digits exact match",
    "1",
    ("genenv_gym.envs.digits.domain", "genenv_gym.envs.one_line_answer"),
)

#: What makes a client's task costly to check, bounded (``options.task``; docs/serving.md).
TASK_BOUNDS = (TaskBound("answer characters", ("evaluation", "answer"), 4096),)
TASK_OPTIONS = benchmark_options(*TASK_BOUNDS)

MANIFEST = Manifest(
    package="digits",
    order=2,
    evaluator=EVALUATOR,
    entries=(
        EnvEntry(
            "GenEnv-Digits-v0",
            "genenv_gym.envs.digits.env:DigitsEnv",
            f"digit-string reversal, {DigitsDomain.num_levels} levels in half steps of length (1-8 digits), "
            "a fixed 200-task held-out set: the trainer's CPU miniature",
            client=ClientParams(options=TASK_OPTIONS),
        ),
        EnvEntry(
            "GenEnv-Sim-Digits-v0",
            "genenv_gym.envs.simulator_env:SimulatorEnv",
            "digit-reversal tasks generated at the agent's skill by the alpha-curriculum simulator",
            {"domain": "digits"},
            client=simulator_env_params(task_bounds=TASK_BOUNDS),
        ),
    ),
    domains=(
        DomainSpec(
            "digits",
            "genenv_gym.envs.digits.domain:DigitsDomain",
            task_writer="genenv_gym.envs.digits.task_writer:DigitsTaskWriter",
        ),
        # Variants for the curriculum-efficacy designs (docs/experiments/): other lengths per level.
        DomainSpec("digits-wide", "genenv_gym.envs.digits.domain:digits_wide"),
        DomainSpec("digits-lengths", "genenv_gym.envs.digits.domain:digits_lengths"),
    ),
)
