"""What the AST checker needs from one record, computed once per record instead of once per output.

A :class:`RecordIndex` holds, for each expected call of a record, a :class:`CallRules`: the function's
name, required parameters and, per parameter the model gives, a :class:`ParamRule` with the schema type
(Python / Java / JavaScript), the possible answers' type, and the possible answers standardized once
(``standardize_string``) as the string, list and dict checks read them. Everything is built lazily, at the
point where the official checker would read it, so a malformed record fails at the same place and with
the same exception as officially; a piece whose precomputation fails is left ``None`` and the checker
reads the possible answers as the official code does.

:func:`record_index` keeps the indexes of the records graded last, keyed by the identity of the record's
``functions`` and ``ground_truth`` objects (never by model output); those objects must not be mutated
after they are graded (task records are frozen).
"""

from __future__ import annotations

import re
import threading
from typing import Any

from genenv_gym.envs.bfcl.categories import language_of
from genenv_gym.envs.bfcl.java_js import JAVA_TYPE_CONVERSION, JS_TYPE_CONVERSION

__all__ = [
    "PYTHON_TYPE_MAPPING",
    "CallRules",
    "ParamRule",
    "RecordIndex",
    "find_function",
    "record_index",
    "standardize_string",
]

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
PYTHON_NESTED = ("array", "tuple")
JAVA_JS_NESTED = ("Array", "ArrayList", "array")
_STANDARDIZE = re.compile(r"[ \,\.\/\-\_\*\^]")
#: How many record indexes :func:`record_index` keeps.
CACHE_SIZE = 4096


def standardize_string(text: str) -> str:
    """Drop spaces and ``,./-_*^``, lowercase, and turn ``'`` into ``"`` (official ``standardize_string``)."""
    return _STANDARDIZE.sub("", text).lower().replace("'", '"')


def std(value: Any) -> Any:
    """``value`` standardized when it is a string, else as it is."""
    return standardize_string(value) if type(value) is str else value


def items(seq: Any) -> list[Any]:
    """``seq[0..len-1]`` by index, as the official loops read allowed values (a string gives characters)."""
    return [seq[i] for i in range(len(seq))]


def answer_type(possible: Any) -> type | None:
    """The type of the first possible answer that is not ``""`` (official ``get_possible_answer_type``)."""
    for answer in possible:
        if answer != "":
            return type(answer)
    return None


def find_function(functions: Any, name: str) -> Any:
    """The function of ``functions`` named ``name`` (None when absent); ``functions`` itself if not a list."""
    if type(functions) is list:
        for function in functions:
            if function["name"] == name:
                return function
        return None
    return functions


class DictOption:
    """One allowed dict of a parameter: per key, its allowed values standardized and whether ``""`` is one."""

    __slots__ = ("_allowed", "_missing_ok", "option")

    def __init__(self, option: dict) -> None:
        self.option = option
        self._allowed = {key: [std(x) for x in items(values)] for key, values in option.items()}
        self._missing_ok = {key: "" in values for key, values in option.items()}

    def option_keys(self) -> Any:
        return self.option.keys()

    def allowed_for(self, key: str) -> list[Any]:
        return self._allowed[key]

    def missing_ok(self, key: str) -> bool:
        return self._missing_ok[key]


class RawDictOption:
    """A ``DictOption`` read where and as the official checker reads it (possible answers it cannot index)."""

    __slots__ = ("option",)

    def __init__(self, option: Any) -> None:
        self.option = option

    def option_keys(self) -> Any:
        return [key for key, _ in self.option.items()]

    def allowed_for(self, key: str) -> list[Any]:
        return [std(x) for x in items(self.option[key])]

    def missing_ok(self, key: str) -> bool:
        return "" in self.option[key]


def raw_dict_options(possible: Any) -> list[RawDictOption | None]:
    """The allowed dicts of ``possible`` as ``RawDictOption``s, None for ``""`` (skipped)."""
    return [None if option == "" else RawDictOption(option) for option in items(possible)]


class ParamRule:
    """One parameter of one expected call: schema type, possible answers and their standardized forms.

    ``nested`` is the item type of an array (None otherwise); for Java / JavaScript it is looked up when the
    checker reaches it (``nested_type``). ``strings`` / ``lists`` / ``dicts`` / ``list_dicts`` are None
    where the possible answers do not have the shape the fast checks need (the checker then reads them as
    the official code does). ``fast`` is the schema type (``str``, ``int``, ``float`` or ``bool``) of a Python
    parameter whose possible answers are of that type (or all ``""``), where a value of exactly that type is
    checked by value alone; None otherwise.
    """

    __slots__ = (
        "allowed",
        "answer_type",
        "description",
        "dicts",
        "expected",
        "fast",
        "is_nested",
        "list_dicts",
        "lists",
        "nested",
        "options",
        "properties",
        "strings",
    )

    def __init__(self, properties: dict, param: str, allowed: Any, language: str) -> None:
        self.properties = properties
        self.description = description = properties[param]["type"]
        self.allowed = allowed
        self.nested: type | None = None
        if language == "python":
            self.expected = PYTHON_TYPE_MAPPING[description]
            self.is_nested = description in PYTHON_NESTED
            if self.is_nested:
                self.nested = PYTHON_TYPE_MAPPING[properties[param]["items"]["type"]]
        else:
            table = JAVA_TYPE_CONVERSION if language == "java" else JS_TYPE_CONVERSION
            self.expected = table[description]
            self.is_nested = description in JAVA_JS_NESTED
        self.answer_type: Any = _computed(answer_type, allowed)
        self.options: Any = _computed(_nested_options, allowed)
        self.strings: Any = _computed(_std_strings, allowed)
        self.lists: Any = _computed(_std_lists, allowed)
        self.dicts: Any = _computed(_dict_options, allowed)
        self.list_dicts: Any = _computed(_list_dict_options, allowed)
        found = self.answer_type
        self.fast: type | None = None
        if (
            language == "python"
            and self.expected in _FAST_TYPES
            and found is not LATER
            and (found is None or found == self.expected)
            and (self.expected is not str or self.strings is not LATER)
        ):
            self.fast = self.expected


#: Schema types whose values the checker compares by value alone once their type is exact.
_FAST_TYPES = (str, int, float, bool)


class _Later:
    """Marks a precomputation that raised: the checker computes it where the official code does."""


LATER: Any = _Later()


def _computed(build: Any, allowed: Any) -> Any:
    try:
        return build(allowed)
    except Exception:
        return LATER


def _nested_options(possible: Any) -> list[tuple[bool, type | None]]:
    """Per allowed value: whether it is a list, and the type of its items (the one-level array check)."""
    return [(type(item) is list, answer_type(item) if type(item) is list else None) for item in possible]


def _std_strings(possible: Any) -> frozenset[str]:
    return frozenset(standardize_string(p) for p in items(possible) if type(p) is str)


def _std_lists(possible: Any) -> list[list[Any]]:
    return [[std(x) for x in items(option)] for option in items(possible)]


def _dict_options(possible: Any) -> list[DictOption | None]:
    """Per allowed value: None for ``""`` (skipped), else its table; raises unless every other is a dict."""
    out: list[DictOption | None] = []
    for option in items(possible):
        if option == "":
            out.append(None)
        elif type(option) is dict:
            out.append(DictOption(option))
        else:
            raise TypeError("not a dict")
    return out


def _list_dict_options(possible: Any) -> list[list[DictOption]]:
    """Per allowed list of dicts, the table of each of its dicts; raises unless all are lists of dicts."""
    out = []
    for option in items(possible):
        if type(option) is not list or any(type(d) is not dict for d in option):
            raise TypeError("not a list of dicts")
        out.append([DictOption(d) for d in option])
    return out


def _without_blank(possible: Any) -> tuple[Any, ...]:
    """The parameters of ``possible`` whose allowed values do not include ``""``."""
    return tuple(param for param in possible if "" not in possible[param])


class CallRules:
    """One expected call checked against one function: its name, required parameters and parameter rules.

    Built where the official ``simple_function_checker`` starts, with the same look-ups in the same order.
    ``param_rules`` holds the rules built so far (see ``rule``); ``must_give`` the possible-answer parameters
    whose allowed values lack ``""``, in order (``LATER`` where they cannot be read that way).
    """

    __slots__ = ("language", "must_give", "name", "param_rules", "possible", "properties", "required")

    def __init__(self, function: Any, expected: Any, language: str) -> None:
        self.possible = next(iter(expected.values()))
        self.name = function["name"]
        self.properties = function["parameters"]["properties"]
        self.required = function["parameters"]["required"]
        self.language = language
        self.param_rules: dict[Any, ParamRule | None] = {}
        self.must_give: Any = _computed(_without_blank, self.possible)

    def rule(self, param: Any) -> ParamRule | None:
        """The rule of a parameter the model gave; None when it is not in both the schema and the answer."""
        try:
            return self.param_rules[param]
        except KeyError:
            pass
        if param not in self.properties or param not in self.possible:
            rule = None
        else:
            rule = ParamRule(self.properties, param, self.possible[param], self.language)
        self.param_rules[param] = rule
        return rule


class RecordIndex:
    """The rules of a record's expected calls, built on first use (see the module docstring)."""

    __slots__ = ("_calls", "category", "functions", "ground_truth", "language", "mode")

    def __init__(self, functions: Any, ground_truth: Any, category: str) -> None:
        self.functions = functions
        self.ground_truth = ground_truth
        self.category = category
        self.language = language_of(category)
        if "parallel" in category:
            self.mode = "parallel"
        elif "multiple" in category:
            self.mode = "multiple"
        else:
            self.mode = "simple"
        self._calls: dict[int, CallRules] = {}

    def call_rules(self, index: int) -> CallRules:
        """The rules of expected call ``index``, raising where the official checker raises."""
        rules = self._calls.get(index)
        if rules is None:
            if self.mode == "simple":
                function = self.functions[0]
                expected = self.ground_truth[0]
            else:
                expected = self.ground_truth[index]
                function = find_function(self.functions, next(iter(expected)))
            rules = self._calls[index] = CallRules(function, expected, self.language)
        return rules


_INDEXES: dict[tuple[int, int, str], RecordIndex] = {}
#: Threads grading at once (two BFCL ids in one trainer worker) share the cache: its eviction takes turns.
_INDEXES_LOCK = threading.Lock()


def record_index(functions: Any, ground_truth: Any, category: str) -> RecordIndex:
    """The index of a record, kept for the :data:`CACHE_SIZE` records graded last (by object identity)."""
    key = (id(functions), id(ground_truth), category)
    index = _INDEXES.get(key)
    if index is not None and index.functions is functions and index.ground_truth is ground_truth:
        return index
    index = RecordIndex(functions, ground_truth, category)
    with _INDEXES_LOCK:
        while len(_INDEXES) >= CACHE_SIZE:
            _INDEXES.pop(next(iter(_INDEXES)))
        _INDEXES[key] = index
    return index
