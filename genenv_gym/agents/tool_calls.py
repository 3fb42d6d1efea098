"""Native tool calls and the env's action text: the ``CallFormat`` each domain declares in its manifest.

A model that calls tools natively (an OpenAI-compatible endpoint's ``tool_calls``, ``<tool_call>`` blocks)
answers with a list of ``{"name": str, "arguments": dict}``. A domain's ``CallFormat`` writes such a list
in the domain's answer format (``to_action``) and reads the calls back out of an action text
(``from_action``: None when the text is not calls, e.g. a reply in words). A domain whose manifest names no
call format gets ``JSON_CALLS``: the calls as a JSON list.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from genenv_gym.registry.manifest import domain_spec, load

#: One native tool call: ``{"name": str, "arguments": dict}``.
ToolCall = Mapping[str, Any]


class CallFormat(Protocol):
    """How a domain's actions and native tool calls translate into each other."""

    def to_action(self, calls: Sequence[ToolCall], action_format: str | None) -> str:
        """The action text that makes these calls."""
        ...

    def from_action(self, action: str, action_format: str | None) -> list[dict[str, Any]] | None:
        """The calls an action text makes (None when it makes none: a reply in words, an unreadable text)."""
        ...


def plain_call(call: ToolCall) -> dict[str, Any]:
    """``{"name", "arguments"}`` of a call, with arguments that are not a mapping read as none."""
    arguments = call.get("arguments")
    return {"name": call.get("name"), "arguments": dict(arguments) if isinstance(arguments, Mapping) else {}}


class JsonCalls:
    """Calls as a JSON list of ``{"name", "arguments"}`` objects."""

    def to_action(self, calls: Sequence[ToolCall], action_format: str | None) -> str:
        return json.dumps([plain_call(c) for c in calls])

    def from_action(self, action: str, action_format: str | None) -> list[dict[str, Any]] | None:
        try:
            data = json.loads(action)
        except (ValueError, RecursionError):
            return None
        if not isinstance(data, list) or not all(isinstance(c, dict) and "name" in c for c in data):
            return None
        return [plain_call(c) for c in data]


JSON_CALLS = JsonCalls()


def call_format_of(domain: str | None) -> CallFormat:
    """The call format that the manifest of ``domain`` declares (``JSON_CALLS`` when it declares none)."""
    spec = domain_spec(domain) if domain else None
    if spec is None or spec.call_format is None:
        return JSON_CALLS
    return load(spec.call_format)
