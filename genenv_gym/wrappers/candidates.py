"""Candidate actions for the current state of an env: what a Discrete action index stands for.

Classic RL libraries act through ``Discrete(K)``; a GenEnv env acts through text. A *candidate source*
turns the env's current state into at most ``K`` action texts. Three sources:

- ``AdmissibleCommands``: the env's own list, ``info["admissible_commands"]`` (ALFWorld). When the list is
  longer than ``K``, the expert's next command is kept and the rest is a random subset.
- ``BFCLCandidates``: the task's reference answer plus distractors built from the task: a call with one
  argument value perturbed, a call with a required argument dropped, a call to another offered function,
  a refusal, and random calls. Every distractor is graded by the domain's verifier and dropped if it
  would pass, so exactly one candidate is right whenever the reference answer is (the reference of an
  irrelevance task is the refusal, and its distractors are calls). This makes BFCL a multiple-choice
  problem: a policy that picks well here has learned to *recognise* the right call among a few, which is
  far easier than writing it.
- ``OracleAndRandom``: any other domain: the expert action plus the domain's random actions.

Every source returns the texts in an order shuffled with the generator it is given (the wrapper passes
the env's seeded ``np_random``), so the position of the right answer carries no information.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

import gymnasium as gym
import numpy as np

from genenv_gym.task import thaw

__all__ = [
    "AdmissibleCommands",
    "BFCLCandidates",
    "CandidateSource",
    "OracleAndRandom",
    "default_source",
]


class CandidateSource(Protocol):
    """Builds the candidate action texts of the env's current state (at most ``k``, no duplicates)."""

    def candidates(self, env: gym.Env, info: dict[str, Any], k: int, rng: np.random.Generator) -> list[str]:
        """Up to ``k`` distinct action texts, shuffled with ``rng``."""
        ...


def _episode(env: gym.Env) -> Any:
    episode = getattr(env.unwrapped, "episode", None)
    if episode is None:
        raise RuntimeError("the env has no episode in progress: call reset() first")
    return episode


def _unique(texts: Sequence[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for text in texts:
        if text not in seen:
            seen.add(text)
            out.append(text)
    return out


def _shuffled(texts: list[str], rng: np.random.Generator) -> list[str]:
    return [texts[i] for i in rng.permutation(len(texts))]


class AdmissibleCommands:
    """The env's ``info["admissible_commands"]``; beyond ``k`` of them, the expert's and a random subset."""

    def __init__(self, key: str = "admissible_commands") -> None:
        self.key = key

    def candidates(self, env: gym.Env, info: dict[str, Any], k: int, rng: np.random.Generator) -> list[str]:
        commands = _unique(str(c) for c in info.get(self.key) or ())
        if not commands:
            raise ValueError(f"info has no {self.key!r}: this env does not list its commands")
        if len(commands) > k:
            expert = _expert_command(env, commands)
            rest = [c for c in commands if c != expert]
            keep = [
                rest[i] for i in sorted(rng.choice(len(rest), size=k - (expert is not None), replace=False))
            ]
            commands = keep + ([expert] if expert is not None else [])
        return _shuffled(commands, rng)


def _expert_command(env: gym.Env, commands: list[str]) -> str | None:
    """The admissible command that matches the episode's expert action (None when none does)."""
    try:
        expert = _episode(env).oracle_action()
    except Exception:  # an episode without an expert still gets a candidate set
        return None
    normal = " ".join(str(expert).lower().split())
    return next((c for c in commands if " ".join(c.lower().split()) == normal), None)


class OracleAndRandom:
    """The episode's expert action and distinct random actions.

    On a single-turn episode, random actions the verifier accepts are removed (``verify`` grades one
    answer there; on multi-turn episodes it grades whole transcripts, so nothing is removed).
    """

    def __init__(self, tries: int = 8) -> None:
        self.tries = tries

    def candidates(self, env: gym.Env, info: dict[str, Any], k: int, rng: np.random.Generator) -> list[str]:
        from genenv_gym.domain import SingleTurnEpisode

        episode = _episode(env)
        oracle = episode.oracle_action()
        domain = env.unwrapped.domain
        randoms = (episode.random_action(rng) for _ in range(self.tries * k))
        if isinstance(episode, SingleTurnEpisode):
            chosen = _first_distinct(
                randoms, lambda t: not domain.verify(episode.task, t).success, {oracle}, k - 1
            )
        else:
            chosen = _first_distinct(randoms, lambda t: True, {oracle}, k - 1)
        return _shuffled([oracle, *chosen], rng)


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
        from genenv_gym.envs.bfcl.categories import language_of
        from genenv_gym.envs.bfcl.checker import grade_output
        from genenv_gym.envs.bfcl.domain import REFUSAL

        episode = _episode(env)
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
        chosen = _first_distinct(itertools.chain(pool, randoms), wrong, {oracle}, k - 1)
        return _shuffled([oracle, *chosen], rng)


def _first_distinct(texts: Iterable[str], keep: Any, seen: set[str], limit: int) -> list[str]:
    """Up to ``limit`` texts not in ``seen`` for which ``keep(text)`` holds, drawn lazily from ``texts``."""
    out: list[str] = []
    for text in texts:
        if len(out) >= limit:
            break
        if text in seen:
            continue
        seen.add(text)
        if keep(text):
            out.append(text)
    return out


def _structured(
    gold: list[dict] | None, functions: list[dict], language: str, fmt: str, rng: np.random.Generator
) -> list[str]:
    """Near misses of the reference answer: a perturbed value, a dropped argument, another function."""
    from genenv_gym.envs.bfcl.render import render_answer

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
    from genenv_gym.envs.bfcl.domain import REFUSAL, random_value
    from genenv_gym.envs.bfcl.render import render_answer

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
    from genenv_gym.envs.bfcl.domain import random_value

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


def default_source(env: gym.Env, info: dict[str, Any]) -> CandidateSource:
    """The source that fits an env: admissible commands, BFCL distractors, or oracle and random actions."""
    if "admissible_commands" in info:
        return AdmissibleCommands()
    domain = getattr(env.unwrapped, "domain", None)
    if getattr(domain, "name", None) == "bfcl":
        return BFCLCandidates()
    return OracleAndRandom()
