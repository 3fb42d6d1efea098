"""Steps: one planned call and how the user asks for it; the sampler type every backend module fills."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from genenv_gym.envs.bfcl_multiturn.calls import Call


@dataclass(frozen=True)
class Step:
    """One planned call, the clause that asks for it, and (when a value can be left out) the clause
    without it and the user's later sentence that gives it."""

    call: Call
    phrase: str
    vague: str | None = None
    clarification: str | None = None


def _say(value: Any) -> str:
    """A value as the user writes it."""
    if isinstance(value, str):
        return f"'{value}'"
    if isinstance(value, list):
        return ", ".join(_say(v) for v in value)
    return str(value)


def make_step(
    name: str, kwargs: dict[str, Any], phrase: str, vague: str | None = None, noun: str = ""
) -> Step:
    """A Step; ``phrase`` / ``vague`` are format strings over ``kwargs`` (values as :func:`_say` writes)."""
    shown = {k: _say(v) for k, v in kwargs.items()}
    if vague is None:
        return Step(Call(name, dict(kwargs)), phrase.format(**shown))
    missing = next(k for k in kwargs if "{" + k + "}" in phrase and "{" + k + "}" not in vague)
    clarification = f"The {noun} is {shown[missing]}."
    return Step(Call(name, dict(kwargs)), phrase.format(**shown), vague.format(**shown), clarification)


def pick(rng: np.random.Generator, items: list | tuple) -> Any:
    """One item of ``items``, drawn from ``rng``."""
    return items[int(rng.integers(len(items)))]


#: Draws one call of a backend from its current state: ``(instance, rng) -> Step``, or None when the
#: state affords no such call.
Sampler = Callable[[Any, np.random.Generator], Step | None]
