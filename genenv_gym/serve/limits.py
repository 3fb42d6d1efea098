"""The server's limits and policies: sizes, sessions, time, processes, connections and the bearer token."""

from __future__ import annotations

import hmac
import os
from collections.abc import Collection
from dataclasses import dataclass

from genenv_gym.serve.errors import Unauthorized


def _cores() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)


@dataclass(frozen=True)
class ServeLimits:
    """Bounds on what one client can cost the server."""

    #: Sessions (HTTP sessions, WebSocket connections and one-shot stateless requests together); each is
    #: a process.
    max_sessions: int = 128
    #: Sessions one client (an identity: serve/identity.py) may hold at once; with other clients present,
    #: at most its share of ``max_sessions`` (serve/sessions.py).
    max_sessions_per_client: int = 64
    #: Env calls (builds, resets, steps) running at once in the shared pool, each in its session's process;
    #: a client with others present gets its fair share of them (serve/fairness.py). Default: twice the
    #: usable cores (a call holds its worker through its round trip to the session's process, so short
    #: calls leave a core idle part of the time; long ones leave the pool after ``slow_call_s``).
    workers: int = 0
    #: A session with no request for this long is closed and its process ended.
    idle_timeout_s: float = 300.0
    #: A reset or step running longer than this is stopped (its process killed), answered 504 and its
    #: session closed.
    step_timeout_s: float = 60.0
    #: A call still running after this drops its session's process to the lowest CPU priority for good
    #: and leaves the shared pool of workers (still counted against its client's share); 0: never.
    slow_call_s: float = 1.0
    #: Building an env (loading a benchmark) that takes longer is stopped the same way.
    make_timeout_s: float = 300.0
    #: How long a closing session's process may take to close its env before it is killed.
    close_timeout_s: float = 5.0
    #: Data memory (MiB) a session's process may take beyond what it shares with the zygote; past it the
    #: env's allocation fails, the request is answered 422 (MEMORY_LIMIT) and the session closed.
    session_memory_mb: int = 4096
    #: How many steps below the server's own priority sessions' processes run (``nice``): the server's
    #: answering and the clients' turns never wait behind env work. 0: the same priority.
    session_nice: int = 5
    #: Request bodies and WebSocket messages larger than this are refused (413 / close code 1009).
    max_body_bytes: int = 8 * 1024 * 1024
    #: JSON values (containers, strings, numbers, literals) a body or WebSocket message may hold; counted
    #: from its text before it is decoded (serve/http_json.py), more refused 413 (TOO_MANY_VALUES).
    max_json_values: int = 100_000
    #: Actions longer than this are refused (413) before they reach the env; shorter ones too long for the
    #: env are graded by the env (``action_error:too_long``), as in-process.
    max_action_chars: int = 1_000_000
    #: A connection must send a request's headers within this (from its opening, or from the end of its
    #: previous response); else it is closed.
    header_timeout_s: float = 10.0
    #: A request's body must arrive within this after its headers (else 408).
    body_timeout_s: float = 30.0
    #: An idle keep-alive connection (between requests) is closed after this.
    keep_alive_s: float = 30.0
    #: Connections one client address may hold open at once (more are closed at once).
    max_connections_per_client: int = 256

    def __post_init__(self) -> None:
        if self.workers <= 0:
            object.__setattr__(self, "workers", 2 * _cores())


def check_token(expected: str | Collection[str] | None, authorization: str | None) -> None:
    """Raise Unauthorized unless ``authorization`` is ``Bearer <token>`` for the token ``expected`` (or one
    of the tokens; no check when none is set). Every token is compared, each in constant time."""
    if expected is None:
        return
    accepted = [expected] if isinstance(expected, str) else list(expected)
    scheme, _, given = (authorization or "").partition(" ")
    matches = [hmac.compare_digest(given.strip().encode(), token.encode()) for token in accepted]
    if scheme.lower() != "bearer" or not any(matches):
        raise Unauthorized("missing or wrong bearer token (send 'Authorization: Bearer <token>')")


def token_from_env(name: str | None) -> str | None:
    """The bearer token held by environment variable ``name`` (``--token-env``); raises if it is unset."""
    if name is None:
        return None
    token = os.environ.get(name)
    if not token:
        raise ValueError(f"--token-env {name}: the environment variable {name} is unset or empty")
    return token
