"""Naming a wrong choice: 'did you mean ...?' hints for misspelled names (env ids, agents, config keys)
and the one message for "unknown X; choose from [...]"."""

from __future__ import annotations

import difflib
import reprlib
from collections.abc import Iterable

#: Characters of a given string shown in the message; items of a given list shown.
SHOWN_CHARS = 80
SHOWN_ITEMS = 10


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'X'?)`` for the closest choice, or an empty string when none is close."""
    choices = list(choices)
    lowered = {c.lower(): c for c in choices}
    match = difflib.get_close_matches(word.lower(), list(lowered), n=1, cutoff=0.6)
    return f" (did you mean {lowered[match[0]]!r}?)" if match else ""


def unknown_choice(what: str, given: object, choices: Iterable[object]) -> str:
    """``unknown WHAT 'x' (did you mean 'y'?); choose from [...]``: the message for a value outside
    ``choices``.

    ``given`` may be one value or a list of the unknown ones; a long string is cut to ``SHOWN_CHARS``
    characters and a long list to ``SHOWN_ITEMS`` items, so a hostile value cannot flood the message."""
    choices = list(choices)
    shown = repr(given[:SHOWN_CHARS]) if isinstance(given, str) else _short_repr(given)
    hint = did_you_mean(given, map(str, choices)) if isinstance(given, str) else ""
    return f"unknown {what} {shown}{hint}; choose from {choices}"


def _short_repr(value: object) -> str:
    """``repr(value)`` as Python writes it (``None`` stays ``None``, ``3`` stays ``3``), each string in it
    cut to ``SHOWN_CHARS`` and a long list to its first ``SHOWN_ITEMS`` items."""
    shorten = reprlib.Repr()
    shorten.maxstring = shorten.maxother = SHOWN_CHARS + 2
    shorten.maxlist = shorten.maxtuple = shorten.maxset = shorten.maxfrozenset = SHOWN_ITEMS
    shorten.maxdict = SHOWN_ITEMS
    return shorten.repr(value)


def check_choice(what: str, given: object, choices: Iterable[object]) -> None:
    """Raise ``ValueError(unknown_choice(...))`` unless ``given`` is one of ``choices``."""
    choices = list(choices)
    if given not in choices:
        raise ValueError(unknown_choice(what, given, choices))
