"""Reading an API call out of model output, exactly as the official extraction does (never executed).

The official evaluator first looks for the first ``[Name(...)]`` on one line (``.`` does not cross line
breaks; the arguments run greedily to the last ``)]`` of that line), then reads ``key=value`` pairs from the
arguments with one regular expression whose alternatives are tried in order at each position:
``key='text'`` or ``key="text"`` (the text ends at the first quote of either kind, and cannot be empty),
``key=[...]`` (greedy up to the last ``]``), ``key=word``. Everything read is a string; anything else
in the arguments (positional values, unmatched text) is silently ignored. A later duplicate key wins.
"""

from __future__ import annotations

import re

_CALL = re.compile(r"\[(\w+)\((.*)\)\]")
_OPENING = re.compile(r"\[\w+\(")


def _match(text: str) -> tuple[int, int, int] | None:
    """``(start, arguments start, end)`` of the leftmost match of ``_CALL``, found in linear time.

    Same result as ``_CALL.search`` (whose backtracking is quadratic on hostile text): the leftmost
    ``[word(`` whose line still holds a ``)]`` after it; the match ends at the last ``)]`` of that line.
    """
    line_end, last_close = -1, -1
    for opening in _OPENING.finditer(text):
        start, args = opening.span()
        if start > line_end:  # the first opening on a new line: find that line's last ')]'
            line_end = text.find("\n", start)
            line_end = len(text) if line_end < 0 else line_end
            last_close = text.rfind(")]", start, line_end)
        if last_close >= args:
            return start, args, last_close + 2
    return None


#: The official parameter pattern, kept as the specification :func:`_params` reads in linear time.
PARAM_PATTERN = r"(\w+)\s*=\s*['\"](.+?)['\"]|(\w+)\s*=\s*(\[.*\])|(\w+)\s*=\s*(\w+)"
#: ``key =`` at the start of a word (a match of the official pattern can only start there: the key is a
#: whole word, as a shorter key would be followed by a word character, never by blanks or ``=``).
_KEY = re.compile(r"(?<!\w)(\w+)\s*=\s*")
_WORD = re.compile(r"\w+")
_QUOTE = re.compile(r"['\"\n]")


def _params(arguments: str) -> list[tuple[str, str]]:
    """``(key, value)`` of each match of :data:`PARAM_PATTERN` in ``arguments``, in order, in linear time.

    Same matches as ``re.finditer(PARAM_PATTERN, arguments)`` (whose backtracking is quadratic on a long
    word): the value after ``key=`` is a quoted text (up to the first quote of either kind after at least one
    character, on the same line), else ``[...]`` up to the last ``]`` of the line, else a word.
    """
    found: list[tuple[str, str]] = []
    line_end, last_bracket = -1, -1  # the current line's end and its last ']'
    position = 0
    while (key := _KEY.search(arguments, position)) is not None:
        value = position = key.end()
        first = arguments[value : value + 1]
        if first in ("'", '"'):
            closing = _QUOTE.search(arguments, value + 2)  # the text is one character or more, not '\n'
            if closing is not None and closing.group() != "\n" and arguments[value + 1] != "\n":
                found.append((key.group(1), arguments[value + 1 : closing.start()]))
                position = closing.end()
        elif first == "[":
            if value > line_end:
                line_end = arguments.find("\n", value)
                line_end = len(arguments) if line_end < 0 else line_end
                last_bracket = arguments.rfind("]", value, line_end)
            if last_bracket > value:
                found.append((key.group(1), arguments[value : last_bracket + 1]))
                position = last_bracket + 1
        elif first:
            word = _WORD.match(arguments, value)
            if word is not None:
                found.append((key.group(1), word.group()))
                position = word.end()
    return found


def find_call(text: str) -> str | None:
    """The first ``[Name(...)]`` in ``text`` (None when there is none): the official ``get_api_call``."""
    match = _match(text)
    return text[match[0] : match[2]] if match else None


def parse_call(call: str) -> tuple[str, dict[str, str]]:
    """API name and string parameters of an extracted call: the official ``parse_api_call``."""
    match = _match(call)
    if match is None:
        raise ValueError("no [ApiName(...)] call in the text")
    start, args, end = match
    return call[start + 1 : args - 1], dict(_params(call[args : end - 2]))


def render_call(api_name: str, params: dict) -> str:
    """A call in the prompt's format: ``[Name(key='value', ...)]``, every value quoted as text."""
    return "[{}({})]".format(api_name, ", ".join(f"{k}='{v}'" for k, v in params.items()))


def render_gold_call(api_name: str, params: dict) -> str:
    """The reference call as a model should write it: list values bare (``key=[...]``), others quoted."""
    parts = []
    for key, value in params.items():
        text = str(value)
        if text.startswith("[") and text.endswith("]"):
            parts.append(f"{key}={text}")
        elif "'" in text and '"' not in text:
            parts.append(f'{key}="{text}"')
        else:
            parts.append(f"{key}='{text}'")
    return "[{}({})]".format(api_name, ", ".join(parts))
