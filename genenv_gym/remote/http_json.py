"""One JSON request over HTTP with the standard library (``http.client``), errors raised with the server's
message."""

from __future__ import annotations

import http.client
import json
import socket
from typing import Any
from urllib.parse import urlsplit


class RemoteError(RuntimeError):
    """The server refused a request; ``status`` and ``code`` are its answer (codes: serve/errors.py)."""

    def __init__(self, message: str, status: int = 0, code: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.code = code


def headers(token: str | None) -> dict[str, str]:
    result = {"Content-Type": "application/json"}
    if token:
        result["Authorization"] = f"Bearer {token}"
    return result


class _NoDelay:
    """Sends each request at once (TCP_NODELAY), not after a delayed ACK (~40 ms per request)."""

    def connect(self) -> None:
        super().connect()
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class _HTTPConnection(_NoDelay, http.client.HTTPConnection):
    pass


class _HTTPSConnection(_NoDelay, http.client.HTTPSConnection):
    pass


def connection(url: str, timeout_s: float) -> http.client.HTTPConnection:
    """A keep-alive connection to the server at ``url`` (http:// or https://)."""
    parts = urlsplit(url)
    cls = _HTTPSConnection if parts.scheme == "https" else _HTTPConnection
    return cls(parts.hostname, parts.port, timeout=timeout_s)


def request(
    conn: http.client.HTTPConnection, method: str, path: str, body: Any = None, token: str | None = None
) -> Any:
    """Send one request on ``conn``; the decoded JSON answer, or RemoteError with the server's message.

    A kept-alive connection that the server closed while it was idle (``genenv serve --keep-alive``) is
    opened again and the request sent once more: the server closes only connections with no request in
    progress, so the first one never reached it.
    """
    data = None if body is None else json.dumps(body).encode()
    reused = getattr(conn, "_genenv_used", False)
    try:
        conn.request(method, path, body=data, headers=headers(token))
        response = conn.getresponse()
    except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
        if not reused:
            raise
        conn.close()
        conn.request(method, path, body=data, headers=headers(token))
        response = conn.getresponse()
    conn._genenv_used = True
    raw = response.read()
    try:
        payload = json.loads(raw) if raw else {}
    except ValueError:
        payload = {"detail": raw[:200].decode(errors="replace")}
    if response.status >= 400:
        detail = payload.get("detail", payload) if isinstance(payload, dict) else payload
        code = payload.get("code", "") if isinstance(payload, dict) else ""
        raise RemoteError(f"{method} {path}: {response.status} {detail}", response.status, code)
    return payload


def get_json(url: str, path: str, token: str | None = None, timeout_s: float = 10.0) -> Any:
    """One GET on a fresh connection."""
    conn = connection(url, timeout_s)
    try:
        return request(conn, "GET", urlsplit(url).path.rstrip("/") + path, token=token)
    finally:
        conn.close()
