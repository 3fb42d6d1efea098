"""Reward functions that LLM trainers import: they grade a completion with the task's own verifier.

Every exported row carries its whole Task as JSON (verl: ``reward_model.ground_truth``; TRL and jsonl: the
``task`` column), so grading needs nothing but this module and the benchmark data a multi-turn domain
replays on (``$GENENV_DATA_DIR``).

- verl: ``custom_reward_function.path=<this file>`` and ``custom_reward_function.name=compute_score``.
- TRL: ``GRPOTrainer(reward_funcs=trl_reward, ...)`` on a dataset with the exported ``task`` column.
- Anything else: ``score(task, completion_text)``.

A completion is read as ``genenv eval`` reads an LLM agent's reply (``genenv_gym.agents.llm_agent``):
reasoning blocks and code fences are removed and ``<tool_call>`` blocks become the domain's answer format.
Then the domain's ``verify`` grades it (BFCL: the official AST checker; ALFWorld: the transcript is
replayed on the engine). Grading never raises on a completion: a malformed one scores 0.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from genenv_gym.domain import Domain, Verdict
from genenv_gym.task import Task

__all__ = ["compute_score", "parse_completion", "score", "task_of", "trl_reward", "verify_completion"]


def task_of(task: Task | str | Mapping[str, Any]) -> Task:
    """A Task from a Task, its JSON text or its dict."""
    if isinstance(task, Task):
        return task
    if isinstance(task, str):
        return Task.from_json(task)
    if isinstance(task, Mapping):
        return Task.from_dict(task)
    raise TypeError(f"expected a Task, its JSON or its dict, got {type(task).__name__}")


@lru_cache(maxsize=16)
def _domain(name: str, kwargs_json: str) -> Domain:
    from genenv_gym.registry.registration import make_domain

    return make_domain(name, **json.loads(kwargs_json))


def domain_for(task: Task, domain_kwargs: Mapping[str, Any] | None = None) -> Domain:
    """The (cached) Domain that grades ``task``."""
    return _domain(task.domain, json.dumps(dict(domain_kwargs or {}), sort_keys=True))


def parse_completion(text: str, task: Task) -> str:
    """The action in a completion, read as ``genenv eval`` reads an LLM agent's reply."""
    from genenv_gym.agents.backends.base import Completion
    from genenv_gym.agents.llm_agent import parse_action

    action_format = task.evaluation.get("action_format")
    return parse_action(Completion(text=text), task.domain, action_format)


def verify_completion(
    task: Task | str | Mapping[str, Any],
    completion: str,
    parse: bool = True,
    domain_kwargs: Mapping[str, Any] | None = None,
) -> Verdict:
    """The verifier's verdict on a completion (``parse=False`` grades the text exactly as given)."""
    task = task_of(task)
    text = completion if isinstance(completion, str) else ""
    if parse:
        text = parse_completion(text, task)
    return domain_for(task, domain_kwargs).verify(task, text)


def score(task: Task | str | Mapping[str, Any], completion: str, parse: bool = True) -> float:
    """The reward in [0, 1] of one completion on one task."""
    return float(verify_completion(task, completion, parse).reward)


def compute_score(
    data_source: str,
    solution_str: str,
    ground_truth: str,
    extra_info: Mapping[str, Any] | None = None,
    **kwargs: Any,
) -> float:
    """verl's custom reward function: ``ground_truth`` is the exported Task's JSON.

    ``extra_info["domain_kwargs"]`` (a JSON object string), when present, configures the domain.
    """
    domain_kwargs = None
    if extra_info and extra_info.get("domain_kwargs"):
        raw = extra_info["domain_kwargs"]
        domain_kwargs = json.loads(raw) if isinstance(raw, str) else raw
    task = task_of(ground_truth)
    return float(verify_completion(task, solution_str, True, domain_kwargs).reward)


def _completion_text(completion: Any) -> str:
    """TRL completions are strings (standard format) or lists of messages (conversational format)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Sequence) and completion:
        last = completion[-1]
        if isinstance(last, Mapping):
            return str(last.get("content") or "")
    return ""


def trl_reward(completions: Sequence[Any], task: Sequence[str], **kwargs: Any) -> list[float]:
    """TRL's reward function (``GRPOTrainer(reward_funcs=trl_reward)``): one reward per completion.

    ``task`` is the exported dataset's ``task`` column (TRL passes every extra column by name, so an
    exported ``domain_kwargs`` column arrives too).
    """
    settings = kwargs.get("domain_kwargs") or [None] * len(completions)
    return [
        float(verify_completion(t, _completion_text(c), True, json.loads(d) if d else None).reward)
        for c, t, d in zip(completions, task, settings, strict=True)
    ]
