"""Decoders that turn a model's raw text into BFCL's decoded form ``[{func_name: {param: value}}, ...]``.

This is a reimplementation of what ``bfcl-eval==2026.3.23`` does for prompting models
(``default_decode_ast_prompting``), written to give the same results without ever executing model text.

Python outputs (``decode_python``):

* outputs of the common shape (calls whose arguments are plain literals) are read without :mod:`ast` by
  :func:`genenv_gym.envs.bfcl.literal_calls.read_literal_calls`, with the same result; the rest as follows;
* the characters `````, newline and space are stripped from both ends, and ``[`` / ``]`` are added when
  missing; the text is then parsed with :func:`ast.parse` (``mode="eval"``);
* every element must be a call; dotted names are joined (``a.b.c``); if the callee's base is not a plain name
  (``__import__('os').system``) only the attribute parts are kept (``system``); positional arguments are
  dropped, ``**kw`` gives the parameter ``None``, and a repeated keyword keeps its last value;
* argument values are resolved as the official ``resolve_ast_by_type`` does: constants (``...`` becomes
  ``"..."``), any unary operator on a constant is a *negation* (``+5`` gives ``-5``, ``not True`` gives
  ``-1``), lists, dicts, tuples, a bare name becomes its string, a call without keyword arguments becomes
  its source text (``ast.unparse``), a call with keyword arguments becomes a nested ``{name: {args}}``, a
  subscript becomes its source text, and every other node (sets, attributes, f-strings, lambdas,
  comprehensions...) fails to decode;
* a binary operation (``2*3``, ``'a' + 'b'``, ``2023-10-15``) is *evaluated* by the official code with
  ``eval``. Here it is evaluated by :class:`genenv_gym.envs.bfcl.safe_arithmetic.SafeEval`, a small
  interpreter that never executes anything and bounds every result (the builtins, ``str`` methods and
  limits it allows are listed there). A name bound by ``:=`` may be read later in the *same* arithmetic
  expression (``(b := 10) + b`` is 20, as with the official ``eval``, which evaluates each argument in a
  scope of its own: another argument that reads the name fails, ``c=b * 2``, or is the string ``'b'`` when
  it is a bare name, as officially). Whatever exceeds a bound (``9**9**9**9``, ``'a'*10**10``) raises
  :class:`~genenv_gym.envs.bfcl.decode_errors.DecodeError` where the official evaluator would hang or run
  out of memory.

JSON tool calls (``decode_json_calls``, the "FC" style) accept a list or a single object of
``{"name": ..., "arguments": {...} | "<json>"}`` (``"parameters"`` is accepted for ``"arguments"``),
OpenAI-style ``{"function": {"name", "arguments"}}`` / ``{"tool_calls": [...]}``, and BFCL's own
``{func_name: {args}}`` (several keys give several calls, in order). A surrounding ````` ``` ````` or
````` ```json ````` fence is removed; any other text around the JSON fails. An empty list means no call.
Arguments that are not a JSON object raise :class:`DecodeError` with the official error type
``ast_decoder:decoder_wrong_output_format``. In this mode Java / JavaScript argument values are *not*
parsed: as in the official FC path (where the tool schema turns every Java / JS parameter into a string
holding source text), each value must be a string of Java / JS source (``"42L"``,
``"new int[]{1, 2}"``), which the checker converts with the official type converters; a non-string value
fails with ``type_error:java`` / ``type_error:js``.

Any output longer than :data:`genenv_gym.envs.bfcl.output_text.MAX_OUTPUT_CHARS` characters is rejected
without being parsed.
"""

from __future__ import annotations

import ast
import json
import re
import warnings
from typing import Any, Literal

from genenv_gym.envs.bfcl.decode_errors import WRONG_OUTPUT_FORMAT, DecodeError, short_repr
from genenv_gym.envs.bfcl.literal_calls import read_literal_calls
from genenv_gym.envs.bfcl.output_text import bracket_wrap, check_output_text
from genenv_gym.envs.bfcl.safe_arithmetic import EvalBudget, SafeEval

__all__ = [
    "decode_json_calls",
    "decode_output",
    "decode_python",
    "is_empty_output",
    "is_function_calling_format",
]


def is_function_calling_format(decoded: object) -> bool:
    """True iff ``decoded`` is a list of single-key dicts whose value is a dict (``[]`` included)."""
    if type(decoded) is not list:
        return False
    for item in decoded:
        if type(item) is not dict or len(item) != 1:
            return False
        for value in item.values():
            if type(value) is not dict:
                return False
    return True


def is_empty_output(decoded: object) -> bool:
    """The official relevance rule: not in call format, ``[]`` and ``[{}]`` all count as "no call"."""
    if not is_function_calling_format(decoded):
        return True
    assert isinstance(decoded, list)
    return len(decoded) == 0 or (len(decoded) == 1 and len(decoded[0]) == 0)


# ----------------------------------------------------------------------------------------------------------
# Python decoder
# ----------------------------------------------------------------------------------------------------------


def decode_python(text: str) -> list[dict[str, dict[str, Any]]]:
    """Decode a Python-syntax call list the way the official prompting decoder does."""
    text = check_output_text(text)
    source = bracket_wrap(text)
    calls = read_literal_calls(source)
    if calls is not None:
        return calls
    return _decode_with_ast(source)


#: With a backslash (escape sequences), what the parser may warn about: a number run into a name
#: (``1if``, ``0xfor``); other texts are parsed without silencing warnings (as costly as a short parse).
_NUMBER_THEN_LETTER = re.compile(r"[0-9]\.?[A-Za-z_]")


def _decode_with_ast(source: str) -> list[dict[str, dict[str, Any]]]:
    """``decode_python`` of bracket-wrapped text, through :func:`ast.parse` (any shape)."""
    try:
        if "\\" not in source and _NUMBER_THEN_LETTER.search(source) is None:
            tree = ast.parse(source, mode="eval")
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse(source, mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError) as exc:
        raise DecodeError(f"invalid syntax: {type(exc).__name__}: {short_repr(str(exc), 120)}") from None
    except Exception as exc:  # pragma: no cover - defensive: ast.parse raises only the above
        raise DecodeError(f"cannot parse: {type(exc).__name__}") from None
    body = tree.body
    try:
        if isinstance(body, ast.Call):
            return [_resolve_call(body, EvalBudget())]
        elts = getattr(body, "elts", None)
        if elts is None:
            raise DecodeError(f"expected a list of calls, got {type(body).__name__}")
        budget = EvalBudget()
        calls = []
        for elem in elts:
            if not isinstance(elem, ast.Call):
                raise DecodeError(f"list element is not a call: {type(elem).__name__}")
            calls.append(_resolve_call(elem, budget))
        return calls
    except DecodeError:
        raise
    except (RecursionError, MemoryError) as exc:
        raise DecodeError(f"expression too deeply nested or too large ({type(exc).__name__})") from None
    except Exception as exc:
        raise DecodeError(
            f"cannot resolve argument: {type(exc).__name__}: {short_repr(str(exc), 120)}"
        ) from None


#: A one-line expression at most this many bytes long is too shallow for ``ast.unparse`` to fail on.
_SHALLOW_SPAN = 100


def _call_name(func: ast.expr) -> str:
    parts: list[str] = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
    return ".".join(reversed(parts))


def _resolve_call(call: ast.Call, budget: EvalBudget) -> dict[str, dict[Any, Any]]:
    args: dict[Any, Any] = {}
    for kw in call.keywords:
        args[kw.arg] = _resolve_value(kw.value, budget)
    return {_call_name(call.func): args}


def _resolve_value(node: ast.AST, budget: EvalBudget) -> Any:
    if isinstance(node, ast.Constant):
        return "..." if node.value is Ellipsis else node.value
    if isinstance(node, ast.UnaryOp):
        # Official quirk: every unary operator negates, and only a constant operand works.
        operand = node.operand
        if not isinstance(operand, ast.Constant):
            raise DecodeError(f"unsupported operand of a unary operator: {type(operand).__name__}")
        return -operand.value  # TypeError for str / None / bytes is turned into a DecodeError
    if isinstance(node, ast.List):
        return [_resolve_value(v, budget) for v in node.elts]
    if isinstance(node, ast.Dict):
        out: dict[Any, Any] = {}
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None:
                raise DecodeError("'**' inside a dict is not supported")
            k = _resolve_value(key, budget)
            out[k] = _resolve_value(value, budget)
        return out
    if isinstance(node, ast.BinOp):
        span = (node.end_col_offset or 0) - node.col_offset
        if node.end_lineno != node.lineno or span > _SHALLOW_SPAN:
            ast.unparse(node)  # the official code round-trips through unparse: same recursion failures
        return SafeEval(budget).value(node)
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Call):
        if not node.keywords:
            return ast.unparse(node)
        return _resolve_call(node, budget)
    if isinstance(node, ast.Tuple):
        return tuple(_resolve_value(v, budget) for v in node.elts)
    if isinstance(node, ast.Lambda):
        raise DecodeError("lambda arguments are not supported")
    if isinstance(node, ast.Subscript):
        return ast.unparse(node.value) + "[" + ast.unparse(node.slice) + "]"
    raise DecodeError(f"unsupported AST type: {type(node).__name__}")


# ----------------------------------------------------------------------------------------------------------
# JSON ("FC") decoder
# ----------------------------------------------------------------------------------------------------------

_FENCE = re.compile(r"\A```[A-Za-z0-9_-]*[ \t]*\n?(.*?)\n?```\Z", re.DOTALL)


def decode_json_calls(text: str) -> list[dict[str, dict[str, Any]]]:
    """Decode JSON tool calls (list / object, OpenAI style, ``tool_calls`` wrapper or ``{name: args}``)."""
    text = check_output_text(text).strip()
    fence = _FENCE.match(text)
    if fence:
        text = fence.group(1).strip()
    if not text:
        raise DecodeError("empty output is not JSON")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError, MemoryError) as exc:
        raise DecodeError(f"invalid JSON: {short_repr(str(exc), 120)}") from None
    try:
        return _json_calls(data)
    except RecursionError:  # pragma: no cover - json.loads already limits depth
        raise DecodeError("JSON too deeply nested") from None


def _json_calls(data: Any) -> list[dict[str, dict[str, Any]]]:
    if isinstance(data, dict) and "tool_calls" in data and isinstance(data["tool_calls"], list):
        data = data["tool_calls"]
    items = data if isinstance(data, list) else [data]
    calls: list[dict[str, dict[str, Any]]] = []
    for item in items:
        calls.extend(_json_call(item))
    return calls


def _json_args(name: Any, args: Any) -> dict[str, dict[str, Any]]:
    if not isinstance(name, str):
        raise DecodeError(f"function name must be a string, got {type(name).__name__}")
    if isinstance(args, str):
        try:
            args = json.loads(args) if args.strip() else {}
        except (ValueError, RecursionError) as exc:
            raise DecodeError(
                f"arguments of {name!r} are not valid JSON: {short_repr(str(exc), 80)}"
            ) from None
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise DecodeError(f"arguments of {name!r} are not a JSON object", WRONG_OUTPUT_FORMAT)
    return {name: args}


def _json_call(item: Any) -> list[dict[str, dict[str, Any]]]:
    if not isinstance(item, dict):
        raise DecodeError(
            f"a tool call must be a JSON object, got {type(item).__name__}", WRONG_OUTPUT_FORMAT
        )
    if isinstance(item.get("function"), dict) and "name" in item["function"]:
        fn = item["function"]
        return [_json_args(fn["name"], fn.get("arguments", fn.get("parameters")))]
    if isinstance(item.get("name"), str) and (
        "arguments" in item or "parameters" in item or set(item) <= {"name", "type", "id"}
    ):
        return [_json_args(item["name"], item.get("arguments", item.get("parameters")))]
    if not item:
        raise DecodeError("an empty object is not a tool call", WRONG_OUTPUT_FORMAT)
    return [_json_args(name, args) for name, args in item.items()]


# ----------------------------------------------------------------------------------------------------------
# Dispatch
# ----------------------------------------------------------------------------------------------------------


def decode_output(
    text: str, language: str, action_format: Literal["python", "json"] = "python"
) -> list[dict[str, dict[str, Any]]]:
    """Decode ``text`` for a category of ``language`` ("python" / "java" / "javascript")."""
    if action_format == "json":
        return decode_json_calls(text)
    if action_format != "python":
        raise ValueError(f"unknown action_format {action_format!r} (expected 'python' or 'json')")
    if language == "python":
        return decode_python(text)
    if language in ("java", "javascript"):
        # Imported on first use: Python and JSON outputs never need the Java / JavaScript decoder.
        from genenv_gym.envs.bfcl.java_js import decode_java_js

        return decode_java_js(text, language)  # type: ignore[arg-type]
    raise ValueError(f"unknown language {language!r}")
