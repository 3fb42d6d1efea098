"""Native tool calls as API-Bank answers: ``[ApiName(key='value', ...)]``, read as the official extraction.

The official evaluation reads one call per turn (the first ``[Name(...)]``), so a list of native calls is
answered with its first call. Values are written as text, as the official prompt asks; list values bare.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from genenv_gym.envs.apibank.extraction import find_call, parse_call, render_gold_call


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


class APIBankCalls:
    """The first native call in API-Bank's call syntax."""

    def to_action(self, calls: Sequence[Mapping[str, Any]], action_format: str | None) -> str:
        if not calls:
            return ""
        arguments = calls[0].get("arguments")
        params = {str(k): _text(v) for k, v in arguments.items()} if isinstance(arguments, Mapping) else {}
        return render_gold_call(str(calls[0].get("name", "")), params)

    def from_action(self, action: str, action_format: str | None) -> list[dict[str, Any]] | None:
        call = find_call(action)
        if call is None:
            return None
        name, params = parse_call(call)
        return [{"name": name, "arguments": params}]


API_CALLS = APIBankCalls()
