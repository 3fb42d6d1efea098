"""Safe execution of one decoded call on the backend instances, formatted as BFCL's loop does.

A call is dispatched only to a name listed in a backend class's ``METHODS`` (no dunder, no
``getattr`` on arbitrary names). The result is returned as the official loop records it:
strings as they are, dicts as ``json.dumps`` (or ``str`` when not serialisable), anything
else as ``str``; any exception becomes ``"Error during execution: <message>"``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from genenv_gym.envs.bfcl_multiturn.long_context import filler_ids, filler_json


def find_method(instances: Mapping[str, Any], name: str) -> Any | None:
    """The bound method ``name`` of the first backend that documents it, else None."""
    if not isinstance(name, str) or name.startswith("_"):
        return None
    for instance in instances.values():
        if name in _documented(type(instance)):
            return getattr(instance, name)
    return None


def _documented(cls: type) -> frozenset[str]:
    """A backend class's ``METHODS`` as a set (looked up once per class)."""
    methods = _DOCUMENTED.get(cls)
    if methods is None:
        methods = _DOCUMENTED[cls] = frozenset(getattr(cls, "METHODS", ()))
    return methods


_DOCUMENTED: dict[type, frozenset[str]] = {}
_is_str = str.__instancecheck__  # isinstance(value, str)


def format_result(result: Any) -> str:
    """Render a method's return value the way the official execution loop does."""
    if type(result) is str:
        return result
    if type(result) is dict:
        try:
            return _dumps_dict(result)
        except (TypeError, ValueError):
            return str(result)
    return str(result)


#: ``json.dumps`` with its default arguments (the encoder it uses), without its per-call argument handling.
_dumps = json.JSONEncoder().encode


def _dumps_dict(result: dict) -> str:
    """``json.dumps(result)``, with the long-context filler values in it taken already encoded."""
    if filler_ids().isdisjoint(map(id, result.values())):
        return _dumps(result)
    encoded = [filler_json(value) for value in result.values()]
    if not any(encoded) or not all(type(key) is str for key in result):
        return _dumps(result)
    parts = [
        f"{_dumps(key)}: {text if text is not None else _dumps(value)}"
        for (key, value), text in zip(result.items(), encoded, strict=True)
    ]
    return "{" + ", ".join(parts) + "}"


def execute_call(instances: Mapping[str, Any], name: str, kwargs: dict[str, Any]) -> str:
    """Run ``name(**kwargs)`` on the backend that documents it; never raises."""
    method = find_method(instances, name)
    if method is None:
        return f"Error during execution: name '{name}' is not defined"
    if not isinstance(kwargs, dict) or not all(map(_is_str, kwargs)):
        return "Error during execution: keyword arguments must be a mapping of names"
    try:
        return format_result(method(**kwargs))
    except Exception as e:  # the official loop turns every failure into this string
        return f"Error during execution: {e}"


def is_error_result(result: str) -> bool:
    """Whether a rendered call result reports a failure (``Error during execution``, an error dict/list)."""
    if result.startswith("Error during execution") or result.startswith("['Error"):
        return True
    try:
        value = json.loads(result)
    except ValueError:
        return False
    if isinstance(value, list) and value and isinstance(value[0], dict):
        value = value[0]
    return isinstance(value, dict) and "error" in value
