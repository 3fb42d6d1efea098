"""Bamboogle's two actions as tools: ``search`` (``<search> query </search>``) and ``answer`` (``<answer>
answer </answer>``), Search-R1's tags; a native tool call becomes the tagged text the loop reads."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from genenv_gym.envs.bamboogle.extraction import parse_action

#: The tools an episode offers a tool-calling client (``Task.tools``' format).
SEARCH_TOOLS = (
    {
        "name": "search",
        "description": "Search the corpus; the top results come back between <information> tags.",
        "parameters": {
            "type": "object",
            "properties": {"query": {"type": "string", "description": "what to search for"}},
            "required": ["query"],
        },
    },
    {
        "name": "answer",
        "description": "Give the final answer (ends the episode).",
        "parameters": {
            "type": "object",
            "properties": {"answer": {"type": "string", "description": "the answer, a few words"}},
            "required": ["answer"],
        },
    },
)

_ARGUMENT = {"search": "query", "answer": "answer"}


class SearchCalls:
    """A ``search`` or ``answer`` call as its tagged text (the first call of a list: one per turn)."""

    def to_action(self, calls: Sequence[Mapping[str, Any]], action_format: str | None) -> str:
        if not calls:
            return ""
        name = str(calls[0].get("name", ""))
        arguments = calls[0].get("arguments")
        value = arguments.get(_ARGUMENT.get(name, ""), "") if isinstance(arguments, Mapping) else ""
        return f"<{name}> {value} </{name}>" if name in _ARGUMENT else ""

    def from_action(self, action: str, action_format: str | None) -> list[dict[str, Any]] | None:
        kind, content = parse_action(action)
        return None if kind is None else [{"name": kind, "arguments": {_ARGUMENT[kind]: content}}]


SEARCH_CALLS = SearchCalls()
