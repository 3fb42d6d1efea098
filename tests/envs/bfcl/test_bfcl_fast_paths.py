"""The BFCL verifier's fast paths give exactly what the ``ast`` decoder and the official-shaped checks give.

* ``literal_calls.read_literal_calls`` (outputs read without ``ast``) against ``decode._decode_with_ast``:
  on generated literal calls in varied layouts, on hostile text, and on every real gold answer;
* the checker's per-record index (possible answers standardized once) against the same checks reading the
  possible answers as the official code does, on real records and their mutations;
* ``decode_errors.short_repr`` against ``reprlib``, the record-index cache, and the domain's per-task records.
"""

from __future__ import annotations

import math
import reprlib
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_bfcl_real_records import MUTATIONS, load_bfcl, mutated_output

from genenv_gym.envs.bfcl import answer_index, checker
from genenv_gym.envs.bfcl.categories import AST_CATEGORIES, NO_GROUND_TRUTH, language_of
from genenv_gym.envs.bfcl.decode import _decode_with_ast, decode_python
from genenv_gym.envs.bfcl.decode_errors import DecodeError, short_repr
from genenv_gym.envs.bfcl.domain import BFCLDomain
from genenv_gym.envs.bfcl.literal_calls import MAX_DEPTH, read_literal_calls
from genenv_gym.envs.bfcl.output_text import bracket_wrap
from genenv_gym.envs.bfcl.render import render_answer

GT_CATEGORIES = tuple(c for c in AST_CATEGORIES if c not in NO_GROUND_TRUTH)


def _typed(value: Any) -> str:
    """A form that tells ``1``, ``1.0``, ``True``, ``-0.0``, tuples and lists apart (``repr`` does)."""
    return repr(value)


def _with_ast(text: str) -> Any:
    """What the ``ast`` path decodes ``text`` to, or the DecodeError's message."""
    try:
        return _typed(_decode_with_ast(bracket_wrap(text)))
    except DecodeError as exc:
        return f"DecodeError: {exc}"


# ------------------------------------------------------------------------------------- generated calls

_NAMES = st.sampled_from(["f", "get_weather", "a.b", "math.sqrt", "x1", "_p", "match", "type", "print"])
_KEYS = st.sampled_from(["a", "unit", "b_2", "match", "_", "None_", "x"])
_BLANK = st.sampled_from(["", " ", "  ", "\t", "\n", " \n "])
_STRING_CHARS = st.characters(blacklist_categories=("Cs",), blacklist_characters="\\\n\r\x00")


def _string_literal(text: str) -> str:
    if "'" not in text:
        return f"'{text}'"
    if '"' not in text:
        return f'"{text}"'
    return "'" + text.replace("'", "") + "'"


_SCALARS = st.one_of(
    st.text(_STRING_CHARS, max_size=12).map(_string_literal),
    st.integers(-(10**30), 10**30).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr).filter(lambda s: "e" not in s or "." in s),
    st.sampled_from(
        ["True", "False", "None", "celsius", "true", "null", "-0", "-0.0", "1e5", "2E-3", "1.5e+300"]
    ),
    st.sampled_from(["1e400", "-1e400", "0.1", "123456789012345678901234567890.5"]),
)


def _join(blank: str, parts: list[str], trailing: bool) -> str:
    return ("," + blank).join(parts) + ("," if trailing and parts else "")


@st.composite
def _literal(draw: st.DrawFn, depth: int = 0) -> str:
    kind = draw(st.integers(0, 5 if depth < 3 else 0))
    blank = draw(_BLANK)
    trailing = draw(st.booleans())
    if kind in (0, 1):
        return draw(_SCALARS)
    if kind == 2:
        items = draw(st.lists(_literal(depth + 1), max_size=4))
        return "[" + blank + _join(blank, items, trailing) + blank + "]"
    if kind == 3:
        items = draw(st.lists(_literal(depth + 1), max_size=3))
        if len(items) == 1 and not trailing:
            return "(" + items[0] + ")"  # parentheses around one value
        return "(" + _join(blank, items, trailing or len(items) == 1) + ")"
    keys = draw(st.lists(_SCALARS, max_size=3))
    values = [draw(_literal(depth + 1)) for _ in keys]
    pairs = [f"{k}{blank}:{blank}{v}" for k, v in zip(keys, values, strict=True)]
    return "{" + _join(blank, pairs, trailing) + "}"


@st.composite
def _call_list(draw: st.DrawFn) -> str:
    calls = []
    for _ in range(draw(st.integers(0, 3))):
        blank = draw(_BLANK)
        positional = [draw(_literal()) for _ in range(draw(st.integers(0, 1)))]
        keywords = [f"{draw(_KEYS)}{blank}={blank}{draw(_literal())}" for _ in range(draw(st.integers(0, 3)))]
        calls.append(
            f"{draw(_NAMES)}{blank}(" + _join(blank, positional + keywords, draw(st.booleans())) + ")"
        )
    text = "[" + _join(draw(_BLANK), calls, draw(st.booleans())) + "]"
    return draw(st.sampled_from([text, text[1:-1], f"```\n{text}\n```", f" {text}\n"]))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_call_list())
def test_reader_matches_ast_on_literal_calls(text: str) -> None:
    read = read_literal_calls(bracket_wrap(text))
    assert read is not None, "the reader declined an output of the shape it documents"
    assert _typed(read) == _with_ast(text) == _typed(decode_python(text))


def test_reader_reads_the_common_shapes() -> None:
    cases = {
        "[f(a=1, b='x')]": [{"f": {"a": 1, "b": "x"}}],
        "f(a=-5, b=-0.0, c=1e400), m.g(d=[1, (2,), (3)], e={'k': None, 1: True})": [
            {"f": {"a": -5, "b": -0.0, "c": math.inf}},
            {"m.g": {"d": [1, (2,), 3], "e": {"k": None, 1: True}}},
        ],
        "[f(1, 'x', a=celsius, a=2,)]": [{"f": {"a": 2}}],
        "[]": [],
        '[f(s="it\'s", t=())]': [{"f": {"s": "it's", "t": ()}}],
    }
    for text, expected in cases.items():
        read = read_literal_calls(bracket_wrap(text))
        assert read is not None, text
        assert _typed(read) == _typed(expected) == _with_ast(text)


@pytest.mark.parametrize(
    "text",
    [
        "[f(a='x' 'y')]",  # implicit concatenation
        "[f(a='\\n')]",  # escapes
        "[f(a=1+2)]",  # arithmetic
        "[f(a=g(b=1))]",  # nested call
        "[f(a=0x1F, b=1_000)]",
        "[f(a=1j)]",
        "[f(a=.5)]",
        "[f(a=- 5)]",
        "[f(a=-True)]",
        "[f(a={1, 2})]",
        "[f(a=1, 2)]",  # positional after keyword: a syntax error
        "[f(if=1)]",
        "[True(a=1)]",
        "[a .b(c=1)]",
        "[f(a=x.y)]",
        "[f(a=1)] # comment",
        "[f(a=1)][0]",
        "[f(a=1)] [g(b=2)]",
        "[f(a=[1,,2])]",
        "[f(a=1\x0c)]",
        "[f(a='\x00')]",
        "[f(a=" + "9" * 5000 + ")]",  # over Python's digit limit
        "[f(a=" + "[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5) + ")]",
        "[f(é=1)]",
        "[{'name': 'f'}]",
    ],
)
def test_reader_leaves_other_shapes_to_ast(text: str) -> None:
    assert read_literal_calls(bracket_wrap(text)) is None
    try:
        result: Any = _typed(decode_python(text))
    except DecodeError as exc:
        result = f"DecodeError: {exc}"
    assert result == _with_ast(text)


_HOSTILE = st.lists(
    st.sampled_from([*"[](){}=,:.'\"\\-+ \t\n0123456789eExabf_é#", "True", "None", "if", "\x00", "\ud800"]),
    max_size=60,
).map("".join)


@settings(max_examples=600, deadline=None)
@given(_HOSTILE)
def test_reader_agrees_with_ast_or_declines_on_hostile_text(text: str) -> None:
    source = bracket_wrap(text)
    read = read_literal_calls(source)  # never raises
    if read is not None:
        assert _typed(read) == _with_ast(text)


@pytest.mark.parametrize(
    "text",
    [
        "'" * 40_000,
        "'a" * 20_000,
        "[f(a=" * 15_000,
        "[" * 40_000,
        "(" * 40_000,
        "[f(a=[" + "1," * 30_000 + "])]",
        "a." * 30_000 + "b(c=1)",
        '"' + "x" * 90_000,
    ],
)
def test_reader_is_linear_on_long_hostile_text(text: str) -> None:
    start = time.perf_counter()
    read_literal_calls(bracket_wrap(text))
    assert time.perf_counter() - start < 1.0


# ------------------------------------------------------------------------------------------ real records


@pytest.fixture(scope="module")
def records(shared_data_dir: Path) -> dict[str, list[dict[str, Any]]]:
    return load_bfcl(shared_data_dir)


@pytest.mark.shared_data
def test_reader_reads_every_real_gold_answer(records: dict[str, list[dict[str, Any]]]) -> None:
    read = 0
    for category in GT_CATEGORIES:
        if language_of(category) != "python":
            continue
        for record in records[category]:
            text = render_answer(record["ground_truth"], record["function"], "python")
            fast = read_literal_calls(bracket_wrap(text))
            if fast is not None:
                read += 1
                assert _typed(fast) == _with_ast(text), record["id"]
    total = sum(len(records[c]) for c in GT_CATEGORIES if language_of(c) == "python")
    assert read >= 0.97 * total, f"the reader read only {read} of {total} gold answers"


@pytest.mark.shared_data
def test_indexed_checks_match_the_official_reading(
    records: dict[str, list[dict[str, Any]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every real record, its gold answer and each mutation: the precomputed tables change nothing."""
    cases = []
    for category in GT_CATEGORIES:
        language = language_of(category)
        for record in records[category]:
            outputs = [render_answer(record["ground_truth"], record["function"], language)]
            outputs += [m[0] for name in MUTATIONS if (m := mutated_output(record, name)) is not None]
            cases += [(record, text) for text in outputs]

    def verdicts() -> list[checker.CheckResult]:
        return [
            checker.check_calls(
                checker.decode_output(text, language_of(r["category"])),
                r["function"],
                r["ground_truth"],
                r["category"],
            )
            for r, text in cases
        ]

    indexed = verdicts()
    assert sum(v.valid for v in indexed) > 0.1 * len(cases)
    monkeypatch.setattr(answer_index, "_computed", lambda build, allowed: answer_index.LATER)
    assert verdicts() == indexed


# ------------------------------------------------------------------------------------------ the rest


@settings(max_examples=300, deadline=None)
@given(
    st.recursive(
        st.one_of(st.text(max_size=250), st.integers(), st.floats(), st.booleans(), st.none()),
        lambda inner: st.lists(inner, max_size=8) | st.dictionaries(st.text(max_size=5), inner, max_size=6),
        max_leaves=30,
    ),
    st.sampled_from([40, 80, 120, 200]),
)
def test_short_matches_reprlib(value: Any, limit: int) -> None:
    rep = reprlib.Repr()
    rep.maxstring = rep.maxother = 200
    rep.maxlong = 60
    text = rep.repr(value)
    assert short_repr(value, limit) == (text if len(text) <= limit else text[: limit - 3] + "...")


def test_short_of_huge_numbers() -> None:
    rep = reprlib.Repr()
    rep.maxlong = 60
    assert short_repr(10**100) == rep.repr(10**100)
    assert short_repr(2**150) == repr(2**150)
    assert short_repr(10**5000) == "<int>"  # too long to print: the type instead


def test_record_index_is_kept_per_record_object_and_bounded() -> None:
    functions = [
        {
            "name": "f",
            "parameters": {"type": "dict", "properties": {"a": {"type": "string"}}, "required": ["a"]},
        }
    ]
    gold = [{"f": {"a": ["x"]}}]
    other = [{"f": {"a": ["y"]}}]
    assert checker.grade_output("[f(a='x')]", functions, gold, "simple_python").valid
    assert answer_index.record_index(functions, gold, "simple_python") is answer_index.record_index(
        functions, gold, "simple_python"
    )
    result = checker.grade_output("[f(a='x')]", functions, other, "simple_python")
    assert (result.valid, result.error_type) == (False, "value_error:string")
    for _ in range(answer_index.CACHE_SIZE + 10):
        answer_index.record_index(functions, [{"f": {"a": ["x"]}}], "simple_python")
    assert len(answer_index._INDEXES) <= answer_index.CACHE_SIZE


def test_malformed_record_fails_where_the_official_checker_crashes() -> None:
    functions = [{"name": "f", "parameters": {"properties": {"a": {"type": "str"}}, "required": []}}]
    result = checker.grade_output("[f(a='x')]", functions, [{"f": {"a": ["x"]}}], "simple_python")
    assert (result.valid, result.error_type, result.errors) == (
        False,
        "checker_error:KeyError",
        ("checker failed: \"'str'\"",),
    )
    missing = checker.grade_output("[g(a=1)]", functions, [{"g": {"a": [1]}}], "multiple")
    assert missing.error_type == "checker_error:TypeError"


@pytest.mark.shared_data
def test_domain_verifies_a_task_the_same_every_time(shared_data_dir: Path) -> None:
    domain = BFCLDomain()
    tasks = domain.load_tasks(["simple_python", "parallel"], str(shared_data_dir))[::50]
    for task in tasks:
        gold = domain.oracle_action(task)
        first = [domain.verify(task, gold), domain.verify(task, "[wrong()]")]
        again = [domain.verify(task, gold), domain.verify(task, "[wrong()]")]
        assert first == again
        assert first[0].success and not first[1].success
