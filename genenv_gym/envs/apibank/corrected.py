"""``scoring="corrected"``: what a careful API-Bank evaluation would have done (see docs/apibank.md).

1. State: the dialogue's earlier API turns are replayed (their reference calls, in order) on the episode's
   databases before the sample, so calls that depend on earlier ones (a password reset's second step, a
   login after a password change, a query of a new appointment) run where the dialogue left the world.
2. Typed parameters: ``list`` / ``list(str)`` values are read as Python literals (``ast.literal_eval``, a
   parser that never runs code, on at most 20,000 characters), ``int`` / ``float`` as numbers (signs and
   decimals allowed), ``bool`` from ``True`` / ``False`` in any case.
3. Current names: the stale ``device_id`` of some recorded TimedSwitch / CancelTimedSwitch calls is the
   ``name`` parameter of the current API.
4. The reference result is the reference call executed on the same state (not the recorded result), so
   database contents that changed since recording (scene device names in lower case) cannot fail it.
5. DeleteMeeting's rule compares ``start_time`` (the official rule reads a ``time`` key meetings lack).

The per-API rules are otherwise the official ones (word-set Jaccard > 0.5 on content, normalised dates).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from typing import Any

from genenv_gym.envs.apibank.extraction import find_call, parse_call
from genenv_gym.envs.apibank.official import CallVerdict, judge_result
from genenv_gym.envs.apibank.official_checks import RULES, _same_outcome
from genenv_gym.envs.apibank.registry import CallRefused, execute
from genenv_gym.envs.apibank.signatures import SIGNATURES
from genenv_gym.envs.apibank.world import World

#: (API, recorded parameter name) -> the current parameter name.
RENAMED: dict[tuple[str, str], str] = {
    ("TimedSwitch", "device_id"): "name",
    ("CancelTimedSwitch", "device_id"): "name",
}
MAX_LITERAL_CHARS = 20_000


def _typed(api_name: str, key: str, value: Any) -> Any:
    param = SIGNATURES[api_name].param(key)
    if param is None:
        raise CallRefused(f"invalid parameter name. parameter: {key}", "invalid_parameter")
    if not isinstance(value, str):
        return value
    text = value.strip()
    try:
        if param.type == "int":
            return int(text)
        if param.type == "float":
            return float(text)
        if param.type == "bool":
            if text.lower() not in ("true", "false"):
                raise ValueError(f"{value!r} is not True or False")
            return text.lower() == "true"
        if param.type in ("list", "list(str)"):
            if len(text) > MAX_LITERAL_CHARS:
                raise ValueError(f"list longer than {MAX_LITERAL_CHARS} characters")
            parsed = ast.literal_eval(text)
            if not isinstance(parsed, list):
                raise ValueError(f"{key} must be a list")
            return parsed
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError) as error:
        raise CallRefused(f"invalid parameter type for {key}: {error}", "invalid_parameter") from error
    return value


def typed_params(api_name: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """The parameters converted by their declared types (raises CallRefused on a bad name or value)."""
    if api_name not in SIGNATURES:
        raise CallRefused("invalid tool name.", "api_name_mismatch")
    return {key: _typed(api_name, key, value) for key, value in params.items()}


def reference_params(api_name: str, param_dict: Mapping[str, Any]) -> dict[str, Any]:
    """A recorded call's parameters under current names, typed."""
    renamed = {RENAMED.get((api_name, k), k): v for k, v in param_dict.items()}
    return typed_params(api_name, renamed)


def replay(world: World, api_turns: Iterable[Mapping[str, Any]]) -> None:
    """Run the reference calls of earlier API turns on ``world``, whatever they return."""
    for turn in api_turns:
        try:
            execute(world, turn["api_name"], reference_params(turn["api_name"], turn["param_dict"]))
        except CallRefused:
            continue


def _delete_meeting(r: dict, g: dict) -> bool:
    if g["output"] == "success" and r["output"] == "success":
        return r["input"]["start_time"] == g["input"]["start_time"]
    return _same_outcome(r, g)


CORRECTED_RULES = {**RULES, "DeleteMeeting": _delete_meeting}


def reference_result(world: World, truth: Mapping[str, Any]) -> dict[str, Any]:
    """The reference call's result on a fork of ``world`` (``world`` itself is unchanged)."""
    return execute(world.fork(), truth["api_name"], reference_params(truth["api_name"], truth["param_dict"]))


def score_corrected(
    world: World, earlier_api_turns: Iterable[Mapping[str, Any]], truth: Mapping[str, Any], model_output: str
) -> CallVerdict:
    """The corrected verdict on ``model_output`` for the API turn ``truth`` (see the module docstring)."""
    replay(world, earlier_api_turns)
    expected = reference_result(world, truth)
    call = find_call(model_output)
    if call is None:
        return CallVerdict(False, "no_call", "No API call found: answer with [ApiName(key='value', ...)]")
    api_name, params = parse_call(call)
    if api_name != truth["api_name"]:
        return CallVerdict(
            False, "api_name_mismatch", f"API name mismatch: {api_name} is not the API to call"
        )
    try:
        result = execute(world, api_name, typed_params(api_name, params))
    except CallRefused as refused:
        return CallVerdict(False, refused.bucket, str(refused), api_name, params)
    verdict = judge_result(api_name, result, expected, CORRECTED_RULES)
    return CallVerdict(verdict.correct, verdict.bucket, verdict.error, api_name, params, result)
