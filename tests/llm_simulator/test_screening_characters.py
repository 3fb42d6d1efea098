"""Generated text may hold only ordinary characters: every other class is rejected, naming the code point
and its category (C0/C1 controls, separators, unusual spaces, format characters, characters that render
as nothing though their category is a letter or a mark, private use, unassigned, surrogates)."""

from __future__ import annotations

import itertools
import unicodedata

import pytest

from genenv_gym.llm_simulator.characters import DEFAULT_IGNORABLE, disallowed_characters, is_default_ignorable
from genenv_gym.llm_simulator.screening import text_problem

REJECTED = {
    "C0 control": [0x00, 0x07, 0x0B, 0x1B, 0x1F],
    "tab and carriage return": [0x09, 0x0D],
    "DEL": [0x7F],
    "C1 control": [0x80, 0x85, 0x9B, 0x9F],
    "line and paragraph separators": [0x2028, 0x2029],
    "unusual spaces": [0xA0, 0x2007, 0x202F, 0x3000, 0x1680],
    "zero-width and joiners": [0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF],
    "bidi controls": [0x200E, 0x202E, 0x2066, 0x2069, 0x061C],
    "soft hyphen": [0xAD],
    "Hangul fillers (Lo)": [0x3164, 0xFFA0, 0x115F, 0x1160],
    "variation selectors (Mn)": [0xFE00, 0xFE0F, 0xE0100, 0xE01EF],
    "combining grapheme joiner (Mn)": [0x034F],
    "Mongolian free variation selectors (Mn)": [0x180B, 0x180F],
    "Khmer inherent vowels (Mn)": [0x17B4, 0x17B5],
    "tags": [0xE0001, 0xE0041, 0xE007F],
    "private use": [0xE000, 0xF0000, 0x10FFFD],
    "unassigned": [0x0378, 0xFFFE, 0xE0080],
    "surrogates": [0xD800, 0xDFFF],
    "blank symbols": [0x2800, 0xFFFC],
    "musical and shorthand format": [0x1D173, 0x1BCA0],
}
CASES = [(name, code) for name, codes in REJECTED.items() for code in codes]


@pytest.mark.parametrize(("name", "code"), CASES, ids=[f"{n}-U+{c:04X}" for n, c in CASES])
def test_every_class_of_hidden_or_control_character_is_rejected_by_code_point(name: str, code: int) -> None:
    text = f"What is the weather in Par{chr(code)}is tomorrow?"
    found = disallowed_characters(text)
    assert found and found[0].startswith(f"U+{code:04X} ("), (name, found)
    assert text_problem(text) == ("characters", f"character(s) outside ordinary text: {', '.join(found)}")


def test_the_reason_names_the_category() -> None:
    assert disallowed_characters("a\u0085b") == ["U+0085 (Cc)"]
    assert disallowed_characters("a\u3164b") == ["U+3164 (Lo, renders as nothing)"]
    assert disallowed_characters("a\u2028b") == ["U+2028 (Zl)"]


@pytest.mark.parametrize(
    "text",
    [
        "Convert 250 US dollars to euros, and 80 £ to ¥ (about 1.5%).",
        "The café in Zürich serves crème brûlée at 20°C; x² + y² = r², 100µF, ε₀ ≈ 8.85e-12.",
        "Line one of a question\nline two of it.",
        "“Quoted” — dashes – and ‘apostrophes’ … ellipses; emoji 🙂 and 中文 letters.",
    ],
)
def test_ordinary_text_passes_the_character_allowlist(text: str) -> None:
    assert disallowed_characters(text) == []


def test_zalgo_stacks_of_combining_marks_are_rejected_but_accents_pass() -> None:
    assert disallowed_characters("e\u0301\u0302\u0303\u0304\u0305")
    assert disallowed_characters("Pokémon, naïve, Ångström") == []
    assert disallowed_characters(unicodedata.normalize("NFD", "Pokémon, naïve")) == []


def test_default_ignorable_table_is_sorted_disjoint_and_holds_the_letter_like_fillers() -> None:
    for (a_start, a_end), (b_start, _) in itertools.pairwise(DEFAULT_IGNORABLE):
        assert a_start <= a_end < b_start
    for code in (0x3164, 0xFFA0, 0x115F, 0x1160, 0xFE0F, 0x034F, 0xE0100, 0x200B, 0x00AD):
        assert is_default_ignorable(code), hex(code)
    for code in (0x41, 0x20, 0x4E2D, 0x3163, 0x1161, 0xFFA1):
        assert not is_default_ignorable(code), hex(code)
