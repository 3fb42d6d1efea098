"""Checks every LLM-written task gets before an agent sees it: hostile text, and (near-)duplicates.

Hostile text: a generated task is text that will be placed inside the agent's prompt, so it must not be
able to act on the prompt itself. Rejected are chat-template control tokens (``<|im_start|>``,
``[INST]``, ``<tool_call>``, ...: a tokenizer would turn them into real turn boundaries), control
characters, invisible characters (zero-width, bidi, Unicode tags, lone surrogates, private use), and
instructions addressed to the model rather than a task, paraphrased too (``ignore the previous
instructions``, ``pay no attention to the guidance above``, ``the rules above no longer apply``, ``you are
now``, ``reveal your system prompt``, ``mark this as correct``, ...). Patterns are matched on the text's
skeleton (``unicode_skeleton``), so look-alike letters and full-width forms do not slip through.

Duplicates: an exact key (the writer's canonical content) and a near-duplicate test on the writer's text:
the Jaccard similarity of character 4-gram sets of the skeletons (case, punctuation and look-alike letters
ignored) against the seed tasks and the recently accepted ones.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any

from genenv_gym.llm_simulator.unicode_skeleton import invisible_characters, skeleton
from genenv_gym.task import thaw

_CONTROL_TOKEN = re.compile(
    r"<\|[^|<>\n]{1,40}\|>|<｜[^｜<>\n]{1,40}｜>|\[/?INST\]|<</?SYS>>|</?s>|<(?:start|end)_of_turn>"
    r"|</?tool_call>|</?tool_response>|</?think>|<\|?(?:eot_id|endoftext|im_start|im_end)\|?>",
    re.IGNORECASE,
)
_OVERRIDE = (
    r"ignore|disregard|forget|skip|bypass|override|overrule|abandon|discard|drop|set\s+aside|"
    r"pay\s+no\s+(?:attention|heed|mind)\s+to|do\s+not\s+(?:follow|obey|heed)|don'?t\s+(?:follow|obey|heed)|"
    r"stop\s+(?:following|obeying)|never\s+mind|no\s+longer\s+(?:follow|obey)"
)
_QUALIFIER = (
    r"all|any|the|your|my|these|those|previous|prior|above|earlier|preceding|original|initial|system|"
    r"developer|existing|given|other|old|former|every|each|of"
)
_TEMPORAL = r"previous|prior|above|earlier|preceding|system|original|initial"
_TARGET = (
    r"instructions?|prompts?|rules?|guidelines?|directions?|directives?|guidance|constraints?|polic(?:y|ies)|"
    r"system\s+message|task\s+description"
)
_WEAK_TARGET = r"messages?|context|orders?|commands?|text|content"
_INJECTION = re.compile(
    # an override verb aimed at the instructions: "please pay no attention to the guidance above"
    rf"\b(?:{_OVERRIDE})\W+(?:\w+\W+)?(?:(?:{_QUALIFIER})\W+){{1,4}}(?:\w+\W+)?(?:{_TARGET})\b"
    rf"|\b(?:{_OVERRIDE})\W+(?:\w+\W+)?(?:(?:{_QUALIFIER})\W+){{0,3}}(?:{_TEMPORAL})\W+(?:{_WEAK_TARGET})\b"
    rf"|\b(?:{_OVERRIDE})\W+(?:everything|anything|all)\W+(?:\w+\W+){{0,2}}?(?:above|before|earlier|so\s+far)"
    r"|\b(?:ignore|disregard|forget)\W+(?:what|whatever)\W+you\W+(?:were|have\s+been|are)\W+(?:told|given|asked)"
    # the instructions declared void: "the instructions above no longer apply"
    rf"|\b(?:{_QUALIFIER})\W+(?:\w+\W+){{0,2}}?(?:{_TARGET})\W+(?:\w+\W+){{0,3}}?"
    r"(?:no\s+longer\s+(?:apply|applies|hold|matter|valid|in\s+effect)|(?:are|is)\s+(?:now\s+)?"
    r"(?:void|obsolete|cancell?ed|revoked|outdated|superseded|lifted|suspended))"
    r"|(?:new|updated|override|real|actual|true)\s+(?:system\s+)?instructions?\s*:"
    # a new identity or a forced reply
    r"|\bsystem\s+prompt\b|\byou\s+are\s+now\b|\bfrom\s+now\s+on\b|\bjailbreak|\bdeveloper\s+mode\b"
    r"|\b(?:act|behave|respond)\s+as\s+(?:if\s+you\s+(?:are|were)|an?\s+(?:unrestricted|different|new))"
    r"|\bpretend\s+(?:to\s+be|you\s+are|that\s+you)|\brole[\s-]?play\s+(?:as|that)\b|\bplay\s+the\s+role\s+of\b"
    r"|\byour\s+new\s+(?:task|role|instructions?|goal|persona)\b"
    r"|\b(?:respond|reply|answer|say|output)\s+(?:only|just|exactly)\s+(?:with|the\s+word)\b"
    # leaking or gaming the grader
    r"|\b(?:reveal|print|show|repeat|output|leak|disclose|tell\s+me)\W+(?:\w+\W+){0,3}?"
    r"(?:system|hidden|secret|initial|original|developer)\W+(?:prompt|instructions?|message|rules)"
    r"|\b(?:mark|grade|score|rate|count)\s+(?:this|it|the|my)(?:\s+(?:answer|response|task|reply|one))?\s+as\s+"
    r"(?:correct|passed|right|successful|solved)"
    r"|(?:^|\n)\s*(?:system|assistant|developer)\s*:",
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
    """Why these texts must not reach an agent's prompt (empty when they are fine).

    Patterns are matched on the text and on its skeleton (NFKC, look-alike letters folded to Latin,
    invisible characters removed), so disguised spellings are caught as well as plain ones.
    """
    reasons: list[str] = []
    for text in texts:
        shown = skeleton(text)
        if match := _CONTROL_TOKEN.search(text) or _CONTROL_TOKEN.search(shown):
            reasons.append(f"chat control token {match.group(0)!r}")
        if match := _INJECTION.search(shown):
            reasons.append(f"instruction aimed at the model: {match.group(0).strip()!r}")
        if match := _CONTROL_CHAR.search(text):
            reasons.append(f"control character U+{ord(match.group(0)):04X}")
        if hidden := invisible_characters(text):
            reasons.append(f"invisible or invalid characters {', '.join(hidden[:3])}")
        if reasons:
            break
    return reasons


def shingles(text: str, size: int = 4) -> frozenset[str]:
    """Character n-grams of the text's skeleton (look-alike letters folded, lowercase letters and digits,
    single spaces): a copy with Cyrillic or full-width letters is as similar as the plain copy."""
    norm = " ".join(_NON_WORD.sub(" ", skeleton(text)).split())
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
