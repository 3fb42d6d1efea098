"""Every real BFCL v4 AST record through our checker: gold answers pass, mutations fail as officially.

The expected verdicts were established with the official bfcl-eval 2026.3.23 checker
(``benchmarks/bfcl_crosscheck.py`` compares the two on every case built here). The records whose natural
gold answer the official checker rejects are listed in ``genenv_gym.envs.bfcl.known_defects`` with the
reason and the official error type, and are asserted to fail exactly that way, so the list cannot rot
silently.

The mutation helpers below are also imported by ``benchmarks/bfcl_crosscheck.py``.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from genenv_gym.envs.bfcl.categories import (
    AST_CATEGORIES,
    NO_GROUND_TRUTH,
    answer_file,
    language_of,
    question_file,
)
from genenv_gym.envs.bfcl.known_defects import EXPECTED_FAILURES, expected_failure
from genenv_gym.envs.bfcl.render import render_answer

pytestmark = pytest.mark.shared_data

GT_CATEGORIES = tuple(c for c in AST_CATEGORIES if c not in NO_GROUND_TRUTH)

#: Records that pass only with a non-obvious rendering (which ``render_answer`` produces). Each entry is
#: (id, how the naive answer differs, the official error type of the naive answer); the naive answer is
#: built by ``naive_variant`` and asserted to fail that way.
ANSWER_QUIRKS: dict[str, tuple[str, str]] = {
    "parallel_multiple_12": (
        "include `permeability`, allowed by the answer but not declared by the function",
        "parallel_function_checker_no_order:cannot_find_match",
    ),
    "parallel_multiple_26": (
        "include `type`, allowed by the answer but not declared by the function",
        "parallel_function_checker_no_order:cannot_find_match",
    ),
    "live_multiple_507-149-4": (
        "omit required `origin_airport`, whose only allowed value is the optional marker ''",
        "simple_function_checker:missing_required",
    ),
}

WRONG_STRING = "zz wrong value"
UNKNOWN_PARAM = "zz_unknown_param"

# ---------------------------------------------------------------------------------------------- data


def load_bfcl(root: Path) -> dict[str, list[dict[str, Any]]]:
    """All AST records per category, each with ``ground_truth`` (None for the (ir)relevance categories)."""
    records: dict[str, list[dict[str, Any]]] = {}
    for category in AST_CATEGORIES:
        with (root / "bfcl" / question_file(category)).open(encoding="utf-8") as fh:
            questions = [json.loads(line) for line in fh if line.strip()]
        answers: dict[str, Any] = {}
        if category not in NO_GROUND_TRUTH:
            with (root / "bfcl" / answer_file(category)).open(encoding="utf-8") as fh:
                answers = {a["id"]: a["ground_truth"] for a in map(json.loads, fh) if a}
        records[category] = [
            {**q, "ground_truth": answers.get(q["id"]), "category": category} for q in questions
        ]
    return records


# ----------------------------------------------------------------------------------------- mutations

_KIND = {
    **dict.fromkeys(("string", "String", "any", "char"), str),
    **dict.fromkeys(("integer", "long", "short", "byte", "Bigint"), int),
    **dict.fromkeys(("float", "double"), float),
    **dict.fromkeys(("boolean", "Boolean"), bool),
    **dict.fromkeys(("array", "tuple", "Array", "ArrayList"), list),
    **dict.fromkeys(("dict", "HashMap"), dict),
}


def _schema(record: dict[str, Any], name: str) -> dict[str, Any]:
    if "parallel" not in record["category"] and "multiple" not in record["category"]:
        return record["function"][0]["parameters"]  # the official simple checker takes the first function
    return next(f for f in record["function"] if f["name"] == name)["parameters"]


def _first_call(record: dict[str, Any]) -> tuple[str, dict[str, list[Any]], dict[str, Any]]:
    (name, args), *_ = record["ground_truth"][0].items()
    return name, args, _schema(record, name)


def _expected(record: dict[str, Any], simple_error: str) -> str:
    """The official error type for a mutated first call: parallel categories only report the failed match."""
    if "parallel" in record["category"]:
        return "parallel_function_checker_no_order:cannot_find_match"
    return simple_error


def _with_first_call(record: dict[str, Any], name: str, args: dict[str, Any]) -> list[dict[str, Any]]:
    ground_truth = copy.deepcopy(record["ground_truth"])
    ground_truth[0] = {name: args}
    return ground_truth


def _is_checked_value(value: Any, kind: type | None) -> bool:
    """True when the value has the declared kind (not a "variable" name, which is compared as is)."""
    if kind is None or value == "" or isinstance(value, bool) != (kind is bool):
        return False
    if kind is float:
        return isinstance(value, int | float)
    return isinstance(value, kind)


def _params(record: dict[str, Any]) -> list[tuple[str, Any, dict[str, Any]]]:
    """(param, gold value, param schema) of the first call's rendered, type-checked parameters."""
    _, args, schema = _first_call(record)
    properties = schema.get("properties", {})
    return [
        (param, allowed[0], properties[param])
        for param, allowed in args.items()
        if param in properties
        and isinstance(allowed, list)
        and allowed
        and _is_checked_value(allowed[0], _KIND.get(properties[param].get("type")))
    ]


Mutation = Callable[[dict[str, Any]], "tuple[list[dict[str, Any]], str] | None"]


def mutate_wrong_func_name(record: dict[str, Any]) -> tuple[list[dict[str, Any]], str] | None:
    """Rename the first call to a function that does not exist."""
    name, args, _ = _first_call(record)
    return _with_first_call(record, name + "_zz", args), _expected(
        record, "simple_function_checker:wrong_func_name"
    )


def mutate_missing_required(record: dict[str, Any]) -> tuple[list[dict[str, Any]], str] | None:
    """Drop the first required parameter of the first call."""
    name, args, schema = _first_call(record)
    present = [p for p in schema.get("required", []) if p in args]
    if not present:
        return None
    args = {p: v for p, v in args.items() if p != present[0]}
    return _with_first_call(record, name, args), _expected(record, "simple_function_checker:missing_required")


def mutate_unexpected_param(record: dict[str, Any]) -> tuple[list[dict[str, Any]], str] | None:
    """Add a parameter the function does not declare."""
    name, args, _ = _first_call(record)
    return _with_first_call(record, name, {**args, UNKNOWN_PARAM: [1]}), _expected(
        record, "simple_function_checker:unexpected_param"
    )


def mutate_wrong_type(record: dict[str, Any]) -> tuple[list[dict[str, Any]], str] | None:
    """Give the first type-checked parameter a value of another type.

    Java and JavaScript arguments are source text, so a string parameter accepts anything there; only
    non-string parameters are mutated in those languages (a string literal where a number is due).
    """
    name, args, _ = _first_call(record)
    for param, _gold, schema in _params(record):
        kind = _KIND[schema["type"]]
        if kind is str:
            if language_of(record["category"]) != "python":
                continue
            bad: Any = 12345
        else:
            bad = "zzwrong"
        return _with_first_call(record, name, {**args, param: [bad]}), _expected(record, "type_error:simple")
    return None


def _other_item(items: dict[str, Any]) -> Any:
    kind = _KIND.get(items.get("type"))
    return {str: "zzwrong", int: 987654, float: 98765.5, bool: True, list: []}.get(kind, "zzwrong")


def mutate_wrong_value(record: dict[str, Any]) -> tuple[list[dict[str, Any]], str] | None:
    """Give the first type-checked parameter a value of the right type that the answer does not allow."""
    name, args, _ = _first_call(record)
    for param, gold, schema in _params(record):
        allowed = args[param]
        kind = _KIND[schema["type"]]
        items = schema.get("items", {}) if isinstance(schema.get("items"), dict) else {}
        if kind is str:
            new, error = WRONG_STRING, "value_error:string"
        elif kind is bool:
            if (not gold) in allowed:
                continue
            new, error = not gold, "value_error:others"
        elif kind in (int, float):
            new = max(v for v in allowed if isinstance(v, int | float)) + (1000 if kind is int else 1000.5)
            error = "value_error:others"
        elif kind is dict:
            new, error = {**gold, "zz_extra_key": ["zzwrong"]}, "value_error:dict_key"
        elif _KIND.get(items.get("type")) is dict:
            if not gold:
                continue
            new, error = [*gold, gold[0]], "value_error:list_dict_count"
        else:
            new, error = [*gold, _other_item(items)], "value_error:list/tuple"
        return _with_first_call(record, name, {**args, param: [new]}), _expected(record, error)
    return None


MUTATIONS: dict[str, Mutation] = {
    "wrong_func_name": mutate_wrong_func_name,
    "missing_required": mutate_missing_required,
    "wrong_type": mutate_wrong_type,
    "unexpected_param": mutate_unexpected_param,
    "wrong_value": mutate_wrong_value,
}


def mutated_output(
    record: dict[str, Any], mutation: str, action_format: str = "python"
) -> tuple[str, str] | None:
    """(output text, expected official error type) of a mutation of the gold answer, or None if n/a."""
    mutated = MUTATIONS[mutation](record)
    if mutated is None:
        return None
    ground_truth, error = mutated
    language = language_of(record["category"])
    return render_answer(ground_truth, record["function"], language, action_format), error


def naive_variant(record: dict[str, Any]) -> str:
    """The natural-but-failing answer of an ``ANSWER_QUIRKS`` record (see there)."""
    if record["id"] == "live_multiple_507-149-4":
        name, args, _ = _first_call(record)
        args = {p: v for p, v in args.items() if p != "origin_airport"}
        return render_answer(_with_first_call(record, name, args), record["function"], "python")
    # Take the undeclared parameter's first non-"" value so render_answer cannot leave it out.
    ground_truth = copy.deepcopy(record["ground_truth"])
    for call in ground_truth:
        for name, args in call.items():
            declared = _schema(record, name).get("properties", {})
            for param, allowed in args.items():
                if param not in declared:
                    args[param] = [v for v in allowed if v != ""]
    return render_answer(ground_truth, record["function"], "python")


# ------------------------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def records(shared_data_dir: Path) -> dict[str, list[dict[str, Any]]]:
    return load_bfcl(shared_data_dir)


@pytest.fixture(scope="module")
def grade() -> Callable[..., Any]:
    from genenv_gym.envs.bfcl.checker import grade_output

    return grade_output


def _grade(
    grade: Callable[..., Any], record: dict[str, Any], output: str, action_format: str = "python"
) -> Any:
    return grade(output, record["function"], record["ground_truth"], record["category"], action_format)


# -------------------------------------------------------------------------------------------- tests


def test_record_counts(records: dict[str, list[dict[str, Any]]]) -> None:
    from genenv_gym.envs.bfcl.categories import RECORD_COUNTS

    assert {c: len(r) for c, r in records.items()} == RECORD_COUNTS


@pytest.mark.parametrize("action_format", ["python", "json"])
def test_gold_answers_pass(
    records: dict[str, list[dict[str, Any]]], grade: Callable[..., Any], action_format: str
) -> None:
    """Every gold answer passes, except the listed defects, which fail exactly as officially."""
    unexpected: list[str] = []
    seen: set[str] = set()
    for category in GT_CATEGORIES:
        language = language_of(category)
        for record in records[category]:
            output = render_answer(record["ground_truth"], record["function"], language, action_format)
            result = _grade(grade, record, output, action_format)
            error_type = expected_failure(record["id"], action_format)
            if error_type is not None:
                seen.add(record["id"])
                if result.valid or result.error_type != error_type:
                    unexpected.append(
                        f"{record['id']}: expected {error_type}, got {result} for {output[:200]}"
                    )
            elif not result.valid:
                unexpected.append(
                    f"{record['id']}: gold fails with {result.error_type} {result.errors[:1]}: {output[:200]}"
                )
    listed = {i for i in EXPECTED_FAILURES if expected_failure(i, action_format)}
    assert seen == listed, "expected failures not found in the data"
    assert not unexpected, "\n".join(unexpected)


def test_answer_quirks(records: dict[str, list[dict[str, Any]]], grade: Callable[..., Any]) -> None:
    """Records that pass only with a careful rendering: the naive rendering fails as officially."""
    by_id = {r["id"]: r for category in GT_CATEGORIES for r in records[category]}
    for record_id, (_how, error_type) in ANSWER_QUIRKS.items():
        record = by_id[record_id]
        language = language_of(record["category"])
        assert _grade(
            grade, record, render_answer(record["ground_truth"], record["function"], language)
        ).valid
        result = _grade(grade, record, naive_variant(record))
        assert (result.valid, result.error_type) == (False, error_type), record_id


def test_gold_answer_choices_pass(
    records: dict[str, list[dict[str, Any]]], grade: Callable[..., Any]
) -> None:
    """The second allowed value of every parameter is accepted too (Python categories)."""
    bad = []
    for category in GT_CATEGORIES:
        if language_of(category) != "python":
            continue
        for record in records[category]:
            if expected_failure(record["id"], "python") or record["id"] in ANSWER_QUIRKS:
                continue
            output = render_answer(record["ground_truth"], record["function"], "python", choice=1)
            result = _grade(grade, record, output)
            if not result.valid:
                bad.append(f"{record['id']}: {result.error_type} {output[:200]}")
    assert not bad, "\n".join(bad)


#: Minimum number of records each mutation must apply to (guards against a mutation silently skipping all).
MIN_APPLICABLE = {
    "wrong_func_name": 2450,
    "missing_required": 2200,
    "wrong_type": 2350,
    "unexpected_param": 2450,
    "wrong_value": 2400,
}


@pytest.mark.parametrize("mutation", list(MUTATIONS))
def test_mutations_fail_with_official_error(
    records: dict[str, list[dict[str, Any]]], grade: Callable[..., Any], mutation: str
) -> None:
    mismatches: list[str] = []
    applied = 0
    for category in GT_CATEGORIES:
        for record in records[category]:
            if expected_failure(record["id"], "python"):
                continue
            case = mutated_output(record, mutation)
            if case is None:
                continue
            applied += 1
            output, error_type = case
            result = _grade(grade, record, output)
            if result.valid or result.error_type != error_type:
                mismatches.append(
                    f"{record['id']}: expected {error_type}, got {result.error_type}: {output[:200]}"
                )
    assert applied >= MIN_APPLICABLE[mutation]
    assert not mismatches, "\n".join(mismatches[:30])


@pytest.mark.parametrize("mutation", list(MUTATIONS))
def test_mutations_fail_in_json_format(
    records: dict[str, list[dict[str, Any]]], grade: Callable[..., Any], mutation: str
) -> None:
    """The same mutations in the JSON tool-call form fail with the same error types."""
    mismatches: list[str] = []
    for category in GT_CATEGORIES:
        for record in records[category]:
            if expected_failure(record["id"], "json"):
                continue
            case = mutated_output(record, mutation, "json")
            if case is None:
                continue
            output, error_type = case
            result = _grade(grade, record, output, "json")
            if result.valid or result.error_type != error_type:
                mismatches.append(
                    f"{record['id']}: expected {error_type}, got {result.error_type}: {output[:200]}"
                )
    assert not mismatches, "\n".join(mismatches[:30])


REFUSAL = "I cannot answer this with the given functions: none of them applies."


def _first_function_call(record: dict[str, Any], action_format: str) -> str:
    name = record["function"][0]["name"] if record["function"] else "get_weather"  # 4 records have none
    if action_format == "json":
        return json.dumps([{"name": name, "arguments": {}}])
    return f"[{name}()]"


@pytest.mark.parametrize("action_format", ["python", "json"])
@pytest.mark.parametrize("category", ["irrelevance", "live_irrelevance"])
def test_irrelevance(
    records: dict[str, list[dict[str, Any]]], grade: Callable[..., Any], category: str, action_format: str
) -> None:
    """A plain-text refusal passes; any call (even with no arguments) fails with decoder_success."""
    bad = []
    for record in records[category]:
        refusal = _grade(grade, record, REFUSAL, action_format)
        call = _grade(grade, record, _first_function_call(record, action_format), action_format)
        if not refusal.valid:
            bad.append(f"{record['id']}: refusal fails with {refusal.error_type}")
        if call.valid or call.error_type != "irrelevance_error:decoder_success":
            bad.append(f"{record['id']}: call gives {call}")
    assert not bad, "\n".join(bad[:30])


@pytest.mark.parametrize("action_format", ["python", "json"])
def test_live_relevance(
    records: dict[str, list[dict[str, Any]]], grade: Callable[..., Any], action_format: str
) -> None:
    """A call to the first function passes whatever its arguments; a refusal fails."""
    for record in records["live_relevance"]:
        assert _grade(grade, record, _first_function_call(record, action_format), action_format).valid
        refusal = _grade(grade, record, REFUSAL, action_format)
        assert (refusal.valid, refusal.error_type) == (False, "relevance_error:decoder_failed"), record["id"]
