"""Checking ``gymnasium.make`` arguments for a registered id before building the env, with clear errors."""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Mapping
from typing import Any

from gymnasium.envs.registration import registry

from genenv_gym.suggest import did_you_mean


def env_parameters(env_id: str) -> dict[str, inspect.Parameter]:
    """The keyword arguments the env class of ``env_id`` accepts (name -> parameter with its annotation)."""
    module, name = registry[env_id].entry_point.split(":")
    cls = getattr(importlib.import_module(module), name)
    parameters = inspect.signature(cls.__init__).parameters
    return {
        n: p for n, p in parameters.items() if n != "self" and p.kind is not inspect.Parameter.VAR_POSITIONAL
    }


def describe(parameter: inspect.Parameter) -> str:
    """``name: type = default`` as the signature writes it."""
    text = parameter.name
    if parameter.annotation is not inspect.Parameter.empty:
        annotation = parameter.annotation
        text += (
            f": {annotation if isinstance(annotation, str) else getattr(annotation, '__name__', annotation)}"
        )
    if parameter.default is not inspect.Parameter.empty:
        text += f" = {parameter.default!r}"
    return text


def check_env_kwargs(env_id: str, kwargs: Mapping[str, Any]) -> None:
    """Raise ValueError naming an argument ``env_id`` does not accept, with what it does accept."""
    parameters = env_parameters(env_id)
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return
    for key in kwargs:
        if key not in parameters:
            accepted = "; ".join(describe(p) for p in parameters.values())
            raise ValueError(
                f"{env_id} takes no argument {key!r}{did_you_mean(key, parameters)}; it accepts: {accepted}"
            )


def explain_make_error(env_id: str, kwargs: Mapping[str, Any], error: Exception) -> str:
    """A TypeError/ValueError from building ``env_id`` with ``kwargs``, with the expected arguments' types."""
    given = ", ".join(f"{k}={v!r}" for k, v in kwargs.items()) or "no arguments"
    expected = "; ".join(describe(env_parameters(env_id)[k]) for k in kwargs if k in env_parameters(env_id))
    hint = f" (expected: {expected})" if expected else ""
    return f"{env_id} rejected {given}: {error}{hint}"
