"""The errors the server answers with: an HTTP status, a machine-readable code and a message."""

from __future__ import annotations

import re

#: An absolute path in a message (``/home/x/data/file.json``): two or more segments after a slash.
_PATH = re.compile(r"(?<![\w.~-])(?:~|/[\w.@+-]+)(?:/[\w.@+-]+)+/?")
#: How long a message from the env may be (longer ones are cut).
MAX_MESSAGE_CHARS = 2000


def redact_paths(text: str) -> str:
    """``text`` with every absolute path replaced by ``<server path>`` (a client never learns where the
    server keeps its files), cut to ``MAX_MESSAGE_CHARS``."""
    text = _PATH.sub("<server path>", text)
    return text if len(text) <= MAX_MESSAGE_CHARS else text[: MAX_MESSAGE_CHARS - 3] + "..."


class ServeError(Exception):
    """A request the server refuses or could not carry out; ``status`` is its HTTP status."""

    status = 400
    code = "BAD_REQUEST"

    def __init__(self, message: str, status: int | None = None, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status
        if code is not None:
            self.code = code
        elif status == 422:
            self.code = "VALIDATION_ERROR"

    def payload(self) -> dict[str, str]:
        """The JSON body: ``detail`` as in FastAPI's own errors, ``code`` as in OpenEnv's WS errors."""
        return {"detail": self.message, "code": self.code}


class UnknownEnv(ServeError):
    status, code = 404, "UNKNOWN_ENV"


class UnknownSession(ServeError):
    status, code = 404, "UNKNOWN_SESSION"


class SessionBusy(ServeError):
    status, code = 409, "SESSION_BUSY"


class EpisodeStateError(ServeError):
    status, code = 409, "EPISODE_STATE"


class CapacityReached(ServeError):
    status, code = 429, "CAPACITY_REACHED"


class TooLarge(ServeError):
    status, code = 413, "TOO_LARGE"


class Unauthorized(ServeError):
    status, code = 401, "UNAUTHORIZED"


class ForbiddenKwargs(ServeError):
    status, code = 403, "FORBIDDEN_KWARGS"


class StepTimeout(ServeError):
    status, code = 504, "STEP_TIMEOUT"


class MemoryLimit(ServeError):
    """The env outgrew the session's memory limit (``--session-memory-mb``): the session is closed."""

    status, code = 422, "MEMORY_LIMIT"


class WorkerLost(ServeError):
    """The session's process died (the env crashed it): the session is closed."""

    status, code = 500, "ENV_PROCESS_LOST"


class InvalidText(ServeError):
    """Text that UTF-8 cannot carry (a lone surrogate)."""

    status, code = 422, "INVALID_TEXT"


class EnvFailed(ServeError):
    """The env raised (bad options, a kwargs error, ...): the request's fault, answered 422."""

    status, code = 422, "EXECUTION_ERROR"
