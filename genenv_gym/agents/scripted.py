"""Scripted agents: the oracle, the random baseline, and an agent of fixed skill for curriculum tests.

They read the env's current episode (``env.unwrapped.episode``), so they are baselines and test
instruments, not learners.
"""

from __future__ import annotations

import math
from typing import Any, Protocol

import gymnasium as gym
import numpy as np

from genenv_gym.suggest import unknown_choice


class Agent(Protocol):
    """Maps an observation (and the env's info) to an action."""

    def act(self, observation: str, info: dict[str, Any]) -> str: ...


class OracleAgent:
    """Answers with the task's reference answer rendered as agent output: scores 1.0 where it can."""

    def __init__(self, env: gym.Env) -> None:
        self.env = env.unwrapped

    def act(self, observation: str, info: dict[str, Any]) -> str:
        return self.env.episode.oracle_action()


class RandomAgent:
    """A well-formed but uninformed action (a random candidate tool with random arguments, ...)."""

    def __init__(self, env: gym.Env, seed: int | None = None) -> None:
        self.env = env.unwrapped
        self.rng = np.random.default_rng(seed)

    def act(self, observation: str, info: dict[str, Any]) -> str:
        return self.env.episode.random_action(self.rng)


class FixedSkillAgent:
    """Solves a task of level ``L`` with probability ``sigmoid(sharpness * (skill - L))``, else acts randomly.

    Its success falls with difficulty, which makes it the scripted stand-in for an agent in curriculum
    tests: a simulator aligned with it should settle around level ``skill``.
    """

    def __init__(self, env: gym.Env, skill: float, sharpness: float = 1.5, seed: int | None = None) -> None:
        self.env = env.unwrapped
        self.skill = skill
        self.sharpness = sharpness
        self.rng = np.random.default_rng(seed)

    def success_probability(self, level: int) -> float:
        return 1.0 / (1.0 + math.exp(-self.sharpness * (self.skill - level)))

    def act(self, observation: str, info: dict[str, Any]) -> str:
        episode = self.env.episode
        if self.rng.random() < self.success_probability(episode.task.level):
            return episode.oracle_action()
        return episode.random_action(self.rng)


def make_agent(name: str, env: gym.Env, seed: int | None = None) -> Agent:
    """A scripted agent by name: ``oracle`` or ``random``."""
    if name == "oracle":
        return OracleAgent(env)
    if name == "random":
        return RandomAgent(env, seed)
    raise ValueError(unknown_choice("agent", name, ("oracle", "random")))
