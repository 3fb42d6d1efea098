"""Procedural generator of BFCL-style function-calling tasks, with difficulty knobs.

Every generated record has the shape of a BFCL v4 single-turn record: a user question, candidate functions
in BFCL's JSON-schema dialect and a possible answer ``[{func_name: {param: [allowed values...]}}]`` (``""``
in an allowed list marks a parameter that may be omitted), so it is graded by the same AST checker
(``checker.grade_output``) as the real benchmark, and is checked by ``validate_record``
(:mod:`genenv_gym.envs.bfcl.validation`) before it is returned. Questions state every argument value, so
an agent can read the answer off the question.

The functions come from the vocabulary in :mod:`genenv_gym.envs.bfcl.vocabulary`: 32 API families
(weather, currency, flights, unit conversion, geometry, stocks, calendar, recipes, ...), each with two to
four sibling functions whose names and descriptions are close enough to serve as distractors.

Difficulty levels ``0 .. NUM_LEVELS-1`` map to knobs (``knobs_for_level``): the number of candidate
functions, how many calls a task needs, parameters per function, optional parameters stated in the
question, array and nested (dict / list-of-dict) parameter types, same-family distractors, and the
chance of an irrelevance task (no offered function fits; near-miss ones offer the target's siblings).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from genenv_gym.envs.bfcl.checker import standardize_string
from genenv_gym.envs.bfcl.validation import validate_record
from genenv_gym.envs.bfcl.vocabulary.families import FAMILIES, FUNCS
from genenv_gym.envs.bfcl.vocabulary.spec import Func, Param, Retry, join_words

__all__ = [
    "GENERATED_CATEGORIES",
    "MAX_CALLS",
    "MAX_FUNCTIONS",
    "MAX_PARAMS",
    "NUM_LEVELS",
    "GeneratedRecord",
    "generate",
    "generate_with_knobs",
    "knobs_for_level",
    "validate_record",
]

NUM_LEVELS: int = 10

#: Categories a generated record can have (the names the checker dispatches on).
GENERATED_CATEGORIES: tuple[str, ...] = (
    "simple_python",
    "multiple",
    "parallel",
    "parallel_multiple",
    "irrelevance",
)

#: The largest number of candidate functions / calls / parameters the knobs may ask for.
MAX_FUNCTIONS, MAX_CALLS, MAX_PARAMS = 12, 6, 8


# ----------------------------------------------------------------------------------------------------
# Records and knobs
# ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GeneratedRecord:
    """One generated task in BFCL's record shape, with the difficulty features it was built with.

    ``knobs`` holds the features actually used: ``level``, ``n_functions`` (candidates offered),
    ``n_calls`` (calls in the gold answer; 0 for irrelevance), ``n_targets`` (distinct functions called),
    ``n_params`` / ``n_required`` (largest schema of a called function), ``n_optional_stated`` (optional
    arguments the question states, over all calls), ``array`` / ``nested`` (whether the gold answer has
    array / dict or list-of-dict arguments), ``distractors`` (offered same-family siblings of the target
    functions), ``irrelevant`` and ``near_miss`` (an irrelevance task offering the target's siblings).
    """

    category: str
    question: str
    functions: list[dict]
    ground_truth: list[dict] | None
    knobs: dict[str, int | float | bool] = field(default_factory=dict)


# Knob name -> (kind, lowest, highest). Kinds: "int", "prob" (float in [0, 1]), "bool".
_KNOB_SPEC: dict[str, tuple[str, float, float]] = {
    "level": ("int", 0, NUM_LEVELS - 1),
    "n_functions": ("int", 1, MAX_FUNCTIONS),
    "n_calls": ("int", 1, MAX_CALLS),
    "p_parallel": ("prob", 0.0, 1.0),
    "n_params": ("int", 1, MAX_PARAMS),
    "n_optional_stated": ("int", 0, MAX_PARAMS),
    "p_array": ("prob", 0.0, 1.0),
    "p_nested": ("prob", 0.0, 1.0),
    "n_distractors": ("int", 0, MAX_FUNCTIONS - 1),
    "p_multi_function": ("prob", 0.0, 1.0),
    "p_irrelevance": ("prob", 0.0, 1.0),
    "near_miss_irrelevance": ("bool", 0, 1),
}

# Columns: n_functions, n_calls (most calls), p_parallel (chance of > 1 call), n_params, n_optional_stated,
# p_array, p_nested, n_distractors, p_multi_function (chance parallel calls use >= 2 functions),
# p_irrelevance, near_miss_irrelevance.
_LEVEL_TABLE: tuple[tuple[Any, ...], ...] = (
    (1, 1, 0.0, 2, 0, 0.0, 0.0, 0, 0.0, 0.0, False),
    (1, 2, 0.3, 3, 0, 0.0, 0.0, 0, 0.0, 0.0, False),
    (2, 2, 0.3, 3, 1, 0.1, 0.0, 0, 0.3, 0.1, False),
    (3, 2, 0.4, 4, 1, 0.2, 0.1, 1, 0.4, 0.1, False),
    (3, 3, 0.5, 4, 1, 0.25, 0.15, 1, 0.5, 0.1, False),
    (4, 3, 0.5, 4, 2, 0.3, 0.2, 1, 0.5, 0.1, False),
    (4, 3, 0.6, 5, 2, 0.3, 0.25, 2, 0.6, 0.15, True),
    (5, 3, 0.7, 5, 2, 0.35, 0.3, 2, 0.7, 0.15, True),
    (6, 4, 0.7, 6, 3, 0.35, 0.35, 3, 0.7, 0.15, True),
    (6, 4, 0.8, 6, 3, 0.35, 0.4, 3, 0.8, 0.2, True),
)
_TABLE_KEYS: tuple[str, ...] = (
    "n_functions",
    "n_calls",
    "p_parallel",
    "n_params",
    "n_optional_stated",
    "p_array",
    "p_nested",
    "n_distractors",
    "p_multi_function",
    "p_irrelevance",
    "near_miss_irrelevance",
)


def knobs_for_level(level: int) -> dict[str, Any]:
    """The knob settings of a difficulty level (every knob is non-decreasing in the level)."""
    if (
        isinstance(level, bool)
        or not isinstance(level, (int, np.integer))
        or not 0 <= int(level) < NUM_LEVELS
    ):
        raise ValueError(f"level must be an int in [0, {NUM_LEVELS - 1}], got {level!r}")
    row = _LEVEL_TABLE[int(level)]
    return {"level": int(level), **dict(zip(_TABLE_KEYS, row, strict=True))}


def _validated_knobs(knobs: Mapping[str, Any]) -> dict[str, Any]:
    """Knobs completed from their level's row (level 0 if none is given) and checked; ValueError if bad."""
    if not isinstance(knobs, Mapping):
        raise ValueError(f"knobs must be a mapping, got {type(knobs).__name__}")
    unknown = [k for k in knobs if k not in _KNOB_SPEC]
    if unknown:
        raise ValueError(f"unknown knob(s) {unknown}; known knobs: {sorted(_KNOB_SPEC)}")
    out = knobs_for_level(knobs.get("level", 0))
    for name, value in knobs.items():
        kind, low, high = _KNOB_SPEC[name]
        if kind == "bool":
            if not isinstance(value, (bool, np.bool_)):
                raise ValueError(f"knob {name!r} must be a bool, got {value!r}")
            out[name] = bool(value)
            continue
        if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (int, float, np.integer, np.floating)
        ):
            raise ValueError(f"knob {name!r} must be a number, got {value!r}")
        if kind == "int" and (isinstance(value, (float, np.floating)) and not float(value).is_integer()):
            raise ValueError(f"knob {name!r} must be an integer, got {value!r}")
        if not (math.isfinite(float(value)) and low <= value <= high):
            raise ValueError(f"knob {name!r} must be in [{low}, {high}], got {value!r}")
        out[name] = int(value) if kind == "int" else float(value)
    if out["p_array"] + out["p_nested"] > 1.0:
        raise ValueError(f"p_array + p_nested must be <= 1, got {out['p_array']} + {out['p_nested']}")
    if out["n_distractors"] > out["n_functions"] - 1:
        raise ValueError(
            f"n_distractors ({out['n_distractors']}) must leave room for a target among "
            f"n_functions ({out['n_functions']})"
        )
    return out


# ----------------------------------------------------------------------------------------------------
# Building records
# ----------------------------------------------------------------------------------------------------

_OPENERS = ("{}.", "Please {}.", "Could you {}?", "I need you to {}.", "Help me {}.", "Can you {}?")
_LINKS = ("Also, {}.", "Then {}.", "In addition, {}.", "After that, {}.", "Next, {}.")
_LAST_LINKS = ("Finally, {}.", "Lastly, {}.", "And {}.")


@dataclass(frozen=True)
class _Offered:
    """A function as offered in a record: its spec and the optional parameters its schema includes."""

    func: Func
    optional: tuple[Param, ...]

    def schema(self) -> dict[str, Any]:
        properties = {p.name: p.schema() for p in self.func.required}
        properties.update({p.name: p.schema(optional=True) for p in self.optional})
        return {
            "name": self.func.name,
            "description": self.func.description,
            "parameters": {
                "type": "dict",
                "properties": properties,
                "required": [p.name for p in self.func.required],
            },
        }


@dataclass(frozen=True)
class _Call:
    """One call of the gold answer: values of the required and of the stated optional parameters."""

    offered: _Offered
    values: dict[str, Any]
    stated: dict[str, Any]

    def ground_truth(self) -> dict[str, dict[str, list[Any]]]:
        params: dict[str, list[Any]] = {
            p.name: p.allowed(self.values[p.name]) for p in self.offered.func.required
        }
        for p in self.offered.optional:
            params[p.name] = p.allowed(self.stated[p.name]) if p.name in self.stated else p.unstated_allowed()
        return {self.offered.func.name: params}

    def clause(self, rng: np.random.Generator) -> str:
        func = self.offered.func
        template = func.templates[int(rng.integers(len(func.templates)))]
        text = template.format(**{p.name: p.say(self.values[p.name]) for p in func.required})
        phrases = [p.state(self.stated[p.name]) for p in self.offered.optional if p.name in self.stated]
        return text + (", " + join_words(phrases) if phrases else "")

    def key(self) -> tuple[str, ...]:
        """The standardised required values: two calls of one function in a record must differ here."""
        return tuple(standardize_string(repr(self.values[p.name])) for p in self.offered.func.required)


def _max_complexity(knobs: Mapping[str, Any]) -> int:
    return 2 if knobs["p_nested"] > 0 else 1 if knobs["p_array"] > 0 else 0


def _offer(func: Func, knobs: Mapping[str, Any], rng: np.random.Generator) -> _Offered:
    """The function with as many optional parameters as ``n_params`` leaves room for."""
    pool = [p for p in func.optional if p.complexity <= _max_complexity(knobs)]
    n_optional = min(max(knobs["n_params"] - len(func.required), 0), len(pool))
    chosen = sorted(int(i) for i in rng.permutation(len(pool))[:n_optional])
    return _Offered(func, tuple(pool[i] for i in chosen))


def _sample_call(offered: _Offered, n_stated: int, rng: np.random.Generator) -> _Call:
    """Sample a call: all required values, and ``n_stated`` optional values differing from their defaults."""
    func = offered.func
    for _ in range(30):
        try:
            values = {p.name: p.sample(rng) for p in func.required}
            if func.fixup is not None:
                func.fixup(values)
            break
        except Retry:
            continue
    else:
        raise Retry
    stated: dict[str, Any] = {}
    order = [offered.optional[int(i)] for i in rng.permutation(len(offered.optional))]
    for param in order:
        if len(stated) >= n_stated:
            break
        for _ in range(20):
            value = param.sample(rng)
            if value != param.default and param.state(value):
                stated[param.name] = value
                break
    return _Call(offered, values, stated)


def _pick_function(
    knobs: Mapping[str, Any], rng: np.random.Generator, exclude: Sequence[str], near_miss: bool = False
) -> Func:
    """A target function: its type complexity drawn from p_array / p_nested, preferring small schemas."""
    u = float(rng.random())
    want = 2 if u < knobs["p_nested"] else 1 if u < knobs["p_nested"] + knobs["p_array"] else 0
    usable = [f for f in FUNCS if f.name not in exclude and (f.near_miss_ok or not near_miss)]
    pool = [f for f in usable if f.complexity == want] or [
        f for f in usable if f.complexity <= _max_complexity(knobs)
    ]
    pool = [f for f in pool if len(f.required) <= knobs["n_params"]] or pool
    if not pool:
        raise Retry
    # Prefer functions whose schema can reach n_params: weight 1 / (1 + missing parameters).
    sizes = [
        len(f.required) + len([p for p in f.optional if p.complexity <= _max_complexity(knobs)]) for f in pool
    ]
    weights = np.array([1.0 / (1.0 + max(knobs["n_params"] - size, 0)) for size in sizes])
    return pool[int(rng.choice(len(pool), p=weights / weights.sum()))]


def _others(
    knobs: Mapping[str, Any],
    rng: np.random.Generator,
    target_funcs: Sequence[Func],
    n_slots: int,
    n_siblings: int,
) -> tuple[list[Func], int]:
    """Non-target candidates: up to ``n_siblings`` same-family distractors, then other families' fillers."""
    families = list(dict.fromkeys(f.family for f in target_funcs))
    taken = {f.name for f in target_funcs}
    siblings = [f for fam in families for f in FAMILIES[fam] if f.name not in taken]
    siblings = [siblings[int(i)] for i in rng.permutation(len(siblings))][: min(n_siblings, n_slots)]
    others = list(siblings)
    max_c = _max_complexity(knobs)
    free = [fam for fam in FAMILIES if fam not in families]
    for i in rng.permutation(len(free)):
        if len(others) >= n_slots:
            break
        choices = [f for f in FAMILIES[free[int(i)]] if f.complexity <= max_c]
        if choices:
            others.append(choices[int(rng.integers(len(choices)))])
    if len(others) < n_slots:
        raise Retry
    return others, len(siblings)


def _question(calls: Sequence[_Call], rng: np.random.Generator) -> str:
    sentences = []
    for i, call in enumerate(calls):
        if i == 0:
            pattern = _OPENERS[int(rng.integers(len(_OPENERS)))]
        elif i == len(calls) - 1:
            pattern = _LAST_LINKS[int(rng.integers(len(_LAST_LINKS)))]
        else:
            pattern = _LINKS[int(rng.integers(len(_LINKS)))]
        sentence = pattern.format(call.clause(rng))
        sentences.append(sentence[0].upper() + sentence[1:])
    return " ".join(sentences)


def _build(knobs: Mapping[str, Any], rng: np.random.Generator) -> GeneratedRecord:
    """One record from validated knobs (raises ``Retry`` when a draw cannot be completed)."""
    n_functions = knobs["n_functions"]
    if float(rng.random()) < knobs["p_irrelevance"]:
        return _build_irrelevance(knobs, rng)
    n_calls = 1
    if knobs["n_calls"] > 1 and float(rng.random()) < knobs["p_parallel"]:
        n_calls = int(rng.integers(2, knobs["n_calls"] + 1))
    n_targets = 1
    if n_calls > 1 and n_functions > 1 and float(rng.random()) < knobs["p_multi_function"]:
        n_targets = int(rng.integers(2, min(n_calls, n_functions) + 1))
    targets: list[Func] = []
    for _ in range(n_targets):
        targets.append(_pick_function(knobs, rng, [f.name for f in targets]))
    offered = {f.name: _offer(f, knobs, rng) for f in targets}
    assignment = [*targets, *(targets[int(rng.integers(n_targets))] for _ in range(n_calls - n_targets))]
    assignment = [assignment[int(i)] for i in rng.permutation(n_calls)]
    calls: list[_Call] = []
    for func in assignment:
        for _ in range(30):
            call = _sample_call(offered[func.name], knobs["n_optional_stated"], rng)
            if all(c.key() != call.key() for c in calls if c.offered.func.name == func.name):
                break
        else:
            raise Retry
        calls.append(call)
    others, n_siblings = _others(knobs, rng, targets, n_functions - n_targets, knobs["n_distractors"])
    candidates = [offered[f.name] for f in targets] + [_offer(f, knobs, rng) for f in others]
    candidates = [candidates[int(i)] for i in rng.permutation(len(candidates))]
    if n_calls == 1:
        category = "simple_python" if n_functions == 1 else "multiple"
    else:
        category = "parallel" if n_functions == 1 else "parallel_multiple"
    ground_truth = [c.ground_truth() for c in calls]
    called_types = [
        p
        for c in calls
        for p in (*c.offered.func.required, *c.offered.optional)
        if p.name in c.values or p.name in c.stated
    ]
    features: dict[str, int | float | bool] = {
        "level": int(knobs["level"]),
        "n_functions": len(candidates),
        "n_calls": n_calls,
        "n_targets": n_targets,
        "n_params": max(len(o.func.required) + len(o.optional) for o in offered.values()),
        "n_required": max(len(o.func.required) for o in offered.values()),
        "n_optional_stated": sum(len(c.stated) for c in calls),
        "array": any(p.complexity == 1 for p in called_types),
        "nested": any(p.complexity == 2 for p in called_types),
        "distractors": n_siblings,
        "irrelevant": False,
        "near_miss": False,
    }
    return GeneratedRecord(
        category, _question(calls, rng), [o.schema() for o in candidates], ground_truth, features
    )


def _build_irrelevance(knobs: Mapping[str, Any], rng: np.random.Generator) -> GeneratedRecord:
    """A question for a held-out function that no offered function (near miss: its siblings) can do."""
    near_miss = bool(knobs["near_miss_irrelevance"]) and knobs["n_distractors"] > 0
    held_out = _pick_function(knobs, rng, [], near_miss=near_miss)
    call = _sample_call(_offer(held_out, knobs, rng), knobs["n_optional_stated"], rng)
    n_siblings = knobs["n_distractors"] if near_miss else 0
    others, n_siblings = _others(knobs, rng, [held_out], knobs["n_functions"], n_siblings)
    candidates = [_offer(f, knobs, rng) for f in others]
    candidates = [candidates[int(i)] for i in rng.permutation(len(candidates))]
    features: dict[str, int | float | bool] = {
        "level": int(knobs["level"]),
        "n_functions": len(candidates),
        "n_calls": 0,
        "n_targets": 0,
        "n_params": max(len(o.func.required) + len(o.optional) for o in candidates),
        "n_required": max(len(o.func.required) for o in candidates),
        "n_optional_stated": len(call.stated),
        "array": False,
        "nested": False,
        "distractors": n_siblings,
        "irrelevant": True,
        "near_miss": n_siblings > 0,
    }
    return GeneratedRecord(
        "irrelevance", _question([call], rng), [o.schema() for o in candidates], None, features
    )


def generate_with_knobs(knobs: Mapping[str, Any], rng: np.random.Generator) -> GeneratedRecord:
    """A validated record built from explicit knobs (missing knobs come from their level's row, level 0 if
    none); raises ValueError on unknown, mistyped or out-of-range knobs."""
    checked = _validated_knobs(knobs)
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    problems: list[str] = []
    for _ in range(50):
        try:
            record = _build(checked, rng)
        except Retry:
            continue
        problems = validate_record(record.functions, record.ground_truth, record.category, record.question)
        if not problems:
            return record
    raise RuntimeError(f"could not generate a valid record for knobs {checked}: last problems {problems}")


def generate(level: int, rng: np.random.Generator) -> GeneratedRecord:
    """A validated record at a difficulty level in ``0 .. NUM_LEVELS-1``, deterministic given ``rng``."""
    return generate_with_knobs(knobs_for_level(level), rng)
