"""The BFCL verifier's second round of speed paths give what the plain paths give.

* failure messages formatted when read (``CheckResult.errors``) are the messages formatted at once, and
  ``check_calls`` formats them before it returns;
* the checker's by-value path for plain strings, numbers and booleans keeps the exact-type rules;
* the literal reader's coarser tokens (runs of characters checked as a whole number or name) and its
  early decline of texts that do not open with a call agree with ``ast``;
* ``ast.parse`` without silenced warnings (texts without a backslash or a number run into a name) decodes
  as with them silenced, also where warnings are errors;
* a short arithmetic argument skips the ``ast.unparse`` round trip, a long one keeps it;
* the Java / JavaScript ERROR-node search, which skips subtrees without errors, finds what the official
  ``"ERROR" in str(root)`` finds.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from genenv_gym.envs.bfcl import checker
from genenv_gym.envs.bfcl.checker import CheckResult, check_calls, grade_output
from genenv_gym.envs.bfcl.decode import _decode_with_ast, decode_python
from genenv_gym.envs.bfcl.decode_errors import DecodeError
from genenv_gym.envs.bfcl.java_js import _has_error_node, _parser
from genenv_gym.envs.bfcl.literal_calls import read_literal_calls
from genenv_gym.envs.bfcl.output_text import bracket_wrap

PLAN = {
    "name": "trip.plan",
    "description": "Plan a trip.",
    "parameters": {
        "type": "dict",
        "properties": {
            "city": {"type": "string", "description": ""},
            "days": {"type": "integer", "description": ""},
            "budget": {"type": "float", "description": ""},
            "pets": {"type": "boolean", "description": ""},
            "stops": {"type": "array", "items": {"type": "string"}, "description": ""},
        },
        "required": ["city"],
    },
}
PLAN_ANSWER = [
    {"trip.plan": {"city": ["Paris", "paris, fr"], "days": [3, ""], "budget": [100.0], "pets": [False, ""]}}
]


def _grade(output: str, category: str = "simple_python", answer: Any = None) -> CheckResult:
    return grade_output(output, [PLAN], PLAN_ANSWER if answer is None else answer, category)


# ------------------------------------------------------------------------------------------ checker


@pytest.mark.parametrize(
    ("output", "error_type", "message"),
    [
        (
            "[trip.plan(city='Rome', budget=100.0)]",
            "value_error:string",
            "Invalid value for parameter 'city': 'Rome'. Expected one of ['Paris', 'paris, fr']. "
            "Case insensitive.",
        ),
        (
            "[trip.plan(city='Paris', days=4, budget=100.0)]",
            "value_error:others",
            "Invalid value for parameter 'days': 4. Expected one of [3, ''].",
        ),
        (
            "[trip.plan(city='Paris', days=True, budget=100.0)]",
            "type_error:simple",
            "Incorrect type for parameter 'days'. Expected type integer, got bool. Parameter value: True.",
        ),
        (
            "[trip.plan(city='Paris', pets=0, budget=100.0)]",
            "type_error:simple",
            "Incorrect type for parameter 'pets'. Expected type boolean, got int. Parameter value: 0.",
        ),
        (
            "[trip.plan(city='Paris', stops=['a', 1], budget=100.0)]",
            "simple_function_checker:unexpected_param",
            "Unexpected parameter: 'stops'.",
        ),
    ],
)
def test_messages_formatted_when_read(output: str, error_type: str, message: str) -> None:
    result = _grade(output)
    assert (result.valid, result.error_type) == (False, error_type)
    assert result.errors == (message,)
    assert result.errors is result.errors, "formatted once"
    assert result == CheckResult(False, error_type, (message,))
    assert hash(result) == hash(CheckResult(False, error_type, (message,)))
    assert repr(result) == f"CheckResult(valid=False, error_type={error_type!r}, errors={(message,)!r})"


def test_a_result_is_immutable() -> None:
    result = _grade("[trip.plan(city='Rome', budget=100.0)]")
    with pytest.raises(AttributeError, match="immutable"):
        result.valid = True  # type: ignore[misc]
    assert _grade("[trip.plan(city='paris', budget=100.0, days=3)]").valid


def test_plain_values_keep_the_exact_type_rules() -> None:
    assert _grade("[trip.plan(city='PARIS, FR', days=3, budget=100.0, pets=False)]").valid
    assert _grade("[trip.plan(city='paris', budget=100)]").valid, "an int is taken for a float"
    assert _grade("[trip.plan(city='paris', budget=100.0, days=3.0)]").error_type == "type_error:simple"
    assert _grade("[trip.plan(budget=100.0)]").error_type == "simple_function_checker:missing_required"
    assert _grade("[trip.plan(city='paris')]").error_type == "simple_function_checker:missing_optional"


def test_parallel_messages_name_every_failed_model_call() -> None:
    answer = [
        {"trip.plan": {"city": ["Paris"], "budget": [1.0]}},
        {"trip.plan": {"city": ["Rome"], "budget": [2.0]}},
    ]
    output = "[trip.plan(city='Rome', budget=2.0), trip.plan(city='Oslo', budget=1.0)]"
    result = _grade(output, "parallel", answer)
    assert result.error_type == "parallel_function_checker_no_order:cannot_find_match"
    assert result.errors == (
        "Could not find a matching function among index [0, 1] of model output for index 0 of possible "
        "answers.",
        "model call 0: value_error:string: Invalid value for parameter 'city': 'Rome'. Expected one of "
        "['Paris']. Case insensitive.",
        "model call 1: value_error:string: Invalid value for parameter 'city': 'Oslo'. Expected one of "
        "['Paris']. Case insensitive.",
    )
    swapped = "[trip.plan(city='Rome', budget=2.0), trip.plan(city='Paris', budget=1.0)]"
    assert _grade(swapped, "parallel", answer).valid


def test_check_calls_formats_messages_before_the_caller_changes_its_calls() -> None:
    decoded = [{"trip.plan": {"city": "Rome", "budget": 100.0}}]
    result = check_calls(decoded, [PLAN], PLAN_ANSWER, "simple_python")
    decoded[0]["trip.plan"]["city"] = "Changed"
    assert "'Rome'" in result.errors[0]


def test_a_message_is_formatted_only_when_read(monkeypatch: pytest.MonkeyPatch) -> None:
    formatted: list[object] = []
    real_short = checker.short_repr
    monkeypatch.setattr(
        checker, "short_repr", lambda value, *a: formatted.append(value) or real_short(value, *a)
    )
    result = _grade("[trip.plan(city='Rome', budget=100.0)]")
    assert result.error_type == "value_error:string" and formatted == []
    assert "'Rome'" in result.errors[0] and formatted


# ----------------------------------------------------------------------------------- literal reader


def _with_ast(text: str) -> str:
    try:
        return repr(_decode_with_ast(bracket_wrap(text)))
    except DecodeError as exc:
        return f"DecodeError: {exc}"


def _decoded(text: str) -> str:
    try:
        return repr(decode_python(text))
    except DecodeError as exc:
        return f"DecodeError: {exc}"


@pytest.mark.parametrize(
    "text",
    [
        "[f(a=1.5.3)]",
        "[f(a=5abc)]",
        "[f(a=0x1F)]",
        "[f(a=1_000)]",
        "[f(a=-)]",
        "[f(a=- 5)]",
        "[f(a=a..b)]",
        "[f(a=b.)]",
        "[f(a=é)]",
        "[f(a=1e)]",
        "[f(a=01)]",
        "[f(a.b=1)]",
        "[f..g(a=1)]",
        "[f.if(a=1)]",
        "[f(a=x+y)]",
        "[f(a=1, b=2)]\nThis call answers the question.",
        "Sure! Here is the call: [f(a=1)]",
        "I cannot help with that.",
        "```python\n[f(a=1)]\n```",
    ],
)
def test_reader_declines_runs_that_are_not_one_number_or_name(text: str) -> None:
    assert read_literal_calls(bracket_wrap(text)) is None
    assert _decoded(text) == _with_ast(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[f(a=-1.5e3, b=x_1, c=True, d=0)]", [{"f": {"a": -1500.0, "b": "x_1", "c": True, "d": 0}}]),
        ("[a.b_2.c(k={'x': [1, (2, 3)]})]", [{"a.b_2.c": {"k": {"x": [1, (2, 3)]}}}]),
        ("  [ ]  ", []),
    ],
)
def test_reader_reads_whole_numbers_and_names(text: str, expected: Any) -> None:
    read = read_literal_calls(bracket_wrap(text))
    assert repr(read) == repr(expected) == _with_ast(text)


_RUNS = st.lists(
    st.sampled_from([*"()[]{}=,:'\" \n.-+eE_x", "f(", "a=", "1", "0", "12", "1.5", "é", "True", "if", "ab"]),
    max_size=40,
).map(lambda parts: "[f(" + "".join(parts))


@settings(max_examples=500, deadline=None)
@given(_RUNS)
def test_reader_agrees_with_ast_or_declines_on_runs(text: str) -> None:
    read = read_literal_calls(bracket_wrap(text))
    if read is not None:
        assert repr(read) == _with_ast(text)


# ---------------------------------------------------------------------------------- the ast fallback


@pytest.mark.parametrize(
    "text",
    [
        "[f(a='\\d' + 'x')]",
        "[f(a=1if 1 else 2)]",
        "[f(a=0x1for)]",
        "[f(a=1.if 1 else 2)]",
        "[f(a='x' + 'y', b=[1, 2][0])]",
    ],
)
def test_parse_without_silenced_warnings_decodes_alike(text: str) -> None:
    expected = _decoded(text)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _decoded(text) == expected
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _decoded(text)
    assert caught == [], "the parser's warnings stay silenced"


def test_short_arithmetic_skips_unparse_and_long_keeps_it() -> None:
    assert decode_python("[f(a=2 * 3, b='a' + 'b')]") == [{"f": {"a": 6, "b": "ab"}}]
    long_sum = " + ".join(["1"] * 60)
    assert decode_python(f"[f(a={long_sum})]") == [{"f": {"a": 60}}]
    assert decode_python("[f(a=(1 +\n 2))]") == [{"f": {"a": 3}}]
    deep = "(" * 300 + "1" + " + 1)" * 300
    with pytest.raises(DecodeError):
        decode_python(f"[f(a={deep})]")


# ------------------------------------------------------------------------------------------ Java / JS

_SOURCE = st.lists(
    st.sampled_from([*"()[]{};,.=\"' \n", "f", "obj.m", "a=", "1", "new", "int", "x ->", "`", "null", "+"]),
    max_size=30,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(_SOURCE, st.sampled_from(["java", "javascript"]))
def test_error_node_search_matches_the_official_test(source: str, language: str) -> None:
    root = _parser(language).parse(source.encode("utf-8")).root_node
    assert _has_error_node(root) == ("ERROR" in str(root))
