"""A strict reader of the common shape of BFCL outputs, ``[f(a=1, b='x'), m.g(c=[1.5, {'k': None}])]``.

:func:`read_literal_calls` reads a bracketed list of calls whose arguments are plain literals and returns the
decoded form that :func:`genenv_gym.envs.bfcl.decode.decode_python` gives through :mod:`ast`; for any text
outside that shape it returns ``None`` and the caller takes the ``ast`` path. The shape:

* calls of dotted ASCII names (``a.b.c``, no part a Python keyword), keyword arguments after positional
  ones (positional ones are read, then dropped as officially), an optional trailing comma;
* values: quoted strings without backslashes, line breaks, NUL or lone surrogates; decimal numbers
  (``-`` directly before the digits, an optional fraction and exponent); ``True`` / ``False`` / ``None``;
  bare ASCII names (read as their string, as officially); lists, tuples, parentheses, and dicts whose keys
  are such scalars, nested at most :data:`MAX_DEPTH` deep;
* blanks: spaces, tabs and newlines between tokens.

Anything else (escapes, other number forms, string concatenation, arithmetic, nested calls, comments, any
other character) is left to ``ast``. A text that does not open with ``[`` and a call (or ``[]``), or whose
last call is followed by more than a comma before ``]``, is declined before it is tokenized. The text is
cut into tokens (punctuation, quoted strings, runs of other characters) by one regular expression whose
alternatives each match one way only; a run is a number or a name only when it matches that form exactly.
The tokens are read once, left to right: time is linear in the text, nothing is executed.
"""

from __future__ import annotations

import re
from keyword import iskeyword
from typing import Any

__all__ = ["MAX_DEPTH", "read_literal_calls"]

#: Containers nested deeper than this are left to ``ast``.
MAX_DEPTH: int = 32

_TOKEN = re.compile(
    r"[ \t\n]*("
    r"[\[\](){}=,:]"
    r"|'[^'\\\n\r\x00\ud800-\udfff]*'"
    r'|"[^"\\\n\r\x00\ud800-\udfff]*"'
    r"|[^ \t\n\[\](){}=,:'\"]+"
    r"|.)",
    re.DOTALL,
)
#: The opening every accepted text has: ``[`` then ``]`` or a (dotted) name and ``(``.
_HEAD = re.compile(r"\[[ \t\n]*(?:\]|[A-Za-z_][A-Za-z0-9_.]*[ \t\n]*\()")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_BLANKS = " \t\n"
_NAME_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_NUMBER_START = frozenset("-0123456789")
_CONSTANTS: dict[str, Any] = {"True": True, "False": False, "None": None}
_CLOSERS = frozenset("])}")


class _NotLiteral(Exception):
    """The text is outside the shape this reader handles."""


def read_literal_calls(text: str) -> list[dict[str, dict[str, Any]]] | None:
    """The decoded calls of a bracket-wrapped output (``[...]``), or None when it is not of that shape."""
    if not text.endswith("]") or _HEAD.match(text) is None:
        return None
    last = text[:-1].rstrip(_BLANKS)
    if last[-1] == ",":
        last = last[:-1].rstrip(_BLANKS)
    if last[-1] != ")" and last != "[":  # the last call does not end the list
        return None
    tokens = _TOKEN.findall(text)
    try:
        calls, end = _call_list(tokens)
        if end != len(tokens):
            return None
        return calls
    except (_NotLiteral, IndexError, ValueError):  # ValueError: an integer over Python's digit limit
        return None


def _call_list(tokens: list[str]) -> tuple[list[dict[str, dict[str, Any]]], int]:
    if tokens[0] != "[":
        raise _NotLiteral
    calls = []
    i = 1
    if tokens[i] == "]":
        return calls, 2
    while True:
        name = tokens[i]
        if name[0] not in _NAME_START or tokens[i + 1] != "(":
            raise _NotLiteral
        for part in name.split("."):
            if not _is_plain_name(part):
                raise _NotLiteral
        args, i = _arguments(tokens, i + 2)
        calls.append({name: args})
        done, i = _after_item(tokens, i, "]")
        if done:
            return calls, i


def _arguments(tokens: list[str], i: int) -> tuple[dict[str, Any], int]:
    """The keyword arguments of a call whose ``(`` is before ``tokens[i]``, and the index after its ``)``."""
    args: dict[str, Any] = {}
    if tokens[i] == ")":
        return args, i + 1
    keyword_seen = False
    while True:
        token = tokens[i]
        if tokens[i + 1] == "=" and token[0] in _NAME_START:
            if not _is_plain_name(token):
                raise _NotLiteral
            args[token], i = _value(tokens, i + 2, 1)
            keyword_seen = True
        elif keyword_seen:  # a positional argument after a keyword one: a syntax error
            raise _NotLiteral
        else:
            _, i = _value(tokens, i, 1)
        done, i = _after_item(tokens, i, ")")
        if done:
            return args, i


def _after_item(tokens: list[str], i: int, closer: str) -> tuple[bool, int]:
    """After an item ending before ``tokens[i]``: ``(True, index after closer)`` when the sequence ends
    there (a trailing comma allowed), ``(False, index of the next item)`` after a comma; else _NotLiteral."""
    token = tokens[i]
    if token == ",":
        if tokens[i + 1] == closer:
            return True, i + 2
        return False, i + 1
    if token == closer:
        return True, i + 1
    raise _NotLiteral


def _scalar(token: str) -> Any:
    """The value of a string, number, constant or bare-name token; _NotLiteral for any other token."""
    first = token[0]
    if first == "'" or first == '"':
        if len(token) < 2:
            raise _NotLiteral
        return token[1:-1]
    if first in _NUMBER_START:
        if _NUMBER.fullmatch(token) is None:
            raise _NotLiteral
        if "." in token or "e" in token or "E" in token:
            return float(token)
        return int(token)
    if first in _NAME_START:
        if token in _CONSTANTS:
            return _CONSTANTS[token]
        if not _is_plain_name(token):
            raise _NotLiteral
        return token
    raise _NotLiteral


def _is_plain_name(token: str) -> bool:
    """An ASCII identifier that is not a keyword (``ast`` would normalize a non-ASCII one)."""
    return token.isascii() and token.isidentifier() and not iskeyword(token)


def _value(tokens: list[str], i: int, depth: int) -> tuple[Any, int]:
    """The value starting at ``tokens[i]`` and the index after it."""
    token = tokens[i]
    if token == "[":
        return _sequence(tokens, i + 1, depth, "]")
    if token == "{":
        return _dict(tokens, i + 1, depth)
    if token == "(":
        items, end = _sequence(tokens, i + 1, depth, ")")
        if len(items) == 1 and tokens[end - 2] != ",":  # parentheses around one value: that value
            return items[0], end
        return tuple(items), end
    return _scalar(token), i + 1


def _sequence(tokens: list[str], i: int, depth: int, closer: str) -> tuple[list[Any], int]:
    """Comma-separated values up to ``closer`` (a trailing comma allowed), and the index after it."""
    if depth > MAX_DEPTH:
        raise _NotLiteral
    items: list[Any] = []
    if tokens[i] == closer:
        return items, i + 1
    while True:
        value, i = _value(tokens, i, depth + 1)
        items.append(value)
        done, i = _after_item(tokens, i, closer)
        if done:
            return items, i


def _dict(tokens: list[str], i: int, depth: int) -> tuple[dict[Any, Any], int]:
    """``key: value`` pairs (scalar keys) up to ``}``, and the index after it."""
    if depth > MAX_DEPTH:
        raise _NotLiteral
    out: dict[Any, Any] = {}
    if tokens[i] == "}":
        return out, i + 1
    while True:
        token = tokens[i]
        if token in _CLOSERS or tokens[i + 1] != ":":
            raise _NotLiteral
        key = _scalar(token)
        out[key], i = _value(tokens, i + 2, depth + 1)
        done, i = _after_item(tokens, i, "}")
        if done:
            return out, i
