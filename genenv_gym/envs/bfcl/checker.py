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

import itertools
from collections.abc import Callable, Sequence
from typing import Any

from genenv_gym.envs.bfcl.answer_index import (
    JAVA_JS_NESTED,
    LATER,
    PYTHON_TYPE_MAPPING,
    CallRules,
    DictOption,
    ParamRule,
    RawDictOption,
    RecordIndex,
    answer_type,
    items,
    raw_dict_options,
    record_index,
    standardize_string,
    std,
)
from genenv_gym.envs.bfcl.categories import NO_GROUND_TRUTH, language_of
from genenv_gym.envs.bfcl.decode import decode_output, is_empty_output, is_function_calling_format
from genenv_gym.envs.bfcl.decode_errors import WRONG_OUTPUT_FORMAT, DecodeError, short_repr
from genenv_gym.envs.bfcl.java_js import (
    JAVA_TYPE_CONVERSION,
    JS_TYPE_CONVERSION,
    java_type_convert,
    js_type_convert,
)

__all__ = ["PYTHON_TYPE_MAPPING", "CheckResult", "check_calls", "grade_output", "standardize_string"]


_set_slot = object.__setattr__


class CheckResult:
    """Verdict of one output: ``valid``, the official ``error_type`` when invalid, and readable messages.

    ``errors`` may be given as ``explain``, a function returning them, called when ``errors`` is first read
    (messages that quote the output's values are formatted only for callers that read them). Immutable.
    """

    __slots__ = ("_errors", "_explain", "error_type", "valid")
    valid: bool
    error_type: str | None

    def __init__(
        self,
        valid: bool,
        error_type: str | None = None,
        errors: tuple[str, ...] = (),
        explain: Callable[[], tuple[str, ...]] | None = None,
    ) -> None:
        _set_slot(self, "valid", valid)
        _set_slot(self, "error_type", error_type)
        _set_slot(self, "_errors", errors)
        _set_slot(self, "_explain", explain)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"CheckResult is immutable: cannot set {name!r}")

    @property
    def errors(self) -> tuple[str, ...]:
        """The messages explaining an invalid verdict (empty when valid)."""
        explain = self._explain
        if explain is not None:
            _set_slot(self, "_errors", explain())
            _set_slot(self, "_explain", None)
        return self._errors

    def _key(self) -> tuple[Any, ...]:
        return (self.valid, self.error_type, self.errors)

    def __eq__(self, other: object) -> bool:
        if type(other) is not CheckResult:
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"CheckResult(valid={self.valid!r}, error_type={self.error_type!r}, errors={self.errors!r})"


_OK = CheckResult(True)


def _fail(error_type: str, *errors: str) -> CheckResult:
    return CheckResult(False, error_type, errors)


def _fail_later(error_type: str, explain: Callable[[], tuple[str, ...]]) -> CheckResult:
    """A failure whose messages are formatted when read."""
    return CheckResult(False, error_type, (), explain)


# ----------------------------------------------------------------------------------------------------------
# Type and value checks
# ----------------------------------------------------------------------------------------------------------


def _type_check(param: str, value: Any, rule: ParamRule, expected: type, nested: type | None) -> Any:
    """None when the type is accepted as the official checker's, True when accepted as a "variable"
    (compared by value only), else the failure."""
    possible = rule.allowed
    found = rule.answer_type if rule.answer_type is not LATER else answer_type(possible)
    is_variable = found is not None and found != expected
    nested_failed = False
    if type(value) == expected:  # noqa: E721 - the official check is exact type equality
        if nested is None:
            return True if is_variable else None
        options = rule.options if rule.options is not LATER else None
        for is_list, item_type in options if options is not None else _options_now(possible):
            if is_list:
                for element in value:
                    kind = type(element)
                    if kind != nested and (item_type is None or kind != item_type):
                        break
                else:
                    return True if is_variable else None
            else:
                return True if is_variable else None
        nested_failed = True
    if found is not None and type(value) == found:  # noqa: E721
        if nested_failed:
            return _fail_later(
                "type_error:nested",
                lambda: (
                    f"Nested type checking failed for parameter {param!r}. Expected outer type "
                    f"{rule.description} with inner type {nested}. Parameter value: {short_repr(value)}.",
                ),
            )
        return True
    return _fail_later(
        "type_error:simple",
        lambda: (
            f"Incorrect type for parameter {param!r}. Expected type {rule.description}, got "
            f"{type(value).__name__}. Parameter value: {short_repr(value)}.",
        ),
    )


def _options_now(possible: Any) -> Any:
    """The nested-type options read as the official loop reads them (one at a time)."""
    for item in possible:
        yield (True, answer_type(item)) if type(item) is list else (False, None)


def _string_check(param: str, value: str, rule: ParamRule) -> CheckResult:
    possible = rule.allowed
    allowed = rule.strings
    if allowed is LATER:
        allowed = [standardize_string(p) for p in items(possible) if type(p) is str]
    if standardize_string(value) not in allowed:
        return _string_failure(param, value, possible)
    return _OK


def _string_failure(param: str, value: str, possible: Any) -> CheckResult:
    return _fail_later(
        "value_error:string",
        lambda: (
            f"Invalid value for parameter {param!r}: {short_repr(value)}. "
            f"Expected one of {short_repr(possible)}. Case insensitive.",
        ),
    )


def _list_check(param: str, value: list, rule: ParamRule) -> CheckResult:
    possible = rule.allowed
    given = [std(v) for v in value]
    allowed = rule.lists
    if allowed is LATER:
        allowed = [[std(x) for x in items(option)] for option in items(possible)]
    if given not in allowed:
        return _fail_later(
            "value_error:list/tuple",
            lambda: (
                f"Invalid value for parameter {param!r}: {short_repr(value)}. "
                f"Expected one of {short_repr(possible)}.",
            ),
        )
    return _OK


def _dict_check(value: dict, options: Sequence[DictOption | RawDictOption | None]) -> CheckResult:
    """The official dict check over the allowed dicts (None: the allowed value ``""``, skipped)."""
    result = _fail("dict_checker:unclear")
    for table in options:
        if table is None:
            continue
        result = _fail("dict_checker:unclear")
        errors: list[str] = []
        ok = True
        option = table.option
        for key, val in value.items():
            if key not in option:
                errors.append(f"Unexpected dict key parameter: {key!r}.")
                result = _fail("value_error:dict_key", *errors)
                ok = False
                break
            allowed = table.allowed_for(key)
            if std(val) not in allowed:
                errors.append(
                    f"Invalid value for parameter {key!r}: {short_repr(val)}. Expected one of {allowed}."
                )
                result = _fail("value_error:dict_value", *errors)
                ok = False
                break
        for key in table.option_keys():
            if key not in value and not table.missing_ok(key):
                errors.append(f"Missing dict key parameter: {key!r}.")
                result = _fail("value_error:dict_key", *errors)
                ok = False
                break
        if ok:
            return _OK
    return result


def _list_dict_check(param: str, value: list, rule: ParamRule) -> CheckResult:
    tables = rule.list_dicts
    result = _fail("list_dict_checker:unclear")
    for position, option in enumerate(items(rule.allowed)):
        if len(value) != len(option):
            result = _fail("value_error:list_dict_count", "Wrong number of dictionaries in the list.")
            continue
        ok = True
        for index in range(len(value)):
            if tables is LATER:
                result = _dict_check(value[index], raw_dict_options([option[index]]))
            else:
                result = _dict_check(value[index], [tables[position][index]])
            if not result.valid:
                ok = False
                break
        if ok:
            return _OK
    return result


# ----------------------------------------------------------------------------------------------------------
# Function checkers
# ----------------------------------------------------------------------------------------------------------


def _simple(rules: CallRules, call: dict) -> CheckResult:
    name = rules.name
    language = rules.language
    params = call.get(name)
    if params is None:
        return _fail(
            "simple_function_checker:wrong_func_name", f"Function name {name!r} not found in model output."
        )
    for param in rules.required:
        if param not in params:
            return _fail(
                "simple_function_checker:missing_required", f"Missing required parameter: {param!r}."
            )
    known = rules.param_rules
    for param, raw in params.items():
        rule = known.get(param, LATER)
        if rule is LATER:
            rule = rules.rule(param)
        if rule is None:
            return _fail("simple_function_checker:unexpected_param", f"Unexpected parameter: {param!r}.")
        fast = rule.fast
        if fast is not None and type(raw) is fast:  # a plain string / number / boolean of the schema type
            if fast is str:
                if standardize_string(raw) in rule.strings:
                    continue
                return _string_failure(param, raw, rule.allowed)
            if raw in rule.allowed:
                continue
            return _others_failure(param, raw, rule.allowed)
        description = rule.description
        expected_type = rule.expected
        value = raw
        if language == "python":
            nested = rule.nested
            if description == "float" and type(value) is int:
                value = float(value)
            elif description == "tuple" and type(value) is tuple:
                value = list(value)
        else:
            nested = None
            if type(value) is not str:
                return _fail(
                    "type_error:java" if language == "java" else "type_error:js",
                    f"Incorrect type for parameter {param!r}. Expected type String, "
                    f"got {type(value).__name__}. Parameter value: {short_repr(value)}.",
                )
            table = JAVA_TYPE_CONVERSION if language == "java" else JS_TYPE_CONVERSION
            convert = java_type_convert if language == "java" else js_type_convert
            if description in JAVA_JS_NESTED:
                item_type = rule.properties[param]["items"]["type"]
                nested = table[item_type]
                value = convert(value, description, item_type)
            else:
                value = convert(value, description)
            if description == "tuple" and type(value) is tuple:
                value = list(value)
        typed = _type_check(param, value, rule, expected_type, nested)
        if typed is None:
            if expected_type is dict:
                options = raw_dict_options(rule.allowed) if rule.dicts is LATER else rule.dicts
                result = _dict_check(value, options)
            elif expected_type is list and nested is dict:
                result = _list_dict_check(param, value, rule)
            elif expected_type is str:
                result = _string_check(param, value, rule)
            elif expected_type is list:
                result = _list_check(param, value, rule)
            else:
                result = None
            if result is not None:
                if not result.valid:
                    return result
                continue
        elif typed is not True:
            return typed
        allowed = rule.allowed
        if value not in allowed:
            return _others_failure(param, value, allowed)
    must_give = rules.must_give
    if must_give is LATER:
        possible = rules.possible
        must_give = (param for param in possible if param not in params and "" not in possible[param])
    for param in must_give:
        if param not in params:
            return _fail(
                "simple_function_checker:missing_optional",
                f"Optional parameter {param!r} not provided and not marked as optional.",
            )
    return _OK


def _others_failure(param: str, value: Any, allowed: Any) -> CheckResult:
    return _fail_later(
        "value_error:others",
        lambda: (
            f"Invalid value for parameter {param!r}: {short_repr(value)}. "
            f"Expected one of {short_repr(allowed)}.",
        ),
    )


def _parallel(index: RecordIndex, calls: list) -> CheckResult:
    """Each expected call takes the first unused model call that passes (the official greedy order), trying
    only the calls that can pass (``_Candidates``): near-linear where the calls differ by name or by a
    plain required value, as a parallel answer's calls do."""
    expected = index.ground_truth
    if len(calls) != len(expected):
        return _fail("parallel_function_checker_no_order:wrong_count", "Wrong number of functions.")
    candidates = _Candidates(calls)
    used: set[int] = set()
    for i in range(len(expected)):
        rules = index.call_rules(i)
        for position in candidates.of(rules):
            if position not in used and _simple(rules, calls[position]).valid:
                used.add(position)
                break
        else:
            considered = [k for k in range(len(calls)) if k not in used]
            return _no_match_failure(i, considered, rules, calls)
    return _OK


class _Candidates:
    """The model calls that can pass an expected call's rules, in order: those that carry its function's
    name and, for a required parameter checked by value alone (``ParamRule.fast``), whose value of that
    type is one of the allowed ones (a value of another type goes the slow way and stays a candidate). A
    superset of the passing calls, so the first passing candidate is the first passing call."""

    def __init__(self, calls: list) -> None:
        self.calls = calls
        self.by_name: dict[Any, list[int]] = {}
        for position, call in enumerate(calls):
            for name in call:
                self.by_name.setdefault(name, []).append(position)
        self._by_value: dict[tuple[Any, Any, type], tuple[dict[Any, list[int]], list[int]]] = {}

    def of(self, rules: CallRules) -> list[int]:
        named = self.by_name.get(rules.name, [])
        if len(named) <= 4:
            return named
        required = rules.required if isinstance(rules.required, list) else []
        for param in required:
            try:
                rule = rules.rule(param) if isinstance(param, str) else None
            except Exception:  # the checker raises it where the official code does, if it gets there
                continue
            if rule is None or rule.fast is None:
                continue
            allowed = rule.strings if rule.fast is str else rule.allowed
            if not isinstance(allowed, (list, tuple, set, frozenset)):
                continue
            values, others = self._values(rules.name, param, rule.fast, named)
            found = [values[value] for value in allowed if _hashable(value) and value in values]
            return sorted(itertools.chain(others, *found))
        return named

    def _values(
        self, name: Any, param: str, fast: type, named: list[int]
    ) -> tuple[dict[Any, list[int]], list[int]]:
        key = (name, param, fast)
        if key not in self._by_value:
            values: dict[Any, list[int]] = {}
            others: list[int] = []
            for position in named:
                params = self.calls[position].get(name)
                if not isinstance(params, dict) or param not in params:
                    continue  # misses a required parameter: it fails
                raw = params[param]
                if type(raw) is not fast:
                    others.append(position)
                else:
                    values.setdefault(standardize_string(raw) if fast is str else raw, []).append(position)
            self._by_value[key] = (values, others)
        return self._by_value[key]


def _hashable(value: Any) -> bool:
    return isinstance(value, (str, int, float, bool))


def _no_match_failure(i: int, considered: list[int], rules: CallRules, calls: list) -> CheckResult:
    return _fail_later(
        "parallel_function_checker_no_order:cannot_find_match",
        lambda: (
            f"Could not find a matching function among index {considered} of model output for index {i} "
            "of possible answers.",
            *(
                f"model call {position}: {failure.error_type}: {'; '.join(failure.errors)}"
                for position, failure in ((k, _simple(rules, calls[k])) for k in considered)
            ),
        ),
    )


def _check_indexed(decoded: list[dict], index: RecordIndex) -> CheckResult:
    if not is_function_calling_format(decoded):
        return _fail(
            WRONG_OUTPUT_FORMAT, "Did not output in the specified format: expected a list of {name: {args}}."
        )
    try:
        if index.mode == "parallel":
            return _parallel(index, decoded)
        if index.mode == "multiple":
            if len(decoded) != len(index.ground_truth):
                return _fail("multiple_function_checker:wrong_count", "Wrong number of functions.")
            return _simple(index.call_rules(0), decoded[0])
        if len(decoded) != 1:
            return _fail("simple_function_checker:wrong_count", "Wrong number of functions.")
        return _simple(index.call_rules(0), decoded[0])
    except Exception as exc:  # where the official checker would crash
        return _fail(f"checker_error:{type(exc).__name__}", f"checker failed: {short_repr(str(exc), 200)}")


def check_calls(
    decoded: list[dict], functions: list[dict], ground_truth: list[dict], category: str
) -> CheckResult:
    """Check decoded calls against a record's functions and possible answers (official ``ast_checker``)."""
    result = _check_indexed(decoded, RecordIndex(functions, ground_truth, category))
    result.errors  # noqa: B018 - formatted now: the caller may change ``decoded`` afterwards
    return result


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
        if ground_truth is None:
            return check_calls(decoded, functions, [], category)
        return _check_indexed(decoded, record_index(functions, ground_truth, category))
    except ImportError:
        raise
    except Exception as exc:  # pragma: no cover - decode and check already turn failures into verdicts
        return _fail(f"checker_error:{type(exc).__name__}", short_repr(str(exc), 200))


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
