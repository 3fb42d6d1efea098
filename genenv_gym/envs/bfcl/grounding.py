"""Is a BFCL task's reference answer grounded in its question? The value half of the meaning check.

A task whose reference call uses values the question never mentions (``get_weather(city='Paris')`` for
"What is the weather in Rome?") passes every schema check and still teaches the agent to guess: it is
semantically wrong. Every required argument must have at least one allowed value that the question
states or implies, read the way the official records write values:

- a number: as a numeral or in words (``1,000``, ``1e-9``, ``three``, ``8.5 million``), in another
  decimal scale (``5%`` for 0.05, ``100µF`` for 0.0001, ``50 thousand``), as a frequency word
  (``quarterly`` for 4, ``twice`` for 2), a multiple of pi (``2 pi``), a count everyone knows (a deck
  of 52 cards, a die's 6 sides); 0 and 1 are implied by words
  (``from rest``, ``the highest``);
- a string: compared on skeletons (case, punctuation, look-alike letters ignored), whole or by most of
  its words (``New York, NY`` for "New York"; a word matches a word sharing its first four letters);
  a date in any common spelling (``March 11, 2022``); codes of three characters or fewer and
  upper-case codes such as ``USD`` are implied by words;
- an enum value: implied unless the question states another value of the same enum and not this one;
- a list or dict: every element or value.

Booleans and optional arguments (allowed value ``""``) are not checked.
"""

from __future__ import annotations

import datetime
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from genenv_gym.llm_simulator.unicode_skeleton import skeleton
from genenv_gym.text.months import MONTHS
from genenv_gym.text.number_words import numbers_in
from genenv_gym.text.stop_words import FUNCTION_WORDS

_NON_WORD = re.compile(r"[^0-9a-z]+")
_STOP = FUNCTION_WORDS | frozenset(["ca", "ny", "us", "usa"])
#: Frequency and quantity words that imply a number.
_IMPLIED = {
    "twice": (2,),
    "double": (2,),
    "triple": (3,),
    "pair": (2,),
    "couple": (2,),
    "dozen": (12,),
    "quarterly": (4,),
    "monthly": (12, 1),
    "weekly": (52, 7, 1),
    "daily": (365, 1),
    "hourly": (24, 1),
    "annually": (1,),
    "yearly": (1,),
    "annual": (1,),
    "semiannually": (2,),
    "biannually": (2,),
    "week": (7,),
    "weeks": (7,),
    "fortnight": (14,),
    "month": (30, 12),
    "year": (365, 12),
    "decade": (10,),
    "century": (100,),
    "hour": (60, 3600),
    "minute": (60,),
    "half": (0.5, 50),
    "quarter": (0.25, 25),
    "squared": (2,),
    "square": (2,),
    "cubed": (3,),
    "cube": (3,),
}
#: Numbers a question implies by naming a thing everyone counts the same way.
_KNOWN = {"deck": (52, 13, 4, 26), "cards": (52, 13, 4, 26), "die": (6,), "dice": (6,), "poker": (52, 5)}
_IRREGULAR = {
    "woman": "women",
    "women": "woman",
    "man": "men",
    "men": "man",
    "child": "children",
    "children": "child",
    "person": "people",
    "people": "person",
}
_ISO_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::\d{2})?)?$")
_MAX_TEXT = 20_000


def _norm(text: str) -> str:
    """Skeleton with single spaces between lower-case words and digits."""
    return " " + " ".join(_NON_WORD.split(skeleton(text[:_MAX_TEXT]).lower())) + " "


#: Other decimal scales a value may be written in (percent, thousands, micro, ...).
_SCALES = (1, 100, 0.01, 1e3, 1e-3, 1e6, 1e-6, 1e9, 1e-9, 1e-12, 1e12)


class Question:
    """A question read once for the grounding tests: its normalised words and the numbers it states."""

    def __init__(self, text: str) -> None:
        self.raw = text[:_MAX_TEXT]
        self.norm = _norm(self.raw)
        self.squashed = self.norm.replace(" ", "")
        self.words = set(self.norm.split())
        self.words |= {_IRREGULAR[w] for w in self.words if w in _IRREGULAR}
        self.stems = {w[:4] for w in self.words if len(w) >= 4}
        lowered = skeleton(self.raw).lower().replace("µ", "u")
        lowered = re.sub(r"\b\d{4}-\d{2}-\d{2}\b", " ", lowered)  # dates are strings, not numbers
        numbers = set(numbers_in(lowered)) | {float(n) for n in re.findall(r"\d+(?:\.\d+)?", lowered)}
        numbers |= {float(h) + 12 for h in re.findall(r"\b(\d{1,2})\s?pm\b", lowered) if int(h) < 12}
        numbers |= {-n for n in numbers}
        for word, values in _IMPLIED.items():
            if word in self.words:
                numbers.update(values)
        for word, values in _KNOWN.items():
            if word in self.words:
                numbers.update(values)
        if "pi" in self.words or "π" in self.raw:
            numbers |= {n * math.pi for n in list(numbers)} | {math.pi}
        self.numbers = numbers
        self.scales = _SCALES + ((60, 3600) if self.words & {"minute", "minutes", "hour", "hours"} else ())

    def has_word(self, word: str) -> bool:
        return word in self.words or (len(word) >= 4 and word[:4] in self.stems)


def _number_grounded(value: float, question: Question) -> bool:
    if value in (0, 1):
        return True
    for found in question.numbers:
        for scale in question.scales:
            if math.isclose(found * scale, value, rel_tol=1e-6, abs_tol=1e-12):
                return True
        if (
            abs(value) >= 1
            and abs(found) >= 1
            and math.isclose(round(found, 2), round(value, 2), rel_tol=1e-4)
        ):
            return True
    return False


def _date_grounded(match: re.Match, question: Question) -> bool:
    year, month, day = int(match.group(1)), int(match.group(2)), int(match.group(3))
    try:
        datetime.date(year, month, day)
    except ValueError:
        return False
    words = question.words
    month_ok = MONTHS[month - 1] in words or MONTHS[month - 1][:3] in words or str(month) in words
    month_ok = month_ok or f"{month:02d}" in words
    day_ok = any(w in words for w in (str(day), f"{day:02d}")) or any(
        w.startswith(str(day)) and w[len(str(day)) :] in ("st", "nd", "rd", "th") for w in words
    )
    year_ok = str(year) in words or str(year)[2:] in words or "today" in words or "tomorrow" in words
    return month_ok and day_ok and year_ok


def _string_grounded(value: str, question: Question) -> bool:
    if len(value) <= 3 or (value.isupper() and len(value) <= 5):
        return True  # codes a question implies in words: "US dollars" for USD, "Celsius" for C
    date = _ISO_DATE.match(value.strip())
    if date and _date_grounded(date, question):
        return True
    wanted = _norm(value).strip()
    if not wanted or f" {wanted} " in question.norm or wanted.replace(" ", "") in question.squashed:
        return True
    words = [w for w in wanted.split() if w not in _STOP]
    if not words:
        return True
    found = sum(question.has_word(w) or (w.isdigit() and _number_grounded(float(w), question)) for w in words)
    return found * 2 >= len(words) and found >= 1


def value_grounded(value: Any, question: Question | str) -> bool:
    """Whether ``value`` is stated or implied in ``question`` (see the module docstring)."""
    if isinstance(question, str):
        question = Question(question)
    if isinstance(value, bool) or value is None:
        return True
    if isinstance(value, int | float):
        return math.isfinite(value) and _number_grounded(float(value), question)
    if isinstance(value, str):
        return _string_grounded(value, question)
    if isinstance(value, list):
        return all(value_grounded(item, question) for item in value)
    if isinstance(value, Mapping):
        return all(value_grounded(item, question) for item in value.values())
    return True


def _enums(functions: Sequence[Mapping[str, Any]] | None) -> dict[tuple[str, str], list[Any]]:
    enums: dict[tuple[str, str], list[Any]] = {}
    for function in functions or ():
        if not isinstance(function, Mapping):
            continue
        properties = (function.get("parameters") or {}).get("properties") or {}
        if not isinstance(properties, Mapping):
            continue
        for param, spec in properties.items():
            if isinstance(spec, Mapping) and isinstance(spec.get("enum"), list):
                enums[(str(function.get("name")), str(param))] = list(spec["enum"])
    return enums


def _enum_grounded(options: list[Any], enum: list[Any], used: set[str], question: Question) -> bool:
    """An enum value is implied unless the question names a value of its enum that no argument of the
    reference uses (a value another call of a parallel answer, or another parameter, uses is theirs), or
    names values of its enum but not this required one."""
    stated = [
        e for e in enum if isinstance(e, str) and len(e) > 1 and f" {_norm(e).strip()} " in question.norm
    ]
    if not all(any(f" {_norm(e).strip()} " in f" {u} " for u in used) for e in stated):
        return False
    required = "" not in options and all(isinstance(o, str) and o in enum for o in options)
    return not (required and stated and not any(o in stated for o in options))


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list | tuple):
        return [s for v in value for s in _strings(v)]
    return []


def ungrounded_arguments(
    question: str,
    ground_truth: list[Mapping[str, Any]] | None,
    functions: Sequence[Mapping[str, Any]] | None = None,
) -> list[str]:
    """``function.param`` of each required argument none of whose allowed values the question states;
    with ``functions``, also each argument (required or not) whose enum value the question contradicts."""
    text = Question(question)
    enums = _enums(functions)
    used = {_norm(value).strip() for value in _strings(ground_truth)}
    missing = []
    for call in ground_truth or []:
        if not isinstance(call, Mapping):
            continue
        for function, params in call.items():
            if not isinstance(params, Mapping):
                continue
            for param, allowed in params.items():
                options = allowed if isinstance(allowed, list) else [allowed]
                enum = enums.get((str(function), str(param)))
                if enum is not None:
                    key = f"{function}.{param}"
                    grounded = _enum_grounded(options, enum, used, text)
                    if options != [""] and not grounded and key not in missing:
                        missing.append(key)
                    continue
                if "" in options or not options:
                    continue
                if not any(value_grounded(option, text) for option in options):
                    missing.append(f"{function}.{param}")
    return missing
