"""An episode's tools as a tool-calling client (OpenEnv's MCP tools) lists and calls them.

The tools are the ones the env already holds: the episode's own (an ``Episode`` with a ``tool_specs``
property: BFCL multi-turn, whose miss_func turns show held-out functions), else its task's tool specs
(``Task.tools``: BFCL, API-Bank), else the fixed ones its domain's manifest declares (``DomainSpec.tools``:
Bamboogle's search, TravelPlanner-Tools' eight tools). Every episode also offers ``act``, whose ``text`` is
the action itself (a one-line env offers only it; a step that makes several calls at once goes through it
too). A call is played as the action text the domain's ``CallFormat`` writes for it, the text ``genenv
eval`` plays for the same native tool call, so the env's own verdicts grade it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from genenv_gym.agents.tool_calls import call_format_of
from genenv_gym.registry.manifest import domain_spec, load
from genenv_gym.task import Task, thaw

#: The tool whose ``text`` argument is the action itself.
ACT = "act"

ACT_SPEC = {
    "name": ACT,
    "description": "Take one action: the text is played as the env's action, exactly as written.",
    "parameters": {
        "type": "object",
        "properties": {"text": {"type": "string", "description": "the action text"}},
        "required": ["text"],
    },
}

#: Type names of the benchmarks' specs (BFCL's Python-style ones) as JSON Schema types.
_JSON_TYPES = {
    "dict": "object",
    "float": "number",
    "tuple": "array",
    "list": "array",
    "int": "integer",
    "bool": "boolean",
    "str": "string",
}
_SCHEMA_TYPES = {"object", "number", "array", "integer", "boolean", "string", "null"}


def tool_specs(domain: Any, task: Task | None, episode: Any = None) -> list[dict[str, Any]]:
    """The tool specs (``Task.tools``' format: name, description, parameters) of ``episode`` (of ``task`` on
    ``domain``): the episode's, else the task's, else the domain's declared ones, then ``act`` (unless a
    tool has its name)."""
    own = getattr(episode, "tool_specs", None)
    if own is None and task is not None:
        own = thaw(task.tools)
    specs = [dict(s) for s in own or ()]
    if not specs:
        spec = domain_spec(getattr(domain, "name", "") or "")
        if spec is not None and spec.tools is not None:
            specs = [dict(s) for s in load(spec.tools)]
    if all(s.get("name") != ACT for s in specs):
        specs.append(ACT_SPEC)
    return specs


def mcp_tools(domain: Any, task: Task | None, episode: Any = None) -> list[dict[str, Any]]:
    """The episode's tools as MCP lists them: ``name``, ``description``, ``inputSchema`` (JSON Schema)."""
    return [
        {
            "name": str(spec.get("name", "")),
            "description": str(spec.get("description", "")),
            "inputSchema": {"type": "object", **json_schema(spec.get("parameters") or {})},
        }
        for spec in tool_specs(domain, task, episode)
    ]


def json_schema(schema: Any) -> Any:
    """A spec's parameter schema in JSON Schema's type names (``dict`` -> ``object``, ``float`` ->
    ``number``, ...); a type JSON Schema has no name for (``any``, a Java class) is left unconstrained."""
    if isinstance(schema, list):
        return [json_schema(item) for item in schema]
    if not isinstance(schema, Mapping):
        return schema
    converted = {key: json_schema(value) for key, value in schema.items() if key != "type"}
    kind = schema.get("type")
    if isinstance(kind, str):
        kind = _JSON_TYPES.get(kind, kind)
        if kind in _SCHEMA_TYPES:
            converted["type"] = kind
    if "properties" in schema and isinstance(schema["properties"], Mapping):
        converted["properties"] = {k: json_schema(v) for k, v in schema["properties"].items()}
    return converted


def tool_action(
    domain: Any, task: Task | None, name: str, arguments: Mapping[str, Any], episode: Any = None
) -> str:
    """The action text that calls tool ``name`` with ``arguments`` in ``episode`` (of ``task``); ValueError
    naming the episode's tools when it has no such tool."""
    specs = tool_specs(domain, task, episode)
    names = [str(s.get("name")) for s in specs]
    if name not in names:
        raise ValueError(f"no tool {name!r} in this episode; its tools: {names}")
    if name == ACT and specs[-1] is ACT_SPEC:
        text = arguments.get("text")
        if not isinstance(text, str):
            raise ValueError('act takes {"text": <string>}')
        return text
    calls: Sequence[Mapping[str, Any]] = [{"name": name, "arguments": dict(arguments)}]
    action_format = getattr(domain, "action_format", None)
    return call_format_of(getattr(domain, "name", None)).to_action(calls, action_format)
