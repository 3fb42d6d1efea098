"""Render a BFCL possible answer as model output text that the official checker accepts.

A possible answer is a list of calls ``{func_name: {param: [allowed values...]}}``. ``render_answer`` picks
one allowed value per parameter and writes the calls in one of the two action formats:

- ``"python"``: BFCL's prompting format ``[f(a=1), g(b='x')]``. For Python categories the values are
  Python literals. For Java and JavaScript categories the official runner parses the text between the
  outer brackets as Java / JavaScript source (tree-sitter) and converts each argument's source text by the
  declared language type, so values are written as that language's source: ``42L`` for a Java ``long``,
  ``1.5f`` for ``float``, ``new int[]{1, 2}`` for an ``Array``, ``new ArrayList<>(Arrays.asList(...))``,
  ``"text"`` string literals, ``[1, 2]`` / ``{key: value}`` for JavaScript arrays and objects.
- ``"json"``: JSON tool calls ``[{"name": ..., "arguments": {...}}]`` (the "FC" style). Python values
  are JSON values. Java / JavaScript arguments are strings holding the source text (BFCL presents every
  Java/JS parameter to FC models as a string "in string representation"); a string value is given as is.

Known limits, inherited from the official checker (the answer is rendered naturally and fails there too):
Java ``String[]`` elements keep their quotes, a non-empty Java ``HashMap`` decodes to an empty map, Java
``ArrayList`` of ``any`` keeps element source text, and escapes in string literals are not processed.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["render_answer", "render_value"]

#: Declared parameter types (Python, Java and JavaScript dialects) -> the Python type they check as.
_KIND: dict[str, type] = {
    "string": str,
    "String": str,
    "any": str,
    "char": str,
    "integer": int,
    "long": int,
    "short": int,
    "byte": int,
    "Bigint": int,
    "float": float,
    "double": float,
    "boolean": bool,
    "Boolean": bool,
    "array": list,
    "tuple": list,
    "Array": list,
    "ArrayList": list,
    "dict": dict,
    "HashMap": dict,
}

#: Element type names used in a Java array creation ``new T[]{...}``.
_JAVA_ARRAY_TYPE = {
    "integer": "int",
    "long": "long",
    "short": "short",
    "byte": "byte",
    "float": "float",
    "double": "double",
    "boolean": "boolean",
    "char": "char",
    "String": "String",
}

_JS_IDENTIFIER = re.compile(r"^[A-Za-z_$][\w$]*$")
_OMIT = object()  # marker: leave the parameter (or dict key) out


def _kind(declared: Any) -> type | None:
    return _KIND.get(declared) if isinstance(declared, str) else None


def _pick(allowed: Any, choice: int, required: bool = False) -> Any:
    """The chosen value of an allowed-values list; ``_OMIT`` when the choice is the optional marker ``""``.

    A required parameter is never omitted (the official checker tests presence of required parameters
    before it looks at the possible answer), so its first non-``""`` value is taken instead.
    """
    if not isinstance(allowed, list):  # malformed possible answer: take the value itself
        return allowed
    if not allowed:
        return _OMIT
    value = allowed[min(max(choice, 0), len(allowed) - 1)]
    if value == "" and required:
        value = next((v for v in allowed if v != ""), "")
    return _OMIT if value == "" and not required else value


def _pick_dict(possible: dict[str, Any], choice: int) -> dict[str, Any]:
    """A concrete dict from a dict of allowed-values lists (keys whose choice is ``""`` are dropped)."""
    chosen = {key: _pick(allowed, choice) for key, allowed in possible.items()}
    return {key: value for key, value in chosen.items() if value is not _OMIT}


def _concrete(value: Any, schema: dict[str, Any], choice: int) -> Any:
    """Turn a chosen allowed value into the concrete argument value.

    Dict parameters (and arrays of dicts) hold, per key, a list of allowed values rather than a value;
    the official checker compares them key by key, so a value is picked for each key as well.
    """
    kind = _kind(schema.get("type"))
    if kind is dict and isinstance(value, dict):
        return _pick_dict(value, choice)
    items = schema.get("items") if isinstance(schema.get("items"), dict) else {}
    if kind is list and _kind(items.get("type")) is dict and isinstance(value, list):
        return [_pick_dict(item, choice) if isinstance(item, dict) else item for item in value]
    return value


# ---------------------------------------------------------------------------------------------- python


def _python_literal(value: Any) -> str:
    """Python source for a JSON-like value (strings via ``repr``, so any content round-trips)."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_python_literal(k)}: {_python_literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_python_literal(v) for v in value) + "]"
    return repr(value)


# ------------------------------------------------------------------------------------------------ java


def _java_string(text: str) -> str:
    """A Java string literal; text that cannot be one without escapes is written as source as is.

    The official decoder does not process escapes, so ``"a\\"b"`` would come back with the backslash.
    Such values in BFCL are Java expressions (``new InetSocketAddress("10.0.0.1", 80)``), kept verbatim.
    """
    if any(c in text for c in '"\\\n\r'):
        return text
    return f'"{text}"'


def _java_number(value: int | float, declared: Any) -> str:
    if declared == "long" and isinstance(value, int):
        return f"{value}L"
    if declared == "float":
        return f"{value}f"
    return repr(value)


def _java(value: Any, declared: Any, item_type: Any = None) -> str:
    """Java source text for ``value`` given the parameter's declared Java type."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, int | float):
        return _java_number(value, declared)
    if isinstance(value, str):
        return _java_string(value)
    if isinstance(value, list | tuple):
        elements = ", ".join(_java(v, item_type) for v in value)
        if declared == "ArrayList":
            return f"new ArrayList<>(Arrays.asList({elements}))" if value else "new ArrayList<>()"
        return f"new {_JAVA_ARRAY_TYPE.get(item_type, 'Object')}[]{{{elements}}}"
    if isinstance(value, dict):
        if not value:
            return "new HashMap<>()"
        puts = " ".join(f"put({_java(str(k), 'String')}, {_java(v, None)});" for k, v in value.items())
        return f"new HashMap<String, Object>() {{{{ {puts} }}}}"
    return _java_string(str(value))


# ------------------------------------------------------------------------------------------ javascript


def _js_string(text: str) -> str:
    if '"' not in text:
        return f'"{text}"'
    if "'" not in text:
        return f"'{text}'"
    return json.dumps(text)


def _js(value: Any, declared: Any, item_type: Any = None) -> str:
    """JavaScript source text for ``value`` given the parameter's declared JavaScript type."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, int) and declared == "Bigint":
        return f"{value}n"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return _js_string(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_js(v, item_type) for v in value) + "]"
    if isinstance(value, dict):
        pairs = []
        for key, item in value.items():
            name = str(key)
            pairs.append(f"{name if _JS_IDENTIFIER.match(name) else _js_string(name)}: {_js(item, None)}")
        return "{" + ", ".join(pairs) + "}"
    return _js_string(str(value))


# -------------------------------------------------------------------------------------------- public


def render_value(value: Any, schema: dict[str, Any] | None, language: str) -> str:
    """Source text of one argument value in the call syntax of ``language``.

    Args:
        value: the concrete value (already picked from the allowed values).
        schema: the parameter's schema (``{"type": ..., "items": {...}}``), or None when unknown.
        language: ``"python"``, ``"java"`` or ``"javascript"``.
    """
    schema = schema or {}
    declared = schema.get("type")
    items = schema.get("items") if isinstance(schema.get("items"), dict) else {}
    if language == "java":
        return _java(value, declared, items.get("type"))
    if language == "javascript":
        return _js(value, declared, items.get("type"))
    return _python_literal(value)


def _json_argument(value: Any, schema: dict[str, Any], language: str) -> Any:
    if language == "python":
        return list(value) if isinstance(value, tuple) else value
    if isinstance(value, str):  # Java / JS FC arguments are strings; a string value is given raw
        return value
    return render_value(value, schema, language)


def _calls(
    ground_truth: list[dict[str, Any]], functions: list[dict[str, Any]], choice: int
) -> list[tuple[str, list[tuple[str, Any, dict[str, Any]]]]]:
    """(name, [(param, concrete value, param schema)]) for each ground-truth call."""
    by_name = {f.get("name"): f for f in functions if isinstance(f, dict)}
    calls = []
    for entry in ground_truth:
        for name, possible in entry.items():
            function = by_name.get(name) or (functions[0] if len(functions) == 1 else {})
            parameters = function.get("parameters", {}) if isinstance(function, dict) else {}
            properties = parameters.get("properties", {}) or {}
            required = set(parameters.get("required", []) or [])
            args = []
            for param, allowed in (possible or {}).items():
                if function and param not in properties and isinstance(allowed, list) and "" in allowed:
                    continue  # the function does not declare it and the answer lets it be left out
                schema = properties.get(param, {})
                value = _pick(allowed, choice, required=param in required)
                if value is _OMIT:
                    continue
                args.append((param, _concrete(value, schema, choice), schema))
            calls.append((name, args))
    return calls


def render_answer(
    ground_truth: list[dict[str, Any]],
    functions: list[dict[str, Any]],
    language: str,
    action_format: str = "python",
    choice: int = 0,
) -> str:
    """Model output text for a BFCL possible answer.

    Args:
        ground_truth: ``[{func_name: {param: [allowed values...]}}, ...]`` (parallel answers list
            several calls; they are rendered in this order).
        functions: the record's function docs, used for the declared parameter types.
        language: ``"python"``, ``"java"`` or ``"javascript"`` (see ``categories.language_of``).
        action_format: ``"python"`` for ``[f(a=1)]`` text, ``"json"`` for JSON tool calls.
        choice: index of the allowed value to use for every parameter (clamped to each list's length).
            A parameter whose chosen value is the optional marker ``""`` is left out, unless it is
            required, in which case its first other allowed value is used. A parameter the function
            does not declare is left out whenever its allowed values include ``""``.

    Returns:
        The output text. It never needs evaluating: the checker decodes it with a parser.
    """
    calls = _calls(ground_truth, functions, choice)
    if action_format == "json":
        return json.dumps(
            [
                {"name": name, "arguments": {p: _json_argument(v, s, language) for p, v, s in args}}
                for name, args in calls
            ],
            ensure_ascii=False,
        )
    if action_format != "python":
        raise ValueError(f"action_format must be 'python' or 'json', got {action_format!r}")
    rendered = [
        f"{name}(" + ", ".join(f"{p}={render_value(v, s, language)}" for p, v, s in args) + ")"
        for name, args in calls
    ]
    separator = "; " if language in ("java", "javascript") else ", "
    return "[" + separator.join(rendered) + "]"
