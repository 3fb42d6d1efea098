"""The FastAPI app of ``genenv serve``: OpenEnv's routes for every served env id, under ``/envs/<env id>``,
and ours.

The routes are five routers, built from what they need: serve/routes_openenv.py (OpenEnv's WebSocket,
stateless HTTP and info routes per id, ``GET /health``, ``GET /envs``, ``GET /envs/<id>/spec``),
serve/routes_mcp.py (``POST /envs/<id>/mcp``: MCP's JSON-RPC), serve/routes_openapi.py (``GET
/envs/<id>/openapi.json``),
serve/routes_sessions.py (our HTTP sessions: ``POST /envs/<id>/sessions``, ``DELETE
/envs/<id>/sessions/<session id>``) and serve/routes_curricula.py (``GET /curricula``, ``GET
/curricula/<name>``: the curricula the operator hosts, serve/curricula.py). The app adds what every route
shares: the session manager's life (the zygote forked at start-up, the hosted curricula built after it,
idle sessions reaped, every session closed at shutdown), the body's size and deadline
(serve/body_limit.py), the bearer token, and every refusal answered as JSON ``{"detail", "code"}``.

What a client sends is checked before any env sees it: the body's size and JSON (depth, text UTF-8 can
carry), the request's fields (serve/contract.py), and ``env_kwargs`` and ``options`` against the env id's
allow-list (serve/client_kwargs.py, the one door every route calls). Every env runs in its session's own
process (serve/sessions.py). Every refusal is JSON ``{"detail", "code"}`` on HTTP and ``{"type":
"error"}`` on the WebSocket, whose session goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from genenv_gym.serve.body_limit import BodyLimit
from genenv_gym.serve.catalog import Catalog, describe
from genenv_gym.serve.curricula import CurriculumSpec, HostedCurricula
from genenv_gym.serve.curriculum_influence import InfluencePolicy
from genenv_gym.serve.errors import ServeError
from genenv_gym.serve.http_json import JSONBody
from genenv_gym.serve.identity import ClientIdentity
from genenv_gym.serve.limits import ServeLimits, check_token
from genenv_gym.serve.routes_curricula import curricula_router
from genenv_gym.serve.routes_mcp import McpSessions, mcp_router
from genenv_gym.serve.routes_openapi import openapi_router
from genenv_gym.serve.routes_openenv import openenv_router
from genenv_gym.serve.routes_sessions import sessions_router
from genenv_gym.serve.sessions import SessionManager
from genenv_gym.serve.zygote import Zygote


@dataclass
class ServeConfig:
    """What ``create_app`` serves and under which limits."""

    catalog: Catalog
    limits: ServeLimits = field(default_factory=ServeLimits)
    token: str | None = None
    #: Proxies whose ``X-Forwarded-For`` names the client (comma-separated addresses; None: no proxy is
    #: believed, the client is the connection's peer).
    forwarded_allow_ips: str | None = None
    #: The named curricula the server hosts (serve/curricula.py), and where their files go.
    curricula: tuple[CurriculumSpec, ...] = ()
    curriculum_dir: str | None = None
    curriculum_checkpoint_every: int = 50
    #: Who a request is from (serve/identity.py): per-client tokens (name -> token; each is also accepted
    #: as the bearer token), else the address's network.
    identity: ClientIdentity = field(default_factory=ClientIdentity)
    #: How much one client may move a hosted curriculum (serve/curriculum_influence.py).
    curriculum_policy: InfluencePolicy | None = None

    def accepted_tokens(self) -> tuple[str, ...] | None:
        """Every bearer token the server accepts (None: it asks for none)."""
        tokens = ((self.token,) if self.token else ()) + tuple(self.identity.tokens.values())
        return tokens or None


def create_app(config: ServeConfig) -> FastAPI:
    """The server app for ``config`` (run it with uvicorn; ``genenv serve`` does)."""
    catalog, limits = config.catalog, config.limits
    zygote = Zygote(
        catalog.make, describe, limits.session_memory_mb, limits.session_nice, limits.make_timeout_s
    )
    curricula = hosted_curricula(config)
    manager = SessionManager(zygote, limits, curricula)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        manager.start()
        reaper = None
        try:
            await asyncio.to_thread(curricula.start)  # after the zygote's fork: what it loads stays here
            reaper = asyncio.create_task(manager.reap_forever())
            yield
        finally:
            if reaper is not None:
                reaper.cancel()
            await manager.close_all()
            await asyncio.to_thread(curricula.close)

    app = FastAPI(
        title="genenv-gym environments (OpenEnv contract)", lifespan=lifespan, default_response_class=JSONBody
    )
    app.state.manager = manager
    app.state.curricula = curricula
    app.state.max_json_values = limits.max_json_values
    app.state.identity = config.identity
    app.add_middleware(BodyLimit, max_bytes=limits.max_body_bytes, timeout_s=limits.body_timeout_s)
    _answer_errors_as_json(app)
    _require_token(app, config.accepted_tokens())  # added last: it runs first, before the body is read
    mcp = McpSessions(catalog, manager, curricula)
    app.include_router(openenv_router(catalog, manager, curricula, limits, config.accepted_tokens(), mcp))
    app.include_router(mcp_router(mcp))
    app.include_router(openapi_router(catalog))
    app.include_router(sessions_router(catalog, manager, curricula))
    app.include_router(curricula_router(curricula))
    return app


def hosted_curricula(config: ServeConfig) -> HostedCurricula:
    """The curricula ``config`` declares, checked (each a served simulator id); the app builds them at
    start-up (``HostedCurricula.start``)."""
    for spec in config.curricula:
        config.catalog.check(spec.env_id)
    return HostedCurricula(
        config.curricula,
        config.catalog.server_kwargs,
        config.curriculum_dir,
        config.curriculum_checkpoint_every,
        config.curriculum_policy,
    )


def _answer_errors_as_json(app: FastAPI) -> None:
    """Every refusal as ``{"detail", "code"}``: a ServeError with its status, a request FastAPI could not
    validate 422, anything unexpected 500 (without its message)."""

    @app.exception_handler(ServeError)
    async def serve_error(request: Request, error: ServeError) -> JSONResponse:
        return JSONBody(error.payload(), status_code=error.status)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, error: RequestValidationError) -> JSONResponse:
        return JSONBody(
            {"detail": "the request's fields are not as expected", "code": "VALIDATION_ERROR"}, 422
        )

    @app.exception_handler(Exception)
    async def unexpected(request: Request, error: Exception) -> JSONResponse:
        return JSONBody({"detail": "internal error of the server", "code": "INTERNAL_ERROR"}, status_code=500)


def _require_token(app: FastAPI, token: tuple[str, ...] | None) -> None:
    """Every HTTP request but ``GET /health`` carries ``Authorization: Bearer <token>`` (when one is set);
    the WebSocket checks it itself (serve/routes_openenv.py)."""

    @app.middleware("http")
    async def bearer_token(request: Request, call_next: Callable[[Request], Awaitable[Any]]) -> Any:
        if request.url.path != "/health":
            try:
                check_token(token, request.headers.get("authorization"))
            except ServeError as error:
                return JSONBody(error.payload(), status_code=error.status)
        return await call_next(request)
