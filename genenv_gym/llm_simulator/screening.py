"""Checks every LLM-written text gets before an agent sees it, each rejection with its kind and reason.

The strings of a writer's reply (every key and value of its JSON) are data, never instructions. In order,
the first problem found is the rejection:

- ``characters``: a character outside the allowlist of ordinary text (``characters``);
- ``control_token``: a chat-template control token (``instructions.CONTROL_TOKEN``);
- ``instruction``: turn or document structure, or words addressed to the agent, the grader or a role
  (``instructions``);
- ``encoded``: a base64 / hex / ROT13 / reversed payload (``instructions.encoded_problem``);
- ``language``: a sentence that is not English (``language``).

Duplicates (``duplicate``, ``near_duplicate``) are the ``Deduplicator``'s (``duplicates``).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from functools import lru_cache
from typing import Any

from genenv_gym.llm_simulator.characters import disallowed_characters
from genenv_gym.llm_simulator.duplicates import Deduplicator, jaccard, shingles
from genenv_gym.llm_simulator.instructions import (
    CONTROL_TOKEN,
    address_problem,
    encoded_problem,
    structure_problem,
)
from genenv_gym.llm_simulator.language import language_problem
from genenv_gym.llm_simulator.unicode_skeleton import skeleton
from genenv_gym.task import thaw

__all__ = [
    "Deduplicator",
    "jaccard",
    "screen_texts",
    "shingles",
    "strings_in",
    "text_problem",
    "unsafe_reasons",
]

#: Rejection kinds of hostile text, in the order they are checked.
TEXT_KINDS = ("characters", "control_token", "instruction", "encoded", "language")


def strings_in(value: Any) -> Iterator[str]:
    """Every string in nested JSON data (keys included)."""
    value = thaw(value)
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from strings_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings_in(item)


def text_problem(text: str, check_language: bool = True, prose: bool = True) -> tuple[str, str] | None:
    """``(kind, reason)`` of the first problem of one generated string, or None when it may be shown.

    ``check_language=False`` skips the language test (for a value quoted inside another string, which is
    tested there with its quotes); ``prose=False`` tests world-state data (see ``language_problem``).
    Verdicts on short strings are remembered (names, types and descriptions
    repeat across tasks).
    """
    if len(text) <= CACHED_CHARS:
        return _cached_problem(text, check_language, prose)
    return _text_problem(text, check_language, prose)


#: Strings up to this long have their verdict cached.
CACHED_CHARS = 2000


@lru_cache(maxsize=16384)
def _cached_problem(text: str, check_language: bool, prose: bool) -> tuple[str, str] | None:
    return _text_problem(text, check_language, prose)


def _text_problem(text: str, check_language: bool, prose: bool = True) -> tuple[str, str] | None:
    if hidden := disallowed_characters(text):
        return "characters", f"character(s) outside ordinary text: {', '.join(hidden)}"
    if match := CONTROL_TOKEN.search(text) or CONTROL_TOKEN.search(skeleton(text)):
        return "control_token", f"chat control token {match.group(0)!r}"
    if reason := structure_problem(text) or address_problem(text):
        return "instruction", reason
    if reason := encoded_problem(text):
        return "encoded", reason
    if check_language and (reason := language_problem(text, prose)):
        return "language", f"not English: {reason}"
    return None


def screen_texts(texts: Iterable[str], state: Collection[str] = ()) -> tuple[str, str] | None:
    """The first ``(kind, reason)`` among ``texts`` (the strings of one reply), or None when all may be
    shown. A string that occurs inside another of them (an argument value stated in the question) gets its
    language tested there, in context; a string in ``state`` (world-state data, not prose: see
    ``TaskWriter.state_keys``) is tested as data."""
    texts = list(texts)
    state = frozenset(state)
    longer = sorted({t for t in texts if " " in t}, key=len, reverse=True)[:64]
    for text in texts:
        inside = len(text) >= 2 and any(len(other) > len(text) and text in other for other in longer)
        if problem := text_problem(text, check_language=not inside, prose=text not in state):
            return problem
    return None


def unsafe_reasons(texts: Iterable[str]) -> list[str]:
    """Why these texts must not reach an agent's prompt (empty when they are fine): ``["kind: reason"]``."""
    problem = screen_texts(texts)
    return [] if problem is None else [f"{problem[0]}: {problem[1]}"]
