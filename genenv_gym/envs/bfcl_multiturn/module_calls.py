"""Calls of dotted names (``json.loads(s=...)``) as the official execution loop answers them.

The official loop ``eval``s each call string in the namespace of bfcl-eval 2026.3.23's
``multi_turn_utils`` module, which imports ``copy``, ``importlib``, ``inspect``, ``json`` and ``re``: a
model may call their functions. Nothing here evaluates text. A dotted name resolves as ``eval`` resolves
it, before any argument runs: ``<mod>`` outside those modules is ``name '<mod>' is not defined``, a
function the module lacks is ``module '<mod>' has no attribute '<attr>'``. The side-effect-free
functions are emulated by calling the standard library's own function on the decoded literal arguments
(literals are never callable, so nothing given runs): ``json.loads``, ``json.dumps``, ``copy.copy`` and
``copy.deepcopy``. ``json.dumps``' ``indent`` and ``separators`` are held to :data:`MAX_LAYOUT_CHARS`
characters (so an output stays within a small multiple of the action's size). Any other function of those
modules (``re.findall``, ``importlib.import_module``, ...) is not run: it answers
``<mod>.<attr> is not run here``, a documented difference (docs/benchmark_defects.md).
"""

from __future__ import annotations

import copy
import importlib
import inspect
import json
import re
from collections.abc import Callable
from types import ModuleType
from typing import Any

#: The modules ``multi_turn_utils`` imports (bfcl-eval 2026.3.23), by the names a call string uses.
NAMESPACE_MODULES: dict[str, ModuleType] = {
    "copy": copy,
    "importlib": importlib,
    "inspect": inspect,
    "json": json,
    "re": re,
}
#: The functions of those modules that are emulated (run on literal arguments only).
EMULATED: frozenset[str] = frozenset({"json.loads", "json.dumps", "copy.copy", "copy.deepcopy"})
#: The longest ``indent`` / separator text ``json.dumps`` is run with.
MAX_LAYOUT_CHARS = 64


class ModuleCallError(Exception):
    """The call fails; the message is what follows ``Error during execution: ``."""


def resolve(name: str) -> Callable[..., Any]:
    """The function a dotted call name denotes, or ModuleCallError with the official message."""
    module_name, _, attribute = name.partition(".")
    module = NAMESPACE_MODULES.get(module_name)
    if module is None:
        raise ModuleCallError(f"name '{module_name}' is not defined")
    head = attribute.split(".", 1)[0]
    if not hasattr(module, head):
        raise ModuleCallError(f"module '{module_name}' has no attribute '{head}'")
    if name not in EMULATED:
        raise ModuleCallError(f"{name} is not run here (the official evaluation would run it)")
    return _checked_dumps if name == "json.dumps" else getattr(module, attribute)


def _checked_dumps(*args: Any, **kwargs: Any) -> str:
    """``json.dumps``, refusing a layout long enough to blow the output up."""
    indent = kwargs.get("indent")
    separators = kwargs.get("separators")
    layout = [indent] if isinstance(indent, str) else []
    if isinstance(separators, list | tuple):
        layout += [s for s in separators if isinstance(s, str)]
    too_big = isinstance(indent, int) and not isinstance(indent, bool) and indent > MAX_LAYOUT_CHARS
    if too_big or any(len(s) > MAX_LAYOUT_CHARS for s in layout):
        raise ModuleCallError(f"json.dumps layout longer than {MAX_LAYOUT_CHARS} characters is not run here")
    return json.dumps(*args, **kwargs)


def call_module_function(function: Callable[..., Any], args: tuple, kwargs: dict[str, Any]) -> Any:
    """Call a resolved function; its failure becomes ModuleCallError with the exception's text."""
    if any(callable(v) for v in (*args, *kwargs.values())):
        raise ModuleCallError("a callable argument is not run here")
    try:
        return function(*args, **kwargs)
    except ModuleCallError:
        raise
    except (RecursionError, MemoryError) as error:
        raise ModuleCallError(str(error) or type(error).__name__) from None
    except Exception as error:
        raise ModuleCallError(str(error)) from None
