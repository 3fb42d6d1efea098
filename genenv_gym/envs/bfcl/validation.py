"""``validate_record``: is a (generated, LLM-written or benchmark) BFCL record well formed and solvable?

The checks are structural (category, question, function schemas in BFCL's JSON-schema dialect, possible
answer against the schemas) and then behavioural: the AST checker (:mod:`genenv_gym.envs.bfcl.checker`)
must grade the record's own rendered gold answer valid, or for irrelevance a refusal.
"""

from __future__ import annotations

import copy
import keyword
import math
import re
from collections.abc import Mapping
from typing import Any

from genenv_gym.envs.bfcl import checker, render
from genenv_gym.envs.bfcl.categories import AST_CATEGORIES, NO_GROUND_TRUTH, language_of

__all__ = ["MAX_QUESTION_CHARS", "REFUSAL", "validate_record"]

#: Parameter types of BFCL's Python JSON-schema dialect (the keys of the checker's type table).
PYTHON_TYPES: frozenset[str] = frozenset(checker.PYTHON_TYPE_MAPPING)
#: Extra type names accepted in Java and JavaScript records. These are the names the records use, not the
#: keys of the official converters (``java_js.JAVA_TYPE_CONVERSION`` / ``JS_TYPE_CONVERSION``): a declared
#: type the converters lack only fails if the gold answer gives that parameter, which the checker run of
#: ``validate_record`` then reports.
JAVA_TYPES: frozenset[str] = frozenset(
    {"String", "int", "integer", "long", "short", "byte", "char", "double", "float", "boolean", "Boolean"}
    | {"HashMap", "ArrayList", "Array", "Set", "List", "any"}
)
JAVASCRIPT_TYPES: frozenset[str] = frozenset(
    {"String", "string", "Boolean", "boolean", "Number", "number", "integer", "float", "Bigint", "array"}
    | {"dict", "object", "any"}
)

#: The longest question accepted (the longest real BFCL user turn is about 10.8k characters).
MAX_QUESTION_CHARS: int = 12_000

#: A refusal: the text an irrelevance record's reference answer is (it must decode to no call).
REFUSAL = "None of the provided functions can be used to answer this question."

_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
_MAX_DEPTH = 8


def _plain(value: Any) -> Any:
    """Deep copy of JSON-like data with mappings as dicts and sequences (not strings) as lists."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return copy.copy(value)


def _is_list(value: Any) -> bool:
    return isinstance(value, (list, tuple))


def _types_for(language: str) -> frozenset[str]:
    if language == "java":
        return PYTHON_TYPES | JAVA_TYPES
    if language == "javascript":
        return PYTHON_TYPES | JAVASCRIPT_TYPES
    return PYTHON_TYPES


def _reserved(word: str, types: frozenset[str]) -> bool:
    """A Python keyword, which cannot be a call or keyword-argument name in Python answers (Java and
    JavaScript answers are parsed as their own language, where e.g. ``from`` is allowed)."""
    return types is PYTHON_TYPES and keyword.iskeyword(word)


def _check_property(prop: Any, path: str, types: frozenset[str], reasons: list[str], depth: int = 0) -> None:
    """Reasons a parameter schema (and its items / properties) is malformed."""
    if depth > _MAX_DEPTH:
        reasons.append(f"{path}: schema nested deeper than {_MAX_DEPTH} levels")
        return
    if not isinstance(prop, Mapping):
        reasons.append(f"{path}: parameter schema must be an object, got {type(prop).__name__}")
        return
    declared = prop.get("type")
    if not isinstance(declared, str) or declared not in types:
        reasons.append(f"{path}: type {declared!r} is not one of BFCL's types {sorted(types)}")
        return
    if "description" in prop and not isinstance(prop["description"], str):
        reasons.append(f"{path}: description must be a string")
    if "enum" in prop and not _is_list(prop["enum"]):
        reasons.append(f"{path}: enum must be a list")
    if "items" in prop:
        _check_property(prop["items"], f"{path}.items", types, reasons, depth + 1)
    if "properties" in prop:
        _check_properties(prop["properties"], prop.get("required", []), path, types, reasons, depth + 1)


def _check_properties(
    properties: Any, required: Any, path: str, types: frozenset[str], reasons: list[str], depth: int
) -> None:
    if not isinstance(properties, Mapping):
        reasons.append(f"{path}: properties must be an object, got {type(properties).__name__}")
        return
    for name, prop in properties.items():
        if depth == 0 and (not isinstance(name, str) or not name.isidentifier() or _reserved(name, types)):
            reasons.append(f"{path}: parameter name {name!r} is not a valid identifier")
            continue
        if not isinstance(name, str) or not name:
            reasons.append(f"{path}: property name {name!r} is not a non-empty string")
            continue
        _check_property(prop, f"{path}.{name}", types, reasons, depth)
    if not _is_list(required) or not all(isinstance(r, str) for r in required):
        reasons.append(f"{path}: required must be a list of parameter names")
        return
    missing = [r for r in required if r not in properties]
    if missing:
        reasons.append(f"{path}: required parameters {missing} are not among the properties")


def _check_function(function: Any, index: int, types: frozenset[str], reasons: list[str]) -> str | None:
    """Reasons a function schema is malformed; returns its name when it has a usable one."""
    if not isinstance(function, Mapping):
        reasons.append(f"function {index}: must be an object, got {type(function).__name__}")
        return None
    name = function.get("name")
    valid_name = isinstance(name, str) and bool(_NAME_RE.match(name))
    if not valid_name or any(_reserved(part, types) for part in str(name).split(".")):
        reasons.append(f"function {index}: name {name!r} is not a (dotted) Python identifier")
        valid_name = False
    path = f"function {name!r}" if valid_name else f"function {index}"
    if not isinstance(function.get("description"), str):
        reasons.append(f"{path}: description must be a string")
    parameters = function.get("parameters")
    if not isinstance(parameters, Mapping):
        reasons.append(f"{path}: parameters must be an object")
    elif parameters.get("type") != "dict":
        reasons.append(f"{path}: parameters.type must be 'dict', got {parameters.get('type')!r}")
    else:
        _check_properties(
            parameters.get("properties"), parameters.get("required", []), path, types, reasons, 0
        )
    return name if valid_name else None


def _type_problem(value: Any, prop: Mapping[str, Any], path: str, depth: int = 0) -> list[str]:
    """Reasons one allowed value does not fit a (Python-dialect) parameter schema."""
    if depth > _MAX_DEPTH:
        return [f"{path}: value nested deeper than {_MAX_DEPTH} levels"]
    declared = prop.get("type")
    problems: list[str] = []
    if declared == "string":
        ok = isinstance(value, str)
    elif declared == "integer":
        ok = type(value) is int
    elif declared == "float":
        ok = type(value) in (int, float) and math.isfinite(value)
    elif declared == "boolean":
        ok = type(value) is bool
    elif declared in ("array", "tuple"):
        ok = isinstance(value, list)
        items = prop.get("items")
        if ok and isinstance(items, Mapping):
            for j, item in enumerate(value):
                if items.get("type") == "dict":
                    problems += _dict_problems(item, items, f"{path}[{j}]", depth + 1)
                elif items.get("type") == "float" and type(item) is int and float in map(type, value):
                    problems.append(
                        f"{path}[{j}]: int {item!r} mixed with floats fails the checker's nested type "
                        f"check; write {float(item)!r}"
                    )
                else:
                    problems += _type_problem(item, items, f"{path}[{j}]", depth + 1)
    elif declared == "dict":
        ok = isinstance(value, Mapping)
        if ok:
            problems += _dict_problems(value, prop, path, depth + 1)
    else:  # "any"
        ok = True
    if not ok:
        return [f"{path}: allowed value {value!r} is not of type {declared!r}", *problems]
    enum = prop.get("enum")
    strings = _is_list(enum) and all(isinstance(e, str) for e in enum)
    if (
        declared == "string"
        and strings
        and checker.standardize_string(value) not in {checker.standardize_string(e) for e in enum}
    ):
        problems.append(f"{path}: allowed value {value!r} is not in the enum {list(enum)}")
    return problems


def _dict_problems(value: Any, prop: Mapping[str, Any], path: str, depth: int) -> list[str]:
    """Reasons a possible-answer dict ``{key: [allowed values]}`` does not fit a dict schema."""
    if not isinstance(value, Mapping):
        return [f"{path}: allowed value {value!r} is not of type 'dict'"]
    properties = prop.get("properties")
    problems: list[str] = []
    for key, allowed in value.items():
        if isinstance(properties, Mapping) and properties and key not in properties:
            problems.append(f"{path}: dict key {key!r} is not among the schema's properties")
            continue
        if not _is_list(allowed) or not allowed:
            problems.append(f"{path}.{key}: allowed values must be a non-empty list")
            continue
        sub = properties.get(key) if isinstance(properties, Mapping) else None
        if isinstance(sub, Mapping):
            for v in allowed:
                if v != "" and v is not None:
                    problems += _type_problem(v, sub, f"{path}.{key}", depth + 1)
    return problems


def _check_answer(
    ground_truth: Any,
    category: str,
    schemas: Mapping[str, Mapping[str, Any]],
    python: bool,
    reasons: list[str],
) -> None:
    """Reasons a possible answer is malformed or cannot be met under the schemas."""
    if not _is_list(ground_truth) or not ground_truth:
        reasons.append(f"ground_truth must be a non-empty list of calls for category {category!r}")
        return
    if "parallel" in category:
        if len(ground_truth) < 2:
            reasons.append(
                f"category {category!r} needs at least 2 calls, ground truth has {len(ground_truth)}"
            )
    elif len(ground_truth) != 1:
        reasons.append(f"category {category!r} needs exactly 1 call, ground truth has {len(ground_truth)}")
    for i, entry in enumerate(ground_truth):
        if not isinstance(entry, Mapping) or len(entry) != 1:
            reasons.append(
                f"ground_truth[{i}]: must be a one-key object {{function_name: {{param: [values]}}}}"
            )
            continue
        ((name, params),) = entry.items()
        if name not in schemas:
            reasons.append(f"ground_truth[{i}]: function {name!r} is not among the offered functions")
            continue
        if not isinstance(params, Mapping):
            reasons.append(f"ground_truth[{i}]: arguments of {name!r} must be an object")
            continue
        parameters = schemas[name].get("parameters", {})
        properties = parameters.get("properties", {}) if isinstance(parameters, Mapping) else {}
        required = parameters.get("required", []) if isinstance(parameters, Mapping) else []
        for param in required if _is_list(required) else []:
            if not isinstance(param, str):
                continue  # reported with the function's schema
            allowed = params.get(param)
            if not _is_list(allowed) or all(v == "" for v in allowed):
                reasons.append(f"ground_truth[{i}]: required parameter {name}.{param} has no allowed value")
        for param, allowed in params.items():
            path = f"ground_truth[{i}] {name}.{param}"
            if not isinstance(properties, Mapping) or param not in properties:
                reasons.append(f"{path}: parameter is not in the function's schema")
                continue
            if not _is_list(allowed) or not allowed:
                reasons.append(f"{path}: allowed values must be a non-empty list")
                continue
            if python and isinstance(properties[param], Mapping):
                for value in allowed:
                    if value != "" and value is not None:  # "" = may be omitted; None = explicit null
                        reasons.extend(_type_problem(value, properties[param], path))


def _grade_problems(functions: list[dict], ground_truth: Any, category: str, strict: bool) -> list[str]:
    """Run the checker on the record's own reference answer(s)."""
    if category in ("irrelevance", "live_irrelevance"):
        result = checker.grade_output(REFUSAL, functions, None, category)
        return (
            []
            if result.valid
            else [f"a refusal fails the checker: {result.error_type}: {list(result.errors)}"]
        )
    if ground_truth is None:  # live_relevance: any call passes
        return []
    language = language_of(category)
    problems: list[str] = []
    orders = [("gold answer", ground_truth)]
    if strict and "parallel" in category and len(ground_truth) > 1:
        orders.append(("gold answer in reverse order", list(reversed(ground_truth))))
    for label, answer in orders:
        gold = render.render_answer(answer, functions, language)
        result = checker.grade_output(gold, functions, ground_truth, category)
        if not result.valid:
            problems.append(f"{label} {gold!r} fails the checker: {result.error_type}: {list(result.errors)}")
    return problems


def validate_record(
    functions: Any, ground_truth: Any, category: Any, question: Any, *, strict: bool = True
) -> list[str]:
    """Reasons a (generated or LLM-written) record is malformed or unsolvable; ``[]`` when it is valid.

    Checks the category, the question (a non-empty string of at most ``MAX_QUESTION_CHARS``), the function
    schemas (dotted identifier names, BFCL types, ``required`` within ``properties``), the possible answer
    (offered function names, parameters in the schema, an allowed value for every required parameter,
    allowed values that type-check), that irrelevance-style records have no ground truth, and finally
    that the checker grades the rendered gold answer valid (for parallel categories also in reverse
    order, since the official matcher is greedy) or, for irrelevance, a refusal. Never raises.

    ``strict=False`` keeps only what decides whether the record can be passed: it skips the type and enum
    checks of allowed values that the checker tolerates (BFCL's own files have such values, e.g.
    ``'dontcare'`` for an integer) and the reverse-order check, leaving the checker's verdict on the gold.
    """
    try:
        return _validate(functions, ground_truth, category, question, strict)
    except Exception as exc:  # junk input must come back as reasons, never as an exception
        return [f"record could not be checked: {type(exc).__name__}: {exc}"]


def _validate(functions: Any, ground_truth: Any, category: Any, question: Any, strict: bool) -> list[str]:
    reasons: list[str] = []
    if not isinstance(category, str) or category not in AST_CATEGORIES:
        reasons.append(f"category {category!r} is not one of {list(AST_CATEGORIES)}")
        category = "simple_python" if ground_truth is not None else "irrelevance"
    if not isinstance(question, str) or not question.strip():
        reasons.append("question must be a non-empty string")
    elif len(question) > MAX_QUESTION_CHARS:
        reasons.append(f"question is {len(question)} characters long (limit {MAX_QUESTION_CHARS})")
    language = language_of(category)
    types = _types_for(language)
    schemas: dict[str, Mapping[str, Any]] = {}
    if not _is_list(functions) or (not functions and category not in ("irrelevance", "live_irrelevance")):
        reasons.append("functions must be a non-empty list of function schemas")
        functions = []
    for i, function in enumerate(functions):
        name = _check_function(function, i, types, reasons)
        if name is not None:
            if name in schemas:
                reasons.append(f"function name {name!r} is offered twice")
            schemas[name] = function
    if (
        category in ("simple_python", "simple_java", "simple_javascript", "live_simple")
        and len(functions) != 1
    ):
        reasons.append(f"category {category!r} offers exactly one function, got {len(functions)}")
    if category in NO_GROUND_TRUTH:
        if ground_truth is not None:
            reasons.append(f"category {category!r} has no ground truth (must be None)")
    else:
        _check_answer(ground_truth, category, schemas, strict and language == "python", reasons)
    if not reasons:
        reasons.extend(_grade_problems(_plain(functions), _plain(ground_truth), category, strict))
    return reasons
