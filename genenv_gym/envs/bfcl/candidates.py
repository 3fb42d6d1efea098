"""BFCL as multiple choice: the reference answer and near-miss distractors, for ``CandidateActions``.

The distractors are built from the task: a call with one argument value perturbed, a call with a required
argument dropped, a call to another offered function, a refusal, and random calls. Every distractor is
graded by the official AST checker and dropped if it would pass, so exactly one candidate is right
whenever the reference answer is (the reference of an irrelevance task is the refusal, and its distractors
are calls). A policy that picks well here has learned to *recognise* the right call among a few, which is
far easier than writing it. The BFCL manifest names this source, so ``CandidateActions`` uses it on BFCL.
"""

from __future__ import annotations

import copy
import itertools
from typing import Any

import gymnasium as gym
import numpy as np

from genenv_gym.envs.bfcl.categories import language_of
from genenv_gym.envs.bfcl.checker import grade_output
from genenv_gym.envs.bfcl.domain import REFUSAL, random_value
from genenv_gym.envs.bfcl.render import render_answer
from genenv_gym.task import thaw
from genenv_gym.wrappers.candidates import current_episode, first_distinct, shuffled


class BFCLCandidates:
    """The reference answer of a BFCL task and near-miss distractors (see the module docstring).

    Distractors are graded by the official AST checker (``checker.grade_output``, what ``verify`` runs)
    on the task's functions and possible answers, unfrozen once per state.

    Args:
        tries: random calls drawn per missing candidate once the structured distractors run out.
    """

    def __init__(self, tries: int = 8) -> None:
        self.tries = tries

    def candidates(self, env: gym.Env, info: dict[str, Any], k: int, rng: np.random.Generator) -> list[str]:
        episode = current_episode(env)
        task = episode.task
        domain = env.unwrapped.domain
        oracle = episode.oracle_action()
        functions = thaw(task.tools)
        ground_truth = task.evaluation.get("ground_truth")
        gold = None if ground_truth is None else thaw(ground_truth)
        language = language_of(task.category)
        fmt = task.evaluation.get("action_format", getattr(domain, "action_format", "python"))

        def wrong(text: str) -> bool:
            return not grade_output(text, functions, gold, task.category, fmt).valid

        structured = _structured(gold, functions, language, fmt, rng)
        pool = [structured[i] for i in rng.permutation(len(structured))]
        if oracle != REFUSAL:
            pool.insert(int(rng.integers(0, min(2, len(pool)) + 1)), REFUSAL)
        randoms = (_random_call(functions, language, fmt, rng) for _ in range(self.tries * k))
        chosen = first_distinct(itertools.chain(pool, randoms), wrong, {oracle}, k - 1)
        return shuffled([oracle, *chosen], rng)


def _structured(
    gold: list[dict] | None, functions: list[dict], language: str, fmt: str, rng: np.random.Generator
) -> list[str]:
    """Near misses of the reference answer: a perturbed value, a dropped argument, another function."""

    if not gold:
        return []
    out = []
    for variant in (
        _perturbed(gold, rng),
        _dropped(gold, functions, rng),
        _other_function(gold, functions, rng),
    ):
        if variant is None:
            continue
        try:
            out.append(render_answer(variant, functions, language, fmt))
        except Exception:  # a variant the renderer cannot write is simply not offered
            continue
    return out


def _random_call(functions: list[dict], language: str, fmt: str, rng: np.random.Generator) -> str:
    """A call to a random offered function with random values for its required parameters."""

    if not functions:
        return REFUSAL
    function = functions[int(rng.integers(len(functions)))]
    params = function.get("parameters", {}) or {}
    properties = params.get("properties", {}) or {}
    call = {
        name: [random_value(str(properties.get(name, {}).get("type", "string")), rng)]
        for name in params.get("required", []) or []
    }
    return render_answer([{function["name"]: call}], functions, language, fmt)


def _chosen(allowed: Any) -> Any:
    """The value the reference answer is rendered with (the first allowed one that is not the omit mark)."""
    if not isinstance(allowed, list):
        return allowed
    return next((v for v in allowed if v != ""), None)


def _perturb_value(value: Any, others: list[Any], rng: np.random.Generator) -> Any:
    """A different value of the same type; strings prefer another value of the task (a near miss)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + int(rng.choice([-1, 1])) * int(rng.integers(1, max(3, abs(value) // 2 + 2)))
    if isinstance(value, float):
        return round(
            value + float(rng.choice([-1.0, 1.0])) * float(rng.uniform(0.5, max(1.0, abs(value)))), 2
        )
    if isinstance(value, str):
        same_type = [o for o in others if isinstance(o, str) and o != value]
        if same_type and rng.random() < 0.5:
            return same_type[int(rng.integers(len(same_type)))]
        return value[::-1] if len(value) > 1 and value[::-1] != value else value + "x"
    if isinstance(value, list) and value:
        items = list(value)
        i = int(rng.integers(len(items)))
        new = _perturb_value(items[i], [], rng)
        if new is None:
            return None
        items[i] = new
        return items
    if isinstance(value, dict) and value:
        return None  # dict values hold allowed lists per key; a perturbed key is not a clean near miss
    return None


def _perturbed(gold: list[dict], rng: np.random.Generator) -> list[dict] | None:
    """The reference answer with one argument value changed to one its allowed values do not include."""
    slots = [(c, name, p) for c, call in enumerate(gold) for name, args in call.items() for p in (args or {})]
    values = [_chosen(gold[c][name][p]) for c, name, p in slots]
    for i in rng.permutation(len(slots)):
        c, name, param = slots[int(i)]
        value = values[int(i)]
        if value is None:
            continue
        new = _perturb_value(value, [v for v in values if v is not value], rng)
        allowed = gold[c][name][param]
        if new is None or new == value or (isinstance(allowed, list) and new in allowed):
            continue
        variant = copy.deepcopy(gold)
        variant[c][name][param] = [new]
        return variant
    return None


def _dropped(gold: list[dict], functions: list[dict], rng: np.random.Generator) -> list[dict] | None:
    """The reference answer with one required argument left out (or one of several calls left out)."""
    if len(gold) > 1 and rng.random() < 0.5:
        variant = copy.deepcopy(gold)
        del variant[int(rng.integers(len(variant)))]
        return variant
    required = {f.get("name"): set(f.get("parameters", {}).get("required", []) or []) for f in functions}
    slots = [
        (c, name, p)
        for c, call in enumerate(gold)
        for name, args in call.items()
        for p in (args or {})
        if p in required.get(name, set())
    ]
    if not slots:
        return None
    c, name, param = slots[int(rng.integers(len(slots)))]
    variant = copy.deepcopy(gold)
    del variant[c][name][param]
    return variant


def _other_function(gold: list[dict], functions: list[dict], rng: np.random.Generator) -> list[dict] | None:
    """One call of the reference answer redirected to another offered function, with its required args."""

    called = {name for call in gold for name in call}
    others = [f for f in functions if f.get("name") not in called]
    if not others:
        return None
    other = others[int(rng.integers(len(others)))]
    params = other.get("parameters", {}) or {}
    properties = params.get("properties", {}) or {}
    gold_values = {p: args[p] for call in gold for args in call.values() for p in (args or {})}
    args = {}
    for name in params.get("required", []) or []:
        if name in gold_values:  # same-named argument: keep the task's value, as a confused model would
            args[name] = gold_values[name]
        else:
            args[name] = [random_value(str(properties.get(name, {}).get("type", "string")), rng)]
    variant = copy.deepcopy(gold)
    variant[int(rng.integers(len(variant)))] = {other["name"]: args}
    return variant
