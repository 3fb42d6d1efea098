"""'Did you mean ...?' hints for misspelled names (env ids, agents, config keys)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'X'?)`` for the closest choice, or an empty string when none is close."""
    choices = list(choices)
    lowered = {c.lower(): c for c in choices}
    match = difflib.get_close_matches(word.lower(), list(lowered), n=1, cutoff=0.6)
    return f" (did you mean {lowered[match[0]]!r}?)" if match else ""
