"""BFCL decoders: the official prompting decoder (Python, Java, JavaScript), JSON tool calls, converters."""

from __future__ import annotations

import contextlib
import json
import re
import sys

import pytest
from cpu_time import cpu_clock
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from genenv_gym.envs.bfcl import java_js
from genenv_gym.envs.bfcl.decode import decode_json_calls, decode_output, decode_python, is_empty_output
from genenv_gym.envs.bfcl.decode_errors import DecodeError
from genenv_gym.envs.bfcl.java_js import decode_java_js, java_type_convert, js_type_convert
from genenv_gym.envs.bfcl.output_text import MAX_OUTPUT_CHARS
from genenv_gym.envs.bfcl.safe_arithmetic import STR_METHODS
from genenv_gym.envs.bfcl.safe_regex import SafeRegex

FAILED = "ast_decoder:decoder_failed"
WRONG_FORMAT = "ast_decoder:decoder_wrong_output_format"

# (language, output, expected decoded value, or the DecodeError's error type).
# Every row was confirmed with bfcl-eval 2026.3.23.
DECODE_CASES: list[tuple[str, str, object]] = [
    # Python: wrapping, fences, prose
    ("python", "[f(a=1)]", [{"f": {"a": 1}}]),
    ("python", "f(a=1), g(b='x')", [{"f": {"a": 1}}, {"g": {"b": "x"}}]),
    ("python", "```\nf(a=1)\n```", [{"f": {"a": 1}}]),
    ("python", "\tf(a=1)", [{"f": {"a": 1}}]),
    ("python", "```python\nf(a=1)\n```", FAILED),
    ("python", "Sure! f(a=1)", FAILED),
    ("python", "f(a=1) g(b=2)", FAILED),
    ("python", "'f(a=1)'", FAILED),
    ("python", "", []),
    ("python", "[]", []),
    # Python: names and arguments
    ("python", "a.b.c(d=1)", [{"a.b.c": {"d": 1}}]),
    ("python", "a().b(c=1)", [{"b": {"c": 1}}]),
    ("python", "__import__('os').system('x')", [{"system": {}}]),
    ("python", "f(x, 2, a=1)", [{"f": {"a": 1}}]),
    ("python", "f(a=1, a=2)", [{"f": {"a": 2}}]),
    ("python", "f(**{'a': 1})", [{"f": {None: {"a": 1}}}]),
    ("python", "f(a=1, **k)", [{"f": {"a": 1, None: "k"}}]),
    ("python", "[a][0](x) # ]", [{"": {}}]),
    # Python: values
    (
        "python",
        "f(a=None, b=..., c=1e400, d=1j, e=b'x')",
        [{"f": {"a": None, "b": "...", "c": float("inf"), "d": 1j, "e": b"x"}}],
    ),
    ("python", "f(a=+5, b=not True, c=~3, d=-True)", [{"f": {"a": -5, "b": -1, "c": -3, "d": -1}}]),
    ("python", "f(a=-'x')", FAILED),
    ("python", "f(a=-(1))", [{"f": {"a": -1}}]),
    ("python", "f(a=-x)", FAILED),
    ("python", "f(a=(1, [2]), b={'k': (3,)})", [{"f": {"a": (1, [2]), "b": {"k": (3,)}}}]),
    (
        "python",
        "f(a=x, b=g(1), c=g(k=2), d=x[1:2], e=x[1, 2])",
        [{"f": {"a": "x", "b": "g(1)", "c": {"g": {"k": 2}}, "d": "x[1:2]", "e": "x[(1, 2)]"}}],
    ),
    ("python", "f(a={1, 2})", FAILED),
    ("python", "f(a=math.pi)", FAILED),
    ("python", "f(a=f'{x}')", FAILED),
    ("python", "f(a=lambda: 1)", FAILED),
    ("python", "f(a=[i for i in x])", FAILED),
    ("python", "f(a=x if y else z)", FAILED),
    ("python", "f(a={**x})", FAILED),
    ("python", "f(a={[1]: 2})", FAILED),
    # Python: arithmetic is evaluated (safely)
    (
        "python",
        "f(a=2*3, b='a'+'b', c=[1]*3, d=2023-10-15, e=2**-1)",
        [{"f": {"a": 6, "b": "ab", "c": [1, 1, 1], "d": 1998, "e": 0.5}}],
    ),
    (
        "python",
        "f(a=7//2, b=7%3, c=1<<3, d='%s-%d' % ('a', 3), e=True+1)",
        [{"f": {"a": 3, "b": 1, "c": 8, "d": "a-3", "e": 2}}],
    ),
    ("python", "f(a=int('5')*2, b=len('ab')+1, c=round(2.567, 2)+0)", [{"f": {"a": 10, "b": 3, "c": 2.57}}]),
    ("python", "f(a=(1 if 0 else 2)*3, b=[1, 2][0]+1, c=(1 < 2) + 0)", [{"f": {"a": 6, "b": 2, "c": 1}}]),
    ("python", "f(a=1/0)", FAILED),
    ("python", "f(a=x*2)", FAILED),
    ("python", "f(a=(1, 2) + (3,))", [{"f": {"a": (1, 2, 3)}}]),
    # Python: ':=' inside arithmetic; the name can be read later in the same expression only
    (
        "python",
        "[calculate_triangle_area(base=(b := 10) * 1, height=5)]",
        [{"calculate_triangle_area": {"base": 10, "height": 5}}],
    ),
    ("python", "f(a=(b := 10) + b, c=[(d := 1), d] + [2])", [{"f": {"a": 20, "c": [1, 1, 2]}}]),
    ("python", "f(a=((b := 3) and b) + 1, c=(1 if (d := 0) else 2) + d)", [{"f": {"a": 4, "c": 2}}]),
    ("python", "f(a={(k := 'x'): k} | {}, b=[1, 2][(i := 1)] + i)", [{"f": {"a": {"x": "x"}, "b": 3}}]),
    ("python", "f(a=(abs := 5) + abs, b=(s := 'x') * 3)", [{"f": {"a": 10, "b": "xxx"}}]),
    ("python", "f(a=(b := 2) * 1, c=b)", [{"f": {"a": 2, "c": "b"}}]),
    ("python", "f(a=(b := 2) * 1, c=b * 3)", FAILED),
    ("python", "f(a=b + (b := 10))", FAILED),
    ("python", "f(a=((0 and (b := 3)) or 1) + b)", FAILED),
    ("python", "f(a=[(b := 1) + 1, b + 1])", FAILED),
    ("python", "f(a=(abs := 5) + abs(1))", FAILED),
    ("python", "f(a=(b := 10))", FAILED),
    # Python: pure str methods inside arithmetic
    (
        "python",
        "f(unit='unit'.upper() + 's', b='unit'.upper())",
        [{"f": {"unit": "UNITs", "b": "'unit'.upper()"}}],
    ),
    (
        "python",
        "f(a='A-B'.lower().replace('-', '_') + '', b=('a' + 'b').upper() + 'c', c='  x '.strip() + 'y')",
        [{"f": {"a": "a_b", "b": "ABc", "c": "xy"}}],
    ),
    (
        "python",
        "f(a='-'.join(['a', 'b']) + '!', b='-'.join('abc') + '', c='a b c'.split(maxsplit=1) + [])",
        [{"f": {"a": "a-b!", "b": "a-b-c", "c": ["a", "b c"]}}],
    ),
    (
        "python",
        "f(a='ß'.upper() + '', b='7'.zfill(3) + '', c='x'.center(5, '*') + '', "
        "d='aaa'.replace('', '-') + '')",
        [{"f": {"a": "SS", "b": "007", "c": "**x**", "d": "-a-a-a-"}}],
    ),
    (
        "python",
        "f(a='abc'.startswith(('x', 'a')) + 0, b='abc'.rfind('z') + 0, c=len('abc'.title()) * 2)",
        [{"f": {"a": 1, "b": -1, "c": 6}}],
    ),
    (
        "python",
        "f(a=(s := 'ab').upper() + s, b='-'.join({'k': 1, 'm': 2}) + '', c='Hi'.casefold() + '')",
        [{"f": {"a": "ABab", "b": "k-m", "c": "hi"}}],
    ),
    ("python", "f(a='-'.join([1, 2]) + '!')", FAILED),
    ("python", "f(a='x'.upper(1) + '')", FAILED),
    ("python", "f(a='x'.replace(old='x', new='y') + '')", FAILED),
    ("python", "f(a='abc'.upper + 's')", FAILED),
    ("python", "f(a='a'.__class__ + 'b')", FAILED),
    ("python", "f(a=x.upper() + 's')", FAILED),
    # Java: tree-sitter on the text between the brackets; only the first call
    ("java", '[A.f(a=1, b="x")]', [{"A.f": {"a": "1", "b": "x"}}]),
    ("java", "[A.f(a=1, b=2); B.g(c=3);]", [{"A.f": {"a": "1", "b": "2"}}]),
    ("java", "A.f(a=true, b=1.5f, c=10L)", [{"A.f": {"a": "true", "b": "1.5f", "c": "10L"}}]),
    ("java", "A.f(a=new int[] {1, 2}, b=2)", [{"A.f": {"a": "new int[]{1,2}", "b": "2"}}]),
    (
        "java",
        'A.f(m=new HashMap<String, String>() {{ put("a", "b"); }}, b=1)',
        [{"A.f": {"m": "new HashMap<String,String>()", "b": "1"}}],
    ),
    (
        "java",
        'A.f(l=new ArrayList<>(Arrays.asList("a", "b")), b=1)',
        [{"A.f": {"l": 'new ArrayList<>(Arrays.asList("a", "b"))', "b": "1"}}],
    ),
    ("java", 'A.f(a="x\\"y", b=2)', [{"A.f": {"a": 'x\\"y', "b": "2"}}]),
    ("java", "A.f(a=(1+2), b=foo.bar)", [{"A.f": {"a": "(1+2)", "b": "foo.bar"}}]),
    ("java", "A.f(a=Foo.class, Bar.class, b=1)", [{"A.f": {"a": "Foo.class", None: "Bar.class", "b": "1"}}]),
    ("java", "A.f(a += 1, b=2)", [{"A.f": {"a": "1", "b": "2"}}]),
    ("java", "A.f(a=/*c*/1, b=2)", [{"A.f": {"a": "/*c*/", "b": "2"}}]),
    ("java", "new Foo().f(a=1, b=2)", [{"new Foo().f": {"a": "1", "b": "2"}}]),
    ("java", "A.f(a=1, b=B.g(c=2))", [{"A.f": {"a": "1", "b": "B.g(c=2)"}}]),
    (
        "java",
        "A.f(c='x', d=\"caf\u00e9\", e=3)",
        [{"A.f": {"c": "x", "d": 'caf\u00e9"', "=": ")"}}],
    ),  # byte offsets
    ("java", "f(a=1)", FAILED),  # tree-sitter ERROR node
    ("java", "A.f(a=new int[3], b=2)", FAILED),
    ("java", "A.f(a=1, a=2)", FAILED),
    ("java", "A.f(x, y, a=1)", FAILED),
    ("java", "[]", WRONG_FORMAT),
    ("java", "x = 5;", WRONG_FORMAT),
    # JavaScript: the first call of the first statements
    ("javascript", "[f(a=1)]", [{"f": {"a": "1"}}]),
    ("javascript", "f(a=\"caf\u00e9\", b='q')", [{"f": {"a": "caf\u00e9", "b": "q"}}]),
    (
        "javascript",
        'f(a={x: 1, "y": [1,2]}, b=[[1,2],[3,4]])',
        [{"f": {"a": '{x: 1, "y": [1,2]}', "b": "[[1,2],[3,4]]"}}],
    ),
    ("javascript", "f(a=1); g(b=2)", [{"f": {"a": "1"}}]),
    ("javascript", "a.b.c(d=1)", [{"a.b.c": {"d": "1"}}]),
    ("javascript", "f(a+=1)", [{"f": {}}]),
    ("javascript", "f(a=`t${x}`)", [{"f": {"a": "`t${x}`"}}]),
    ("javascript", "f(x, true, false, a=1)", FAILED),
    ("javascript", "f(a=1, a=2)", FAILED),
    ("javascript", "f(a=1), g(b=2)", WRONG_FORMAT),
    ("javascript", "let x = f(a=1)", WRONG_FORMAT),
    ("javascript", "new F(a=1)", WRONG_FORMAT),
    ("javascript", "[]", WRONG_FORMAT),
]


@pytest.mark.parametrize(
    "language,output,expected", DECODE_CASES, ids=[f"{c[0]}:{c[1][:40]}" for c in DECODE_CASES]
)
def test_decode_matches_official(language: str, output: str, expected: object) -> None:
    if isinstance(expected, str):
        with pytest.raises(DecodeError) as info:
            decode_output(output, language)
        assert info.value.error_type == expected
        assert str(info.value)
    else:
        assert decode_output(output, language) == expected


def test_decoded_types_are_exact() -> None:
    (call,) = decode_python("f(a=(1, 2), b=True, c=1.0)")
    assert type(call["f"]["a"]) is tuple
    assert call["f"]["b"] is True
    assert type(call["f"]["c"]) is float


@pytest.mark.parametrize(
    "output,reason",
    [
        ("[f(a=9**9**9**9)]", "power"),
        ("[f(a=10**100000000)]", "power"),
        ("[f(a='a'*10**10)]", "repetition"),
        ("[f(a=[[[0]*1000]*1000]*1000)]", "repetition"),
        ("[f(a=1 << 10**10)]", "integer"),
        ("[f(a='%2000000000d' % 1)]", "formatting"),
        ("[f(a='%*d' % (10**9, 1))]", "formatting"),
        ("[f(a=round(1, -10**9) + 0)]", "round"),
        ("[f(" + ", ".join(f"a{i}='a'*900000+'b'" for i in range(6)) + ")]", "items"),
        ("[f(" + ", ".join(f"a{i}=('a'*900000).upper()+''" for i in range(6)) + ")]", "items"),
        ("[f(a=('-'*1000).join('a'*2000) + '')]", "join"),
        ("[f(a=('-'*100).join(['ab']*200000) + '')]", "join"),
        ("[f(a=('a'*1000).replace('', 'x'*1000) + '')]", "replace"),
        ("[f(a=('a'*100000).replace('a', 'b'*100) + '')]", "replace"),
        ("[f(a='x'.center(10**12) + '')]", "center"),
        ("[f(a='x'.zfill(10**9) + '')]", "zfill"),
        ("[f(a=('ß'*400000).upper() + '')]", "upper"),
        ("[f(a=[(s := 'a'*400000), s, s] + [])]", "larger than"),
    ],
)
def test_arithmetic_is_bounded(output: str, reason: str) -> None:
    with cpu_clock() as spent:
        with pytest.raises(DecodeError, match=reason):
            decode_python(output)
        assert spent() < 2


# Evaluated by the official ``eval`` (``expandtabs(10**9)`` would build a gigabyte string) but refused here:
# only the pure, bounded ``str`` methods of ``STR_METHODS`` may be called, on strings only, with plain
# arguments, and attributes are never read.
@pytest.mark.parametrize(
    "output,reason",
    [
        ("[f(a='a'.__class__('x') + 'b')]", "not supported: .__class__()"),
        ("[f(a='a'.__class__.__name__ + 'b')]", "unsupported expression inside arithmetic: Attribute"),
        ("[f(a='{0.__class__}'.format(1) + 'b')]", "not supported: .format()"),
        ("[f(a='{}'.format(1) + 'b')]", "not supported: .format()"),
        ("[f(a='abc'.encode() + b'')]", "not supported: .encode()"),
        ("[f(a='x\\t'.expandtabs(10**9) + '')]", "not supported: .expandtabs()"),
        ("[f(a='x'.translate({}) + '')]", "not supported: .translate()"),
        ("[f(a=(5).bit_length() + 1)]", "not supported: .bit_length()"),
        ("[f(a=[1, 2].count(2) + 1)]", "strings only, not list"),
        ("[f(a=b'ab'.upper() + b'')]", "strings only, not bytes"),
        ("[f(a='-'.join({'a', 'b'}) + '')]", "join"),
        ("[f(a='a b'.split(*[' ']) + [])]", "starred"),
        ("[f(a='a b'.split(**{'sep': ' '}) + [])]", "'\\*\\*'"),
    ],
)
def test_str_methods_outside_the_whitelist_are_refused(output: str, reason: str) -> None:
    with pytest.raises(DecodeError, match=reason) as info:
        decode_python(output)
    assert info.value.error_type == FAILED


def test_str_methods_are_pure_and_listed() -> None:
    assert set(STR_METHODS) <= {name for name in dir(str) if not name.startswith("_")}
    assert not {"format", "format_map", "encode", "translate", "maketrans", "expandtabs"} & set(STR_METHODS)


# (output, valid, error type): the official verdicts (bfcl-eval 2026.3.23) of arithmetic using ':=' and
# str methods, for ``calculate_triangle_area(base: integer, height: integer)`` with the answer base=10,
# height=5 and ``convert(value: float, unit: string)`` with the answer value=2.0, unit "units" or "unit".
_TRIANGLE = {
    "name": "calculate_triangle_area",
    "description": "Area of a triangle.",
    "parameters": {
        "type": "dict",
        "properties": {"base": {"type": "integer", "description": "Base."}, "height": {"type": "integer"}},
        "required": ["base", "height"],
    },
}
_CONVERT = {
    "name": "convert",
    "description": "Convert a value.",
    "parameters": {
        "type": "dict",
        "properties": {"value": {"type": "float", "description": "Value."}, "unit": {"type": "string"}},
        "required": ["value", "unit"],
    },
}
_ANSWERS = {
    "calculate_triangle_area": [{"calculate_triangle_area": {"base": [10], "height": [5]}}],
    "convert": [{"convert": {"value": [2.0], "unit": ["units", "unit"]}}],
}
GRADE_CASES = [
    ("[calculate_triangle_area(base=(b := 10) * 1, height=5)]", True, None),
    ("[calculate_triangle_area(base=(b := 10) + b, height=5)]", False, "value_error:others"),
    ("[calculate_triangle_area(base=(b := 5) * 2, height=b)]", False, "type_error:simple"),
    ("[calculate_triangle_area(base=(b := 5) * 2, height=b * 1)]", False, FAILED),
    ("[calculate_triangle_area(base=(b := 10), height=5)]", False, FAILED),
    ("[convert(value=2.0, unit='unit'.upper() + 's')]", True, None),
    ("[convert(value=2.0, unit='unit'.upper())]", False, "value_error:string"),
    ("[convert(value=2.0, unit='UNIT'.lower() + '')]", True, None),
    ("[convert(value=2.0, unit=' unit '.strip() + 's')]", True, None),
    ("[convert(value=2.0, unit='-'.join(['un', 'it']).replace('-', '') + 's')]", True, None),
    ("[convert(value=len('ab'.upper()) * 1.0, unit='units'.title() + '')]", True, None),
]


@pytest.mark.parametrize("output,valid,error_type", GRADE_CASES, ids=[c[0][:50] for c in GRADE_CASES])
def test_walrus_and_str_method_verdicts_match_official(
    output: str, valid: bool, error_type: str | None
) -> None:
    from genenv_gym.envs.bfcl.checker import grade_output

    name = output[1 : output.index("(")]
    functions = [_TRIANGLE if name == "calculate_triangle_area" else _CONVERT]
    result = grade_output(output, functions, _ANSWERS[name], "simple_python")
    assert (result.valid, result.error_type) == (valid, error_type)


def test_too_long_and_odd_text_is_rejected_cleanly() -> None:
    with pytest.raises(DecodeError, match="longer than"):
        decode_python("[f(a='" + "x" * MAX_OUTPUT_CHARS + "')]")
    for language in ("python", "java", "javascript"):
        for bad in (
            "[" * 100_000,
            "(" * 60_000,
            "\x00",
            "]][[",
            "f(a='\ud800')",
            "A.f(a=" + "(" * 5000 + ")",
        ):
            try:
                decode_output(bad, language)
            except DecodeError as exc:
                assert exc.error_type in (FAILED, WRONG_FORMAT)
    with pytest.raises(DecodeError):
        decode_output(None, "python")  # type: ignore[arg-type]


def test_deep_java_nesting_is_rejected_like_a_recursion_error() -> None:
    shallow = "A.f(a=" + "(" * 100 + "1" + ")" * 100 + ", b=1)"
    assert decode_java_js(shallow, "java")[0]["A.f"]["a"] == "(" * 100 + "1" + ")" * 100
    with pytest.raises(DecodeError, match="deeply nested"):
        decode_java_js("A.f(a=" + "(" * 2000 + "1" + ")" * 2000 + ", b=1)", "java")


@pytest.mark.parametrize("language", ["java", "javascript"])
def test_long_java_js_output_is_refused_unparsed_within_a_cpu_bound(language) -> None:
    with cpu_clock() as spent:
        for text in ("f()" * 24_000, "a b " * 24_000, "A.f(a=1);" * 10_000):
            with pytest.raises(DecodeError, match="longer than") as caught:
                decode_java_js(text, language)
            assert caught.value.error_type == "ast_decoder:decoder_failed"
        at_cap = "f()" * (java_js.MAX_SOURCE_CHARS // 3)
        with pytest.raises(DecodeError, match="syntax error"):
            decode_java_js(at_cap, language)
        assert spent() < 0.5


def test_bad_dispatch_arguments() -> None:
    with pytest.raises(ValueError):
        decode_output("[f()]", "cobol")
    with pytest.raises(ValueError):
        decode_output("[f()]", "python", "xml")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        decode_java_js("[f()]", "python")  # type: ignore[arg-type]


def test_missing_tree_sitter_gives_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(java_js, "_LOCAL", type(java_js._LOCAL)())
    monkeypatch.setitem(sys.modules, "tree_sitter_javascript", None)
    with pytest.raises(ImportError, match=re.escape("pip install 'genenv-gym[bfcl]'")):
        decode_java_js("[f(a=1)]", "javascript")


def test_is_empty_output() -> None:
    assert (
        is_empty_output([]) and is_empty_output([{}]) and is_empty_output("text") and is_empty_output([[1]])
    )
    assert not is_empty_output([{"f": {}}])


# ----------------------------------------------------------------------------------------------------------
# JSON tool calls
# ----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '[{"name": "f", "arguments": {"a": 1}}]',
        '{"name": "f", "arguments": {"a": 1}}',
        '{"name": "f", "arguments": "{\\"a\\": 1}"}',
        '{"name": "f", "parameters": {"a": 1}}',
        '[{"type": "function", "id": "c1", "function": {"name": "f", "arguments": "{\\"a\\": 1}"}}]',
        '{"tool_calls": [{"function": {"name": "f", "arguments": {"a": 1}}}]}',
        '[{"f": {"a": 1}}]',
        '{"f": {"a": 1}}',
        '[{"f": "{\\"a\\": 1}"}]',
        '```json\n[{"name": "f", "arguments": {"a": 1}}]\n```',
        '  [{"name": "f", "arguments": {"a": 1}}]\n',
    ],
)
def test_json_shapes(text: str) -> None:
    assert decode_json_calls(text) == [{"f": {"a": 1}}]


def test_json_edge_cases() -> None:
    assert decode_json_calls("[]") == []
    assert decode_json_calls('[{"name": "f", "arguments": ""}]') == [{"f": {}}]
    assert decode_json_calls('[{"name": "f"}, {"g": {}}]') == [{"f": {}}, {"g": {}}]
    assert decode_json_calls('{"f": {"a": 1}, "g": {"b": 2}}') == [{"f": {"a": 1}}, {"g": {"b": 2}}]
    for text, error in [
        ("", FAILED),
        ("Sure: []", FAILED),
        ("[f(a=1)]", FAILED),
        ("[1]", WRONG_FORMAT),
        ("[{}]", WRONG_FORMAT),
        ('[{"name": "f", "arguments": [1]}]', WRONG_FORMAT),
        ('[{"name": "f", "arguments": "not json"}]', FAILED),
        ('[{"name": 3, "arguments": {}}]', WRONG_FORMAT),  # read as BFCL's {func_name: args}
        ("[" * 100_000 + "]" * 100_000, FAILED),
        ("[" + "9" * 5000 + "]", FAILED),
    ]:
        with pytest.raises(DecodeError) as info:
            decode_json_calls(text)
        assert info.value.error_type == error, text[:40]
    assert decode_output('[{"name": "A.f", "arguments": {"x": "5L"}}]', "java", "json") == [
        {"A.f": {"x": "5L"}}
    ]


# ----------------------------------------------------------------------------------------------------------
# Official type converters
# ----------------------------------------------------------------------------------------------------------

JAVA_CONVERSIONS = [
    ("123", "integer", None, 123),
    ("-5", "short", None, -5),
    ("1.5", "integer", None, "1.5"),
    ("10L", "long", None, 10),
    ("10", "long", None, "10"),
    ("1.5f", "float", None, 1.5),
    ("3e3F", "float", None, 3000.0),
    ("1.5", "float", None, "1.5"),
    ("2", "double", None, 2.0),
    ("2.5f", "double", None, "2.5f"),
    ("true", "boolean", None, True),
    ("True", "boolean", None, "True"),
    ("a", "char", None, "a"),
    ('"s"', "String", None, '"s"'),
    ("x.y()", "any", None, "x.y()"),
    ('new String[]{"a", "b"}', "Array", "String", ['"a"', '"b"']),
    ("new int[]{1, 2, 3}", "Array", "integer", [1, 2, 3]),
    ("new long[]{1L, 2, 3L}", "Array", "long", [1, "2", 3]),
    ("new int[]{}", "Array", "integer", []),
    ('new ArrayList<>(Arrays.asList("a", "b"))', "ArrayList", "String", ["a", "b"]),
    ('new ArrayList<>(Arrays.asList("a", "b"))', "ArrayList", "any", ['"a"', '"b"']),
    ("new ArrayList<Integer>() {{ add(1); add(2); }}", "ArrayList", "integer", [1, 2]),
    ("new ArrayList<>()", "ArrayList", "integer", []),
    ("[1, 2]", "ArrayList", "integer", "[1, 2]"),
    (
        'new HashMap<String, Object>() {{ put("k", 1); put("s", "v"); put("b", true); }}',
        "HashMap",
        None,
        {"k": 1, "s": "v", "b": True},
    ),
    ("new HashMap<String,String>()", "HashMap", None, {}),
    ("{}", "HashMap", None, "{}"),
]


@pytest.mark.parametrize("value,type_,nested,expected", JAVA_CONVERSIONS)
def test_java_converter(value: str, type_: str, nested: str | None, expected: object) -> None:
    result = java_type_convert(value, type_, nested)
    assert result == expected and type(result) is type(expected)


def test_java_converter_unsupported_types() -> None:
    with pytest.raises(NotImplementedError):
        java_type_convert("x", "Set")
    with pytest.raises(ValueError):
        java_type_convert("x", "Map")


JS_CONVERSIONS = [
    ('"x"', "String", None, "x"),
    ("'x'", "String", None, "x"),
    ("x", "String", None, "x"),
    ("3", "integer", None, 3),
    ("3.0", "integer", None, "3.0"),
    ("0.5", "float", None, 0.5),
    ("1e3", "float", None, "1e3"),
    ("10n", "Bigint", None, 10),
    ("true", "Boolean", None, True),
    ("[1, 'two', true]", "array", None, [1, "two", True]),
    ('["a", "b"]', "array", "String", ["a", "b"]),
    ("new Array(4, 5)", "array", "integer", [4, 5]),
    ("[[1, 2], [3, 4]]", "array", "array", [[1, 2], [3, 4]]),
    ("[]", "array", "String", []),
    ("{a: 1, 'b': \"c\", d: [1, 2], e: true}", "dict", None, {"a": 1, "b": "c", "d": [1, 2], "e": True}),
    ("{}", "dict", None, {}),
    ("{key: value, n: 2}", "dict", None, {"key": "value", "n": 2}),
    ("obj", "dict", None, "obj"),
    ("anything", "any", None, "anything"),
]


@pytest.mark.parametrize("value,type_,nested,expected", JS_CONVERSIONS)
def test_js_converter(value: str, type_: str, nested: str | None, expected: object) -> None:
    result = js_type_convert(value, type_, nested)
    assert result == expected and type(result) is type(expected)


@pytest.mark.parametrize(
    "call",
    [
        lambda: js_type_convert("[" + "[a]," * 2_000 + " b\n]", "array"),  # exponential for `re`
        lambda: js_type_convert("{" + "a" * 20_000 + "}", "dict"),  # quadratic for `re`
        lambda: java_type_convert("new HashMap<>() {" + " " * 5_000, "HashMap"),  # high-degree polynomial
        lambda: java_type_convert("new ArrayList<>() {{ x" + " " * 20_000, "ArrayList", "String"),
        lambda: java_type_convert("new ArrayList<>() {{ " + "add(" * 5_000 + " }}", "ArrayList", "String"),
    ],
)
def test_converters_are_linear_on_hostile_text(call) -> None:
    with cpu_clock() as spent:  # CPU time: a loaded machine does not make a linear converter look slow
        call()
        assert spent() < 1.5


# ----------------------------------------------------------------------------------------------------------
# The safe regex engine gives exactly `re`'s results
# ----------------------------------------------------------------------------------------------------------

REGEXES = [
    (java_js._J_ASLIST, "new ArrayList<>(Arrays.asList(", 'x," )'),
    (java_js._J_ADDS, "new ArrayList<>() {{}}", "add(1); \n"),
    (java_js._J_ADD, "add()", "1; x\n"),
    (java_js._J_ARRAY, "new int[]{}", "1, ab\n"),
    (java_js._J_HASHMAP, "new HashMap<>() {{}}", 'put("k", 1); \n'),
    (java_js._J_PUT, 'put("k", 1)', "x\n "),
    (java_js._J_EMPTY_MAP, "new HashMap<>()", "x \n"),
    (java_js._JS_ARRAY_2D, "[[1, 2], [3]]new Array()", "x ,\n"),
    (java_js._JS_INNER, "[[1], [2]]", "x\n"),
    (java_js._JS_PAIRS, "a: 1, 'b': [1, 2]", "x \n"),
]


@pytest.mark.parametrize("regex,alphabet1,alphabet2", REGEXES, ids=[r[0].pattern[:30] for r in REGEXES])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_safe_regex_equals_re(regex: SafeRegex, alphabet1: str, alphabet2: str, data: st.DataObject) -> None:
    pieces = st.sampled_from([alphabet1, *alphabet1, *alphabet2, alphabet1[: len(alphabet1) // 2]])
    text = "".join(data.draw(st.lists(pieces, max_size=12)))
    flags = re.DOTALL if regex.pattern in (java_js._J_ADDS.pattern, java_js._J_HASHMAP.pattern) else 0
    compiled = re.compile(regex.pattern, flags)
    for mine, theirs in (
        (regex.match(text), compiled.match(text)),
        (regex.search(text), compiled.search(text)),
    ):
        assert (mine is None) == (theirs is None), text
        if mine is not None and theirs is not None:
            assert mine.caps[:2] == list(theirs.span()), text
            assert [mine.group(k) for k in range(regex.ngroups + 1)] == [
                theirs.group(k) for k in range(regex.ngroups + 1)
            ], text
    assert regex.findall(text) == compiled.findall(text), text


# ----------------------------------------------------------------------------------------------------------
# Never an uncaught exception
# ----------------------------------------------------------------------------------------------------------

CODE_ALPHABET = "[](){}=,.;:'\"`+-*/%<>!?&|^~@#$\\_ \n\tabcfgnxyzAB0123456789"


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    text=st.one_of(st.text(max_size=300), st.text(alphabet=CODE_ALPHABET, max_size=200)),
    language=st.sampled_from(["python", "java", "javascript"]),
    action_format=st.sampled_from(["python", "json"]),
)
def test_decode_only_raises_decode_error(text: str, language: str, action_format: str) -> None:
    try:
        result = decode_output(text, language, action_format)  # type: ignore[arg-type]
    except DecodeError as exc:
        assert exc.error_type in (FAILED, WRONG_FORMAT)
        return
    assert isinstance(result, list)
    json.dumps(repr(result))


@settings(max_examples=150, deadline=None)
@given(
    value=st.text(alphabet="[]{}(),:;'\"\n abn01-.eEfFlL", max_size=60),
    java_type=st.sampled_from(
        sorted(set(java_js.JAVA_TYPE_CONVERSION) - {"Set", "Hashtable", "Queue", "Stack"})
    ),
    js_type=st.sampled_from(sorted(java_js.JS_TYPE_CONVERSION)),
    nested=st.sampled_from([None, "String", "integer", "long", "char", "any", "float", "boolean"]),
)
def test_converters_total_on_random_text(
    value: str, java_type: str, js_type: str, nested: str | None
) -> None:
    for convert, type_ in ((java_type_convert, java_type), (js_type_convert, js_type)):
        # ValueError: int() of a digit string over Python's 4300-digit limit, as officially
        with contextlib.suppress(ValueError):
            convert(value, type_, nested)
