"""A bounded evaluator for the arithmetic inside BFCL call arguments; it never executes model text.

The official decoder evaluates a binary operation in an argument (``2*3``, ``'a' + 'b'``, ``2023-10-15``)
with ``eval``. :class:`SafeEval` gives the same values for the expressions such arithmetic can use:
constants, containers, unary/binary/boolean operators, comparisons, ``x if c else y``, subscripts, calls of
a few pure builtins (``abs bool float int len max min round str sum``), calls of a few pure ``str`` methods
on string values (:data:`STR_METHODS`, e.g. ``'unit'.upper() + 's'``; ``format``, ``encode``, attributes
such as ``__class__`` and methods of other types are refused) and assignment expressions (``(b := 10) * 1``
is 10). A name bound by ``:=`` may be read later in the *same* expression (``(b := 10) + b`` is 20, as with
the official ``eval``, which evaluates each argument in a scope of its own; the decoder makes one
:class:`SafeEval` per binary operation).

Every result is bounded: integers may have at most :data:`MAX_INT_BITS` bits, strings / bytes / containers
at most :data:`MAX_SEQUENCE_LEN` items, and one decode may create at most :data:`MAX_EVAL_WORK` items in all
(an :class:`EvalBudget` shared by the evaluations of one output; a ``str`` method is refused *before* it runs
when its result could exceed what is left); ``%``-formatting with a ``*`` or a width / precision above
10,000 is refused. Whatever exceeds a bound (``9**9**9**9``, ``'a'*10**10``) raises :class:`DecodeError`
where the official evaluator would hang or run out of memory. Other names (than the builtins above and
names bound by ``:=``) raise :class:`DecodeError` where the official ``eval`` would look them up in its
module (a ``NameError`` for any realistic name).
"""

from __future__ import annotations

import ast
import math
import operator
import re
from collections.abc import Callable
from typing import Any

from genenv_gym.envs.bfcl.decode_errors import DecodeError, short_repr

__all__ = ["MAX_EVAL_WORK", "MAX_INT_BITS", "MAX_SEQUENCE_LEN", "STR_METHODS", "EvalBudget", "SafeEval"]

#: Largest integer (in bits) that arithmetic inside an argument may produce.
MAX_INT_BITS: int = 1 << 16
#: Largest string / bytes / container (in items, counted recursively) arithmetic may produce.
MAX_SEQUENCE_LEN: int = 1_000_000
#: Total number of items that arithmetic may produce while decoding one output.
MAX_EVAL_WORK: int = 4_000_000


class EvalBudget:
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


def _size(value: Any, budget: EvalBudget, limit: int = MAX_SEQUENCE_LEN) -> int:
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


class SafeEval:
    """Evaluates the subset of Python expressions that arithmetic in an argument can use, with bounds."""

    def __init__(self, budget: EvalBudget) -> None:
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
            raise DecodeError(
                f"arithmetic failed: {type(exc).__name__}: {short_repr(str(exc), 100)}"
            ) from None
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
                f"call inside arithmetic is not supported: {short_repr(ast.unparse(node.func), 40)}"
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
