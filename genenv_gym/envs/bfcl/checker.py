"""BFCL's single-turn AST checker, with the verdicts and error types of ``bfcl-eval==2026.3.23``.

The rules are the official ones, quirks included (see ``shared/benchmarks/README.md``, section 1):

* dispatch on the category name: ``parallel`` → order-free parallel matching, ``multiple`` → the first
  call against the first expected call (the counts must agree), otherwise exactly one call;
* per call: function name, then required parameters (so a required parameter whose allowed values contain
  ``""`` must still be given), then for each given parameter its presence in both the schema and the
  possible answer, its type and its value, then every possible-answer parameter not given must allow ``""``;
* types are compared with ``type(x) ==`` (``True`` is not an integer, a float is not an integer, a numeric
  string is not a number); an ``int`` given for a Python ``float`` is converted; a tuple given for a
  ``tuple`` parameter becomes a list; array items get a one-level type check against each allowed list; a
  value of the possible answers' type but not of the schema type is a "variable" compared by value only;
* strings are compared after ``standardize_string`` (drop spaces and ``,./-_*^``, lowercase, ``'`` → ``"``);
  lists element-wise with the same standardization, order included; dicts key by key, a missing key allowed
  only when its allowed values contain ``""``; lists of dicts position by position; ``""`` in an allowed
  list also accepts ``''``, an empty list and an empty list of dicts;
* parallel matching is greedy: each expected call takes the first unused model call that passes, without
  backtracking;
* Java and JavaScript values must be strings (source text) and are converted with the official type
  converters (:mod:`genenv_gym.envs.bfcl.java_js`) before the checks;
* function names are compared as given (the official ``underscore_to_dot`` renaming of FC models is not
  applied: we grade as a prompting model).

Where the official code would crash (an expected function missing from the function list, an
unimplemented Java collection type, a float conversion overflow...), :func:`check_calls` returns an
invalid result with the error type ``checker_error:<ExceptionName>``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from genenv_gym.envs.bfcl.categories import NO_GROUND_TRUTH, language_of
from genenv_gym.envs.bfcl.decode import (
    WRONG_OUTPUT_FORMAT,
    DecodeError,
    _short,
    decode_output,
    is_empty_output,
    is_function_calling_format,
)
from genenv_gym.envs.bfcl.java_js import (
    JAVA_TYPE_CONVERSION,
    JS_TYPE_CONVERSION,
    java_type_convert,
    js_type_convert,
)

__all__ = ["PYTHON_TYPE_MAPPING", "CheckResult", "check_calls", "grade_output", "standardize_string"]

#: Python types of BFCL's schema types (official ``PYTHON_TYPE_MAPPING``).
PYTHON_TYPE_MAPPING: dict[str, type] = {
    "string": str,
    "integer": int,
    "float": float,
    "boolean": bool,
    "array": list,
    "tuple": list,
    "dict": dict,
    "any": str,
}
_PYTHON_NESTED = ("array", "tuple")
_JAVA_JS_NESTED = ("Array", "ArrayList", "array")
_STANDARDIZE = re.compile(r"[ \,\.\/\-\_\*\^]")


@dataclass(frozen=True)
class CheckResult:
    """Verdict of one output: ``valid``, the official ``error_type`` when invalid, and readable messages."""

    valid: bool
    error_type: str | None = None
    errors: tuple[str, ...] = ()


_OK = CheckResult(True)


def _fail(error_type: str, *errors: str) -> CheckResult:
    return CheckResult(False, error_type, tuple(errors))


def standardize_string(text: str) -> str:
    """Drop spaces and ``,./-_*^``, lowercase, and turn ``'`` into ``"`` (official ``standardize_string``)."""
    return _STANDARDIZE.sub("", text).lower().replace("'", '"')


def _std(value: Any) -> Any:
    return standardize_string(value) if type(value) is str else value


def _items(seq: Any) -> list[Any]:
    """``seq[0..len-1]`` by index, as the official loops read allowed values (a string gives characters)."""
    return [seq[i] for i in range(len(seq))]


# ----------------------------------------------------------------------------------------------------------
# Type and value checks
# ----------------------------------------------------------------------------------------------------------


def _answer_type(possible: Any) -> type | None:
    for answer in possible:
        if answer != "":
            return type(answer)
    return None


@dataclass(frozen=True)
class _TypeResult:
    valid: bool
    is_variable: bool = False
    error_type: str = ""
    message: str = ""


def _type_check(
    param: str, value: Any, possible: Any, description: str, expected: type, nested: type | None
) -> _TypeResult:
    answer_type = _answer_type(possible)
    is_variable = answer_type is not None and answer_type != expected
    nested_failed = False
    if type(value) == expected:  # noqa: E721 - the official check is exact type equality
        if nested is None:
            return _TypeResult(True, is_variable)
        for item in possible:
            ok = True
            if type(item) is list:
                for element in value:
                    if not _type_check(param, element, item, str(nested), nested, None).valid:
                        ok = False
                        break
            if ok:
                return _TypeResult(True, is_variable)
        nested_failed = True
    if answer_type is not None and type(value) == answer_type:  # noqa: E721
        if nested_failed:
            return _TypeResult(
                False,
                True,
                "type_error:nested",
                f"Nested type checking failed for parameter {param!r}. Expected outer type {description} "
                f"with inner type {nested}. Parameter value: {_short(value)}.",
            )
        return _TypeResult(True, True)
    return _TypeResult(
        False,
        False,
        "type_error:simple",
        f"Incorrect type for parameter {param!r}. Expected type {description}, got {type(value).__name__}. "
        f"Parameter value: {_short(value)}.",
    )


def _string_check(param: str, value: str, possible: Any) -> CheckResult:
    allowed = [standardize_string(p) for p in _items(possible) if type(p) is str]
    if standardize_string(value) not in allowed:
        return _fail(
            "value_error:string",
            f"Invalid value for parameter {param!r}: {_short(value)}. Expected one of {_short(possible)}. "
            "Case insensitive.",
        )
    return _OK


def _list_check(param: str, value: list, possible: Any) -> CheckResult:
    given = [_std(v) for v in value]
    allowed = [[_std(x) for x in _items(option)] for option in _items(possible)]
    if given not in allowed:
        return _fail(
            "value_error:list/tuple",
            f"Invalid value for parameter {param!r}: {_short(value)}. Expected one of {_short(possible)}.",
        )
    return _OK


def _dict_check(param: str, value: dict, possible: Any) -> CheckResult:
    result = _fail("dict_checker:unclear")
    for option in _items(possible):
        if option == "":
            continue
        result = _fail("dict_checker:unclear")
        errors: list[str] = []
        ok = True
        for key, val in value.items():
            if key not in option:
                errors.append(f"Unexpected dict key parameter: {key!r}.")
                result = _fail("value_error:dict_key", *errors)
                ok = False
                break
            allowed = [_std(x) for x in _items(option[key])]
            if _std(val) not in allowed:
                errors.append(
                    f"Invalid value for parameter {key!r}: {_short(val)}. Expected one of {allowed}."
                )
                result = _fail("value_error:dict_value", *errors)
                ok = False
                break
        for key, allowed_values in option.items():
            if key not in value and "" not in allowed_values:
                errors.append(f"Missing dict key parameter: {key!r}.")
                result = _fail("value_error:dict_key", *errors)
                ok = False
                break
        if ok:
            return _OK
    return result


def _list_dict_check(param: str, value: list, possible: Any) -> CheckResult:
    result = _fail("list_dict_checker:unclear")
    for option in _items(possible):
        if len(value) != len(option):
            result = _fail("value_error:list_dict_count", "Wrong number of dictionaries in the list.")
            continue
        ok = True
        for index in range(len(value)):
            result = _dict_check(param, value[index], [option[index]])
            if not result.valid:
                ok = False
                break
        if ok:
            return _OK
    return result


# ----------------------------------------------------------------------------------------------------------
# Function checkers
# ----------------------------------------------------------------------------------------------------------


def _simple(function: dict, call: dict, expected: dict, language: str) -> CheckResult:
    possible = next(iter(expected.values()))
    name = function["name"]
    properties = function["parameters"]["properties"]
    required = function["parameters"]["required"]
    if name not in call:
        return _fail(
            "simple_function_checker:wrong_func_name", f"Function name {name!r} not found in model output."
        )
    params = call[name]
    for param in required:
        if param not in params:
            return _fail(
                "simple_function_checker:missing_required", f"Missing required parameter: {param!r}."
            )
    for param, raw in params.items():
        if param not in properties or param not in possible:
            return _fail("simple_function_checker:unexpected_param", f"Unexpected parameter: {param!r}.")
        description = properties[param]["type"]
        value = raw
        nested: type | None = None
        if language in ("java", "javascript"):
            table = JAVA_TYPE_CONVERSION if language == "java" else JS_TYPE_CONVERSION
            convert = java_type_convert if language == "java" else js_type_convert
            expected_type = table[description]
            if type(value) is not str:
                return _fail(
                    "type_error:java" if language == "java" else "type_error:js",
                    f"Incorrect type for parameter {param!r}. Expected type String, "
                    f"got {type(value).__name__}. Parameter value: {_short(value)}.",
                )
            if description in _JAVA_JS_NESTED:
                item_type = properties[param]["items"]["type"]
                nested = table[item_type]
                value = convert(value, description, item_type)
            else:
                value = convert(value, description)
        else:
            expected_type = PYTHON_TYPE_MAPPING[description]
            if description in _PYTHON_NESTED:
                nested = PYTHON_TYPE_MAPPING[properties[param]["items"]["type"]]
        if description == "tuple" and type(value) is tuple:
            value = list(value)
        if language == "python" and description == "float" and type(value) is int:
            value = float(value)
        allowed = possible[param]
        typed = _type_check(param, value, allowed, description, expected_type, nested)
        if not typed.valid:
            return _fail(typed.error_type, typed.message)
        if not typed.is_variable:
            if expected_type is dict:
                result = _dict_check(param, value, allowed)
            elif expected_type is list and nested is dict:
                result = _list_dict_check(param, value, allowed)
            elif expected_type is str:
                result = _string_check(param, value, allowed)
            elif expected_type is list:
                result = _list_check(param, value, allowed)
            else:
                result = None
            if result is not None:
                if not result.valid:
                    return result
                continue
        if value not in allowed:
            return _fail(
                "value_error:others",
                f"Invalid value for parameter {param!r}: {_short(value)}. Expected one of {_short(allowed)}.",
            )
    for param in possible:
        if param not in params and "" not in possible[param]:
            return _fail(
                "simple_function_checker:missing_optional",
                f"Optional parameter {param!r} not provided and not marked as optional.",
            )
    return _OK


def _find_function(functions: Any, name: str) -> Any:
    if type(functions) is list:
        for function in functions:
            if function["name"] == name:
                return function
        return None
    return functions


def _parallel(functions: list, calls: list, expected: list, language: str) -> CheckResult:
    if len(calls) != len(expected):
        return _fail("parallel_function_checker_no_order:wrong_count", "Wrong number of functions.")
    matched: list[int] = []
    for i, answer in enumerate(expected):
        function = _find_function(functions, next(iter(answer)))
        result = _OK
        errors: list[str] = []
        for index in range(len(calls)):
            if index in matched:
                continue
            result = _simple(function, calls[index], answer, language)
            if result.valid:
                matched.append(index)
                break
            errors.append(f"model call {index}: {result.error_type}: {'; '.join(result.errors)}")
        if not result.valid:
            considered = [k for k in range(len(calls)) if k not in matched]
            return _fail(
                "parallel_function_checker_no_order:cannot_find_match",
                f"Could not find a matching function among index {considered} of model output for index {i} "
                "of possible answers.",
                *errors,
            )
    return _OK


def _multiple(functions: list, calls: list, expected: list, language: str) -> CheckResult:
    if len(calls) != len(expected):
        return _fail("multiple_function_checker:wrong_count", "Wrong number of functions.")
    function = _find_function(functions, next(iter(expected[0])))
    return _simple(function, calls[0], expected[0], language)


def check_calls(
    decoded: list[dict], functions: list[dict], ground_truth: list[dict], category: str
) -> CheckResult:
    """Check decoded calls against a record's functions and possible answers (official ``ast_checker``)."""
    if not is_function_calling_format(decoded):
        return _fail(
            WRONG_OUTPUT_FORMAT, "Did not output in the specified format: expected a list of {name: {args}}."
        )
    language = language_of(category)
    try:
        if "parallel" in category:
            return _parallel(functions, decoded, ground_truth, language)
        if "multiple" in category:
            return _multiple(functions, decoded, ground_truth, language)
        if len(decoded) != 1:
            return _fail("simple_function_checker:wrong_count", "Wrong number of functions.")
        return _simple(functions[0], decoded[0], ground_truth[0], language)
    except Exception as exc:  # where the official checker would crash
        return _fail(f"checker_error:{type(exc).__name__}", f"checker failed: {_short(str(exc), 200)}")


def grade_output(
    output: str,
    functions: list[dict],
    ground_truth: list[dict] | None,
    category: str,
    action_format: str = "python",
) -> CheckResult:
    """Decode and check one raw model output for a single-turn category; never raises on the output.

    ``irrelevance`` / ``live_irrelevance`` pass iff decoding fails or yields no call; ``live_relevance``
    passes iff it yields at least one call. Other categories need ``ground_truth`` (else ``ValueError``).
    """
    if action_format not in ("python", "json"):
        raise ValueError(f"unknown action_format {action_format!r} (expected 'python' or 'json')")
    relevance = category in NO_GROUND_TRUTH or "relevance" in category
    if not relevance and ground_truth is None:
        raise ValueError(f"category {category!r} needs its possible answers (ground_truth)")
    try:
        if relevance:
            return _relevance(output, category, action_format)
        try:
            decoded = decode_output(output, language_of(category), action_format)  # type: ignore[arg-type]
        except DecodeError as exc:
            return _fail(exc.error_type, f"Invalid syntax. Failed to decode AST. {exc}")
        return check_calls(decoded, functions, ground_truth or [], category)
    except ImportError:
        raise
    except Exception as exc:  # pragma: no cover - decode and check already turn failures into verdicts
        return _fail(f"checker_error:{type(exc).__name__}", _short(str(exc), 200))


def _relevance(output: str, category: str, action_format: str) -> CheckResult:
    try:
        decoded = decode_output(output, "python", action_format)  # type: ignore[arg-type]
        has_call = not is_empty_output(decoded)
        reason = ""
    except DecodeError as exc:
        has_call = False
        reason = str(exc)
    if "irrelevance" in category:
        if has_call:
            return _fail(
                "irrelevance_error:decoder_success",
                "Valid syntax. Successfully decode AST when it should not.",
            )
        return _OK
    if not has_call:
        return _fail(
            "relevance_error:decoder_failed",
            f"Invalid syntax. Failed to decode AST when it should have. {reason}".strip(),
        )
    return _OK
