"""The OpenEnv contract (``openenv`` 0.10.0) as our server speaks it: message shapes, the action and
observation types, their JSON schemas, and the validation of every request field.

OpenEnv's ``serialize_observation`` sends an observation as ``{"observation": {...fields}, "reward": r,
"done": d}`` (since 0.10.0 with ``Observation.metadata`` inside the observation and, when not empty, at the
top level; openenv-core 0.3.0 dropped it). Gymnasium's ``terminated``, ``truncated`` and ``info`` travel as
fields of our observation (``GenEnvObservation``), next to the text, which every OpenEnv client reads;
``metadata`` stays empty. ``done`` is ``terminated or truncated``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from genenv_gym.registry.client_params import MAX_DEPTH
from genenv_gym.serve.errors import InvalidText, ServeError, TooLarge
from genenv_gym.serve.wire import info_to_json, json_text


class GenEnvAction(BaseModel):
    """An action: the agent's text (OpenEnv ``Action`` with one field)."""

    model_config = ConfigDict(extra="forbid")
    text: str = Field(description="the agent's output, exactly as gymnasium's env.step(text) takes it")
    metadata: dict[str, Any] = Field(default_factory=dict, description="ignored by the env")


class GenEnvObservation(BaseModel):
    """An observation: Gymnasium's ``(obs, reward, terminated, truncated, info)`` in OpenEnv's shape."""

    model_config = ConfigDict(extra="forbid")
    done: bool = Field(default=False, description="terminated or truncated")
    reward: float | None = Field(default=None, description="the step's reward (None after reset)")
    metadata: dict[str, Any] = Field(default_factory=dict, description="unused (info is its own field)")
    text: str = Field(description="the observation text")
    info: dict[str, Any] = Field(default_factory=dict, description="Gymnasium's info as JSON (serve/wire.py)")
    terminated: bool = False
    truncated: bool = False


class GenEnvState(BaseModel):
    """OpenEnv ``State``: the episode id and step count, plus the env id."""

    model_config = ConfigDict(extra="allow")
    episode_id: str | None = None
    step_count: int = Field(default=0, ge=0)
    env_id: str | None = None


def schemas() -> dict[str, Any]:
    """``GET /schema``: the JSON schemas of the action, the observation and the state."""
    return {
        "action": GenEnvAction.model_json_schema(),
        "observation": GenEnvObservation.model_json_schema(),
        "state": GenEnvState.model_json_schema(),
    }


def observation_payload(
    obs: str,
    info: Mapping[str, Any],
    reward: float | None = None,
    terminated: bool = False,
    truncated: bool = False,
) -> dict[str, Any]:
    """A reset's or a step's result in OpenEnv's wire shape (``serialize_observation``)."""
    return {
        "observation": {
            "text": obs,
            "info": info_to_json(info),
            "terminated": bool(terminated),
            "truncated": bool(truncated),
        },
        "reward": None if reward is None else float(reward),
        "done": bool(terminated or truncated),
    }


@dataclass(frozen=True)
class ResetRequest:
    """A reset: Gymnasium's ``seed`` and ``options``, OpenEnv's ``episode_id``, and our ``env_kwargs`` (the
    ``gymnasium.make`` kwargs of the session's env, read when the env is built)."""

    seed: int | None = None
    options: dict[str, Any] | None = None
    episode_id: str | None = None
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    session_id: str | None = None


RESET_KEYS = {"seed", "options", "episode_id", "env_kwargs", "session_id"}
STEP_KEYS = {"action", "session_id", "timeout_s", "request_id"}


def check_json(value: Any, what: str) -> None:
    """Raise a 422 when decoded client JSON nests deeper than ``MAX_DEPTH`` or holds text that UTF-8 cannot
    carry (a lone surrogate, which JSON's ``\\udXXX`` escapes can encode): neither ever reaches an env.

    One pass level by level without paths (a few ms for the most values a request may hold); the path of
    a bad string is looked for only once one is known to be there."""
    level, depth = [value], 1
    while level:
        below: list[Any] = []
        for item in level:
            kind = type(item)
            if kind is str:
                if not item.isascii():
                    _text_or_path(item, value, what)
            elif kind is dict:
                below.extend(item.values())
                for key in item:
                    if not key.isascii():
                        _text_or_path(key, value, what)
            elif kind is list:
                below.extend(item)
        if depth > MAX_DEPTH and any(type(item) in (dict, list) for item in level):
            raise ServeError(f"{what} nests deeper than {MAX_DEPTH} levels", 422)
        level, depth = below, depth + 1


def _text_or_path(text: str, value: Any, what: str) -> None:
    """Nothing when ``text`` is valid Unicode; else InvalidText naming where in ``value`` it is."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        pass
    else:
        return
    stack: list[tuple[Any, str]] = [(value, what)]
    while stack:
        item, path = stack.pop()
        if item is text:
            _check_text(item, path)
        if isinstance(item, dict):
            for key, child in item.items():
                if key is text:
                    _check_text(key, f"{path} (a key)")
                stack.append((child, f"{path}.{key}"))
        elif isinstance(item, list):
            stack.extend((child, f"{path}[{i}]") for i, child in enumerate(item))
    _check_text(text, what)


def _check_text(text: str, path: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise InvalidText(
            f"{path} holds text that is not valid Unicode (a lone surrogate at character {error.start})"
        ) from None


def parse_reset(data: Any) -> ResetRequest:
    """A reset request's fields, checked; raises ServeError (422) naming the first bad one."""
    data = _object(data, "reset data")
    check_json(data, "reset")
    _known(data, RESET_KEYS, "reset")
    seed = data.get("seed")
    if seed is not None and (type(seed) is not int or seed < 0):
        raise ServeError(f"seed must be a non-negative integer or null, got {seed!r}", 422)
    options = data.get("options")
    if options is not None and not isinstance(options, dict):
        raise ServeError(f"options must be an object or null, got {type(options).__name__}", 422)
    env_kwargs = data.get("env_kwargs") or {}
    if not isinstance(env_kwargs, dict):
        raise ServeError(f"env_kwargs must be an object, got {type(env_kwargs).__name__}", 422)
    return ResetRequest(
        seed, options, _optional_str(data, "episode_id"), env_kwargs, _optional_str(data, "session_id")
    )


def parse_session(data: Any) -> dict[str, Any]:
    """A session's opening body (``{"env_kwargs": {...}}``, or empty: ``{}``): its env kwargs, checked as
    JSON; raises ServeError (422) naming what is wrong."""
    if not isinstance(data, dict) or set(data) - {"env_kwargs"}:
        raise ServeError('session body must be {"env_kwargs": {...}} or empty', 422)
    env_kwargs = data.get("env_kwargs") or {}
    if not isinstance(env_kwargs, dict):
        raise ServeError("env_kwargs must be an object", 422)
    check_json(env_kwargs, "env_kwargs")
    return env_kwargs


def parse_action(data: Any, max_chars: int) -> str:
    """The action text of a step (``{"text": ...}``), checked; raises ServeError (422) or TooLarge (413).

    A client that sends a reply parsing as JSON as that JSON (verifiers' OpenEnv taskset) is graded on the
    reply it was: a ``text`` that is not a string (``7``, ``true``, a list) is read as its JSON text, and so
    is an action object without ``text`` (a reply that was a JSON object)."""
    data = _object(data, "action")
    check_json(data, "action")
    if "text" not in data and set(data) - {"metadata"}:
        data = {"text": data}
    _known(data, {"text", "metadata"}, "action")
    if "text" not in data:
        raise ServeError('action must be {"text": <string>}: it has no "text"', 422)
    text = data["text"]
    if not isinstance(text, str):
        text = json_text(text)
    if len(text) > max_chars:
        raise TooLarge(f"action has {len(text)} characters, more than the server's limit of {max_chars}")
    return text


def parse_step(data: Any, max_chars: int) -> tuple[str, str | None]:
    """An HTTP step body (``{"action": {...}, "session_id": ...}``): the action text and the session id."""
    data = _object(data, "step body")
    _known(data, STEP_KEYS, "step")
    if "action" not in data:
        raise ServeError('step body needs "action": {"text": ...}', 422)
    return parse_action(data["action"], max_chars), _optional_str(data, "session_id")


def _object(data: Any, what: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ServeError(f"{what} must be a JSON object, got {type(data).__name__}", 422)
    return data


def _known(data: dict[str, Any], known: set[str], what: str) -> None:
    unknown = sorted(set(data) - known)
    if unknown:
        raise ServeError(f"unknown {what} field(s) {unknown}; known: {sorted(known)}", 422)


def _optional_str(data: dict[str, Any], key: str) -> str | None:
    value = data.get(key)
    if value is not None and (not isinstance(value, str) or len(value) > 255):
        raise ServeError(f"{key} must be a string of at most 255 characters", 422)
    return value
