"""The two ways a remote env talks to its session: OpenEnv's WebSocket, or our HTTP sessions."""

from __future__ import annotations

import contextlib
import json
from typing import Any, Protocol
from urllib.parse import urlsplit

from genenv_gym.remote.http_json import RemoteError, connection, request


class Transport(Protocol):
    """One session on one server: reset and step answer OpenEnv's observation payload."""

    def reset(self, seed: int | None, options: dict[str, Any] | None) -> dict[str, Any]: ...

    def step(self, action: str) -> dict[str, Any]: ...

    def state(self) -> dict[str, Any]: ...

    def close(self) -> None: ...


class WebSocketTransport:
    """OpenEnv's ``/ws``: the connection is the session; the env kwargs travel with the first reset."""

    def __init__(
        self,
        url: str,
        env_id: str,
        env_kwargs: dict[str, Any],
        token: str | None,
        timeout_s: float,
        max_message_bytes: int = 64 * 1024 * 1024,
    ) -> None:
        from websockets.sync.client import connect

        ws_url = url.replace("https://", "wss://", 1).replace("http://", "ws://", 1)
        self.env_kwargs = env_kwargs
        self.timeout_s = timeout_s
        # entered at once: the connection lives as long as this env, closed by ``close()`` (websockets 17
        # warns about a connection that is never entered)
        self.ws = connect(
            f"{ws_url}/envs/{env_id}/ws",
            additional_headers={"Authorization": f"Bearer {token}"} if token else None,
            open_timeout=timeout_s,
            close_timeout=5,
            max_size=max_message_bytes,
        ).__enter__()

    def _ask(self, message: dict[str, Any]) -> dict[str, Any]:
        self.ws.send(json.dumps(message))
        answer = json.loads(self.ws.recv(timeout=self.timeout_s))
        if answer.get("type") == "error":
            data = answer.get("data", {})
            raise RemoteError(
                f"server error: {data.get('message')} ({data.get('code')})", 0, data.get("code", "")
            )
        return answer["data"]

    def reset(self, seed: int | None, options: dict[str, Any] | None) -> dict[str, Any]:
        data: dict[str, Any] = {"seed": seed, "options": options}
        if self.env_kwargs:
            data["env_kwargs"] = self.env_kwargs
        return self._ask({"type": "reset", "data": data})

    def step(self, action: str) -> dict[str, Any]:
        return self._ask({"type": "step", "data": {"text": action}})

    def state(self) -> dict[str, Any]:
        return self._ask({"type": "state"})

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.ws.send(json.dumps({"type": "close"}))
        self.ws.close()


class HTTPTransport:
    """Our HTTP session extension: ``POST /envs/<id>/sessions``, then reset/step with its ``session_id``."""

    def __init__(
        self, url: str, env_id: str, env_kwargs: dict[str, Any], token: str | None, timeout_s: float
    ) -> None:
        self.token = token
        self.prefix = f"{urlsplit(url).path.rstrip('/')}/envs/{env_id}"
        self.conn = connection(url, timeout_s)
        opened = self._call("POST", "/sessions", {"env_kwargs": env_kwargs})
        self.session_id = opened["session_id"]

    def _call(self, method: str, path: str, body: Any = None) -> Any:
        return request(self.conn, method, self.prefix + path, body, self.token)

    def reset(self, seed: int | None, options: dict[str, Any] | None) -> dict[str, Any]:
        return self._call("POST", "/reset", {"seed": seed, "options": options, "session_id": self.session_id})

    def step(self, action: str) -> dict[str, Any]:
        return self._call("POST", "/step", {"action": {"text": action}, "session_id": self.session_id})

    def state(self) -> dict[str, Any]:
        return self._call("GET", f"/state?session_id={self.session_id}")

    def close(self) -> None:
        with contextlib.suppress(RemoteError, OSError):
            self._call("DELETE", f"/sessions/{self.session_id}")
        self.conn.close()
