"""Safe execution of one decoded call on the backend instances, formatted as BFCL's loop does.

A call is dispatched only to a name listed in a backend class's ``METHODS`` (no dunder, no
``getattr`` on arbitrary names). The result is returned as the official loop records it:
strings as they are, dicts as ``json.dumps`` (or ``str`` when not serialisable), anything
else as ``str``; any exception becomes ``"Error during execution: <message>"``.
"""

from __future__ import annotations

import json
from typing import Any


def find_method(instances: dict[str, Any], name: str) -> Any | None:
    """The bound method ``name`` of the first backend that documents it, else None."""
    if not isinstance(name, str) or name.startswith("_"):
        return None
    for instance in instances.values():
        if name in getattr(type(instance), "METHODS", ()):
            return getattr(instance, name)
    return None


def format_result(result: Any) -> str:
    """Render a method's return value the way the official execution loop does."""
    if type(result) is str:
        return result
    if type(result) is dict:
        try:
            return json.dumps(result)
        except (TypeError, ValueError):
            return str(result)
    return str(result)


def execute_call(instances: dict[str, Any], name: str, kwargs: dict[str, Any]) -> str:
    """Run ``name(**kwargs)`` on the backend that documents it; never raises."""
    method = find_method(instances, name)
    if method is None:
        return f"Error during execution: name '{name}' is not defined"
    if not isinstance(kwargs, dict) or not all(isinstance(k, str) for k in kwargs):
        return "Error during execution: keyword arguments must be a mapping of names"
    try:
        return format_result(method(**kwargs))
    except Exception as e:  # the official loop turns every failure into this string
        return f"Error during execution: {e}"
