"""A generated entry (``generate_entry``): classes and states drawn, a plan of calls that succeed, its turns
worded, missing-parameter / missing-function turns, and the docs of the involved classes."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from genenv_gym.envs.bfcl_multiturn.calls import make_instances, render_call, run_call
from genenv_gym.envs.bfcl_multiturn.executor import is_error_result
from genenv_gym.envs.bfcl_multiturn.generation.classes import CLASSES, class_docs
from genenv_gym.envs.bfcl_multiturn.generation.levels import LEVELS, NUM_LEVELS
from genenv_gym.envs.bfcl_multiturn.generation.steps import Step, pick


def _sample_step(
    instances: dict[str, Any], class_name: str, rng: np.random.Generator, tries: int = 30
) -> tuple[Step, str] | None:
    """A call of the class that succeeds on the instances (executed there), with its result; None if none."""
    samplers = CLASSES[class_name].samplers
    for _ in range(tries):
        step = pick(rng, samplers)(instances[class_name], rng)
        if step is None:
            continue
        before = copy.deepcopy(instances[class_name])
        result = run_call(instances, step.call)
        if not is_error_result(result):
            return step, result
        instances[class_name] = before
    return None


def _join(phrases: list[str]) -> str:
    text = "; then ".join(phrases)
    return text[:1].upper() + text[1:] + "."


def generate_entry(
    level: int, rng: np.random.Generator, long_context_fixed: bool | None = None
) -> dict[str, Any]:
    """A multi-turn entry at ``level`` in the layout :func:`.domain.entry_task` reads (``question``,
    ``initial_config``, ``involved_classes``, ``ground_truth``, ``function``, ``holdout``, ``category``),
    plus ``knobs`` (the level's features). Raises RuntimeError when no plan fits (rare; callers retry)."""
    knobs = LEVELS[min(max(int(level), 0), NUM_LEVELS - 1)]
    long_context = knobs.long_context if long_context_fixed is None else long_context_fixed
    names = sorted(CLASSES)
    classes = [str(c) for c in rng.choice(names, knobs.classes, replace=False)]
    config = {c: CLASSES[c].config(rng, knobs.size) for c in classes if CLASSES[c].config is not None}
    instances = make_instances(classes, config, long_context)
    plan: list[list[Step]] = []
    for turn in range(knobs.turns):
        steps: list[Step] = []
        for k in range(int(rng.integers(1, knobs.max_calls + 1))):
            class_name = classes[(turn + k) % len(classes)] if k == 0 else pick(rng, classes)
            sampled = _sample_step(instances, class_name, rng)
            if sampled is not None:
                steps.append(sampled[0])
        if not steps:
            raise RuntimeError("no call of the chosen classes succeeds in this state")
        plan.append(steps)

    param_turn = func_turn = None
    if knobs.miss_param:
        candidates = [t for t, steps in enumerate(plan) if any(s.vague for s in steps)]
        param_turn = pick(rng, candidates) if candidates else None
        if param_turn is None:
            raise RuntimeError("no call of the plan can leave a value out")
    missing_function = None
    if knobs.miss_func:
        used: set[str] = set()
        options = []
        for t, steps in enumerate(plan):
            fresh = sorted({s.call.name for s in steps} - used)
            if t != param_turn and fresh:
                options.append((t, fresh))
            used |= {s.call.name for s in steps}
        if not options:
            raise RuntimeError("no turn can miss a function")
        func_turn, fresh = options[int(rng.integers(len(options)))]
        missing_function = pick(rng, fresh)

    question: list[list[dict[str, str]]] = []
    truth: list[list[str]] = []
    missed: dict[str, list[str]] = {}
    for t, steps in enumerate(plan):
        calls = [render_call(s.call) for s in steps]
        if t == param_turn:
            index = next(i for i, s in enumerate(steps) if s.vague)
            phrases = [s.vague if i == index else s.phrase for i, s in enumerate(steps)]
            question.append([{"role": "user", "content": _join(phrases)}])
            truth.append([])
            question.append([{"role": "user", "content": steps[index].clarification}])
            truth.append(calls)
        elif t == func_turn:
            question.append([{"role": "user", "content": _join([s.phrase for s in steps])}])
            truth.append([])
            missed[str(len(question))] = [missing_function]
            question.append([])
            truth.append(calls)
        else:
            question.append([{"role": "user", "content": _join([s.phrase for s in steps])}])
            truth.append(calls)

    functions = [doc for c in classes for doc in class_docs(c)]
    holdout: dict[str, list[dict[str, Any]]] = {}
    for turn, methods in missed.items():
        holdout[turn] = [doc for doc in functions if doc["name"] in methods]
        functions = [doc for doc in functions if doc["name"] not in methods]
    if long_context:
        category = "multi_turn_long_context"
    elif missed:
        category = "multi_turn_miss_func"
    elif param_turn is not None:
        category = "multi_turn_miss_param"
    else:
        category = "multi_turn_base"
    return {
        "question": question,
        "initial_config": config,
        "involved_classes": classes,
        "ground_truth": truth,
        "function": functions,
        "holdout": holdout,
        "missed_function": missed,
        "category": category,
        "knobs": {
            "level": int(level),
            "plan_turns": knobs.turns,
            "max_calls_per_turn": knobs.max_calls,
            "state_size": knobs.size,
            "long_context": long_context,
            "miss_param": param_turn is not None,
            "miss_func": bool(missed),
        },
    }
