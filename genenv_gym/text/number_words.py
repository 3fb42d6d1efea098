"""Numbers as a text writes them: numerals (``1,700``, ``3.5k``, ``2e3``) and English number words
(``three thousand one hundred``, ``twenty-five``, ``a dozen``), for the checks that compare what a
generated task's text says with the values its structure holds.
"""

from __future__ import annotations

import re

_UNITS = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
}
_TENS = {
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
_SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
_SINGLE = {"dozen": 12, "half": 0.5, "quarter": 0.25, "twice": 2, "thrice": 3, "once": 1}
#: Number words (``"seven"``) and their values, for callers that look for one word.
NUMBER_WORDS: dict[str, int] = {**_UNITS, **_TENS}
_SUFFIX = {"k": 1_000, "m": 1_000_000, "mm": 1_000_000, "b": 1_000_000_000, "bn": 1_000_000_000}
_NUMERAL = re.compile(
    r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?:[eE]([+-]?\d{1,3}))?(?:\s?(k|m|mm|bn|b)\b)?",
)
_WORD = re.compile(r"[a-z]+")
#: Words longer than this many characters are not read as numbers (bounded work on hostile text).
_MAX_TEXT = 20_000


def numerals(text: str) -> list[float]:
    """The values of the numerals in ``text``, in order (thousands commas and k/m/bn suffixes read)."""
    values = []
    for match in _NUMERAL.finditer(text[:_MAX_TEXT]):
        whole, frac, exp, suffix = match.groups()
        value = float(whole.replace(",", "") + (frac or ""))
        if exp is not None:
            value *= 10.0 ** int(exp)
        if suffix is not None:
            value *= _SUFFIX[suffix.lower()]
        values.append(value)
    return values


def word_numbers(text: str) -> list[float]:
    """The values of the English number phrases in ``text`` (``two thousand five hundred`` is 2500;
    ``3 million`` is read by ``numerals`` as 3, and here as a scale word after a numeral: 3000000)."""
    tokens = _WORD.findall(text[:_MAX_TEXT].lower().replace("-", " "))
    values: list[float] = []
    total = current = 0
    active = False
    for token in tokens:
        if token in _UNITS or token in _TENS:
            current += _UNITS.get(token, 0) + _TENS.get(token, 0)
            active = True
        elif token in _SCALES and active:
            scale = _SCALES[token]
            if scale == 100:
                current = (current or 1) * 100
            else:
                total += (current or 1) * scale
                current = 0
        elif token == "and" and active:
            continue
        else:
            if active:
                values.append(float(total + current))
            total = current = 0
            active = False
            if token in _SINGLE:
                values.append(float(_SINGLE[token]))
    if active:
        values.append(float(total + current))
    return values


def scaled_numerals(text: str) -> list[float]:
    """Numerals followed by a scale word (``3 million``, ``1.5 thousand``)."""
    found = []
    pattern = r"(\d+(?:\.\d+)?)\s+(hundred|thousand|million|billion)\b"
    for match in re.finditer(pattern, text[:_MAX_TEXT].lower()):
        found.append(float(match.group(1)) * _SCALES[match.group(2)])
    return found


def numbers_in(text: str) -> list[float]:
    """Every number ``text`` states, as numerals, number words or numerals with a scale word."""
    return numerals(text) + word_numbers(text) + scaled_numerals(text)
