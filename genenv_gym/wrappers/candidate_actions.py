"""``CandidateActions``: a text-action env behind a ``Discrete(K)`` action space over candidate texts."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from genenv_gym.registry.manifest import domain_spec
from genenv_gym.suggest import check_choice
from genenv_gym.wrappers.candidates import CandidateSource, default_source

#: Candidates per state when neither the caller nor the domain's manifest says how many.
DEFAULT_NUM_CANDIDATES = 8
INVALID_ACTIONS = ("wrap", "raise")


class CandidateActions(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Actions as an index into the current state's candidate texts, for RL libraries without text actions.

    After every ``reset`` and every ``step`` that does not end the episode, a candidate source (see
    ``genenv_gym.wrappers.candidates``) lists at most ``num_candidates`` action texts, shuffled with the
    env's seeded generator; action ``i`` sends the ``i``-th text to the env. For BFCL the candidates are
    the reference answer and distractors built from the task, which turns BFCL into a multiple-choice
    problem; for ALFWorld they are the engine's admissible commands.

    ``info`` carries ``candidates`` (the texts, in action order), ``action_mask`` (bool array of length
    ``num_candidates``: False for slots with no candidate) and, after a step, ``action_text`` (what was
    sent). ``action_masks()`` returns the mask too, the method sb3-contrib's ``MaskablePPO`` calls.

    An index beyond the current candidates (a masked slot, picked by an algorithm that ignores masks)
    wraps around to ``index % len(candidates)`` with ``invalid_action="wrap"`` (default; ``info``
    gets ``masked_action=True``), or raises with ``invalid_action="raise"``.

    Args:
        env: an env with text actions (any ``GenEnv-*`` id).
        num_candidates: ``K``; by default the ``num_candidates`` of the domain's manifest, else 8.
        source: a ``CandidateSource``; default chosen from the env (``default_source``).
        invalid_action: ``"wrap"`` or ``"raise"`` (see above).
    """

    def __init__(
        self,
        env: gym.Env,
        num_candidates: int | None = None,
        source: CandidateSource | None = None,
        invalid_action: str = "wrap",
    ) -> None:
        gym.utils.RecordConstructorArgs.__init__(
            self,
            _disable_deepcopy=True,
            num_candidates=num_candidates,
            source=source,
            invalid_action=invalid_action,
        )
        super().__init__(env)
        check_choice("invalid_action", invalid_action, INVALID_ACTIONS)
        domain = getattr(env.unwrapped, "domain", None)
        if num_candidates is None:
            spec = domain_spec(getattr(domain, "name", ""))
            num_candidates = (spec and spec.num_candidates) or DEFAULT_NUM_CANDIDATES
        if num_candidates < 2:
            raise ValueError(f"num_candidates must be >= 2, got {num_candidates}")
        self.num_candidates = int(num_candidates)
        self.source = source
        self.invalid_action = invalid_action
        self.action_space = spaces.Discrete(self.num_candidates)
        self.candidates: list[str] = []

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        obs, info = self.env.reset(seed=seed, options=options)
        self._refresh(info)
        return obs, info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self.candidates:
            raise RuntimeError("call reset() before step()")
        index = int(action)
        masked = not 0 <= index < len(self.candidates)
        if masked:
            if self.invalid_action == "raise" or not 0 <= index < self.num_candidates:
                raise ValueError(
                    f"action {index} is not one of the {len(self.candidates)} candidates of this state "
                    f"(use action_masks() or info['action_mask'])"
                )
            index %= len(self.candidates)
        text = self.candidates[index]
        obs, reward, terminated, truncated, info = self.env.step(text)
        info["action_text"] = text
        if masked:
            info["masked_action"] = True
        if terminated or truncated:
            info["candidates"] = []
            info["action_mask"] = np.zeros(self.num_candidates, dtype=bool)
        else:
            self._refresh(info)
        return obs, reward, terminated, truncated, info

    def _refresh(self, info: dict[str, Any]) -> None:
        if self.source is None:
            self.source = default_source(self.env, info)
        rng = self.env.unwrapped.np_random
        self.candidates = list(self.source.candidates(self.env, info, self.num_candidates, rng))
        if not self.candidates:
            raise RuntimeError(f"{type(self.source).__name__} gave no candidate action for this state")
        info["candidates"] = list(self.candidates)
        info["action_mask"] = self.action_masks()

    def action_masks(self) -> np.ndarray:
        """True for the action indices that stand for a candidate of the current state."""
        mask = np.zeros(self.num_candidates, dtype=bool)
        mask[: len(self.candidates)] = True
        return mask
