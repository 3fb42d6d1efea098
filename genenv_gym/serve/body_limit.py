"""The request body's size and deadline, enforced before the app reads it (ASGI middleware)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from genenv_gym.serve.errors import ServeError, TooLarge


class BodyLimit:
    """ASGI middleware: a request body over ``max_bytes`` is answered 413 before the app reads it, one that
    has not arrived ``timeout_s`` after the headers 408; either closes the connection."""

    def __init__(self, app: Any, max_bytes: int, timeout_s: float) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.timeout_s = timeout_s

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            await _refuse(send, TooLarge(f"request body larger than the limit of {self.max_bytes} bytes"))
            return
        deadline = asyncio.get_running_loop().time() + self.timeout_s
        chunks, size, more = [], 0, True
        while more:
            try:
                message = await asyncio.wait_for(receive(), deadline - asyncio.get_running_loop().time())
            except asyncio.TimeoutError:
                late = f"the request body did not arrive within {self.timeout_s:g} s"
                await _refuse(send, ServeError(late, 408, "REQUEST_TIMEOUT"))
                return
            if message["type"] != "http.request":
                await self.app(scope, _replay([message]), send)
                return
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            more = message.get("more_body", False)
            if size > self.max_bytes:
                await _refuse(send, TooLarge(f"request body larger than the limit of {self.max_bytes} bytes"))
                return
        await self.app(scope, _replay([{"type": "http.request", "body": b"".join(chunks)}], receive), send)


def _replay(messages: list[dict], then: Callable | None = None) -> Callable:
    async def receive() -> dict:
        if messages:
            return messages.pop(0)
        if then is not None:
            return await then()
        return {"type": "http.disconnect"}

    return receive


async def _refuse(send: Callable, error: ServeError) -> None:
    """Answer ``error`` and close the connection (the rest of its body is never read)."""
    body = json.dumps(error.payload()).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
    ]
    await send({"type": "http.response.start", "status": error.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
