"""``GenEnv-Remote-v0``: a Gymnasium env whose episodes are played by a ``genenv serve`` server.

``gymnasium.make("GenEnv-Remote-v0", url="http://host:8000", env_id="GenEnv-BFCL-MultiTurn-v0", **kwargs)``
opens one session (its own env on the server, built with ``kwargs``); ``reset`` and ``step`` return what
the served env returns, with ``info`` in its JSON form (serve/wire.py). ``url`` may list several servers
(a pool): each env goes to the one with the most free sessions, so ``make_vec`` spreads its copies.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, ClassVar

import gymnasium as gym

from genenv_gym.remote.http_json import RemoteError, get_json
from genenv_gym.remote.pool import choose_server, server_urls
from genenv_gym.remote.transports import HTTPTransport, Transport, WebSocketTransport
from genenv_gym.serve.catalog import space_from_json
from genenv_gym.serve.wire import to_json_value
from genenv_gym.suggest import check_choice

TRANSPORTS = ("ws", "http")


class RemoteEnv(gym.Env):
    """A served env id, played over WebSocket (``transport="ws"``, OpenEnv's protocol) or HTTP sessions.

    Args:
        url: a server url, or several (a list or a comma-separated string): the pool.
        env_id: the served id, e.g. ``GenEnv-APIBank-Dialogue-v0``.
        transport: ``"ws"`` (default) or ``"http"``.
        token: the server's bearer token; ``token_env`` names an environment variable holding it.
        timeout_s: how long to wait for the server to answer one reset or step.
        **env_kwargs: the served env's ``gymnasium.make`` kwargs (paths and urls are the server's choice).

    Errors: a step the served env refuses (before reset, after the end) raises RuntimeError, as in-process;
    other refusals raise ``RemoteError`` with the server's message.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": []}

    def __init__(
        self,
        url: str | Sequence[str],
        env_id: str,
        transport: str = "ws",
        token: str | None = None,
        token_env: str | None = None,
        timeout_s: float = 120.0,
        **env_kwargs: Any,
    ) -> None:
        check_choice("transport", transport, TRANSPORTS)
        if token is None and token_env is not None:
            token = os.environ.get(token_env)
        self.env_id = env_id
        self.url = choose_server(server_urls(url), token)
        spec = get_json(self.url, f"/envs/{env_id}/spec", token, timeout_s)
        self.observation_space = space_from_json(spec["observation_space"])
        self.action_space = space_from_json(spec["action_space"])
        kwargs = to_json_value(env_kwargs)
        cls = WebSocketTransport if transport == "ws" else HTTPTransport
        self._transport: Transport | None = cls(self.url, env_id, kwargs, token, timeout_s)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        payload = self._session().reset(seed, None if options is None else to_json_value(options))
        return payload["observation"]["text"], payload["observation"]["info"]

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        try:
            payload = self._session().step(action)
        except RemoteError as error:
            if error.code == "EPISODE_STATE":
                raise RuntimeError(str(error)) from None
            raise
        observation = payload["observation"]
        return (
            observation["text"],
            float(payload["reward"]),
            observation["terminated"],
            observation["truncated"],
            observation["info"],
        )

    def state(self) -> dict[str, Any]:
        """OpenEnv's state of the session: ``episode_id``, ``step_count``, ``env_id``."""
        return self._session().state()

    def _session(self) -> Transport:
        if self._transport is None:
            raise RuntimeError("this remote env is closed")
        return self._transport

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()
            self._transport = None
