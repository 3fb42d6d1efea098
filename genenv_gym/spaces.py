"""A Gymnasium Text space for natural-language observations and actions."""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.spaces.utils import flatten, flatten_space, unflatten
from gymnasium.vector.utils.shared_memory import read_from_shared_memory

#: Characters ``sample()`` draws from; ``contains()`` accepts any character.
SAMPLE_CHARSET = string.ascii_letters + string.digits + string.punctuation + " \n"
#: Flattened form's padding after the text: one past the largest Unicode code point.
PAD = 0x110000


class UnicodeText(spaces.Text):
    """``spaces.Text`` that contains any Unicode string within its length bounds.

    Gymnasium's Text only contains strings over its charset; prompts and model outputs can hold any
    character, so membership checks the length alone. Samples are drawn from printable ASCII. Flattened
    (and so in the shared memory of ``AsyncVectorEnv``), a text is its code points padded with :data:`PAD`
    to ``max_length``, where Gymnasium's Text would use indices into its charset.
    """

    def __init__(self, max_length: int, min_length: int = 0, seed: int | None = None) -> None:
        super().__init__(max_length=max_length, min_length=min_length, charset=SAMPLE_CHARSET, seed=seed)

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and self.min_length <= len(x) <= self.max_length

    def __repr__(self) -> str:
        return f"UnicodeText({self.min_length}, {self.max_length})"


@flatten.register(UnicodeText)
def _flatten_unicode_text(space: UnicodeText, x: str) -> np.ndarray:
    if len(x) > space.max_length:
        raise ValueError(f"a text of {len(x)} characters does not fit {space!r}")
    out = np.full(space.max_length, PAD, dtype=np.int32)
    out[: len(x)] = np.fromiter(map(ord, x), dtype=np.int32, count=len(x))
    return out


@unflatten.register(UnicodeText)
def _unflatten_unicode_text(space: UnicodeText, x: np.ndarray) -> str:
    return "".join(map(chr, np.asarray(x)[np.asarray(x) < PAD].tolist()))


@flatten_space.register(UnicodeText)
def _flatten_unicode_text_space(space: UnicodeText) -> spaces.Box:
    return spaces.Box(low=0, high=PAD, shape=(space.max_length,), dtype=np.int32)


class SharedTexts(Sequence):
    """The texts in an ``AsyncVectorEnv``'s shared memory, read when indexed (as its arrays are views).

    Gymnasium reads a Text's shared memory once, when the vector env is made, so its observations would
    never change; this view reads the current texts. A copy (``AsyncVectorEnv(copy=True)``, the default,
    returns one) is a plain tuple of strings, as without shared memory.
    """

    def __init__(self, space: UnicodeText, shared_memory: Any, n: int) -> None:
        self._space, self._memory, self._n = space, shared_memory, n

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return tuple(self)[index]
        if not -self._n <= index < self._n:
            raise IndexError(index)
        size = self._space.max_length
        row = np.frombuffer(self._memory.get_obj(), dtype=np.int32)[(index % self._n) * size :][:size]
        return _unflatten_unicode_text(self._space, row)

    def __eq__(self, other: object) -> bool:
        return tuple(self) == (tuple(other) if isinstance(other, (tuple, SharedTexts)) else other)

    __hash__ = None  # type: ignore[assignment]

    def __deepcopy__(self, memo: dict) -> tuple[str, ...]:
        return tuple(self)

    def __repr__(self) -> str:
        return f"SharedTexts({tuple(self)!r})"


@read_from_shared_memory.register(UnicodeText)
def _read_unicode_text(space: UnicodeText, shared_memory: Any, n: int = 1) -> SharedTexts:
    return SharedTexts(space, shared_memory, n)
