"""Naming a wrong choice: 'did you mean ...?' hints for misspelled names (env ids, agents, config keys)
and the one message for "unknown X; choose from [...]"."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'X'?)`` for the closest choice, or an empty string when none is close."""
    choices = list(choices)
    lowered = {c.lower(): c for c in choices}
    match = difflib.get_close_matches(word.lower(), list(lowered), n=1, cutoff=0.6)
    return f" (did you mean {lowered[match[0]]!r}?)" if match else ""


def unknown_choice(what: str, given: object, choices: Iterable[object]) -> str:
    """``unknown WHAT 'x' (did you mean 'y'?); choose from [...]``: the message for a value outside
    ``choices``.

    ``given`` may be one value or a list of the unknown ones; a long value is cut to 80 characters."""
    choices = list(choices)
    shown = repr(given) if isinstance(given, list | tuple | set) else repr(str(given)[:80])
    hint = did_you_mean(str(given), map(str, choices)) if isinstance(given, str) else ""
    return f"unknown {what} {shown}{hint}; choose from {choices}"


def check_choice(what: str, given: object, choices: Iterable[object]) -> None:
    """Raise ``ValueError(unknown_choice(...))`` unless ``given`` is one of ``choices``."""
    choices = list(choices)
    if given not in choices:
        raise ValueError(unknown_choice(what, given, choices))
