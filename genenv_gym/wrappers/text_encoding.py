"""``TextEncoding``: the shared base of the wrappers that turn text observations into arrays.

A subclass says how a batch of texts becomes arrays (``encode``) and what one encoded text looks like
(``feature_space``). The base builds the observation: the encoded observation text alone (a ``Box``),
or, when the env below offers candidate actions (``CandidateActions``), a ``Dict`` of

- ``"text"``: the encoded observation text,
- ``"candidates"``: the encoded candidate texts, one row per action index (zeros in masked slots),
- ``"action_mask"``: ``MultiBinary(K)``, 1 where the action index stands for a candidate,

so a policy sees what each action index means. Stable-Baselines3 takes the ``Dict`` with
``MultiInputPolicy``; ``gymnasium.wrappers.FlattenObservation`` makes it one ``Box`` for ``MlpPolicy``.
Encodings are cached by text (a task's prompt is served for several attempts).
"""

from __future__ import annotations

from abc import abstractmethod
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces


def candidate_count(env: gym.Env) -> int | None:
    """``K`` of the ``CandidateActions`` wrapper in ``env``'s stack, or None when there is none."""
    try:
        return int(env.get_wrapper_attr("num_candidates"))
    except AttributeError:
        return None


class TextEncoding(gym.Wrapper):
    """Base of the observation encoders (see the module docstring).

    Args:
        env: an env with text observations, optionally wrapped in ``CandidateActions``.
        candidates: encode the candidate actions too (default: whenever the env offers them).
        cache_size: encoded texts kept (least recently used ones are dropped).
    """

    def __init__(self, env: gym.Env, candidates: bool | None = None, cache_size: int = 4096) -> None:
        super().__init__(env)
        k = candidate_count(env)
        if candidates and k is None:
            raise ValueError(
                "candidates=True needs an env wrapped in CandidateActions (it lists no candidates)"
            )
        self.num_candidates = k if candidates is not False else None
        self.cache_size = cache_size
        self._cache: OrderedDict[tuple[bool, str], np.ndarray] = OrderedDict()

    def _build_spaces(self) -> None:
        """Set the observation space from ``feature_space``; subclasses call it at the end of __init__."""
        text = self.feature_space(candidate=False)
        if self.num_candidates is None:
            self.observation_space = text
            return
        row = self.feature_space(candidate=True)
        k = self.num_candidates
        self.observation_space = spaces.Dict(
            {
                "text": text,
                "candidates": spaces.Box(
                    low=np.broadcast_to(row.low, (k, *row.shape)).copy(),
                    high=np.broadcast_to(row.high, (k, *row.shape)).copy(),
                    dtype=row.dtype,
                ),
                "action_mask": spaces.MultiBinary(k),
            }
        )

    @abstractmethod
    def feature_space(self, candidate: bool) -> spaces.Box:
        """The space of one encoded observation text (``candidate=False``) or candidate text."""

    @abstractmethod
    def encode(self, texts: Sequence[str], candidate: bool) -> np.ndarray:
        """Encode a batch of texts: an array of shape ``(len(texts), *feature_space(candidate).shape)``."""

    def encode_cached(self, texts: Sequence[str], candidate: bool) -> np.ndarray:
        """``encode`` with the cache in front of it."""
        keys = [(candidate, t) for t in texts]
        missing = list(dict.fromkeys(k for k in keys if k not in self._cache))
        if missing:
            encoded = self.encode([text for _, text in missing], candidate)
            for key, row in zip(missing, encoded, strict=True):
                self._cache[key] = row
        rows = []
        for key in keys:
            self._cache.move_to_end(key)
            rows.append(self._cache[key])
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)
        space = self.feature_space(candidate)
        return np.stack(rows) if rows else np.zeros((0, *space.shape), dtype=space.dtype)

    def observation(self, obs: str, info: dict[str, Any]) -> Any:
        """The encoded observation for a text observation and its ``info``."""
        text = self.encode_cached([obs], candidate=False)[0]
        if self.num_candidates is None:
            return text
        row = self.feature_space(candidate=True)
        candidates = np.zeros((self.num_candidates, *row.shape), dtype=row.dtype)
        texts = list(info.get("candidates") or [])[: self.num_candidates]
        if texts:
            candidates[: len(texts)] = self.encode_cached(texts, candidate=True)
        mask = np.asarray(info.get("action_mask", np.zeros(self.num_candidates)), dtype=np.int8)
        return {"text": text, "candidates": candidates, "action_mask": mask}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        obs, info = self.env.reset(seed=seed, options=options)
        return self.observation(obs, info), info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        return self.observation(obs, info), reward, terminated, truncated, info
