"""The official verdict on one API-call sample (``evaluator.py``'s ``evaluate`` for an API turn).

The model output's first ``[Name(...)]`` is parsed (never executed); the name must equal the reference
API's; the call runs on a fresh copy of the init databases (earlier calls of the dialogue are not
replayed); then the API's own correctness rule compares the result with the recorded one. A ToolSearcher
result is the matched API's present-day entry, as the official code builds it
(:mod:`~genenv_gym.envs.apibank.official_tool_search`). The error texts here never include the reference
call or its result.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from genenv_gym.envs.apibank.extraction import find_call, parse_call
from genenv_gym.envs.apibank.official_checks import check
from genenv_gym.envs.apibank.official_tool_search import matched_name, official_output
from genenv_gym.envs.apibank.registry import CallRefused, call_api
from genenv_gym.envs.apibank.world import World

#: The error buckets an API-call verdict reports, in the order they are tested.
BUCKETS = (
    "no_call",
    "api_name_mismatch",
    "invalid_parameter",
    "missing_parameter",
    "checker_error",
    "exception",
    "output_mismatch",
    "input_mismatch",
)


@dataclass(frozen=True)
class CallVerdict:
    """Whether a model output passes an API-call sample, why not, and what the call returned."""

    correct: bool
    bucket: str | None = None
    error: str | None = None
    api_name: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    result: dict[str, Any] | None = None


def judge_result(api_name: str, result: dict, ground_truth: dict, rules: dict | None = None) -> CallVerdict:
    """Apply the API's official rule to an executed result; name the bucket when it fails."""
    correct, problem = check(api_name, copy.deepcopy(result), copy.deepcopy(ground_truth), rules)
    if correct:
        return CallVerdict(True, result=result, api_name=api_name)
    if problem is not None:
        return CallVerdict(False, "checker_error", problem, api_name, result=result)
    if result.get("exception") != ground_truth.get("exception"):
        bucket = "exception"
        error = (
            f"the API raised: {result['exception']}"
            if result.get("exception") is not None
            else "the API succeeded where the reference call fails"
        )
    elif result.get("output") != ground_truth.get("output"):
        bucket, error = "output_mismatch", "the API ran but its output differs from the reference call's"
    else:
        bucket, error = "input_mismatch", "the call's parameters differ from the reference call's"
    return CallVerdict(False, bucket, error, api_name, result=result)


def score_api_call(world: World, ground_truth_turn: dict, model_output: str) -> CallVerdict:
    """The official verdict on ``model_output`` for an API-call sample whose reference turn is given."""
    call = find_call(model_output)
    if call is None:
        return CallVerdict(False, "no_call", "No API call found: answer with [ApiName(key='value', ...)]")
    api_name, params = parse_call(call)
    if api_name != ground_truth_turn["api_name"]:
        return CallVerdict(
            False, "api_name_mismatch", f"API name mismatch: {api_name} is not the API to call"
        )
    try:
        result = call_api(world, api_name, params)
    except CallRefused as refused:
        return CallVerdict(False, refused.bucket, str(refused), api_name, params)
    if api_name == "ToolSearcher" and result["exception"] is None:
        name = matched_name(result["output"])
        if name is not None:
            result["output"] = official_output(name, world.recordings)
    verdict = judge_result(api_name, result, ground_truth_turn["result"])
    return CallVerdict(verdict.correct, verdict.bucket, verdict.error, api_name, params, result)
