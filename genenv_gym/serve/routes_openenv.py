"""OpenEnv's routes per served env id (``openenv`` 0.10.0), with the ids and descriptions we add.

- ``WS   /envs/<id>/ws``: one session per connection (its own env); messages ``reset`` / ``step`` /
  ``state`` / ``close`` answered with ``observation`` / ``state`` / ``error``, as ``EnvClient`` speaks,
  and ``mcp`` (a JSON-RPC request, answered ``{"type": "mcp", "data": <response>}``: serve/routes_mcp.py).
  ``/ws?session_id=<id>`` attaches to an MCP client's HTTP session instead (refused with an error unless
  the socket may have it). When the server closes the session (idle, a step past its time limit), the
  next message is answered with why (``SESSION_CLOSED``) before the socket closes.
- ``POST /envs/<id>/reset``, ``POST /envs/<id>/step``, ``GET /envs/<id>/state``: OpenEnv's stateless HTTP
  (each reset builds a fresh env and closes it; a step without a session has no episode and is refused),
  or, with a ``session_id`` (serve/routes_sessions.py), that session's env.
- ``GET /envs/<id>/schema``, ``/health``, ``/metadata``.
- Ours: ``GET /health`` (with the session counts), ``GET /envs`` (the ids), ``GET /envs/<id>/spec`` (the
  spaces, what a client may set and the curricula it may join).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
from typing import Any

from fastapi import APIRouter, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import Response

from genenv_gym.serve.catalog import Catalog
from genenv_gym.serve.client_kwargs import check_client_kwargs
from genenv_gym.serve.contract import ResetRequest, parse_action, parse_reset, parse_step, schemas
from genenv_gym.serve.curricula import HostedCurricula
from genenv_gym.serve.errors import EpisodeStateError, ServeError, TooLarge
from genenv_gym.serve.http_json import JSONBody, client_address, decode_json, json_body
from genenv_gym.serve.limits import ServeLimits, check_token
from genenv_gym.serve.routes_mcp import McpSessions, is_mcp_action
from genenv_gym.serve.sessions import Session, SessionManager
from genenv_gym.serve.wire import json_text


def openenv_router(
    catalog: Catalog,
    manager: SessionManager,
    curricula: HostedCurricula,
    limits: ServeLimits,
    token: str | tuple[str, ...] | None,
    mcp: McpSessions,
) -> APIRouter:
    """OpenEnv's routes (and ``/health``, ``/envs``, ``/envs/<id>/spec``) over ``manager``'s sessions;
    ``token`` is the bearer token the WebSocket checks (HTTP requests meet the app's middleware)."""
    router = APIRouter(default_response_class=JSONBody)

    @router.get("/health")
    async def health() -> dict[str, Any]:
        return {
            "status": "healthy",
            "active_sessions": len(manager.sessions),
            "max_sessions": limits.max_sessions,
            "max_sessions_per_client": limits.max_sessions_per_client,
            "workers": limits.workers,
            "env_ids": len(catalog.env_ids),
        }

    @router.get("/envs")
    async def env_ids() -> dict[str, Any]:
        return {"env_ids": catalog.env_ids}

    @router.get("/envs/{env_id}/health")
    async def env_health(env_id: str) -> dict[str, str]:
        catalog.check(env_id)
        return {"status": "healthy"}

    @router.get("/envs/{env_id}/schema")
    async def env_schema(env_id: str) -> dict[str, Any]:
        catalog.check(env_id)
        return schemas()

    @router.get("/envs/{env_id}/metadata")
    async def env_metadata(env_id: str) -> dict[str, Any]:
        catalog.check(env_id)
        from genenv_gym.registry.registration import ENV_ENTRIES

        description = next((e.description for e in ENV_ENTRIES if e.id == env_id), "")
        return {"name": env_id, "description": description, "version": _version()}

    spec_locks: dict[str, asyncio.Lock] = {}

    @router.get("/envs/{env_id}/spec")
    async def env_spec(env_id: str, request: Request) -> dict[str, Any]:
        catalog.check(env_id)
        async with spec_locks.setdefault(env_id, asyncio.Lock()):  # many clients at once: one env built
            known = catalog.known_spaces(env_id)
            if known is None:
                session = manager.open(env_id, "oneshot", client_address(request))
                try:
                    known = catalog.remember_spaces(env_id, await manager.build(session, {}))
                finally:
                    await manager.close(session)
            return {**known, "shared_curricula": curricula.names_for(env_id)}

    @router.post("/envs/{env_id}/reset")
    async def http_reset(env_id: str, request: Request) -> Response:
        catalog.check(env_id)
        reset = parse_reset(await json_body(request, default={}))
        chosen = check_client_kwargs(
            catalog, curricula, env_id, reset.env_kwargs, reset.options, may_join=False
        )
        reset = dataclasses.replace(reset, env_kwargs=chosen.env_kwargs, options=chosen.options)
        if reset.session_id is None:
            session = manager.open(env_id, "oneshot", client_address(request))
            try:
                catalog.remember_spaces(env_id, await manager.build(session, reset.env_kwargs))
                return await _reset(manager, session, reset)
            finally:
                await manager.close(session)
        session = manager.get(reset.session_id, env_id)
        if reset.env_kwargs:
            raise ServeError("env_kwargs belong to POST /envs/<id>/sessions, not to a session's reset", 422)
        return await _reset(manager, session, reset)

    @router.post("/envs/{env_id}/step")
    async def http_step(env_id: str, request: Request) -> Response:
        catalog.check(env_id)
        action, session_id = parse_step(await json_body(request), limits.max_action_chars)
        if session_id is None:
            raise EpisodeStateError(
                "a step without a session has no episode (OpenEnv's HTTP /step builds a fresh env): "
                "open one with POST /envs/<id>/sessions and send its session_id, or use the WebSocket /ws"
            )
        session = manager.get(session_id, env_id)
        if session.episode_id is None:
            raise EpisodeStateError("call reset before step")
        return await _step(manager, session, action)

    @router.get("/envs/{env_id}/state")
    async def http_state(env_id: str, session_id: str | None = None) -> dict[str, Any]:
        catalog.check(env_id)
        if session_id is None:
            return {"episode_id": None, "step_count": 0, "env_id": env_id}
        return manager.get(session_id, env_id).state()

    @router.websocket("/envs/{env_id}/ws")
    async def websocket_session(websocket: WebSocket, env_id: str) -> None:
        await websocket.accept()
        session: Session | None = None
        attached = websocket.query_params.get("session_id")
        try:
            check_token(token, websocket.headers.get("authorization"))
            catalog.check(env_id)
            if attached is None:
                session = manager.open(env_id, "ws", client_address(websocket))
            else:  # an MCP client's HTTP session (serve/routes_mcp.py); refused unless the socket may have it
                session = mcp.attach(attached, env_id, client_address(websocket))
            await _websocket_loop(websocket, manager, catalog, curricula, session, limits, mcp)
        except ServeError as error:
            with contextlib.suppress(Exception):
                await _send(websocket, _ws_error(error))
        except WebSocketDisconnect:
            pass
        finally:
            if session is not None and attached is not None:
                await mcp.detach(session)
            elif session is not None:
                await manager.close(session)
            with contextlib.suppress(Exception):
                await websocket.close()

    return router


async def _websocket_loop(
    websocket: WebSocket,
    manager: SessionManager,
    catalog: Catalog,
    curricula: HostedCurricula,
    session: Session,
    limits: ServeLimits,
    mcp: McpSessions,
) -> None:
    """Answer one connection's messages in order until it closes, sends ``close`` or idles out."""
    env_kwargs: dict[str, Any] | None = None if session.process is None else {}  # built: an attached session
    while True:
        try:
            message = await asyncio.wait_for(websocket.receive(), limits.idle_timeout_s)
        except asyncio.TimeoutError:
            if not session.closed and time.monotonic() - session.last_used < limits.idle_timeout_s:
                continue  # an attached session kept busy over HTTP (an MCP client's tool calls)
            await manager.close(session)
            reason = f"no message for {limits.idle_timeout_s:g} s (idle timeout)"
            await answer_after_close(websocket, reason, limits.idle_timeout_s, "IDLE_TIMEOUT")
            return
        if message["type"] == "websocket.disconnect":
            return
        raw = message.get("text") if message.get("text") is not None else message.get("bytes") or b""
        try:
            if len(raw) > limits.max_body_bytes:
                raise TooLarge(f"message of {len(raw)} bytes, more than the limit of {limits.max_body_bytes}")
            data = decode_json(raw, limits.max_json_values)
            if not isinstance(data, dict):
                raise ServeError("a message is a JSON object with a 'type'", 422, "VALIDATION_ERROR")
            kind = data.get("type")
            if kind == "close":
                return
            if kind == "state":
                await _send(websocket, {"type": "state", "data": session.state()})
                continue
            if kind == "mcp":
                answer = await mcp.answer(session.env_id, data.get("data"), session.client, session)
                await _send(websocket, {"type": "mcp", "data": answer})
                continue
            if kind == "reset":
                reset = parse_reset(data.get("data", {}))
                requested = reset.env_kwargs
                chosen = check_client_kwargs(catalog, curricula, session.env_id, requested, reset.options)
                reset = dataclasses.replace(reset, env_kwargs=chosen.env_kwargs, options=chosen.options)
                if reset.session_id is not None:
                    raise ServeError("a WebSocket is its own session: send no session_id", 422)
                if env_kwargs is None:
                    built = await manager.build(session, reset.env_kwargs, chosen.joined)
                    catalog.remember_spaces(session.env_id, built)
                    env_kwargs = requested
                elif requested and requested != env_kwargs:
                    raise ServeError("env_kwargs are fixed by the connection's first reset", 422)
                result = await _reset(manager, session, reset, exclusive=False)
            elif kind == "step":
                if session.episode_id is None:
                    raise EpisodeStateError(
                        "call reset before step: this connection's session has no episode yet (a client "
                        "that reconnected after the server closed its session is in a new one)"
                    )
                if is_mcp_action(data.get("data")):  # OpenEnv's ListToolsAction / CallToolAction
                    answer = await mcp.step(session, data["data"])
                    await _send(websocket, {"type": "observation", "data": answer})
                    continue
                action = parse_action(data.get("data"), limits.max_action_chars)
                result = await _step(manager, session, action, exclusive=False)
            else:
                raise ServeError(f"Unknown message type: {kind!r}", 422, "UNKNOWN_TYPE")
            # the session's process made the result's JSON text: passed on as it is
            await websocket.send_text('{"type":"observation","data":' + result.body.decode("utf-8") + "}")
        except ServeError as error:
            await _send(websocket, _ws_error(error))
            if session.closed:  # the server closed it (a step past its time limit, the memory limit)
                await answer_after_close(websocket, error.message, limits.idle_timeout_s)
                return


async def answer_after_close(
    websocket: WebSocket, reason: str, grace_s: float, unasked_code: str | None = None
) -> None:
    """The server closed the socket's session (``reason``): the client's next message, within ``grace_s``,
    is answered with that (``SESSION_CLOSED``), so a client that reconnects on a closed socket (OpenEnv's)
    learns why rather than meeting a fresh session. With no message in time, ``unasked_code`` (if any) is
    sent unasked. The socket then closes."""
    try:
        message = await asyncio.wait_for(websocket.receive(), grace_s)
    except asyncio.TimeoutError:
        message = None
    if message is None:
        code = unasked_code
    else:
        code = "SESSION_CLOSED" if message["type"] == "websocket.receive" else None  # else: disconnected
    if code is not None:
        text = f"the server closed this session: {reason}; reconnect and reset to play on"
        await _send(websocket, {"type": "error", "data": {"message": text, "code": code}})


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


async def _send(websocket: WebSocket, message: dict[str, Any]) -> None:
    await websocket.send_text(json_text(message))


def _ws_error(error: ServeError) -> dict[str, Any]:
    return {"type": "error", "data": {"message": error.message, "code": error.code}}


def _version() -> str:
    from genenv_gym import __version__

    return __version__
