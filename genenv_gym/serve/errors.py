"""The errors the server answers with: an HTTP status, a machine-readable code and a message."""

from __future__ import annotations


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


class EnvFailed(ServeError):
    """The env raised (bad options, a kwargs error, ...): the request's fault, answered 422."""

    status, code = 422, "EXECUTION_ERROR"
