"""JSON over HTTP with retries, backoff and timeouts (stdlib only), shared by the server backends."""

from __future__ import annotations

import json
import random
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from genenv_gym.agents.backends.base import BackendError

#: Statuses worth retrying: timeouts, conflicts, rate limits, server errors.
RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
#: Statuses that say the configuration is wrong (key, permissions, URL or model): never retried, raised.
FATAL_STATUSES = frozenset({401, 403, 404})
#: The largest response body read (a guard against a misbehaving server).
MAX_RESPONSE_BYTES = 64 * 1024 * 1024
#: Hosts reached directly, never through an HTTP proxy from the environment.
LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1", "0.0.0.0"})
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _open(request: urllib.request.Request, timeout: float) -> Any:
    """``urlopen``, bypassing any configured proxy for this machine's own servers."""
    host = urllib.parse.urlparse(request.full_url).hostname or ""
    if host in LOCAL_HOSTS:
        return _DIRECT.open(request, timeout=timeout)
    return urllib.request.urlopen(request, timeout=timeout)


class RequestFailed(Exception):
    """One request failed after its retries (or with a status that a retry would not fix)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class RetryPolicy:
    """``retries`` further attempts after the first, waiting ``backoff * 2**k`` (capped, jittered)."""

    retries: int = 4
    backoff: float = 0.5
    max_backoff: float = 20.0
    timeout: float = 120.0

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        if retry_after is not None:
            return min(retry_after, self.max_backoff)
        base = min(self.backoff * (2**attempt), self.max_backoff)
        return base * (0.5 + random.random() / 2)


def post_json(
    url: str,
    payload: Mapping[str, Any],
    headers: Mapping[str, str] | None = None,
    policy: RetryPolicy | None = None,
) -> Any:
    """POST ``payload`` as JSON and return the decoded JSON response.

    Retries connection errors, timeouts and ``RETRY_STATUSES`` with exponential backoff (honouring a
    ``Retry-After`` header). Raises ``BackendError`` for ``FATAL_STATUSES`` (the same request can never
    succeed: wrong key, model or URL) and ``RequestFailed`` when a request fails for good.
    """
    policy = policy or RetryPolicy()
    body = json.dumps(payload).encode("utf-8")
    all_headers = {"Content-Type": "application/json", "Accept": "application/json", **(headers or {})}
    last = "no attempt made"
    for attempt in range(policy.retries + 1):
        request = urllib.request.Request(url, data=body, headers=all_headers, method="POST")
        retry_after: float | None = None
        try:
            with _open(request, policy.timeout) as response:
                raw = response.read(MAX_RESPONSE_BYTES + 1)
            if len(raw) > MAX_RESPONSE_BYTES:
                raise RequestFailed(f"POST {url}: response larger than {MAX_RESPONSE_BYTES} bytes")
            try:
                return json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                raise RequestFailed(f"POST {url}: response is not JSON ({exc}): {raw[:200]!r}") from exc
        except urllib.error.HTTPError as exc:
            detail = _error_body(exc)
            if exc.code in FATAL_STATUSES:
                hint = " (check the API key environment variable)" if exc.code in (401, 403) else ""
                raise BackendError(f"POST {url}: HTTP {exc.code} {exc.reason}{hint}: {detail}") from exc
            last = f"POST {url}: HTTP {exc.code} {exc.reason}: {detail}"
            if exc.code not in RETRY_STATUSES:
                raise RequestFailed(last, exc.code) from exc
            retry_after = _retry_after(exc.headers.get("Retry-After") if exc.headers else None)
        except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
            reason = getattr(exc, "reason", exc)
            last = f"POST {url}: {type(exc).__name__}: {reason} (timeout {policy.timeout}s)"
        if attempt < policy.retries:
            time.sleep(policy.delay(attempt, retry_after))
    raise RequestFailed(f"{last} [gave up after {policy.retries + 1} attempts]")


def _error_body(exc: urllib.error.HTTPError) -> str:
    try:
        text = exc.read(2000).decode("utf-8", "replace")
    except Exception:  # the body is only a hint in the message
        return ""
    try:
        data = json.loads(text)
        if isinstance(data, dict) and isinstance(data.get("error"), dict):
            return str(data["error"].get("message", text))[:500]
    except json.JSONDecodeError:
        pass
    return text[:500]


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


def get_json(url: str, headers: Mapping[str, str] | None = None, timeout: float = 30.0) -> Any:
    """GET ``url`` and decode its JSON body; raises ``RequestFailed`` on any failure (no retries)."""
    request = urllib.request.Request(url, headers={"Accept": "application/json", **(headers or {})})
    try:
        with _open(request, timeout) as response:
            return json.loads(response.read(MAX_RESPONSE_BYTES).decode("utf-8"))
    except urllib.error.HTTPError as exc:
        raise RequestFailed(f"GET {url}: HTTP {exc.code} {exc.reason}: {_error_body(exc)}", exc.code) from exc
    except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
        raise RequestFailed(f"GET {url}: {type(exc).__name__}: {getattr(exc, 'reason', exc)}") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RequestFailed(f"GET {url}: response is not JSON: {exc}") from exc
