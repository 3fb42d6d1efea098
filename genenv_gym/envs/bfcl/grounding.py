"""Is a BFCL task's reference answer grounded in its question? The semantic check on LLM-written tasks.

A task whose reference call uses values the question never mentions (``get_weather(city='Paris')`` for
"What is the weather in Rome?") passes every schema check and still teaches the agent to guess: it is
semantically wrong. Every required argument must have at least one allowed value that the question
states: a string (compared on skeletons: case, punctuation and look-alike letters ignored), a number (as
a numeral, or a number word up to twenty), or the elements of a list or the values of a dict. Booleans,
optional arguments (allowed value ``""``) and short codes (three characters or fewer, or upper-case codes
such as ``USD``) are not checked: a question implies them in words.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from genenv_gym.llm_simulator.unicode_skeleton import skeleton

_WORDS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
]
_NON_WORD = re.compile(r"(?:(?<!\d)\.|\.(?!\d)|[^0-9a-z.])+")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _norm(text: str) -> str:
    """Skeleton with single spaces between words; a dot survives only inside a number."""
    return " " + " ".join(_NON_WORD.sub(" ", skeleton(text).replace(",", "")).split()) + " "


def _number_grounded(value: float, question: str) -> bool:
    magnitude = abs(value)
    if any(float(found) == magnitude for found in _NUMBER.findall(question)):
        return True
    return (
        float(magnitude).is_integer()
        and int(magnitude) < len(_WORDS)
        and (f" {_WORDS[int(magnitude)]} " in question)
    )


def value_grounded(value: Any, question: str) -> bool:
    """Whether ``value`` is stated in ``question`` (already normalized with ``_norm``)."""
    if isinstance(value, bool) or value is None:
        return True
    if isinstance(value, int | float):
        return _number_grounded(value, question)
    if isinstance(value, str):
        if len(value) <= 3 or (value.isupper() and len(value) <= 5):
            return True  # codes a question implies in words: "US dollars" for USD, "Celsius" for C
        wanted = _norm(value).strip()
        return not wanted or f" {wanted} " in question or wanted in question.replace(" ", "")
    if isinstance(value, list):
        return all(value_grounded(item, question) for item in value)
    if isinstance(value, Mapping):
        return all(value_grounded(item, question) for item in value.values())
    return True


def ungrounded_arguments(question: str, ground_truth: list[Mapping[str, Any]] | None) -> list[str]:
    """``function.param`` of each required argument none of whose allowed values the question states."""
    text = _norm(question)
    missing = []
    for call in ground_truth or []:
        for function, params in call.items():
            for param, allowed in (params or {}).items():
                options = allowed if isinstance(allowed, list) else [allowed]
                if "" in options or not options:
                    continue
                if not any(value_grounded(option, text) for option in options):
                    missing.append(f"{function}.{param}")
    return missing
