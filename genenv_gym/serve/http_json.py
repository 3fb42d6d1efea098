"""JSON in and out of the routes: the response class any string can travel in, a client's JSON decoded
(an HTTP body, a WebSocket message) with its refusals, and who a request is from.

Decoding costs the event loop time in proportion to the values a text holds, not its bytes (8 MiB of
``[{},{},...]`` is 2.8 million objects: seconds of CPU and a gigabyte). So before ``json.loads`` runs,
``check_json_cost`` bounds the values from the raw text at C speed: every value is the root, the first
item of a container or follows a comma, so ``1 + 2 * (opening brackets) + commas`` bounds them. Where
that rough count (brackets and commas inside strings counted too) passes the limit, the escapes are
taken out, the text between quotes dropped (more strings than ``max_values`` are over the limit on their
own) and the count taken again. Every step is a linear scan in C (``bytes.count``, ``replace``,
``split``), never a regular expression that could backtrack: tens of milliseconds for the largest body.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import Request, WebSocket
from fastapi.responses import JSONResponse

from genenv_gym.serve.errors import ServeError, TooLarge
from genenv_gym.serve.identity import identity_of
from genenv_gym.serve.wire import json_text


class JSONBody(JSONResponse):
    """A JSON response that any string can travel in (``wire.json_text``)."""

    def render(self, content: Any) -> bytes:
        return json_text(content).encode("utf-8")


#: How many JSON values (containers, strings, numbers, literals) a request body or WebSocket message
#: may hold by default (``--max-json-values``): decoding this many takes ~20 ms.
MAX_JSON_VALUES = 100_000


async def json_body(request: Request, default: Any = None) -> Any:
    """The request's body decoded (within the app's ``max_json_values``); ``default`` for an empty one (a
    422 when there is none)."""
    body = await request.body()
    if not body.strip():
        if default is None:
            raise ServeError("the request body is empty; it must be a JSON object", 422)
        return default
    return decode_json(body, getattr(request.app.state, "max_json_values", MAX_JSON_VALUES))


def check_json_cost(raw: str | bytes, max_values: int) -> None:
    """Raise TooLarge (413, TOO_MANY_VALUES) when the JSON text ``raw`` holds more than ``max_values``
    values, before any of it is decoded (see the module docstring)."""
    if _value_bound(raw) <= max_values:
        return
    data = raw if isinstance(raw, bytes) else raw.encode("utf-8", "surrogatepass")
    # escapes out (a backslash pair first, as JSON reads a run of them): every quote left delimits a string
    data = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    if data.count(b'"') // 2 > max_values or _value_bound(b"".join(data.split(b'"')[0::2])) > max_values:
        raise TooLarge(
            f"the JSON holds more than {max_values} values (--max-json-values); send fewer items",
            code="TOO_MANY_VALUES",
        )


def _value_bound(raw: str | bytes) -> int:
    brace, bracket, comma = (b"{", b"[", b",") if isinstance(raw, bytes) else ("{", "[", ",")
    return 1 + 2 * (raw.count(brace) + raw.count(bracket)) + raw.count(comma)  # type: ignore[arg-type]


def decode_json(raw: str | bytes, max_values: int = MAX_JSON_VALUES) -> Any:
    """Client JSON decoded; 413 (TOO_MANY_VALUES) past ``max_values`` values, checked before decoding; 400
    (INVALID_JSON) for what is not JSON or nests past the parser's depth."""
    check_json_cost(raw, max_values)
    try:
        return json.loads(raw)
    except RecursionError:
        raise ServeError("the JSON nests too deeply", 400, "INVALID_JSON") from None
    except (ValueError, UnicodeDecodeError) as error:
        raise ServeError(f"not JSON: {error}", 400, "INVALID_JSON") from None


def client_address(connection: Request | WebSocket) -> str:
    """Who a request is from, for the per-client limits: its identity (serve/identity.py: its per-client
    token's name, else its address's network)."""
    return identity_of(connection)
