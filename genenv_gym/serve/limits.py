"""The server's limits and policies: sizes, sessions, time, the bearer token, and which env kwargs a client
may choose."""

from __future__ import annotations

import hmac
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from genenv_gym.serve.errors import ForbiddenKwargs, Unauthorized

#: Client-chosen env kwargs whose name matches this are refused: paths and URLs are the server's choice
#: (a client must not make the server read its files or call other hosts).
FORBIDDEN_KWARG = re.compile(r"(dir|path|file|url|root|cache|host)s?$", re.IGNORECASE)


@dataclass(frozen=True)
class ServeLimits:
    """Bounds on what one client can cost the server."""

    #: Sessions (HTTP sessions, WebSocket connections and one-shot stateless requests together).
    max_sessions: int = 64
    #: Worker threads running env code, each session pinned to one (see serve/sessions.py: 1 is safe).
    env_threads: int = 1
    #: A session with no request for this long is closed and its env freed.
    idle_timeout_s: float = 300.0
    #: A reset or step running longer than this is answered 504 and its session closed.
    step_timeout_s: float = 60.0
    #: Building an env (loading a benchmark) that takes longer is answered 504.
    make_timeout_s: float = 300.0
    #: Request bodies and WebSocket messages larger than this are refused (413 / close code 1009).
    max_body_bytes: int = 8 * 1024 * 1024
    #: Actions longer than this are refused (413) before they reach the env; shorter ones too long for the
    #: env are graded by the env (``action_error:too_long``), as in-process.
    max_action_chars: int = 1_000_000


def check_token(expected: str | None, authorization: str | None) -> None:
    """Raise Unauthorized unless ``authorization`` is ``Bearer <expected>`` (no check when none is set)."""
    if expected is None:
        return
    scheme, _, given = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), expected.encode()):
        raise Unauthorized("missing or wrong bearer token (send 'Authorization: Bearer <token>')")


def token_from_env(name: str | None) -> str | None:
    """The bearer token held by environment variable ``name`` (``--token-env``); raises if it is unset."""
    if name is None:
        return None
    token = os.environ.get(name)
    if not token:
        raise ValueError(f"--token-env {name}: the environment variable {name} is unset or empty")
    return token


def check_client_kwargs(kwargs: Mapping[str, Any], path: str = "") -> None:
    """Raise ForbiddenKwargs for a client-chosen kwarg naming a path or URL (``FORBIDDEN_KWARG``)."""
    for key, value in kwargs.items():
        name = f"{path}{key}"
        if FORBIDDEN_KWARG.search(str(key)):
            raise ForbiddenKwargs(
                f"env kwarg {name!r} is the server's choice (paths and URLs are set where the server "
                "starts: GENENV_DATA_DIR, --env-kwargs)"
            )
        if isinstance(value, Mapping):
            check_client_kwargs(value, f"{name}.")


def merge_kwargs(server: Mapping[str, Any], client: Mapping[str, Any]) -> dict[str, Any]:
    """The client's env kwargs over the server's; nested mappings (``domain_kwargs``) merge one level."""
    merged = dict(server)
    for key, value in client.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = {**merged[key], **value}
        else:
            merged[key] = value
    return merged
