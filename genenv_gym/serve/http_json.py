"""JSON in and out of the routes: the response class any string can travel in, a client's JSON decoded
(an HTTP body, a WebSocket message) with its refusals, and who a request is from."""

from __future__ import annotations

import json
from typing import Any

from fastapi import Request, WebSocket
from fastapi.responses import JSONResponse

from genenv_gym.serve.errors import ServeError
from genenv_gym.serve.wire import json_text


class JSONBody(JSONResponse):
    """A JSON response that any string can travel in (``wire.json_text``)."""

    def render(self, content: Any) -> bytes:
        return json_text(content).encode("utf-8")


async def json_body(request: Request, default: Any = None) -> Any:
    """The request's body decoded; ``default`` for an empty one (a 422 when there is none)."""
    body = await request.body()
    if not body.strip():
        if default is None:
            raise ServeError("the request body is empty; it must be a JSON object", 422)
        return default
    return decode_json(body)


def decode_json(raw: str | bytes) -> Any:
    """Client JSON decoded; 400 (INVALID_JSON) for what is not JSON or nests past the parser's depth."""
    try:
        return json.loads(raw)
    except RecursionError:
        raise ServeError("the JSON nests too deeply", 400, "INVALID_JSON") from None
    except (ValueError, UnicodeDecodeError) as error:
        raise ServeError(f"not JSON: {error}", 400, "INVALID_JSON") from None


def client_address(connection: Request | WebSocket) -> str:
    """Who a request is from, for the per-client limits: its address (a trusted proxy's forwarded one)."""
    return connection.client.host if connection.client else "unknown"
