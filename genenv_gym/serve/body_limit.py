"""The request body's size and deadline, enforced before the app reads it (ASGI middleware)."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from typing import Any

from genenv_gym.serve.errors import ServeError, TooLarge

log = logging.getLogger("genenv_gym.serve")

#: How much of an over-limit body is read and dropped, in multiples of the limit, so that the client (still
#: sending) reads its 413 instead of a reset connection; a larger declared body is answered at once.
DRAIN_FACTOR = 4


class BodyLimit:
    """ASGI middleware: a request body over ``max_bytes`` is answered 413 before the app reads it (its rest,
    up to ``DRAIN_FACTOR`` times the limit, read and dropped first so that the client can read the answer),
    one that has not arrived ``timeout_s`` after the headers 408; either closes the connection. Each
    refusal costs one log line, a client that leaves before its body is in too (and no traceback)."""

    def __init__(self, app: Any, max_bytes: int, timeout_s: float) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.timeout_s = timeout_s

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout_s
        too_large = TooLarge(f"request body larger than the limit of {self.max_bytes} bytes")
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            if declared.isdigit() and int(declared) <= DRAIN_FACTOR * self.max_bytes:
                await _drain(receive, deadline)
            await _refuse(scope, send, too_large)
            return
        chunks, size, more = [], 0, True
        while more:
            try:
                message = await asyncio.wait_for(receive(), deadline - loop.time())
            except asyncio.TimeoutError:
                late = f"the request body did not arrive within {self.timeout_s:g} s"
                await _refuse(scope, send, ServeError(late, 408, "REQUEST_TIMEOUT"))
                return
            if message["type"] == "http.disconnect":  # answered all the same: the middleware above waits
                await _refuse(scope, send, ServeError("the client left before its body was in", 400, "LEFT"))
                return
            if message["type"] != "http.request":
                await self.app(scope, _replay([message]), send)
                return
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            more = message.get("more_body", False)
            if size > self.max_bytes:
                chunks.clear()
                if more:
                    await _drain(receive, deadline, DRAIN_FACTOR * self.max_bytes - size)
                await _refuse(scope, send, too_large)
                return
        await self.app(scope, _replay([{"type": "http.request", "body": b"".join(chunks)}], receive), send)


async def _drain(receive: Callable, deadline: float, budget: float = float("inf")) -> None:
    """Read and drop the rest of a body (until it ends, ``budget`` bytes or the deadline)."""
    loop = asyncio.get_running_loop()
    while budget > 0:
        try:
            message = await asyncio.wait_for(receive(), deadline - loop.time())
        except asyncio.TimeoutError:
            return
        if message["type"] != "http.request" or not message.get("more_body", False):
            return
        budget -= len(message.get("body", b""))


def _replay(messages: list[dict], then: Callable | None = None) -> Callable:
    async def receive() -> dict:
        if messages:
            return messages.pop(0)
        if then is not None:
            return await then()
        return {"type": "http.disconnect"}

    return receive


def _log(scope: dict, what: str) -> None:
    """One line per refused request: who, what, why (never the body or a traceback)."""
    client = scope.get("client") or ("unknown", 0)
    log.warning("%s %s from %s: %s", scope.get("method"), scope.get("path"), client[0], what)


async def _refuse(scope: dict, send: Callable, error: ServeError) -> None:
    """Answer ``error`` and close the connection (the rest of its body is never read)."""
    _log(scope, f"{error.status} {error.code}")
    body = json.dumps(error.payload()).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
    ]
    await send({"type": "http.response.start", "status": error.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
