"""A pool of server urls: each new remote env goes to the reachable server with the most free sessions."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from genenv_gym.remote.http_json import get_json

_turn = itertools.count()


def server_urls(url: str | Sequence[str]) -> list[str]:
    """``url`` as a list: one url, a comma-separated string, or a sequence of urls."""
    urls = [u.strip() for u in url.split(",")] if isinstance(url, str) else [str(u).strip() for u in url]
    urls = [u.rstrip("/") for u in urls if u]
    if not urls:
        raise ValueError("url: give at least one server url, e.g. http://127.0.0.1:8000")
    return urls


def choose_server(urls: Sequence[str], token: str | None = None, timeout_s: float = 10.0) -> str:
    """The reachable server with the most free sessions (``GET /health``); ties go round-robin."""
    start = next(_turn)
    candidates, errors = [], []
    for offset in range(len(urls)):
        url = urls[(start + offset) % len(urls)]
        try:
            health = get_json(url, "/health", token, timeout_s)
            candidates.append((health["max_sessions"] - health["active_sessions"], -offset, url))
        except Exception as error:
            errors.append(f"{url}: {error}")
    if not candidates:
        raise ConnectionError("no env server reachable: " + "; ".join(errors))
    free, _, url = max(candidates)
    if free <= 0:
        raise ConnectionError(f"every env server is at its session limit ({', '.join(urls)})")
    return url
