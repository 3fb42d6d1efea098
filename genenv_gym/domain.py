"""The Domain interface: everything one benchmark family knows, shared by its benchmark and simulator envs."""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from genenv_gym.task import Task, thaw


@dataclass(frozen=True)
class Verdict:
    """The official metric's judgement of one action (or one whole episode) on a task.

    ``reward`` is in [0, 1]; ``success`` is what the curriculum counts; ``error_type`` and ``error`` say
    why an action failed (the benchmark's own error strings where it has them).
    """

    reward: float
    success: bool
    error_type: str | None = None
    error: str | None = None
    details: Mapping[str, Any] = field(default_factory=dict)

    def info(self) -> dict[str, Any]:
        """The fields an env puts in its ``info`` dict."""
        info: dict[str, Any] = {"success": self.success, "error_type": self.error_type}
        if self.error is not None:
            info["error"] = self.error
        info.update(self.details)
        return info


@dataclass(frozen=True)
class StepResult:
    """What one agent action does to an episode, in Gymnasium's terms."""

    observation: str
    reward: float
    terminated: bool
    truncated: bool
    info: dict[str, Any]


class Episode(ABC):
    """One agent's interaction with one task; multi-turn domains keep their state here.

    A multi-step episode whose observation is the whole transcript also says what a chat agent should add
    to its chat after each non-final step: ``info["turn_messages"]``, the chat messages the env added after
    the agent's action (see :func:`env_messages_since`), or ``info["messages"]`` when the next step is a
    fresh prompt that replaces the chat (as in TravelPlanner's official tool loop).
    """

    def __init__(self, task: Task, observation: str) -> None:
        self.task = task
        self.observation = observation
        self.done = False

    @abstractmethod
    def step(self, action: str) -> StepResult:
        """Apply one agent action."""

    @abstractmethod
    def oracle_action(self) -> str:
        """An action the expert would take now (the reference answer for single-turn tasks)."""

    @abstractmethod
    def random_action(self, rng: np.random.Generator) -> str:
        """A well-formed but uninformed action in the current state: the random baseline."""

    def close(self) -> None:
        """Give back what the episode holds of its domain (ALFWorld: its engine); it cannot step after this.
        An env closes its episode at the next reset, a trainer when the rollout ends."""
        self.done = True

    def invalid_action(self, error_type: str, error: str) -> StepResult:
        """An action the env refused before parsing it (longer than the action space allows).

        By default the episode ends with reward 0 and the error; multi-turn episodes may instead count it as
        one step in which nothing happens.
        """
        self.done = True
        info = {"success": False, "error_type": error_type, "error": error}
        return StepResult(self.observation, 0.0, True, False, info)


def env_messages_since(messages: Sequence[Mapping[str, Any]], start: int) -> list[dict[str, Any]]:
    """The messages from ``start`` on without the agent's own (assistant) turns, which a chat agent
    already holds: a multi-step episode's ``info["turn_messages"]``."""
    return [dict(m) for m in messages[start:] if m.get("role") != "assistant"]


def replay_transcript(episode: Episode, action: object, unfinished: Verdict) -> Verdict:
    """A multi-turn domain's verdict on a whole transcript: ``action`` is a JSON list of the agent's
    step texts, played through ``episode``; ``unfinished`` when the list ends before the episode does."""
    try:
        actions = json.loads(action) if isinstance(action, str) else None
    except (ValueError, RecursionError):
        actions = None
    if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
        return Verdict(
            0.0, False, "action_error:not_a_transcript", "give a JSON list of the agent's step texts"
        )
    for item in actions:
        result = episode.step(item)
        if result.terminated or result.truncated:
            info = dict(result.info)
            success = bool(info.pop("success", False))
            return Verdict(
                result.reward, success, info.pop("error_type", None), info.pop("error", None), info
            )
    return unfinished


def oracle_transcript(episode: Episode) -> str:
    """The expert's whole transcript of ``episode`` (played to its end) as the JSON list that
    ``replay_transcript`` reads."""
    actions = []
    while not episode.done:
        actions.append(episode.oracle_action())
        episode.step(actions[-1])
    return json.dumps(actions)


class SingleTurnEpisode(Episode):
    """The agent answers once; the verdict ends the episode."""

    def __init__(self, domain: Domain, task: Task) -> None:
        super().__init__(task, domain.render(task))
        self.domain = domain

    def step(self, action: str) -> StepResult:
        verdict = self.domain.verify(self.task, action)
        self.done = True
        return StepResult(self.observation, float(verdict.reward), True, False, verdict.info())

    def oracle_action(self) -> str:
        return self.domain.oracle_action(self.task)

    def random_action(self, rng: np.random.Generator) -> str:
        return self.domain.random_action(self.task, rng)


def check_level(level: int, num_levels: int) -> None:
    """ValueError unless ``level`` is one of ``num_levels`` difficulty levels, ``[0, num_levels)``."""
    if not 0 <= level < num_levels:
        raise ValueError(f"level must be in [0, {num_levels}), got {level!r}")


class Domain(ABC):
    """One benchmark family: load, render, parse, verify, validate and generate its tasks.

    Subclasses set ``name`` and ``num_levels`` (the number of procedural difficulty levels) and implement
    the abstract methods. ``start_episode`` defaults to a single-turn episode whose one action is
    graded by ``verify``; multi-turn domains return their own Episode, and ``verify`` then grades a
    whole transcript of actions (or the single-step variant the domain defines).
    """

    name: str = ""
    num_levels: int = 1

    @abstractmethod
    def categories(self) -> tuple[str, ...]:
        """The categories (or task types) the official metric is reported by."""

    @abstractmethod
    def load_tasks(self, categories: Sequence[str] | None = None, data_dir: str | None = None) -> list[Task]:
        """Official benchmark records as Tasks (all categories when ``categories`` is None)."""

    @abstractmethod
    def render(self, task: Task) -> str:
        """The observation text the agent sees for a task."""

    @abstractmethod
    def verify(self, task: Task, action: str) -> Verdict:
        """Grade an agent action with the official metric. Never raises on any string."""

    @abstractmethod
    def validate(self, task: Task) -> list[str]:
        """Reasons a (generated) task is malformed or unsolvable; empty when it is valid."""

    @abstractmethod
    def generate(self, level: int, rng: np.random.Generator) -> Task:
        """A procedurally generated task at difficulty ``level`` in ``[0, num_levels)``."""

    @abstractmethod
    def oracle_action(self, task: Task) -> str:
        """An action the verifier accepts (the reference answer rendered as agent output)."""

    @abstractmethod
    def random_action(self, task: Task, rng: np.random.Generator) -> str:
        """A well-formed but uninformed action: the random baseline."""

    def warmstart_action(self, task: Task, rng: np.random.Generator) -> str:
        """The reply the trainer's supervised warm start teaches for ``task``: the oracle action by default
        (``rng`` unused). A domain whose harder steps must stay unknown to the warm start hides them here
        (the ladder writes random symbols at its secret steps)."""
        return self.oracle_action(task)

    def summarize(self, accuracy: Mapping[str, float], counts: Mapping[str, int]) -> dict[str, float]:
        """The benchmark's summary scores from per-category accuracies (none by default)."""
        return {}

    def summarize_metrics(self, metrics: Sequence[Mapping[str, Any]]) -> dict[str, float]:
        """Summary scores computed from every episode's ``info["metrics"]`` (none by default).

        Domains whose official aggregate is not a mean of per-category pass rates (micro/macro rates over
        constraints, EM/F1 means) put per-episode figures in the final step's ``info["metrics"]``;
        ``genenv eval`` passes them here in episode order (an empty mapping for episodes without them).
        """
        return {}

    def reference_failures(self) -> Mapping[str, str]:
        """Task id -> why the official metric rejects that task's own reference answer (none by default).

        ``genenv eval`` counts these under its table: they are why an oracle scores below 100%.
        """
        return {}

    def start_episode(self, task: Task) -> Episode:
        """Begin an interaction with ``task``."""
        return SingleTurnEpisode(self, task)

    def opening_chat(self, task: Task) -> list[dict[str, Any]]:
        """The chat an episode of ``task`` opens with: ``reset``'s ``info["messages"]``, which ``genenv eval``
        shows the agent, and every trainer adapter's first prompt (TRL rows, exported verl rows, the live
        rollout). The task's messages by default; a domain whose opening shows state played from the task
        (ALFWorld-Step's transcript so far) builds it here."""
        return thaw(task.messages)
