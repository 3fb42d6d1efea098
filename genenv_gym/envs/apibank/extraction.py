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


_PARAM = re.compile(r"(\w+)\s*=\s*['\"](.+?)['\"]|(\w+)\s*=\s*(\[.*\])|(\w+)\s*=\s*(\w+)")


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
    params: dict[str, str] = {}
    for m in _PARAM.finditer(call[args : end - 2]):
        if m.group(1):
            params[m.group(1)] = m.group(2)
        elif m.group(3):
            params[m.group(3)] = m.group(4)
        elif m.group(5):
            params[m.group(5)] = m.group(6)
    return call[start + 1 : args - 1], params


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
