"""Whether a generated task repeats one already seen: exact keys, and texts compared in a normal form.

A writer's fingerprint is ``(key, text)``: the key is the task's canonical content (its structured fields
and, for some writers, its text), the text what the agent reads. Two tasks are

- ``duplicate``: equal keys;
- ``near_duplicate``: the same structure (the key with the text taken out: the same reference calls,
  chain or query fields) and a text that says the same in other words: content-word Jaccard at or above
  ``reworded`` after normalising case, look-alike letters, stop words, number formatting, plural and
  verb endings and common synonyms; or, when a key holds no structure of its own, texts whose character
  4-grams (of that normal form) are at least ``threshold`` similar.

Tasks whose structures differ (the same function with other argument values) are never near-duplicates.
"""

from __future__ import annotations

import json
import re
from collections import deque
from typing import Any

from genenv_gym.llm_simulator.language import ENGLISH
from genenv_gym.llm_simulator.unicode_skeleton import skeleton

#: Words of the same meaning in task requests, mapped to one of them.
SYNONYMS: dict[str, str] = {
    word: canonical
    for canonical, words in {
        "get": "fetch retrieve obtain find look lookup show give provide return display pull grab check",
        "compute": "calculate determine work figure estimate evaluate",
        "want": "need like wish require",
        "make": "create generate build produce",
        "tell": "say let know inform",
        "current": "present latest now today",
        "big": "large huge",
        "small": "little tiny",
        "begin": "start",
        "end": "finish stop",
        "buy": "purchase order",
        "book": "reserve",
        "trip": "journey travel",
        "plan": "itinerary schedule",
        "also": "additionally too furthermore",
    }.items()
    for word in [canonical, *words.split()]
}
_STOP = ENGLISH | {"kindly", "tell", "let", "know", "help", "quick"}
_NUMBER = re.compile(r"(?<![\w.])[$€£]?(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?")
_TOKEN = re.compile(r"[a-z0-9]+")


def normal_form(text: str) -> str:
    """``text`` as compared: skeleton (case, look-alikes, invisible characters), numbers written plainly
    (``1,000.00`` is ``1000``), punctuation and extra space dropped."""
    shown = skeleton(text)
    shown = _NUMBER.sub(_plain_number, shown)
    return " ".join(_TOKEN.findall(shown))


def content_words(text: str) -> frozenset[str]:
    """The normal form's words without stop words, stemmed and mapped to a synonym's canonical word."""
    words = set()
    for word in normal_form(text).split():
        if word in _STOP:
            continue
        word = _stem(word)
        words.add(SYNONYMS.get(word, word))
    return frozenset(words)


def shingles(text: str, size: int = 4) -> frozenset[str]:
    """Character n-grams of the text's normal form: a copy with Cyrillic or full-width letters, other
    casing or punctuation is as similar as the plain copy."""
    norm = normal_form(text)
    if len(norm) <= size:
        return frozenset({norm})
    return frozenset(norm[i : i + size] for i in range(len(norm) - size + 1))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def structure_of(key: str, text: str) -> str | None:
    """The key without the text in it (its structured part), or None when the key is not JSON or holds
    nothing but the text."""
    try:
        data = json.loads(key)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, (list, dict)):
        return None
    return json.dumps(_without(data, normal_form(text)), sort_keys=True, default=str)


class Deduplicator:
    """Remembers exact keys, structures and normal forms; says whether a new task repeats one.

    ``threshold``: 4-gram Jaccard at or above which two texts without structure are near-duplicates.
    ``reworded``: content-word Jaccard at or above which two texts of the same structure are.
    ``capacity``: how many recent texts are compared (exact keys are remembered without limit).
    """

    def __init__(self, threshold: float = 0.85, capacity: int = 4096, reworded: float = 0.4) -> None:
        if not 0.0 < threshold <= 1.0:
            raise ValueError(f"threshold must be in (0, 1], got {threshold}")
        self.threshold = threshold
        self.reworded = reworded
        self.keys: set[str] = set()
        self.recent: deque[tuple[str, str | None, frozenset[str], frozenset[str]]] = deque(maxlen=capacity)

    def check(self, key: str, text: str) -> tuple[str, str] | None:
        """``(kind, reason)`` if the task repeats a remembered one (``duplicate`` or ``near_duplicate``)."""
        if key in self.keys:
            return "duplicate", "same content as an earlier task"
        structure = structure_of(key, text)
        words = content_words(text)
        grams = shingles(text)
        for other_key, other_structure, other_words, other_grams in self.recent:
            if structure is not None and other_structure is not None:
                if structure != other_structure:
                    continue
                similarity = jaccard(words, other_words)
                if similarity >= self.reworded:
                    return "near_duplicate", (
                        f"same structure, {similarity:.2f} content words shared with {other_key[:40]!r}"
                    )
            else:
                similarity = jaccard(grams, other_grams)
                if similarity >= self.threshold:
                    return "near_duplicate", f"{similarity:.2f} similar to {other_key[:60]!r}"
        return None

    def add(self, key: str, text: str) -> None:
        self.keys.add(key)
        self.recent.append((key, structure_of(key, text), content_words(text), shingles(text)))


def _plain_number(match: re.Match[str]) -> str:
    whole, fraction = match.group(1).replace(",", ""), (match.group(2) or "").rstrip("0")
    whole = whole.lstrip("0") or "0"
    return f"{whole}.{fraction}" if fraction else whole


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix) and not word.endswith("ss"):
            return word[: -len(suffix)]
    return word


def _without(value: Any, target: str) -> Any:
    if isinstance(value, str):
        return "" if normal_form(value) == target else value
    if isinstance(value, list):
        return [_without(v, target) for v in value]
    if isinstance(value, dict):
        return {k: _without(v, target) for k, v in value.items()}
    return value
