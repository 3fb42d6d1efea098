"""What travels over the wire: ``info`` and ``reset`` options as JSON, and back.

``info_to_json`` is the one conversion the server, the remote env and the conformance suite all use:

=====================================  =====================================================
in-process value                       JSON form
=====================================  =====================================================
``str``, ``int``, ``bool``, ``None``   itself
finite ``float``                       itself
``nan``, ``inf``, ``-inf``             the strings ``"nan"``, ``"inf"``, ``"-inf"``
mapping (``dict``, ``FrozenDict``)     object; keys become strings
``list``, ``tuple``                    array
``set``, ``frozenset``                 array, sorted by the items' JSON text
numpy array / numpy scalar             nested arrays (``tolist()``) / number (``item()``)
``Task``                               its ``Task.to_dict()``
anything else (objects, callables)     dropped; its dotted key path is listed in ``info["not_json"]``
=====================================  =====================================================

Every key the registered envs put in ``info`` has a JSON form, so ``not_json`` appears only when a
wrapper or a custom env adds an object.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from genenv_gym.task import Task

#: The key under which ``info_to_json`` lists the dotted paths of values that had no JSON form.
NOT_JSON_KEY = "not_json"


class NotJSON(TypeError):
    """A value has no JSON form (see the module's table)."""


def to_json_value(value: Any) -> Any:
    """``value`` in its JSON form (the module's table); raises NotJSON naming the first path that fails."""
    dropped: list[str] = []
    converted = _convert(value, "", dropped)
    if dropped:
        raise NotJSON(f"no JSON form for {', '.join(p or '<value>' for p in dropped)}")
    return converted


def info_to_json(info: Mapping[str, Any]) -> dict[str, Any]:
    """``info`` in its JSON form; values without one are dropped and named in ``info["not_json"]``."""
    dropped: list[str] = []
    converted = {str(k): _convert(v, str(k), dropped) for k, v in info.items()}
    converted = {k: v for k, v in converted.items() if v is not _DROPPED}
    if dropped:
        converted[NOT_JSON_KEY] = sorted(dropped)
    return converted


_DROPPED = object()


def _convert(value: Any, path: str, dropped: list[str]) -> Any:
    kind = type(value)
    if kind is str or kind is bool or kind is int or value is None:
        return value
    if kind is float:
        return value if math.isfinite(value) else str(value)
    if isinstance(value, Mapping):
        items = ((str(k), _convert(v, f"{path}.{k}" if path else str(k), dropped)) for k, v in value.items())
        return {k: v for k, v in items if v is not _DROPPED}
    if isinstance(value, (list, tuple)):
        items = [_convert(v, f"{path}[{i}]", dropped) for i, v in enumerate(value)]
        return [v for v in items if v is not _DROPPED]
    if isinstance(value, (set, frozenset)):
        items = [_convert(v, f"{path}{{}}", dropped) for v in value]
        return sorted((v for v in items if v is not _DROPPED), key=lambda v: json.dumps(v, sort_keys=True))
    if isinstance(value, np.ndarray):
        return _convert(value.tolist(), path, dropped)
    if isinstance(value, np.generic):
        return _convert(value.item(), path, dropped)
    if isinstance(value, Task):
        return value.to_dict()
    if isinstance(value, (bool, int, float, str)):  # subclasses (IntEnum, numpy-like floats)
        return _convert(_plain(value), path, dropped)
    dropped.append(path)
    return _DROPPED


def _plain(value: bool | int | float | str) -> bool | int | float | str:
    for plain in (bool, int, float, str):
        if isinstance(value, plain):
            return plain(value)
    raise AssertionError(value)


def options_from_json(options: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """``reset`` options received as JSON, with ``options["task"]`` (a Task's dict) back as a ``Task``."""
    if options is None:
        return None
    options = dict(options)
    if isinstance(options.get("task"), Mapping):
        options["task"] = Task.from_dict(options["task"])
    return options


def json_text(value: Any) -> str:
    """``value`` as JSON text that UTF-8 can carry: non-ASCII text as itself, unless some string holds a
    lone surrogate (an env may echo what it was given), then every non-ASCII character ``\\uXXXX``-escaped
    (the same string once decoded)."""
    text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(value, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
    return text
