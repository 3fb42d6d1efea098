"""Which agents an evaluation plays: the scripted baselines (``oracle``, ``random``) or an LLM through a
backend spec; checking a name, building a backend once for several envs, and the per-episode wrapper."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np

from genenv_gym.agents.scripted import make_agent
from genenv_gym.evaluation.pins import sample_seed
from genenv_gym.suggest import unknown_choice

SCRIPTED_AGENTS = ("oracle", "random")


def is_llm_agent(agent: str) -> bool:
    """Whether an agent name is a backend spec (``kind:...``) rather than a scripted agent."""
    return agent not in SCRIPTED_AGENTS and ":" in agent


def check_agent(agent: str) -> None:
    """Raise ValueError saying what is expected unless ``agent`` is a scripted agent or a backend spec."""
    if agent in SCRIPTED_AGENTS:
        return
    if ":" not in agent:
        raise ValueError(
            unknown_choice("agent", agent, SCRIPTED_AGENTS)
            + " or a backend spec (hf:PATH, openai:MODEL@URL, sglang:PATH, sglang-server:URL, tiny:ARCH)"
        )
    from genenv_gym.agents.backends import parse_spec

    parse_spec(agent)


class EvalAgent:
    """What ``evaluate`` plays: a scripted agent reseeded per episode, or an LLM agent."""

    def __init__(self, agent: str, env: gym.Env, seed: int, backend: Any = None, **llm_kwargs: Any) -> None:
        self.seed = seed
        if is_llm_agent(agent):
            from genenv_gym.agents.llm_agent import LLMAgent

            self.agent: Any = LLMAgent.for_env(env, backend if backend is not None else agent, **llm_kwargs)
        else:
            self.agent = make_agent(agent, env, seed)
        self.params = getattr(self.agent, "params", None)

    def start(self, episode: int, sample: int = 0) -> None:
        """Before plan episode ``episode`` (the ``sample``-th try of its task): scripted agents draw from a
        generator seeded by ``[seed, episode]``, LLM agents sample with the sample's seed."""
        if hasattr(self.agent, "rng"):
            self.agent.rng = np.random.default_rng([self.seed, episode])
        self.start_sample(sample)

    def start_sample(self, sample: int) -> None:
        """LLM agents: sample with ``sample_seed(seed, sample)`` from now on (the base seed at sample 0)."""
        if self.params is not None and getattr(self.params, "seed", None) is not None:
            self.agent.params = self.params.with_(seed=sample_seed(self.params.seed, sample))

    def act(self, observation: str, info: Mapping[str, Any]) -> str:
        return self.agent.act(observation, info)

    def request_failure(self, slot: int = 0) -> str | None:
        """LLM agents: the reason the last request for ``slot`` failed, None if it did not fail (or none)."""
        return request_failure(self.agent, slot)


def request_failure(agent: Any, slot: int = 0) -> str | None:
    """The reason ``agent``'s last model request for ``slot`` failed (its error completion); None when that
    request got a reply or the agent sends none (scripted agents)."""
    completion = getattr(agent, "last_completions", {}).get(slot)
    if completion is None or completion.ok:
        return None
    return completion.error or "the request failed"


def make_backend_once(agent: str, **kwargs: Any) -> Any:
    """An LLM agent spec's backend, built once so several envs share one loaded model (None if scripted)."""
    if not is_llm_agent(agent):
        return None
    from genenv_gym.agents.backends import make_backend

    return make_backend(agent, **kwargs)
