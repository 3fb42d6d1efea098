"""Text as a reader sees it: NFKC, look-alike letters folded to Latin, invisible characters found.

An LLM-written task can hide an instruction or dodge the duplicate check with characters a person does not
see or cannot tell apart: zero-width and other format characters, Unicode tags, lone surrogates, private-use
code points, and Cyrillic/Greek letters that look Latin (``раypal``). ``skeleton`` maps text to the form
the screening compares; ``invisible_characters`` lists what no task needs.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

#: Cyrillic, Greek and other letters that render like a Latin letter in common fonts (after NFKC), folded
#: to that letter. A subset of Unicode's confusables that covers the letters used to disguise English.
CONFUSABLES: dict[str, str] = {
    **dict(zip("аеорсуххіјѕԁԛԝɡɩℓ", "aeopcyxxijsdqwgil", strict=True)),
    **dict(zip("АВЕКМНОРСТХІЈЅԌ", "abekmhopctxijsg", strict=True)),
    **dict(zip("αβεικνορτυχωϲϳ", "aBeiknoptuxwcj", strict=True)),
    **dict(zip("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧ", "abezhikmnoptyx", strict=True)),
    "ı": "i",
    "ȷ": "j",
    "ſ": "s",
    "ᴀ": "a",
    "ᴄ": "c",
    "ᴏ": "o",
    "ᴜ": "u",
    "ᴠ": "v",
    "ᴡ": "w",
    "ᴢ": "z",
}
_TABLE = str.maketrans(CONFUSABLES)
#: General categories no task text needs: format (zero-width, bidi, tags), surrogate, private use, unassigned.
_INVISIBLE_CATEGORIES = {"Cf", "Cs", "Co", "Cn"}


def skeleton(text: str) -> str:
    """``text`` after NFKC, with look-alike letters folded to Latin, combining marks and invisible
    characters removed, in lower case: the form two texts are compared in."""
    folded = unicodedata.normalize("NFKC", _without_surrogates(text)).translate(_TABLE)
    decomposed = unicodedata.normalize("NFKD", folded)
    kept = (
        c
        for c in decomposed
        if not unicodedata.combining(c) and unicodedata.category(c) not in _INVISIBLE_CATEGORIES
    )
    return "".join(kept).translate(_TABLE).lower()


#: Digits and symbols that stand for letters in leetspeak (``1gn0r3`` is ``ignore``).
LEET: dict[str, str] = {
    "0": "o",
    "1": "i",
    "3": "e",
    "4": "a",
    "5": "s",
    "7": "t",
    "8": "b",
    "@": "a",
    "$": "s",
}
_LEET_TABLE = str.maketrans(LEET)
_LEET_TOKEN = re.compile(r"[a-z0-9@$]+")
_LEET_CHAR = re.compile(r"[0-9@$]")
_SPELLED_OUT = re.compile(r"\b(?:\w[ .\-_*+/|~]{1,3}){2,}\w\b")
_SEPARATORS = re.compile(r"[ .\-_*+/|~]{1,3}")
_SPLIT_WORD = re.compile(r"(?<=[a-z])[\-._·](?=[a-z])")


def deleet(text: str) -> str:
    """``text`` (a skeleton) with the digits inside words that also hold letters read as letters."""
    if not _LEET_CHAR.search(text):
        return text
    return _LEET_TOKEN.sub(
        lambda m: m.group(0).translate(_LEET_TABLE) if _is_mixed(m.group(0)) else m.group(0), text
    )


def _is_leet_word(token: str) -> bool:
    return _is_mixed(token) and any(c.isalpha() for c in token)


def _is_mixed(token: str) -> bool:
    return not token.isdigit() and any(c.isdigit() or c in "@$" for c in token)


def respaced(text: str) -> str:
    """``text`` with letters spelled out one by one (``i g n o r e``, ``i.g.n.o.r.e``) written as words: in a
    spelled-out run the commonest separator joins letters and any other separator is a word break."""
    return _SPELLED_OUT.sub(_join_spelled, text)


def unsplit(text: str) -> str:
    """``text`` with hyphens, dots and underscores between letters removed (``dis-re-gard``, ``ig.nore``)."""
    return _SPLIT_WORD.sub("", text)


def _join_spelled(match: re.Match[str]) -> str:
    run = match.group(0)
    separators = _SEPARATORS.findall(run)
    common = max(sorted(set(separators)), key=separators.count)
    return _SEPARATORS.sub(lambda m: "" if m.group(0) == common else " ", run)


@lru_cache(maxsize=4096)
def reading_forms(text: str) -> tuple[str, ...]:
    """The forms a disguised instruction is looked for in: the skeleton, then with spelled-out letters
    joined and leetspeak read as letters (each only when it differs)."""
    shown = skeleton(text)
    forms = [shown]
    joined = respaced(shown)
    candidates = [joined, deleet(joined), unsplit(shown), deleet(unsplit(shown))]
    if _LEET_CHAR.search(shown) and sum(map(_is_leet_word, _LEET_TOKEN.findall(shown))) >= 2:
        candidates.append(
            respaced(shown.translate(_LEET_TABLE))
        )  # leetspeak: bare digits between such words too
    for form in candidates:
        if form not in forms:
            forms.append(form)
    return tuple(forms)


def invisible_characters(text: str) -> list[str]:
    """``U+XXXX`` of each distinct invisible, surrogate, private-use or unassigned character in ``text``."""
    found = []
    for char in text:
        if unicodedata.category(char) in _INVISIBLE_CATEGORIES and f"U+{ord(char):04X}" not in found:
            found.append(f"U+{ord(char):04X}")
    return found


def _without_surrogates(text: str) -> str:
    return "".join(c for c in text if not 0xD800 <= ord(c) <= 0xDFFF)
