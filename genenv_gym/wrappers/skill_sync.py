"""One exact skill estimate for copies of a simulator env that run in several processes.

A ``GenEnv-Sim-*`` env keeps the agent's skill estimate (a ``SkillTracker``) in its own process. With
``gymnasium.make_vec(..., vectorization_mode="async")`` (or SB3's ``SubprocVecEnv``) every copy would see
only its own share of the outcomes. The design here: **one authoritative tracker in the main process,
fed from the vector env's step infos, pushed back into every copy**.

- ``SkillSync`` wraps each copy: it exposes ``skill_config()``, ``skill_state()`` and
  ``load_skill_state(state)``, which the vector env reaches with ``call`` / ``env_method``.
- ``SkillAggregator`` (main process) replays finished episodes in a fixed order, vector step by vector
  step and, within a step, by env index, into a ``SkillTracker`` with the copies' settings.
- ``SkillSyncVector`` wraps a Gymnasium vector env: after every step in which an episode ended it
  records the outcomes (``info["level"]``, ``info["success"]``) and loads the aggregate into every copy,
  so each copy's simulator is conditioned on the estimate from *all* outcomes so far. (SB3: the
  ``SkillSyncCallback`` in ``genenv_gym.wrappers.sb3`` does the same.)

The aggregate is exactly the tracker one process would hold had it seen the same outcomes in that
order (the tracker's forgetting makes the order matter, so it is fixed). What is *not* shared: each
copy's environment policy (the ``ProceduralSimulator``'s level distribution) still learns by RWR from the
tasks that copy served; the ``ProceduralSimulator`` reads the agent through those outcomes only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import VectorEnv, VectorWrapper

from genenv_gym.skill import SkillEstimate, SkillTracker

__all__ = ["SkillAggregator", "SkillSync", "SkillSyncVector"]


class SkillSync(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Exposes a simulator env's skill tracker to its vector env (``call("load_skill_state", state)``)."""

    def __init__(self, env: gym.Env) -> None:
        gym.utils.RecordConstructorArgs.__init__(self)
        super().__init__(env)
        if not isinstance(getattr(env.unwrapped, "tracker", None), SkillTracker):
            raise TypeError(
                f"SkillSync needs a simulator env (GenEnv-Sim-*) with a skill tracker; "
                f"{type(env.unwrapped).__name__} has none"
            )

    @property
    def tracker(self) -> SkillTracker:
        return self.env.unwrapped.tracker

    def skill_config(self) -> dict[str, Any]:
        """What an aggregator needs to mirror this tracker: levels, alpha and decay."""
        return {
            "num_levels": self.tracker.num_levels,
            "alpha": self.tracker.alpha,
            "decay": self.tracker.decay,
        }

    def skill_state(self) -> dict[str, Any]:
        """This copy's tracker state (``SkillTracker.state_dict``)."""
        return self.tracker.state_dict()

    def load_skill_state(self, state: Mapping[str, Any]) -> None:
        """Replace this copy's tracker state with ``state`` (the aggregate)."""
        self.tracker.load_state_dict(dict(state))


class SkillAggregator:
    """The main process's tracker, fed with finished episodes in vector-step, then env-index order."""

    def __init__(self, num_levels: int, alpha: float = 0.5, decay: float = 0.95) -> None:
        self.tracker = SkillTracker(num_levels, alpha, decay)
        self.recorded = 0

    def record(self, level: int, success: bool) -> None:
        """One finished episode (levels beyond the last are counted at the last, as the env does)."""
        self.tracker.update(min(max(int(level), 0), self.tracker.num_levels - 1), bool(success))
        self.recorded += 1

    def record_infos(self, infos: Sequence[Mapping[str, Any]], dones: Sequence[bool]) -> int:
        """Outcomes from per-env info dicts (SB3's ``infos`` list); returns how many were recorded."""
        count = 0
        for info, done in zip(infos, dones, strict=True):
            if done and "level" in info:
                self.record(info["level"], info.get("success", False))
                count += 1
        return count

    def record_vector_infos(
        self, infos: Mapping[str, Any], terminated: np.ndarray, truncated: np.ndarray
    ) -> int:
        """Outcomes from a Gymnasium vector env's dict-of-arrays ``infos`` (either autoreset mode)."""
        done = np.logical_or(terminated, truncated)
        source = infos.get("final_info", infos) if "final_info" in infos else infos
        if "level" not in source:
            return 0
        has_level = np.asarray(source.get("_level", np.ones(len(done), dtype=bool)))
        successes = source.get("success", np.zeros(len(done), dtype=bool))
        count = 0
        for i in np.flatnonzero(done & has_level):
            self.record(int(source["level"][i]), bool(successes[i]))
            count += 1
        return count

    def estimate(self) -> SkillEstimate:
        return self.tracker.estimate()

    def state_dict(self) -> dict[str, Any]:
        return self.tracker.state_dict()


class SkillSyncVector(VectorWrapper):
    """A Gymnasium vector env of simulator-env copies that share one exact skill estimate.

    Each copy must be wrapped in ``SkillSync``, e.g.
    ``gymnasium.make_vec("GenEnv-Sim-BFCL-v0", 4, vectorization_mode="async", wrappers=[SkillSync])``.
    ``skill_estimate()`` is the aggregate; after every step in which an episode ended, it is loaded into
    every copy.
    """

    def __init__(self, env: VectorEnv) -> None:
        super().__init__(env)
        try:
            configs = env.call("skill_config")
        except AttributeError as error:
            raise TypeError(
                "SkillSyncVector needs every copy wrapped in SkillSync: "
                "gymnasium.make_vec(env_id, n, wrappers=[SkillSync])"
            ) from error
        if any(c != configs[0] for c in configs):
            raise ValueError(f"the copies' skill trackers differ in their settings: {configs}")
        self.aggregator = SkillAggregator(**configs[0])

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        obs, rewards, terminated, truncated, infos = self.env.step(actions)
        if self.aggregator.record_vector_infos(infos, terminated, truncated):
            self.env.call("load_skill_state", self.aggregator.state_dict())
        return obs, rewards, terminated, truncated, infos

    def skill_estimate(self) -> SkillEstimate:
        """The skill estimate from every copy's outcomes."""
        return self.aggregator.estimate()

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """Call a method (or read an attribute) of every copy, as the wrapped vector env does."""
        return self.env.call(name, *args, **kwargs)

    def get_attr(self, name: str) -> tuple[Any, ...]:
        return self.env.get_attr(name)
