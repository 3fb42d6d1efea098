"""Text as a reader sees it: NFKC, look-alike letters folded to Latin, invisible characters found.

An LLM-written task can hide an instruction or dodge the duplicate check with characters a person does not
see or cannot tell apart: zero-width and other format characters, Unicode tags, lone surrogates, private-use
code points, and Cyrillic/Greek letters that look Latin (``раypal``). ``skeleton`` maps text to the form
the screening compares; ``invisible_characters`` lists what no task needs.
"""

from __future__ import annotations

import unicodedata

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


def invisible_characters(text: str) -> list[str]:
    """``U+XXXX`` of each distinct invisible, surrogate, private-use or unassigned character in ``text``."""
    found = []
    for char in text:
        if unicodedata.category(char) in _INVISIBLE_CATEGORIES and f"U+{ord(char):04X}" not in found:
            found.append(f"U+{ord(char):04X}")
    return found


def _without_surrogates(text: str) -> str:
    return "".join(c for c in text if not 0xD800 <= ord(c) <= 0xDFFF)
