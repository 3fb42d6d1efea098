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
  ``eval``. Here it is evaluated by a small interpreter that never executes anything: constants, containers,
  unary/binary/boolean operators, comparisons, ``x if c else y``, subscripts, calls of a few pure builtins
  (``abs bool float int len max min round str sum``), calls of a few pure ``str`` methods on string values
  (:data:`STR_METHODS`, e.g. ``'unit'.upper() + 's'``; ``format``, ``encode``, attributes such as
  ``__class__`` and methods of other types are refused) and assignment expressions (``(b := 10) * 1`` is
  10). A name bound by ``:=`` may be read later in the *same* arithmetic expression (``(b := 10) + b`` is 20,
  as with the official ``eval``, which evaluates each argument in a scope of its own: another argument that
  reads the name fails, ``c=b * 2``, or is the string ``'b'`` when it is a bare name, as officially).
  Every result is bounded: integers may have at most :data:`MAX_INT_BITS` bits, strings / bytes /
  containers at most :data:`MAX_SEQUENCE_LEN` items, and one decode may create at most
  :data:`MAX_EVAL_WORK` items in all (a ``str`` method is refused *before* it runs when its result could
  exceed what is left); ``%``-formatting with a ``*`` or a width / precision above 10,000 is refused.
  Whatever exceeds a bound (``9**9**9**9``, ``'a'*10**10``) raises :class:`DecodeError` where the official
  evaluator would hang or run out of memory. Other names (than the builtins above and names bound by
  ``:=``) raise :class:`DecodeError` where the official ``eval`` would look them up in its module (a
  ``NameError`` for any realistic name).

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

Any output longer than :data:`MAX_OUTPUT_CHARS` characters is rejected without being parsed.
"""

from __future__ import annotations

import ast
import json
import math
import operator
import re
import reprlib
import warnings
from collections.abc import Callable
from typing import Any, Literal

from genenv_gym.envs.bfcl.literal_calls import read_literal_calls

__all__ = [
    "MAX_EVAL_WORK",
    "MAX_INT_BITS",
    "MAX_OUTPUT_CHARS",
    "MAX_SEQUENCE_LEN",
    "STR_METHODS",
    "DecodeError",
    "decode_java_js",
    "decode_json_calls",
    "decode_output",
    "decode_python",
    "is_empty_output",
    "is_function_calling_format",
]

#: Outputs longer than this are rejected with a :class:`DecodeError` and never parsed.
MAX_OUTPUT_CHARS: int = 100_000
#: Largest integer (in bits) that arithmetic inside an argument may produce.
MAX_INT_BITS: int = 1 << 16
#: Largest string / bytes / container (in items, counted recursively) arithmetic may produce.
MAX_SEQUENCE_LEN: int = 1_000_000
#: Total number of items that arithmetic may produce while decoding one output.
MAX_EVAL_WORK: int = 4_000_000

DECODER_FAILED = "ast_decoder:decoder_failed"
WRONG_OUTPUT_FORMAT = "ast_decoder:decoder_wrong_output_format"


class DecodeError(ValueError):
    """The output could not be decoded into function calls; ``str(e)`` says why."""

    def __init__(self, message: str, error_type: str = DECODER_FAILED) -> None:
        super().__init__(message)
        self.error_type: str = error_type


# ----------------------------------------------------------------------------------------------------------
# Shared helpers
# ----------------------------------------------------------------------------------------------------------


def _check_text(text: object) -> str:
    if not isinstance(text, str):
        raise DecodeError(f"output must be a string, got {type(text).__name__}")
    if len(text) > MAX_OUTPUT_CHARS:
        raise DecodeError(f"output is longer than {MAX_OUTPUT_CHARS} characters ({len(text)})")
    return text


def bracket_wrap(text: str) -> str:
    """The official pre-processing: strip `````, newline and space from both ends, add missing ``[`` ``]``."""
    text = text.strip("`\n ")
    if not text.startswith("["):
        text = "[" + text
    if not text.endswith("]"):
        text = text + "]"
    return text


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


_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = 200
_REPR.maxlong = 60


def _short(value: object, limit: int = 80) -> str:
    """A bounded ``repr`` for messages (cheap on huge values, never raises)."""
    kind = type(value)
    text = None
    if kind is str:
        if len(value) <= _REPR.maxstring:  # type: ignore[arg-type]
            text = repr(value)
            if len(text) > _REPR.maxstring:  # reprlib shortens it
                text = None
    elif kind is float or kind is bool or value is None:
        text = repr(value)  # short: reprlib keeps it as it is
    elif kind is int and value.bit_length() <= _SHORT_INT_BITS:  # type: ignore[union-attr]
        text = repr(value)
    if text is None:
        try:
            text = _REPR.repr(value)
        except Exception:  # e.g. an int too long to print
            text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


#: Integers this large at most have a ``repr`` that reprlib keeps as it is (under ``maxlong`` characters).
_SHORT_INT_BITS = 150


# ----------------------------------------------------------------------------------------------------------
# Python decoder
# ----------------------------------------------------------------------------------------------------------


def decode_python(text: str) -> list[dict[str, dict[str, Any]]]:
    """Decode a Python-syntax call list the way the official prompting decoder does."""
    text = _check_text(text)
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
        raise DecodeError(f"invalid syntax: {type(exc).__name__}: {_short(str(exc), 120)}") from None
    except Exception as exc:  # pragma: no cover - defensive: ast.parse raises only the above
        raise DecodeError(f"cannot parse: {type(exc).__name__}") from None
    body = tree.body
    try:
        if isinstance(body, ast.Call):
            return [_resolve_call(body, _Budget())]
        elts = getattr(body, "elts", None)
        if elts is None:
            raise DecodeError(f"expected a list of calls, got {type(body).__name__}")
        budget = _Budget()
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
        raise DecodeError(f"cannot resolve argument: {type(exc).__name__}: {_short(str(exc), 120)}") from None


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


def _resolve_call(call: ast.Call, budget: _Budget) -> dict[str, dict[Any, Any]]:
    args: dict[Any, Any] = {}
    for kw in call.keywords:
        args[kw.arg] = _resolve_value(kw.value, budget)
    return {_call_name(call.func): args}


def _resolve_value(node: ast.AST, budget: _Budget) -> Any:
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
        return _SafeEval(budget).value(node)
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


class _Budget:
    """Counts the items created by arithmetic while decoding one output."""

    __slots__ = ("left",)

    def __init__(self) -> None:
        self.left = MAX_EVAL_WORK

    def charge(self, amount: int) -> None:
        self.left -= amount
        if self.left < 0:
            raise DecodeError(f"arithmetic in the arguments creates more than {MAX_EVAL_WORK} items")


_BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
    ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
    ast.BitAnd: operator.and_,
    ast.MatMult: operator.matmul,
}
_UNARYOPS: dict[type, Callable[[Any], Any]] = {
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
    ast.Invert: operator.invert,
    ast.Not: operator.not_,
}
_CMPOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}
_SAFE_BUILTINS: dict[str, tuple[Callable[..., Any], frozenset[str]]] = {
    "abs": (abs, frozenset()),
    "bool": (bool, frozenset()),
    "float": (float, frozenset()),
    "int": (int, frozenset({"base"})),
    "len": (len, frozenset()),
    "max": (max, frozenset({"default"})),
    "min": (min, frozenset({"default"})),
    "round": (round, frozenset({"ndigits"})),
    "str": (str, frozenset()),
    "sum": (sum, frozenset({"start"})),
}

# ``bound(s, args, kwargs)``: an upper bound of what ``s.method(*args, **kwargs)`` returns, in items as
# ``_size`` counts them. A call whose bound exceeds what is left of the limits is refused before it runs.
# Arguments of the wrong type are left to the method, which raises TypeError (as the official ``eval`` does).
_MethodBound = Callable[[str, tuple[Any, ...], dict[str, Any]], int]


def _case_bound(s: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> int:
    # A Unicode case mapping turns one character into at most three ('ΐ'.upper()); ASCII keeps the length.
    return len(s) + 1 if s.isascii() else 3 * len(s) + 1


def _shrink_bound(s: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> int:
    return len(s) + 1


def _scalar_bound(s: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> int:
    return 1


def _split_bound(s: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> int:
    return 2 * len(s) + 2  # at most len(s) + 1 parts holding len(s) characters in all


def _pad_bound(s: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> int:
    width = args[0] if args else 0
    return max(len(s), width if isinstance(width, int) else 0) + 1


def _replace_bound(s: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> int:
    if len(args) < 2 or not isinstance(args[0], str) or not isinstance(args[1], str):
        return 1  # str.replace raises TypeError
    old, new = args[0], args[1]
    count = args[2] if len(args) > 2 else kwargs.get("count", -1)
    n = s.count(old)  # s.count("") is len(s) + 1, as many as replace("", ...) inserts
    if isinstance(count, int) and count >= 0:
        n = min(n, count)
    return len(s) + n * max(len(new) - len(old), 0) + 1


def _join_bound(sep: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> int:
    if len(args) != 1 or kwargs:
        return 1  # str.join raises TypeError
    items = args[0]
    if not isinstance(items, str) and not (
        isinstance(items, (list, tuple, dict)) and all(isinstance(x, str) for x in items)
    ):  # a set's order varies between runs: refused
        raise DecodeError("str.join() inside arithmetic takes a string or a list / tuple / dict of strings")
    return sum(len(x) for x in items) + len(sep) * max(len(items) - 1, 0) + 1


#: The ``str`` methods that arithmetic in an argument may call (on a string value), with result bounds.
STR_METHODS: dict[str, _MethodBound] = {
    **dict.fromkeys(("upper", "lower", "title", "capitalize", "casefold", "swapcase"), _case_bound),
    **dict.fromkeys(("strip", "lstrip", "rstrip", "removeprefix", "removesuffix"), _shrink_bound),
    **dict.fromkeys(("split", "rsplit"), _split_bound),
    **dict.fromkeys(("zfill", "center", "ljust", "rjust"), _pad_bound),
    **dict.fromkeys(("count", "find", "rfind", "startswith", "endswith"), _scalar_bound),
    **dict.fromkeys(("isalnum", "isalpha", "isdecimal", "isdigit", "isnumeric"), _scalar_bound),
    **dict.fromkeys(("islower", "isupper", "istitle", "isspace"), _scalar_bound),
    "replace": _replace_bound,
    "join": _join_bound,
}

_SEQ_TYPES = (str, bytes, list, tuple)
_NUM_TYPES = (bool, int, float, complex)
_FORMAT_SPEC = re.compile(r"%(?:\([^)]*\))?[#0\- +]*(\*|\d+)?(?:\.(\*|\d*))?")


def _size(value: Any, budget: _Budget, limit: int = MAX_SEQUENCE_LEN) -> int:
    """Items in ``value``, counted recursively; stops (and fails) once over ``limit``."""
    total = 0
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, (str, bytes)):
            total += len(v) + 1
        elif isinstance(v, int):
            if v.bit_length() > MAX_INT_BITS:
                raise DecodeError(f"integer result larger than {MAX_INT_BITS} bits")
            total += 1 + v.bit_length() // 64
        elif isinstance(v, (list, tuple, set, frozenset)):
            total += 1
            stack.extend(v)
        elif isinstance(v, dict):
            total += 1
            stack.extend(v.keys())
            stack.extend(v.values())
        else:
            total += 1
        if total > limit:
            raise DecodeError(f"arithmetic result larger than {limit} items")
    budget.charge(total)
    return total


class _SafeEval:
    """Evaluates the subset of Python expressions that arithmetic in an argument can use, with bounds."""

    def __init__(self, budget: _Budget) -> None:
        self.budget = budget
        self.names: dict[str, tuple[Any, int]] = {}  # (value, size) of the names bound by ':='

    def value(self, node: ast.AST) -> Any:
        return self.eval(node)[0]

    def eval(self, node: ast.AST) -> tuple[Any, int]:
        """(value, size) of ``node``."""
        if isinstance(node, ast.Constant):
            v = node.value
            return v, (len(v) + 1 if isinstance(v, (str, bytes)) else 1)
        if isinstance(node, ast.BinOp):
            return self._binop(node)
        if isinstance(node, ast.UnaryOp):
            operand, _ = self.eval(node.operand)
            op = _UNARYOPS.get(type(node.op))
            if op is None:  # pragma: no cover - all unary operators are listed
                raise DecodeError("unsupported unary operator")
            return self._call(op, operand)
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            items = []
            size = 1
            for elt in node.elts:
                if isinstance(elt, ast.Starred):
                    raise DecodeError("starred items in arithmetic are not supported")
                v, s = self.eval(elt)
                items.append(v)
                size += s
            self._check_size(size)
            if isinstance(node, ast.List):
                return items, size
            if isinstance(node, ast.Tuple):
                return tuple(items), size
            return self._call(set, items)
        if isinstance(node, ast.Dict):
            out: dict[Any, Any] = {}
            size = 1
            for key, val in zip(node.keys, node.values, strict=True):
                if key is None:
                    raise DecodeError("'**' inside a dict is not supported")
                k, ks = self.eval(key)
                v, vs = self.eval(val)
                size += ks + vs
                self._check_size(size)
                try:
                    out[k] = v
                except TypeError as exc:
                    raise DecodeError(f"unhashable dict key: {exc}") from None
            return out, size
        if isinstance(node, ast.BoolOp):
            result: Any = None
            size = 1
            for i, sub in enumerate(node.values):
                result, size = self.eval(sub)
                if i == len(node.values) - 1:
                    break
                truth = self._truth(result)
                if isinstance(node.op, ast.And) and not truth:
                    break
                if isinstance(node.op, ast.Or) and truth:
                    break
            return result, size
        if isinstance(node, ast.Compare):
            left, _ = self.eval(node.left)
            result = True
            for op_node, comp in zip(node.ops, node.comparators, strict=True):
                right, _ = self.eval(comp)
                op = _CMPOPS[type(op_node)]
                result = self._call(op, left, right)[0]
                if not self._truth(result):
                    return result, 1
                left = right
            return result, 1
        if isinstance(node, ast.IfExp):
            test, _ = self.eval(node.test)
            return self.eval(node.body if self._truth(test) else node.orelse)
        if isinstance(node, ast.Subscript):
            container, _ = self.eval(node.value)
            index = self._slice(node.slice)
            result = self._call(operator.getitem, container, index)[0]
            return result, _size(result, self.budget)
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Attribute):
                return self._method_call(node, node.func)
            return self._builtin_call(node)
        if isinstance(node, ast.NamedExpr):
            if not isinstance(node.target, ast.Name):  # pragma: no cover - the grammar allows only names
                raise DecodeError("':=' must assign a name")
            self.names[node.target.id] = result = self.eval(node.value)
            return result
        if isinstance(node, ast.Name):
            if node.id in self.names:
                return self.names[node.id]
            raise DecodeError(f"name {node.id!r} is not defined")
        raise DecodeError(f"unsupported expression inside arithmetic: {type(node).__name__}")

    # -- helpers ---------------------------------------------------------------------------------------

    def _check_size(self, size: int) -> None:
        if size > MAX_SEQUENCE_LEN:
            raise DecodeError(f"arithmetic result larger than {MAX_SEQUENCE_LEN} items")

    def _truth(self, value: Any) -> bool:
        try:
            return bool(value)
        except Exception as exc:  # pragma: no cover - builtin values always have a truth value
            raise DecodeError(f"{type(exc).__name__}: {exc}") from None

    def _call(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, int]:
        try:
            result = fn(*args, **kwargs)
        except DecodeError:
            raise
        except (RecursionError, MemoryError) as exc:
            raise DecodeError(f"arithmetic too large ({type(exc).__name__})") from None
        except Exception as exc:
            raise DecodeError(f"arithmetic failed: {type(exc).__name__}: {_short(str(exc), 100)}") from None
        return result, 1

    def _slice(self, node: ast.AST) -> Any:
        if isinstance(node, ast.Slice):
            parts = [None if p is None else self.eval(p)[0] for p in (node.lower, node.upper, node.step)]
            return slice(*parts)
        if isinstance(node, ast.Tuple) and any(isinstance(e, ast.Slice) for e in node.elts):
            return tuple(self._slice(e) for e in node.elts)
        return self.eval(node)[0]

    def _binop(self, node: ast.BinOp) -> tuple[Any, int]:
        a, sa = self.eval(node.left)
        b, sb = self.eval(node.right)
        op_type = type(node.op)
        fn = _BINOPS[op_type]
        if op_type is ast.Pow:
            self._check_pow(a, b)
        elif op_type is ast.LShift:
            if (
                isinstance(a, int)
                and isinstance(b, int)
                and a != 0
                and b > 0
                and a.bit_length() + b > MAX_INT_BITS
            ):
                raise DecodeError(f"integer result larger than {MAX_INT_BITS} bits")
        elif op_type is ast.Mult:
            for seq, n, s in ((a, b, sa), (b, a, sb)):
                if isinstance(seq, _SEQ_TYPES) and isinstance(n, int) and n > 0 and s * n > MAX_SEQUENCE_LEN:
                    raise DecodeError(f"repetition creates more than {MAX_SEQUENCE_LEN} items")
            if isinstance(a, int) and isinstance(b, int) and a.bit_length() + b.bit_length() > MAX_INT_BITS:
                raise DecodeError(f"integer result larger than {MAX_INT_BITS} bits")
        elif op_type is ast.Mod and isinstance(a, (str, bytes)):
            self._check_format(a)
        result, _ = self._call(fn, a, b)
        if isinstance(result, int):
            if result.bit_length() > MAX_INT_BITS:
                raise DecodeError(f"integer result larger than {MAX_INT_BITS} bits")
            size = 1
        elif isinstance(result, (str, bytes)):
            size = len(result) + 1
            self._check_size(size)
            self.budget.charge(size)
        elif isinstance(result, (list, tuple)) and op_type in (ast.Add, ast.Mult):
            size = (sa + sb) if op_type is ast.Add else max(1, len(result) * max(sa, sb))
            size = max(size, len(result) + 1)
            self._check_size(size)
            self.budget.charge(len(result) + 1)
        else:
            size = _size(result, self.budget)
        return result, size

    def _check_pow(self, a: Any, b: Any) -> None:
        if (
            isinstance(a, int)
            and isinstance(b, int)
            and b > 0
            and abs(a) > 1
            and b * math.log2(abs(a)) > MAX_INT_BITS
        ):
            raise DecodeError(f"power result larger than {MAX_INT_BITS} bits")

    def _check_format(self, fmt: str | bytes) -> None:
        text = fmt.decode("latin-1") if isinstance(fmt, bytes) else fmt
        for m in _FORMAT_SPEC.finditer(text):
            for part in m.groups():
                if part == "*" or (part and (len(part) > 5 or int(part) > 10_000)):
                    raise DecodeError("'%' formatting with a '*' or a width / precision above 10000")

    def _arguments(self, node: ast.Call) -> tuple[list[Any], dict[str, Any]]:
        args = []
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                raise DecodeError("starred arguments inside arithmetic are not supported")
            args.append(self.eval(arg)[0])
        kwargs = {}
        for kw in node.keywords:
            if kw.arg is None:
                raise DecodeError("'**' arguments inside arithmetic are not supported")
            kwargs[kw.arg] = self.eval(kw.value)[0]
        return args, kwargs

    def _builtin_call(self, node: ast.Call) -> tuple[Any, int]:
        if not isinstance(node.func, ast.Name) or node.func.id not in _SAFE_BUILTINS:
            raise DecodeError(
                f"call inside arithmetic is not supported: {_short(ast.unparse(node.func), 40)}"
            )
        name = node.func.id
        if name in self.names:  # rebound by ':=' to a value, which is never callable
            raise DecodeError(
                f"arithmetic failed: TypeError: {type(self.names[name][0]).__name__!r} object is not callable"
            )
        fn, allowed_kw = _SAFE_BUILTINS[name]
        args, kwargs = self._arguments(node)
        if any(kw not in allowed_kw for kw in kwargs):
            raise DecodeError(f"keyword argument not supported in {name}()")
        if name == "round":
            nd = args[1] if len(args) > 1 else kwargs.get("ndigits")
            if isinstance(nd, int) and abs(nd) > 10_000:
                raise DecodeError("round() with more than 10000 digits")
        if name == "sum":
            items = args[0] if args else None
            if isinstance(items, (list, tuple, set, dict)) and not all(
                isinstance(x, _NUM_TYPES) for x in items
            ):
                raise DecodeError("sum() of non-numbers inside arithmetic is not supported")
            start = args[1] if len(args) > 1 else kwargs.get("start", 0)
            if not isinstance(start, _NUM_TYPES):
                raise DecodeError("sum() with a non-number start inside arithmetic is not supported")
        result, _ = self._call(fn, *args, **kwargs)
        return result, _size(result, self.budget)

    def _method_call(self, node: ast.Call, func: ast.Attribute) -> tuple[Any, int]:
        """``s.method(...)`` for a method of :data:`STR_METHODS` and a string value ``s``."""
        bound = STR_METHODS.get(func.attr)
        if bound is None:
            raise DecodeError(f"method call inside arithmetic is not supported: .{func.attr[:40]}()")
        receiver, _ = self.eval(func.value)
        if not isinstance(receiver, str):
            raise DecodeError(
                f"method calls inside arithmetic are supported on strings only, not {type(receiver).__name__}"
            )
        args, kwargs = self._arguments(node)
        limit = min(MAX_SEQUENCE_LEN, self.budget.left)
        if bound(receiver, tuple(args), kwargs) > limit:
            raise DecodeError(f"str.{func.attr}() could create more than {limit} items")
        result, _ = self._call(getattr(receiver, func.attr), *args, **kwargs)
        return result, _size(result, self.budget)


# ----------------------------------------------------------------------------------------------------------
# JSON ("FC") decoder
# ----------------------------------------------------------------------------------------------------------

_FENCE = re.compile(r"\A```[A-Za-z0-9_-]*[ \t]*\n?(.*?)\n?```\Z", re.DOTALL)


def decode_json_calls(text: str) -> list[dict[str, dict[str, Any]]]:
    """Decode JSON tool calls (list / object, OpenAI style, ``tool_calls`` wrapper or ``{name: args}``)."""
    text = _check_text(text).strip()
    fence = _FENCE.match(text)
    if fence:
        text = fence.group(1).strip()
    if not text:
        raise DecodeError("empty output is not JSON")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError, MemoryError) as exc:
        raise DecodeError(f"invalid JSON: {_short(str(exc), 120)}") from None
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
            raise DecodeError(f"arguments of {name!r} are not valid JSON: {_short(str(exc), 80)}") from None
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


def decode_java_js(text: str, language: Literal["java", "javascript"]) -> list[dict[str, dict[str, Any]]]:
    """Decode a Java / JavaScript answer with tree-sitter (see :mod:`genenv_gym.envs.bfcl.java_js`)."""
    from genenv_gym.envs.bfcl.java_js import decode_java_js as _decode

    return _decode(text, language)


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
        return decode_java_js(text, language)  # type: ignore[arg-type]
    raise ValueError(f"unknown language {language!r}")
