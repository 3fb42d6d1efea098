"""BFCL AST checker: each official rule on small hand-written functions and answers, plus robustness."""

from __future__ import annotations

import json
import os
import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from genenv_gym.envs.bfcl.checker import CheckResult, check_calls, grade_output, standardize_string

# ----------------------------------------------------------------------------------------------------------
# Small functions and possible answers (written for these tests)
# ----------------------------------------------------------------------------------------------------------

AREA = {
    "name": "calc.area",
    "description": "Area of a shape.",
    "parameters": {
        "type": "dict",
        "properties": {
            "base": {"type": "integer", "description": ""},
            "height": {"type": "float", "description": ""},
            "unit": {"type": "string", "description": ""},
            "flags": {"type": "array", "items": {"type": "string"}, "description": ""},
            "opts": {"type": "dict", "description": ""},
            "pts": {"type": "tuple", "items": {"type": "float"}, "description": ""},
            "rows": {"type": "array", "items": {"type": "dict"}, "description": ""},
            "exact": {"type": "boolean", "description": ""},
            "label": {"type": "string", "description": ""},
            "ref": {"type": "integer", "description": ""},
        },
        "required": ["base", "height"],
    },
}
AREA_GT = [
    {
        "calc.area": {
            "base": [10],
            "height": [5.0],
            "unit": ["units", ""],
            "flags": [["a", "b"], ""],
            "opts": [{"k": ["v"], "opt": ["x", ""]}, ""],
            "pts": [[1.0, 2.0], ""],
            "rows": [[{"n": [1]}, {"n": [2]}], ""],
            "exact": [True, ""],
            "label": ["main label", ""],
            "ref": ["some_var", ""],
        }
    }
]
NEEDS_UNIT = {
    "name": "conv",
    "description": "",
    "parameters": {
        "type": "dict",
        "properties": {
            "unit": {"type": "string"},
            "value": {"type": "integer"},
            "scale": {"type": "integer"},
        },
        "required": ["unit"],
    },
}
NEEDS_UNIT_GT = [{"conv": {"unit": ["m", ""], "value": [3], "scale": [1, ""]}}]

PICK = {
    "name": "pick",
    "description": "",
    "parameters": {"type": "dict", "properties": {"x": {"type": "integer"}}, "required": ["x"]},
}
OTHER = {
    "name": "other",
    "description": "",
    "parameters": {"type": "dict", "properties": {"y": {"type": "string"}}, "required": ["y"]},
}
GREEDY_GT = [{"pick": {"x": [1, 2]}}, {"pick": {"x": [1]}}]

JAVA = {
    "name": "Util.run",
    "description": "",
    "parameters": {
        "type": "dict",
        "properties": {
            "count": {"type": "long"},
            "name": {"type": "String"},
            "items": {"type": "Array", "items": {"type": "String"}},
            "flag": {"type": "boolean"},
            "ratio": {"type": "float"},
            "score": {"type": "double"},
            "map": {"type": "HashMap"},
            "nums": {"type": "ArrayList", "items": {"type": "integer"}},
            "obj": {"type": "any"},
        },
        "required": ["count"],
    },
}
JAVA_GT = [
    {
        "Util.run": {
            "count": [5],
            "name": ["bob", ""],
            "items": [["a", "b"], ""],
            "flag": [True, ""],
            "ratio": [1.5, ""],
            "score": [2.0, ""],
            "map": [{"k": ["v"]}, ""],
            "nums": [[1, 2], ""],
            "obj": ["foo", ""],
        }
    }
]
JS = {
    "name": "setup",
    "description": "",
    "parameters": {
        "type": "dict",
        "properties": {
            "id": {"type": "String"},
            "n": {"type": "integer"},
            "tags": {"type": "array", "items": {"type": "String"}},
            "conf": {"type": "dict"},
            "on": {"type": "Boolean"},
            "big": {"type": "Bigint"},
            "ratio": {"type": "float"},
        },
        "required": ["id"],
    },
}
JS_GT = [
    {
        "setup": {
            "id": ["x"],
            "n": [3, ""],
            "tags": [["a", "b"], ""],
            "conf": [{"a": [1], "b": ["c"]}, ""],
            "on": [True, ""],
            "big": [10, ""],
            "ratio": [0.5, ""],
        }
    }
]

NUMS = {
    "name": "nums",
    "description": "",
    "parameters": {
        "type": "dict",
        "properties": {"vals": {"type": "array", "items": {"type": "integer"}}},
        "required": ["vals"],
    },
}
ROWS = {
    "name": "rows",
    "description": "",
    "parameters": {
        "type": "dict",
        "properties": {"rows": {"type": "array", "items": {"type": "dict"}}},
        "required": ["rows"],
    },
}

A = ([AREA], AREA_GT, "simple_python")
N = ([NUMS], [{"nums": {"vals": [[1, 2]]}}], "simple_python")
R = ([ROWS], [{"rows": {"rows": [[{"n": [1]}, {"n": [2]}]]}}], "simple_python")
U = ([NEEDS_UNIT], NEEDS_UNIT_GT, "simple_python")
P = ([PICK, OTHER], GREEDY_GT, "parallel")
M = ([OTHER, PICK], [{"pick": {"x": [1]}}], "multiple")
J = ([JAVA], JAVA_GT, "simple_java")
S = ([JS], JS_GT, "simple_javascript")
IRR = ([PICK], None, "irrelevance")
REL = ([PICK], None, "live_relevance")
OK = None

# (setup, output, expected error type or OK). Each verdict was confirmed with bfcl-eval 2026.3.23.
CASES: list[tuple[tuple, str, str | None]] = [
    # decoding
    (A, "[calc.area(base=10, height=5.0)]", OK),
    (A, "calc.area(base=10, height=5.0)", OK),
    (A, "```\n[calc.area(base=10, height=5.0)]\n```", OK),
    (A, "```python\n[calc.area(base=10, height=5.0)]\n```", "ast_decoder:decoder_failed"),
    (A, "Sure: [calc.area(base=10, height=5.0)]", "ast_decoder:decoder_failed"),
    (A, '[{"name": "calc.area", "arguments": {"base": 10}}]', "ast_decoder:decoder_failed"),
    (A, "[calc.area(10, 5.0)]", "simple_function_checker:missing_required"),
    (A, "[]", "simple_function_checker:wrong_count"),
    (
        A,
        "[calc.area(base=10, height=5.0), calc.area(base=10, height=5.0)]",
        "simple_function_checker:wrong_count",
    ),
    # names and parameters
    (A, "[area(base=10, height=5.0)]", "simple_function_checker:wrong_func_name"),
    (A, "[calc_area(base=10, height=5.0)]", "simple_function_checker:wrong_func_name"),
    (A, "[calc.area(height=5.0)]", "simple_function_checker:missing_required"),
    (A, "[calc.area(base=10, height=5.0, color='red')]", "simple_function_checker:unexpected_param"),
    (U, "[conv(value=3)]", "simple_function_checker:missing_required"),
    (U, "[conv(unit='m')]", "simple_function_checker:missing_optional"),
    (U, "[conv(unit='m', value=3)]", OK),
    # types
    (A, "[calc.area(base=10, height=5)]", OK),
    (A, "[calc.area(base=10.0, height=5.0)]", "type_error:simple"),
    (A, "[calc.area(base=True, height=5.0)]", "type_error:simple"),
    (A, "[calc.area(base='10', height=5.0)]", "type_error:simple"),
    (A, "[calc.area(base=10, height=5.0, exact=1)]", "type_error:simple"),
    (A, "[calc.area(base=10, height=5.0, flags=('a', 'b'))]", "type_error:simple"),
    (A, "[calc.area(base=10, height=5.0, flags=[1, 2])]", "value_error:list/tuple"),  # "" skips item types
    (N, "[nums(vals=[1, 2])]", OK),
    (N, "[nums(vals=['1', '2'])]", "type_error:nested"),
    (N, "[nums(vals=[1.0, 2.0])]", "type_error:nested"),
    (N, "[nums(vals=[True])]", "type_error:nested"),
    (A, "[calc.area(base=10, height=5.0, pts=(1.0, 2.0))]", OK),
    (A, "[calc.area(base=10, height=5.0, pts=[1, 2])]", OK),
    (A, "[calc.area(base=10, height=5.0, ref=some_var)]", OK),
    (A, "[calc.area(base=10, height=5.0, ref='some var')]", "value_error:others"),
    (A, "[calc.area(base=5*2, height=10/2)]", OK),
    # values
    (A, "[calc.area(base=11, height=5.0)]", "value_error:others"),
    (A, "[calc.area(base=10, height=5.0, unit='Units.')]", OK),
    (A, "[calc.area(base=10, height=5.0, label='Main-Label')]", OK),
    (A, "[calc.area(base=10, height=5.0, unit='feet')]", "value_error:string"),
    (A, "[calc.area(base=10, height=5.0, flags=['A', 'b'])]", OK),
    (A, "[calc.area(base=10, height=5.0, flags=['b', 'a'])]", "value_error:list/tuple"),
    (A, "[calc.area(base=10, height=5.0, opts={'k': 'V'})]", OK),
    (A, "[calc.area(base=10, height=5.0, opts={'k': 'w'})]", "value_error:dict_value"),
    (A, "[calc.area(base=10, height=5.0, opts={'k': 'v', 'z': 1})]", "value_error:dict_key"),
    (A, "[calc.area(base=10, height=5.0, opts={})]", "value_error:dict_key"),
    (A, "[calc.area(base=10, height=5.0, rows=[{'n': 1}, {'n': 2}])]", OK),
    # the last allowed option decides the error type: here "" (an empty list) after the list of dicts
    (A, "[calc.area(base=10, height=5.0, rows=[{'n': 2}, {'n': 1}])]", "value_error:list_dict_count"),
    (R, "[rows(rows=[{'n': 2}, {'n': 1}])]", "value_error:dict_value"),
    (R, "[rows(rows=[{'n': 1}, {'n': 2}])]", OK),
    (R, "[rows(rows=[])]", "value_error:list_dict_count"),
    (A, "[calc.area(base=10, height=5.0, rows=[{'n': 1}])]", "value_error:list_dict_count"),
    # the optional marker "" as a value
    (A, "[calc.area(base=10, height=5.0, unit='')]", OK),
    (A, "[calc.area(base=10, height=5.0, unit=' - ')]", OK),
    (A, "[calc.area(base=10, height=5.0, flags=[])]", OK),
    (A, "[calc.area(base=10, height=5.0, rows=[])]", OK),
    # parallel: any order, greedy matching without backtracking
    (P, "[pick(x=2), pick(x=1)]", OK),
    (P, "[pick(x=1), pick(x=2)]", "parallel_function_checker_no_order:cannot_find_match"),
    (P, "[pick(x=1)]", "parallel_function_checker_no_order:wrong_count"),
    # multiple: the single call against the expected function
    (M, "[pick(x=1)]", OK),
    (M, "[other(y='a')]", "simple_function_checker:wrong_func_name"),
    (M, "[pick(x=1), other(y='a')]", "multiple_function_checker:wrong_count"),
    # Java: source-text values through the official converter
    (J, '[Util.run(count=5L, name="bob")]', OK),
    (J, "[Util.run(count=5)]", "type_error:simple"),
    (J, '[Util.run(count=5L, ratio=1.5f, score=2, flag=true, obj=foo, name="bob")]', OK),
    (J, "[Util.run(count=5L, ratio=1.5)]", "type_error:simple"),
    (J, "[Util.run(count=5L, nums=new ArrayList<>(Arrays.asList(1, 2)))]", OK),
    (J, '[Util.run(count=5L, items=new String[]{"a", "b"})]', "value_error:list/tuple"),
    (
        J,
        '[Util.run(count=5L, map=new HashMap<String, String>() {{ put("k", "v"); }})]',
        "value_error:dict_key",
    ),
    (J, "[Util.run(count=5L); Util.run(count=6L);]", OK),
    (J, "[Util.run(count=5L, count=6L)]", "ast_decoder:decoder_failed"),
    (J, "[x = 5;]", "ast_decoder:decoder_wrong_output_format"),
    # JavaScript
    (S, "[setup(id=\"x\", n=3, tags=['a', 'b'], conf={a: 1, b: 'c'}, on=true, big=10n, ratio=0.5)]", OK),
    (S, "[setup(id='x', n=3.0)]", "type_error:simple"),
    (S, '[setup(id="y")]', "value_error:string"),
    (S, '[setup(id="x", tags=["b", "a"])]', "value_error:list/tuple"),
    (S, '[setup(id="x", conf={a: 2, b: "c"})]', "value_error:dict_value"),
    (S, '[setup(id="x"), setup(id="z")]', "ast_decoder:decoder_wrong_output_format"),
    # irrelevance: pass iff no call decodes
    (IRR, "I cannot answer that with these tools.", OK),
    (IRR, "[]", OK),
    (IRR, "```python\n[pick(x=1)]\n```", OK),
    (IRR, "Here you go: [pick(x=1)]", OK),
    (IRR, "[pick()]", "irrelevance_error:decoder_success"),
    (IRR, "pick(x=1)", "irrelevance_error:decoder_success"),
    # relevance: pass iff at least one call decodes (arguments are not checked)
    (REL, "[pick()]", OK),
    (REL, "[unknown(z=1)]", OK),
    (REL, "[]", "relevance_error:decoder_failed"),
    (REL, "no call", "relevance_error:decoder_failed"),
]


def _case_id(case: tuple) -> str:
    setup, output, _ = case
    return f"{setup[2]}:{output[:50]}"


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_official_rules(case: tuple) -> None:
    (functions, ground_truth, category), output, expected = case
    result = grade_output(output, functions, ground_truth, category)
    assert isinstance(result, CheckResult)
    assert result.valid == (expected is None), result
    assert result.error_type == expected, result
    if not result.valid:
        assert result.errors, "an invalid result explains itself"


def test_standardize_string() -> None:
    assert standardize_string("April 1, 2024") == "april12024"
    assert standardize_string("New_York-City./*^") == "newyorkcity"
    assert standardize_string("it's") == 'it"s'
    assert standardize_string("Tab\tkept") == "tab\tkept"


# ----------------------------------------------------------------------------------------------------------
# check_calls on decoded calls, and the JSON ("FC") action format
# ----------------------------------------------------------------------------------------------------------


def test_check_calls_on_decoded() -> None:
    assert check_calls([{"calc.area": {"base": 10, "height": 5}}], [AREA], AREA_GT, "simple_python").valid
    result = check_calls([{"calc.area": {"base": 10}}], [AREA], AREA_GT, "simple_python")
    assert result.error_type == "simple_function_checker:missing_required"
    bad = check_calls([{"calc.area": [1]}], [AREA], AREA_GT, "simple_python")
    assert bad.error_type == "ast_decoder:decoder_wrong_output_format"
    assert check_calls("nope", [AREA], AREA_GT, "simple_python").error_type == (  # type: ignore[arg-type]
        "ast_decoder:decoder_wrong_output_format"
    )


def test_check_calls_crash_becomes_checker_error() -> None:
    # The official checker crashes when the expected function is not in the list; we report it instead.
    result = check_calls([{"pick": {"x": 1}}], [OTHER], [{"pick": {"x": [1]}}], "multiple")
    assert not result.valid
    assert result.error_type is not None and result.error_type.startswith("checker_error:")


def test_json_action_format() -> None:
    good = json.dumps([{"name": "calc.area", "arguments": {"base": 10, "height": 5}}])
    assert grade_output(good, [AREA], AREA_GT, "simple_python", action_format="json").valid
    openai = json.dumps(
        {"tool_calls": [{"function": {"name": "calc.area", "arguments": '{"base": 10, "height": 5}'}}]}
    )
    assert grade_output(openai, [AREA], AREA_GT, "simple_python", action_format="json").valid
    bfcl_style = json.dumps([{"calc.area": {"base": 10, "height": 5}}])
    assert grade_output(bfcl_style, [AREA], AREA_GT, "simple_python", action_format="json").valid
    wrong = json.dumps([{"name": "calc.area", "arguments": {"base": 10}}])
    result = grade_output(wrong, [AREA], AREA_GT, "simple_python", action_format="json")
    assert result.error_type == "simple_function_checker:missing_required"
    not_json = grade_output("[calc.area(base=10, height=5)]", [AREA], AREA_GT, "simple_python", "json")
    assert not_json.error_type == "ast_decoder:decoder_failed"
    args_list = grade_output(
        '[{"name": "calc.area", "arguments": [1]}]', [AREA], AREA_GT, "simple_python", "json"
    )
    assert args_list.error_type == "ast_decoder:decoder_wrong_output_format"
    assert grade_output("[]", [PICK], None, "irrelevance", action_format="json").valid
    assert not grade_output('[{"name": "pick", "arguments": {}}]', [PICK], None, "irrelevance", "json").valid
    assert grade_output('[{"name": "pick", "arguments": {}}]', [PICK], None, "live_relevance", "json").valid


def test_json_action_format_java_values_are_source_text() -> None:
    as_number = json.dumps([{"name": "Util.run", "arguments": {"count": 5}}])
    assert grade_output(as_number, [JAVA], JAVA_GT, "simple_java", "json").error_type == "type_error:java"
    as_text = json.dumps(
        [{"name": "Util.run", "arguments": {"count": "5L", "nums": "new ArrayList<>(Arrays.asList(2, 1))"}}]
    )
    assert (
        grade_output(as_text, [JAVA], JAVA_GT, "simple_java", "json").error_type == "value_error:list/tuple"
    )
    ok = json.dumps([{"name": "Util.run", "arguments": {"count": "5L"}}])
    assert grade_output(ok, [JAVA], JAVA_GT, "simple_java", "json").valid
    js_number = json.dumps([{"name": "setup", "arguments": {"id": "x", "n": 3}}])
    assert grade_output(js_number, [JS], JS_GT, "simple_javascript", "json").error_type == "type_error:js"
    js_text = json.dumps([{"name": "setup", "arguments": {"id": '"x"', "n": "3"}}])
    assert grade_output(js_text, [JS], JS_GT, "simple_javascript", "json").valid


def test_bad_arguments_raise_value_error() -> None:
    with pytest.raises(ValueError):
        grade_output("[f()]", [PICK], [{"pick": {"x": [1]}}], "simple_python", action_format="xml")
    with pytest.raises(ValueError):
        grade_output("[f()]", [PICK], None, "simple_python")


# ----------------------------------------------------------------------------------------------------------
# Safety and robustness
# ----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "template",
    [
        "[__import__('os').system('touch {path}')]",
        "[pick(x=__import__('os').system('touch {path}') + 1)]",
        "[pick(x=eval(\"__import__('os').system('touch {path}')\") * 2)]",
        "[pick(x=(lambda: __import__('os').system('touch {path}'))())]",
        "[pick(x=[c for c in ().__class__.__base__.__subclasses__()] + [open('{path}', 'w')])]",
    ],
)
@pytest.mark.parametrize("category", ["simple_python", "irrelevance", "simple_java", "simple_javascript"])
def test_nothing_is_executed(template: str, category: str, tmp_path) -> None:
    path = tmp_path / f"pwned-{uuid.uuid4().hex}"
    output = template.format(path=path)
    result = grade_output(
        output, [PICK], None if category == "irrelevance" else [{"pick": {"x": [1]}}], category
    )
    assert isinstance(result, CheckResult)
    assert not os.path.exists(path)


HOSTILE = [
    "9**9**9**9",
    "[pick(x=9**9**9**9)]",
    "[pick(x=10**100000000)]",
    "[pick(x='a'*10**10)]",
    "[pick(x=[[0]*1000]*1000*1000)]",
    "[pick(x='%999999999d' % 1)]",
    "[pick(x=1 << 10**12)]",
    "[" * 100_000,
    "(" * 50_000 + ")" * 50_000,
    "[pick(x=" + "-" * 100_000 + "1)]",
    "[pick(x=" + "+".join(["1"] * 5000) + ")]",
    "]]]]]][[[[",
    "\x00\x01\x02",
    "[pick(x='\ud800')]",
    "x" * 150_000,
    "[pick(x=1/0)]",
    "[pick(x=" + "9" * 5000 + ")]",
]


@pytest.mark.parametrize("output", HOSTILE, ids=[repr(h[:20]) for h in HOSTILE])
@pytest.mark.parametrize(
    "category", ["simple_python", "parallel", "irrelevance", "simple_java", "simple_javascript"]
)
def test_hostile_outputs_get_a_verdict(output: str, category: str) -> None:
    gt = None if category == "irrelevance" else [{"pick": {"x": [1]}}]
    result = grade_output(output, [PICK], gt, category)
    assert isinstance(result, CheckResult)
    if category != "irrelevance":
        assert not result.valid


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    output=st.one_of(
        st.text(max_size=200),
        st.text(alphabet="[](){}=,.'\"`+-*/%<>:;abcxy0123456789 \n\\TrueNone", max_size=120),
    ),
    category=st.sampled_from(
        [
            "simple_python",
            "multiple",
            "parallel",
            "irrelevance",
            "live_relevance",
            "simple_java",
            "simple_javascript",
        ]
    ),
    action_format=st.sampled_from(["python", "json"]),
)
def test_grade_output_never_raises(output: str, category: str, action_format: str) -> None:
    gt = None if "relevance" in category else [{"pick": {"x": [1]}}]
    result = grade_output(output, [PICK, OTHER], gt, category, action_format)
    assert isinstance(result, CheckResult)
    assert result.valid or result.error_type


def test_env_errors_name_the_wrong_value_but_not_the_allowed_ones():
    from genenv_gym.envs.bfcl.domain import redact_expected

    message = "Invalid value for parameter 'unit': 'cm'. Expected one of ['units', '']. Case insensitive."
    assert (
        redact_expected(message)
        == "Invalid value for parameter 'unit': 'cm'. (the allowed values are not shown)"
    )
    assert redact_expected("Missing required parameter: 'base'.") == "Missing required parameter: 'base'."
