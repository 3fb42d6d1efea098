"""Recording a fixed scripted episode, so that every transport can be checked against in-process play.

``scripted_actions`` plays the oracle (or the seeded random agent: the "fixed wrong script") in-process and
keeps its actions; ``record`` replays a list of actions on any Gymnasium env (in-process, ``RemoteEnv``,
an adapter) and ``record_vector`` on copy 0 of a vector env. Two transports agree when their
``Transcript``s are equal: observations, rewards, terminated/truncated, and ``info`` after ``info_to_json``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import gymnasium as gym
import numpy as np

from genenv_gym.serve.wire import info_to_json

#: Steps after which a script stops even if the episode has not ended (every episode ends sooner).
MAX_SCRIPT_STEPS = 200


@dataclass(frozen=True)
class StepRecord:
    action: str
    observation: str
    reward: float
    terminated: bool
    truncated: bool
    info: dict[str, Any]


@dataclass(frozen=True)
class Transcript:
    """One episode: the reset's observation and info, then every step (info as JSON throughout)."""

    observation: str
    info: dict[str, Any]
    steps: tuple[StepRecord, ...]

    @property
    def actions(self) -> list[str]:
        return [s.action for s in self.steps]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def record(
    env: gym.Env,
    policy: Sequence[str] | Callable[[str, dict[str, Any]], str],
    seed: int | None = 0,
    options: dict[str, Any] | None = None,
    max_steps: int = MAX_SCRIPT_STEPS,
) -> Transcript:
    """Reset ``env`` with ``seed``/``options`` and play ``policy`` (a list of actions, or a function of the
    observation and info) until the episode ends, the actions run out or ``max_steps``."""
    obs, info = env.reset(seed=seed, options=options)
    start = (obs, info_to_json(info))
    steps: list[StepRecord] = []
    actions = list(policy) if not callable(policy) else None
    while len(steps) < max_steps and (actions is None or len(steps) < len(actions)):
        action = actions[len(steps)] if actions is not None else policy(obs, info)
        obs, reward, terminated, truncated, info = env.step(action)
        steps.append(
            StepRecord(action, obs, float(reward), bool(terminated), bool(truncated), info_to_json(info))
        )
        if terminated or truncated:
            break
    return Transcript(start[0], start[1], tuple(steps))


def scripted_actions(
    env: gym.Env, agent: str, seed: int | None = 0, options: dict[str, Any] | None = None, agent_seed: int = 0
) -> Transcript:
    """The in-process episode of a scripted agent (``"oracle"``, or ``"random"`` seeded by ``agent_seed``):
    its ``actions`` are the fixed script the other transports replay."""
    from genenv_gym.agents.scripted import make_agent

    scripted = make_agent(agent, env, agent_seed)
    return record(env, scripted.act, seed, options)


def record_vector(
    vector_env: gym.vector.VectorEnv,
    actions: Sequence[str],
    seed: int | None = 0,
    options: dict[str, Any] | None = None,
) -> Transcript:
    """``record`` on copy 0 of a vector env (every copy gets the same actions; copy 0 is read).

    Use one copy to compare infos: Gymnasium stacks the copies' infos key by key, and a key whose values
    differ in type across copies (a dict in one, None in another) does not come back intact.
    """
    n = vector_env.num_envs
    obs, infos = vector_env.reset(seed=seed, options=options)
    start = (obs[0], info_to_json(unstack_info(infos, 0)))
    steps: list[StepRecord] = []
    for action in actions:
        obs, rewards, terminated, truncated, infos = vector_env.step(tuple([action] * n))
        info = info_to_json(unstack_info(infos, 0))
        steps.append(
            StepRecord(action, obs[0], float(rewards[0]), bool(terminated[0]), bool(truncated[0]), info)
        )
        if terminated[0] or truncated[0]:
            break
    return Transcript(start[0], start[1], tuple(steps))


def unstack_info(infos: dict[str, Any], index: int) -> dict[str, Any]:
    """Copy ``index``'s info out of a vector env's stacked infos (Gymnasium's ``_key`` masks)."""
    info: dict[str, Any] = {}
    for key, value in infos.items():
        if isinstance(key, str) and key.startswith("_"):
            continue
        mask = infos.get(f"_{key}")
        if mask is not None and not bool(mask[index]):
            continue
        if isinstance(value, dict):
            info[key] = unstack_info(value, index)
        elif isinstance(value, np.ndarray):
            item = value[index]
            info[key] = item.item() if isinstance(item, np.generic) else item
        else:
            info[key] = value[index]
    return info
