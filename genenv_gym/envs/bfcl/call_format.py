"""Native tool calls as BFCL answers: ``[f(a=1), g(b='x')]`` (BFCL's prompting format) or a JSON list.

BFCL multi-turn's actions use the same two formats, so its manifest names this call format too.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from genenv_gym.envs.bfcl.decode import decode_json_calls, decode_python, is_empty_output
from genenv_gym.envs.bfcl.decode_errors import DecodeError


def python_call(call: Mapping[str, Any]) -> str:
    """``name(a=1, b='x')`` from a JSON call (values written as Python literals)."""
    arguments = call.get("arguments")
    if not isinstance(arguments, Mapping):
        return f"{call.get('name', '')}()"
    rendered = ", ".join(f"{key}={value!r}" for key, value in arguments.items())
    return f"{call.get('name', '')}({rendered})"


class BFCLCalls:
    """``action_format="json"``: a JSON list of ``{"name", "arguments"}``; otherwise ``[f(a=1), ...]``."""

    def to_action(self, calls: Sequence[Mapping[str, Any]], action_format: str | None) -> str:
        if action_format == "json":
            return json.dumps([{"name": c.get("name"), "arguments": c.get("arguments", {})} for c in calls])
        return "[" + ", ".join(python_call(c) for c in calls) + "]"

    def from_action(self, action: str, action_format: str | None) -> list[dict[str, Any]] | None:
        try:
            decoded = decode_json_calls(action) if action_format == "json" else decode_python(action)
        except (DecodeError, ValueError):
            return None
        if is_empty_output(decoded):
            return None
        return [{"name": name, "arguments": dict(args)} for item in decoded for name, args in item.items()]


BFCL_CALLS = BFCLCalls()
