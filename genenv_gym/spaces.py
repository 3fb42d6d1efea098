"""A Gymnasium Text space for natural-language observations and actions."""

from __future__ import annotations

import string
from typing import Any

from gymnasium import spaces

#: Characters ``sample()`` draws from; ``contains()`` accepts any character.
SAMPLE_CHARSET = string.ascii_letters + string.digits + string.punctuation + " \n"


class UnicodeText(spaces.Text):
    """``spaces.Text`` that contains any Unicode string within its length bounds.

    Gymnasium's Text only contains strings over its charset; prompts and model outputs can hold any
    character, so membership checks the length alone. Samples are drawn from printable ASCII.
    """

    def __init__(self, max_length: int, min_length: int = 0, seed: int | None = None) -> None:
        super().__init__(max_length=max_length, min_length=min_length, charset=SAMPLE_CHARSET, seed=seed)

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and self.min_length <= len(x) <= self.max_length

    def __repr__(self) -> str:
        return f"UnicodeText({self.min_length}, {self.max_length})"
