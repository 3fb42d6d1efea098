"""Candidate actions for the current state of an env: what a Discrete action index stands for.

Classic RL libraries act through ``Discrete(K)``; a GenEnv env acts through text. A *candidate source*
turns the env's current state into at most ``K`` action texts. The sources:

- ``AdmissibleCommands``: the env's own list, ``info["admissible_commands"]`` (ALFWorld). When the list is
  longer than ``K``, the expert's next command is kept and the rest is a random subset.
- ``OracleAndRandom``: the expert action plus the domain's random actions.
- A domain's own source, named in its manifest (``DomainSpec.candidate_source``), e.g. BFCL's reference
  answer and near-miss distractors (``genenv_gym.envs.bfcl.candidates``).

Every source returns the texts in an order shuffled with the generator it is given (the wrapper passes
the env's seeded ``np_random``), so the position of the right answer carries no information.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

import gymnasium as gym
import numpy as np

from genenv_gym.registry.manifest import domain_spec, load

__all__ = [
    "AdmissibleCommands",
    "CandidateSource",
    "OracleAndRandom",
    "default_source",
]


class CandidateSource(Protocol):
    """Builds the candidate action texts of the env's current state (at most ``k``, no duplicates)."""

    def candidates(self, env: gym.Env, info: dict[str, Any], k: int, rng: np.random.Generator) -> list[str]:
        """Up to ``k`` distinct action texts, shuffled with ``rng``."""
        ...


def current_episode(env: gym.Env) -> Any:
    episode = getattr(env.unwrapped, "episode", None)
    if episode is None:
        raise RuntimeError("the env has no episode in progress: call reset() first")
    return episode


def _unique(texts: Sequence[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for text in texts:
        if text not in seen:
            seen.add(text)
            out.append(text)
    return out


def shuffled(texts: list[str], rng: np.random.Generator) -> list[str]:
    return [texts[i] for i in rng.permutation(len(texts))]


class AdmissibleCommands:
    """The env's ``info["admissible_commands"]``; beyond ``k`` of them, the expert's and a random subset."""

    def __init__(self, key: str = "admissible_commands") -> None:
        self.key = key

    def candidates(self, env: gym.Env, info: dict[str, Any], k: int, rng: np.random.Generator) -> list[str]:
        commands = _unique(str(c) for c in info.get(self.key) or ())
        if not commands:
            raise ValueError(f"info has no {self.key!r}: this env does not list its commands")
        if len(commands) > k:
            expert = _expert_command(env, commands)
            rest = [c for c in commands if c != expert]
            keep = [
                rest[i] for i in sorted(rng.choice(len(rest), size=k - (expert is not None), replace=False))
            ]
            commands = keep + ([expert] if expert is not None else [])
        return shuffled(commands, rng)


def _expert_command(env: gym.Env, commands: list[str]) -> str | None:
    """The admissible command that matches the episode's expert action (None when none does)."""
    try:
        expert = current_episode(env).oracle_action()
    except Exception:  # an episode without an expert still gets a candidate set
        return None
    normal = " ".join(str(expert).lower().split())
    return next((c for c in commands if " ".join(c.lower().split()) == normal), None)


class OracleAndRandom:
    """The episode's expert action and distinct random actions.

    On a single-turn episode, random actions the verifier accepts are removed (``verify`` grades one
    answer there; on multi-turn episodes it grades whole transcripts, so nothing is removed).
    """

    def __init__(self, tries: int = 8) -> None:
        self.tries = tries

    def candidates(self, env: gym.Env, info: dict[str, Any], k: int, rng: np.random.Generator) -> list[str]:
        from genenv_gym.domain import SingleTurnEpisode

        episode = current_episode(env)
        oracle = episode.oracle_action()
        domain = env.unwrapped.domain
        randoms = (episode.random_action(rng) for _ in range(self.tries * k))
        if isinstance(episode, SingleTurnEpisode):
            chosen = first_distinct(
                randoms, lambda t: not domain.verify(episode.task, t).success, {oracle}, k - 1
            )
        else:
            chosen = first_distinct(randoms, lambda t: True, {oracle}, k - 1)
        return shuffled([oracle, *chosen], rng)


def first_distinct(texts: Iterable[str], keep: Any, seen: set[str], limit: int) -> list[str]:
    """Up to ``limit`` texts not in ``seen`` for which ``keep(text)`` holds, drawn lazily from ``texts``."""
    out: list[str] = []
    for text in texts:
        if len(out) >= limit:
            break
        if text in seen:
            continue
        seen.add(text)
        if keep(text):
            out.append(text)
    return out


def default_source(env: gym.Env, info: dict[str, Any]) -> CandidateSource:
    """The source that fits an env: its admissible commands, the source its domain's manifest names, or
    oracle and random actions."""
    if "admissible_commands" in info:
        return AdmissibleCommands()
    spec = domain_spec(getattr(getattr(env.unwrapped, "domain", None), "name", ""))
    if spec is not None and spec.candidate_source is not None:
        return load(spec.candidate_source)()
    return OracleAndRandom()
