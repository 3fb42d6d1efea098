"""A scripted noisy agent for pass@k / pass^k checks: it solves each task with a success probability of
that task's own (drawn once from the task id), acting like the oracle on a success and like the random
baseline otherwise, so tasks differ in how reliably they are solved."""

from __future__ import annotations

import hashlib
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import genenv_gym.evaluation.agents as eval_agents

NAME = "noisy"


def task_probability(task_id: str) -> float:
    """The chance the noisy agent solves ``task_id`` (uniform over [0, 1] across task ids)."""
    return int(hashlib.sha256(task_id.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF


class NoisyAgent:
    def __init__(self, env: gym.Env, seed: int | None = None) -> None:
        self.env = env.unwrapped
        self.rng = np.random.default_rng(seed)

    def act(self, observation: str, info: dict[str, Any]) -> str:
        episode = self.env.episode
        if self.rng.random() < task_probability(episode.task.id):
            return episode.oracle_action()
        return episode.random_action(self.rng)


def register_noisy_agent(monkeypatch: pytest.MonkeyPatch) -> str:
    """Let ``evaluate`` play ``noisy`` as a scripted agent for the rest of the test; its name."""
    original = eval_agents.make_agent

    def make_agent(name: str, env: gym.Env, seed: int | None = None) -> Any:
        return NoisyAgent(env, seed) if name == NAME else original(name, env, seed)

    monkeypatch.setattr(eval_agents, "SCRIPTED_AGENTS", (*eval_agents.SCRIPTED_AGENTS, NAME))
    monkeypatch.setattr(eval_agents, "make_agent", make_agent)
    return NAME
