"""What a session's process answers an MCP client (serve/routes_mcp.py): the episode's tools, and a tool
call played as the step it makes (genenv_gym/agents/episode_tools.py: the tools the env holds, a call
written as the action text ``genenv eval`` plays for it)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium as gym

from genenv_gym.agents.episode_tools import mcp_tools, tool_action


def episode_tools(env: gym.Env) -> list[dict[str, Any]]:
    """The tools of the episode ``env`` is playing (MCP's ``tools/list`` entries)."""
    base = env.unwrapped
    return mcp_tools(getattr(base, "domain", None), _task(base), getattr(base, "episode", None))


def call_action(env: gym.Env, name: Any, arguments: Any) -> str:
    """The action text of a call of tool ``name`` in the episode ``env`` is playing; ValueError when the
    episode has no such tool or the arguments are not an object."""
    if not isinstance(name, str) or not isinstance(arguments, Mapping):
        raise ValueError('a tool call is {"name": <string>, "arguments": {...}}')
    base = env.unwrapped
    domain, episode = getattr(base, "domain", None), getattr(base, "episode", None)
    return tool_action(domain, _task(base), name, arguments, episode)


def _task(base: Any) -> Any:
    """The task of the episode in progress (None for an env that has no tasks: it offers ``act``)."""
    if not hasattr(base, "task"):
        return None
    task = base.task
    if task is None:
        raise RuntimeError("call reset first: an episode's tools are its task's")
    return task
