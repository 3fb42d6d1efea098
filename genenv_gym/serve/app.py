"""The FastAPI app: OpenEnv's routes for every served env id, under ``/envs/<env id>``.

OpenEnv (``openenv-core`` 0.3.0) routes, per env id:

- ``WS   /envs/<id>/ws``: one session per connection (its own env); messages ``reset`` / ``step`` /
  ``state`` / ``close`` answered with ``observation`` / ``state`` / ``error``, as ``EnvClient`` speaks.
- ``POST /envs/<id>/reset``, ``POST /envs/<id>/step``, ``GET /envs/<id>/state``: OpenEnv's stateless HTTP
  (each reset builds a fresh env and closes it; a step without a session has no episode and is refused).
- ``GET /envs/<id>/schema``, ``/health``, ``/metadata``.

Our session extension for multi-turn play over plain HTTP (not part of OpenEnv):
``POST /envs/<id>/sessions`` (body ``{"env_kwargs": {...}}``) returns a ``session_id``; ``reset``, ``step``
and ``state`` with that ``session_id`` (in the body, or ``?session_id=`` for ``state``) play that
session's env; ``DELETE /envs/<id>/sessions/<session id>`` closes it. Also ours: ``GET /envs`` (the ids),
``GET /envs/<id>/spec`` (the spaces, what a client may set and the curricula it may join), and ``GET
/health`` with the session counts. Curricula the operator hosts (``--curriculum NAME=ID``,
serve/curricula.py): a session joins one with ``env_kwargs={"shared_curriculum": NAME}``; ``GET
/curricula`` lists them, ``GET /curricula/<name>`` gives one's state and last diagnostics.

What a client sends is checked here before any env sees it: the body's size and JSON (depth, text UTF-8
can carry), the request's fields (serve/contract.py), and ``env_kwargs`` and ``options`` against the env
id's allow-list (genenv_gym/registry/client_params.py). Every env runs in its session's own process
(serve/sessions.py). Every refusal is JSON ``{"detail", "code"}`` on HTTP and ``{"type": "error"}`` on the
WebSocket, whose session goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response

from genenv_gym.serve.catalog import Catalog, describe
from genenv_gym.serve.contract import ResetRequest, check_json, parse_action, parse_reset, parse_step, schemas
from genenv_gym.serve.curricula import JOIN_KEY, CurriculumSpec, HostedCurricula
from genenv_gym.serve.errors import EpisodeStateError, ServeError, TooLarge
from genenv_gym.serve.limits import ServeLimits, check_token
from genenv_gym.serve.sessions import Session, SessionManager
from genenv_gym.serve.wire import json_text
from genenv_gym.serve.zygote import Zygote


class JSONBody(JSONResponse):
    """A JSON response that any string can travel in (``wire.json_text``)."""

    def render(self, content: Any) -> bytes:
        return json_text(content).encode("utf-8")


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
    app.add_middleware(BodyLimit, max_bytes=limits.max_body_bytes, timeout_s=limits.body_timeout_s)

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

    @app.middleware("http")
    async def bearer_token(request: Request, call_next: Callable[[Request], Awaitable[Any]]) -> Any:
        if request.url.path != "/health":
            try:
                check_token(config.token, request.headers.get("authorization"))
            except ServeError as error:
                return JSONBody(error.payload(), status_code=error.status)
        return await call_next(request)

    @app.get("/health")
    async def health() -> dict[str, Any]:
        return {
            "status": "healthy",
            "active_sessions": len(manager.sessions),
            "max_sessions": limits.max_sessions,
            "max_sessions_per_client": limits.max_sessions_per_client,
            "workers": limits.workers,
            "env_ids": len(catalog.env_ids),
        }

    @app.get("/envs")
    async def env_ids() -> dict[str, Any]:
        return {"env_ids": catalog.env_ids}

    @app.get("/curricula")
    async def curricula_list() -> dict[str, Any]:
        return {"curricula": curricula.describe()}

    @app.get("/curricula/{name}")
    async def curriculum_state(name: str) -> dict[str, Any]:
        return await asyncio.to_thread(curricula.state, name)

    @app.get("/envs/{env_id}/health")
    async def env_health(env_id: str) -> dict[str, str]:
        catalog.check(env_id)
        return {"status": "healthy"}

    @app.get("/envs/{env_id}/schema")
    async def env_schema(env_id: str) -> dict[str, Any]:
        catalog.check(env_id)
        return schemas()

    @app.get("/envs/{env_id}/metadata")
    async def env_metadata(env_id: str) -> dict[str, Any]:
        catalog.check(env_id)
        from genenv_gym.registry.registration import ENV_ENTRIES

        description = next((e.description for e in ENV_ENTRIES if e.id == env_id), "")
        return {"name": env_id, "description": description, "version": _version()}

    spec_locks: dict[str, asyncio.Lock] = {}

    @app.get("/envs/{env_id}/spec")
    async def env_spec(env_id: str, request: Request) -> dict[str, Any]:
        catalog.check(env_id)
        async with spec_locks.setdefault(env_id, asyncio.Lock()):  # many clients at once: one env built
            known = catalog.known_spaces(env_id)
            if known is None:
                session = manager.open(env_id, "oneshot", _client(request))
                try:
                    known = catalog.remember_spaces(env_id, await manager.build(session, {}))
                finally:
                    await manager.close(session)
            return {**known, "shared_curricula": curricula.names_for(env_id)}

    @app.post("/envs/{env_id}/sessions", status_code=201)
    async def open_session(env_id: str, request: Request) -> dict[str, Any]:
        catalog.check(env_id)
        body = await _json_body(request, default={})
        if not isinstance(body, dict) or set(body) - {"env_kwargs"}:
            raise ServeError('session body must be {"env_kwargs": {...}} or empty', 422)
        kwargs = body.get("env_kwargs") or {}
        if not isinstance(kwargs, dict):
            raise ServeError("env_kwargs must be an object", 422)
        check_json(kwargs, "env_kwargs")
        kwargs, joined = curricula.take(env_id, kwargs)
        kwargs = catalog.check_client_kwargs(env_id, kwargs)
        session = manager.open(env_id, "http", _client(request))
        try:
            spaces = catalog.remember_spaces(env_id, await manager.build(session, kwargs, joined))
        except BaseException:
            await manager.close(session)
            raise
        return {"session_id": session.id, **spaces}

    @app.delete("/envs/{env_id}/sessions/{session_id}")
    async def close_session(env_id: str, session_id: str) -> dict[str, Any]:
        catalog.check(env_id)
        await manager.close(manager.get(session_id, env_id))
        return {"session_id": session_id, "closed": True}

    @app.post("/envs/{env_id}/reset")
    async def http_reset(env_id: str, request: Request) -> Response:
        catalog.check(env_id)
        reset = parse_reset(await _json_body(request, default={}))
        if JOIN_KEY in reset.env_kwargs:
            raise ServeError(
                f"{JOIN_KEY}: a one-shot reset plays no episode; join a curriculum with POST "
                "/envs/<id>/sessions or on the WebSocket",
                422,
            )
        reset = _checked_reset(catalog, env_id, reset)
        if reset.session_id is None:
            session = manager.open(env_id, "oneshot", _client(request))
            try:
                catalog.remember_spaces(env_id, await manager.build(session, reset.env_kwargs))
                return await _reset(manager, session, reset)
            finally:
                await manager.close(session)
        session = manager.get(reset.session_id, env_id)
        if reset.env_kwargs:
            raise ServeError("env_kwargs belong to POST /envs/<id>/sessions, not to a session's reset", 422)
        return await _reset(manager, session, reset)

    @app.post("/envs/{env_id}/step")
    async def http_step(env_id: str, request: Request) -> Response:
        catalog.check(env_id)
        action, session_id = parse_step(await _json_body(request), limits.max_action_chars)
        if session_id is None:
            raise EpisodeStateError(
                "a step without a session has no episode (OpenEnv's HTTP /step builds a fresh env): "
                "open one with POST /envs/<id>/sessions and send its session_id, or use the WebSocket /ws"
            )
        session = manager.get(session_id, env_id)
        if session.episode_id is None:
            raise EpisodeStateError("call reset before step")
        return await _step(manager, session, action)

    @app.get("/envs/{env_id}/state")
    async def http_state(env_id: str, session_id: str | None = None) -> dict[str, Any]:
        catalog.check(env_id)
        if session_id is None:
            return {"episode_id": None, "step_count": 0, "env_id": env_id}
        return manager.get(session_id, env_id).state()

    @app.websocket("/envs/{env_id}/ws")
    async def websocket_session(websocket: WebSocket, env_id: str) -> None:
        await websocket.accept()
        session: Session | None = None
        try:
            check_token(config.token, websocket.headers.get("authorization"))
            catalog.check(env_id)
            session = manager.open(env_id, "ws", _client(websocket))
            await _websocket_loop(websocket, manager, catalog, curricula, session, limits)
        except ServeError as error:
            with contextlib.suppress(Exception):
                await _send(websocket, _ws_error(error))
        except WebSocketDisconnect:
            pass
        finally:
            if session is not None:
                await manager.close(session)
            with contextlib.suppress(Exception):
                await websocket.close()

    return app


async def _websocket_loop(
    websocket: WebSocket,
    manager: SessionManager,
    catalog: Catalog,
    curricula: HostedCurricula,
    session: Session,
    limits: ServeLimits,
) -> None:
    """Answer one connection's messages in order until it closes, sends ``close`` or idles out."""
    env_kwargs: dict[str, Any] | None = None
    while True:
        try:
            message = await asyncio.wait_for(websocket.receive(), limits.idle_timeout_s)
        except asyncio.TimeoutError:
            await _send(
                websocket,
                {
                    "type": "error",
                    "data": {"message": "idle timeout: session closed", "code": "IDLE_TIMEOUT"},
                },
            )
            return
        if message["type"] == "websocket.disconnect":
            return
        raw = message.get("text") if message.get("text") is not None else message.get("bytes") or b""
        try:
            if len(raw) > limits.max_body_bytes:
                raise TooLarge(f"message of {len(raw)} bytes, more than the limit of {limits.max_body_bytes}")
            data = _decode_json(raw)
            if not isinstance(data, dict):
                raise ServeError("a message is a JSON object with a 'type'", 422, "VALIDATION_ERROR")
            kind = data.get("type")
            if kind == "close":
                return
            if kind == "state":
                await _send(websocket, {"type": "state", "data": session.state()})
                continue
            if kind == "reset":
                reset = parse_reset(data.get("data", {}))
                requested = reset.env_kwargs
                client_kwargs, joined = curricula.take(session.env_id, requested)
                reset = dataclasses.replace(reset, env_kwargs=client_kwargs)
                reset = _checked_reset(catalog, session.env_id, reset)
                if reset.session_id is not None:
                    raise ServeError("a WebSocket is its own session: send no session_id", 422)
                if env_kwargs is None:
                    built = await manager.build(session, reset.env_kwargs, joined)
                    catalog.remember_spaces(session.env_id, built)
                    env_kwargs = requested
                elif requested and requested != env_kwargs:
                    raise ServeError("env_kwargs are fixed by the connection's first reset", 422)
                result = await _reset(manager, session, reset, exclusive=False)
            elif kind == "step":
                if session.episode_id is None:
                    raise EpisodeStateError("call reset before step")
                action = parse_action(data.get("data"), limits.max_action_chars)
                result = await _step(manager, session, action, exclusive=False)
            else:
                raise ServeError(f"Unknown message type: {kind!r}", 422, "UNKNOWN_TYPE")
            # the session's process made the result's JSON text: passed on as it is
            await websocket.send_text('{"type":"observation","data":' + result.body.decode("utf-8") + "}")
        except ServeError as error:
            await _send(websocket, _ws_error(error))
            if session.closed:
                return


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
    )


def _checked_reset(catalog: Catalog, env_id: str, reset: ResetRequest) -> ResetRequest:
    """``reset`` with its ``env_kwargs`` and ``options`` checked against the env id's allow-list."""
    return dataclasses.replace(
        reset,
        env_kwargs=catalog.check_client_kwargs(env_id, reset.env_kwargs),
        options=catalog.check_client_options(env_id, reset.options),
    )


async def _reset(
    manager: SessionManager, session: Session, reset: ResetRequest, exclusive: bool = True
) -> Response:
    """The reset's result, as the JSON text the session's process made (passed on unread)."""
    message = {"op": "reset", "seed": reset.seed, "options": reset.options}
    result = await manager.call(session, message, exclusive)
    manager.start_episode(session)
    if reset.episode_id is not None:
        session.episode_id = reset.episode_id
    return Response(result, media_type="application/json")


async def _step(manager: SessionManager, session: Session, action: str, exclusive: bool = True) -> Response:
    """The step's result, as the JSON text the session's process made (passed on unread)."""
    result = await manager.call(session, {"op": "step", "action": action}, exclusive)
    session.step_count += 1
    return Response(result, media_type="application/json")


async def _json_body(request: Request, default: Any = None) -> Any:
    body = await request.body()
    if not body.strip():
        if default is None:
            raise ServeError("the request body is empty; it must be a JSON object", 422)
        return default
    return _decode_json(body)


def _decode_json(raw: str | bytes) -> Any:
    """Client JSON decoded; 400 (INVALID_JSON) for what is not JSON or nests past the parser's depth."""
    try:
        return json.loads(raw)
    except RecursionError:
        raise ServeError("the JSON nests too deeply", 400, "INVALID_JSON") from None
    except (ValueError, UnicodeDecodeError) as error:
        raise ServeError(f"not JSON: {error}", 400, "INVALID_JSON") from None


def _client(connection: Request | WebSocket) -> str:
    """Who a request is from, for the per-client limits: its address (a trusted proxy's forwarded one)."""
    return connection.client.host if connection.client else "unknown"


async def _send(websocket: WebSocket, message: dict[str, Any]) -> None:
    await websocket.send_text(json_text(message))


def _ws_error(error: ServeError) -> dict[str, Any]:
    return {"type": "error", "data": {"message": error.message, "code": error.code}}


def _version() -> str:
    from genenv_gym import __version__

    return __version__


class BodyLimit:
    """ASGI middleware: a request body over ``max_bytes`` is answered 413 before the app reads it, one that
    has not arrived ``timeout_s`` after the headers 408; either closes the connection."""

    def __init__(self, app: Any, max_bytes: int, timeout_s: float) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.timeout_s = timeout_s

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            await _refuse(send, TooLarge(f"request body larger than the limit of {self.max_bytes} bytes"))
            return
        deadline = asyncio.get_running_loop().time() + self.timeout_s
        chunks, size, more = [], 0, True
        while more:
            try:
                message = await asyncio.wait_for(receive(), deadline - asyncio.get_running_loop().time())
            except asyncio.TimeoutError:
                late = f"the request body did not arrive within {self.timeout_s:g} s"
                await _refuse(send, ServeError(late, 408, "REQUEST_TIMEOUT"))
                return
            if message["type"] != "http.request":
                await self.app(scope, _replay([message]), send)
                return
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            more = message.get("more_body", False)
            if size > self.max_bytes:
                await _refuse(send, TooLarge(f"request body larger than the limit of {self.max_bytes} bytes"))
                return
        await self.app(scope, _replay([{"type": "http.request", "body": b"".join(chunks)}], receive), send)


def _replay(messages: list[dict], then: Callable | None = None) -> Callable:
    async def receive() -> dict:
        if messages:
            return messages.pop(0)
        if then is not None:
            return await then()
        return {"type": "http.disconnect"}

    return receive


async def _refuse(send: Callable, error: ServeError) -> None:
    """Answer ``error`` and close the connection (the rest of its body is never read)."""
    body = json.dumps(error.payload()).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
    ]
    await send({"type": "http.response.start", "status": error.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
