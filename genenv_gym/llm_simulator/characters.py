"""Which characters an LLM-written task may contain: an allowlist of Unicode general categories.

Generated task text is shown to an agent and read by a tokenizer, so it may hold only what ordinary text
is made of: letters (L*), marks (Mn, Mc), numbers (N*), punctuation (P*), symbols (S*), the ordinary space
U+0020 and, between lines, the line feed U+000A. Everything else is rejected with the code point and its
category: C0 and C1 controls (U+0085, U+009B, ...), tab and carriage return, line and paragraph separators
(U+2028/U+2029), spaces other than U+0020 (Zs: U+00A0, U+3000, ...), format characters (Cf: zero-width,
bidi, tags), surrogates, private use and unassigned code points, enclosing marks (Me).

Some allowed categories hold characters that render as nothing: Hangul fillers (Lo), variation selectors
(Mn), the combining grapheme joiner (Mn), Mongolian free variation selectors (Mn). They are Unicode's
``Default_Ignorable_Code_Point`` property, which ``unicodedata`` does not expose, so its ranges are stated
below; they are rejected whatever their category. So are long stacks of combining marks (``Zalgo`` text).
"""

from __future__ import annotations

import unicodedata
from bisect import bisect_right

#: General categories of ordinary text.
ALLOWED_CATEGORIES = frozenset(
    {"Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Nd", "Nl", "No"}
    | {"Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "Sm", "Sc", "Sk", "So"}
)
#: Characters of other categories that ordinary text needs.
ALLOWED_OTHERS = frozenset(" \n")

#: Default_Ignorable_Code_Point, from Unicode 15.1 ``DerivedCoreProperties.txt``
#: (https://www.unicode.org/Public/15.1.0/ucd/DerivedCoreProperties.txt), inclusive ranges.
DEFAULT_IGNORABLE: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD),  # Cf  SOFT HYPHEN
    (0x034F, 0x034F),  # Mn  COMBINING GRAPHEME JOINER
    (0x061C, 0x061C),  # Cf  ARABIC LETTER MARK
    (0x115F, 0x1160),  # Lo  HANGUL CHOSEONG FILLER..HANGUL JUNGSEONG FILLER
    (0x17B4, 0x17B5),  # Mn  KHMER VOWEL INHERENT AQ..AA
    (0x180B, 0x180D),  # Mn  MONGOLIAN FREE VARIATION SELECTOR ONE..THREE
    (0x180E, 0x180E),  # Cf  MONGOLIAN VOWEL SEPARATOR
    (0x180F, 0x180F),  # Mn  MONGOLIAN FREE VARIATION SELECTOR FOUR
    (0x200B, 0x200F),  # Cf  ZERO WIDTH SPACE..RIGHT-TO-LEFT MARK
    (0x202A, 0x202E),  # Cf  LEFT-TO-RIGHT EMBEDDING..RIGHT-TO-LEFT OVERRIDE
    (0x2060, 0x206F),  # Cf/Cn  WORD JOINER..NOMINAL DIGIT SHAPES
    (0x3164, 0x3164),  # Lo  HANGUL FILLER
    (0xFE00, 0xFE0F),  # Mn  VARIATION SELECTOR-1..16
    (0xFEFF, 0xFEFF),  # Cf  ZERO WIDTH NO-BREAK SPACE
    (0xFFA0, 0xFFA0),  # Lo  HALFWIDTH HANGUL FILLER
    (0xFFF0, 0xFFF8),  # Cn  <reserved>
    (0x1BCA0, 0x1BCA3),  # Cf  SHORTHAND FORMAT LETTER OVERLAP..UP STEP
    (0x1D173, 0x1D17A),  # Cf  MUSICAL SYMBOL BEGIN BEAM..END PHRASE
    (0xE0000, 0xE0FFF),  # Cn/Cf/Mn  LANGUAGE TAG, TAG SPACE..CANCEL TAG, VARIATION SELECTOR-17..256
)
#: Symbols outside that property that also render as blank space.
BLANK_SYMBOLS = frozenset({0x2800, 0xFFFC})  # BRAILLE PATTERN BLANK, OBJECT REPLACEMENT CHARACTER
#: The most combining marks one base character may carry.
MAX_COMBINING_RUN = 3

_STARTS = [start for start, _ in DEFAULT_IGNORABLE]


def is_default_ignorable(code_point: int) -> bool:
    """Whether the code point has Unicode's Default_Ignorable_Code_Point property."""
    i = bisect_right(_STARTS, code_point) - 1
    return i >= 0 and DEFAULT_IGNORABLE[i][0] <= code_point <= DEFAULT_IGNORABLE[i][1]


def character_problem(char: str) -> str | None:
    """Why one character may not appear in a generated task (``U+XXXX (category)``), or None."""
    if char in ALLOWED_OTHERS:
        return None
    code = ord(char)
    category = unicodedata.category(char)
    if category not in ALLOWED_CATEGORIES:
        return f"U+{code:04X} ({category})"
    if is_default_ignorable(code):
        return f"U+{code:04X} ({category}, renders as nothing)"
    if code in BLANK_SYMBOLS:
        return f"U+{code:04X} ({category}, renders as blank)"
    return None


def disallowed_characters(text: str, limit: int = 3) -> list[str]:
    """The first ``limit`` distinct disallowed characters of ``text`` as ``U+XXXX (category)``, and a long
    run of combining marks if there is one."""
    found: list[str] = []
    run = 0
    for char in text:
        if char.isascii() and (char.isalnum() or char in " .,?!'\"-:;()"):
            run = 0
            continue
        problem = character_problem(char)
        if problem is not None and problem not in found:
            found.append(problem)
            if len(found) >= limit:
                break
        run = run + 1 if unicodedata.combining(char) else 0
        if run > MAX_COMBINING_RUN:
            found.append(f"more than {MAX_COMBINING_RUN} combining marks in a row")
            break
    return found
