"""Checks every LLM-written task gets before an agent sees it: hostile text, and (near-)duplicates.

Hostile text: a generated task is text that will be placed inside the agent's prompt, so it must not be
able to act on the prompt itself. Rejected are chat-template control tokens (``<|im_start|>``,
``[INST]``, ``<tool_call>``, ...: a tokenizer would turn them into real turn boundaries), control
characters, and instructions addressed to the model rather than a task (``ignore the previous
instructions``, ``you are now``, ``system prompt``, ...).

Duplicates: an exact key (the writer's canonical content) and a near-duplicate test on the writer's text:
the Jaccard similarity of character 4-gram sets (case and punctuation ignored) against the seed tasks
and the recently accepted ones.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any

from genenv_gym.task import thaw

_CONTROL_TOKEN = re.compile(
    r"<\|[^|<>\n]{1,40}\|>|<｜[^｜<>\n]{1,40}｜>|\[/?INST\]|<</?SYS>>|</?s>|<(?:start|end)_of_turn>"
    r"|</?tool_call>|</?tool_response>|</?think>|<\|?(?:eot_id|endoftext|im_start|im_end)\|?>",
    re.IGNORECASE,
)
_INJECTION = re.compile(
    r"ignore\s+(?:all\s+|any\s+|the\s+|your\s+)*(?:previous|prior|above|earlier|preceding)\s+"
    r"(?:instructions?|prompts?|messages?|rules?)"
    r"|disregard\s+(?:all\s+|any\s+|the\s+|your\s+)*(?:previous|prior|above|system|earlier)"
    r"|forget\s+(?:all\s+|everything\s+|your\s+)*(?:previous|prior|above|instructions?)"
    r"|(?:new|updated|override)\s+(?:system\s+)?instructions?\s*:"
    r"|\bsystem\s+prompt\b|\byou\s+are\s+now\b|\bjailbreak\b|\bdeveloper\s+mode\b"
    r"|(?:^|\n)\s*(?:system|assistant)\s*:",
    re.IGNORECASE,
)
_NON_WORD = re.compile(r"[^0-9a-z]+")
_CONTROL_CHAR = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u202a-\u202e\u2066-\u2069]")


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


def unsafe_reasons(texts: Iterable[str]) -> list[str]:
    """Why these texts must not reach an agent's prompt (empty when they are fine)."""
    reasons: list[str] = []
    for text in texts:
        if match := _CONTROL_TOKEN.search(text):
            reasons.append(f"chat control token {match.group(0)!r}")
        if match := _INJECTION.search(text):
            reasons.append(f"instruction aimed at the model: {match.group(0).strip()!r}")
        if match := _CONTROL_CHAR.search(text):
            reasons.append(f"control character U+{ord(match.group(0)):04X}")
        if reasons:
            break
    return reasons


def shingles(text: str, size: int = 4) -> frozenset[str]:
    """Character n-grams of the normalized text (lowercase letters and digits, single spaces)."""
    norm = " ".join(_NON_WORD.sub(" ", text.lower()).split())
    if len(norm) <= size:
        return frozenset({norm})
    return frozenset(norm[i : i + size] for i in range(len(norm) - size + 1))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


class Deduplicator:
    """Remembers exact keys and shingle sets; says whether a new task repeats one.

    ``threshold``: Jaccard similarity at or above which a text is a near-duplicate. ``capacity``: how
    many recent texts are compared (exact keys are remembered without limit).
    """

    def __init__(self, threshold: float = 0.85, capacity: int = 4096) -> None:
        if not 0.0 < threshold <= 1.0:
            raise ValueError(f"threshold must be in (0, 1], got {threshold}")
        self.threshold = threshold
        self.keys: set[str] = set()
        self.recent: deque[tuple[str, frozenset[str]]] = deque(maxlen=capacity)

    def check(self, key: str, text: str) -> tuple[str, str] | None:
        """``(kind, reason)`` if the task repeats a remembered one (``duplicate`` or ``near_duplicate``)."""
        if key in self.keys:
            return "duplicate", "same content as an earlier task"
        grams = shingles(text)
        for other_key, other in self.recent:
            similarity = jaccard(grams, other)
            if similarity >= self.threshold:
                return "near_duplicate", f"{similarity:.2f} similar to {other_key[:60]!r}"
        return None

    def add(self, key: str, text: str) -> None:
        self.keys.add(key)
        self.recent.append((key, shingles(text)))
