"""OpenEnv 0.10.0's MCP surface per served env id: ``POST /envs/<id>/mcp`` (JSON-RPC 2.0), the WebSocket's
``{"type": "mcp", "data": <JSON-RPC request>}`` message, and WebSockets attached to an MCP session.

A WebSocket step whose action is one of OpenEnv's MCP actions (``{"type": "list_tools"}``, ``{"type":
"call_tool", "tool_name", "arguments"}``) is answered as OpenEnv's tool observations, never played as text.

Methods: ``initialize``, ``ping``, ``tools/list``, ``tools/call`` (MCP) and ``openenv/session/create``,
``openenv/session/close`` (OpenEnv's session methods, which ``MCPToolClient`` calls). Over HTTP a session
is created by ``openenv/session/create`` (``params.env_kwargs`` checked like a session's; the env is built
then) and named in every later call's ``params.session_id``; a WebSocket ``/ws?session_id=<id>`` attaches
to it (one socket at a time, the creating client only) and resets it, since OpenEnv's client resets over
the socket and calls tools over HTTP. Over the WebSocket the session is the socket's own.

``tools/list`` answers the tools of the episode in progress (serve/mcp_tools.py); ``tools/call`` plays the
step the call makes and answers MCP's result, the observation's text as ``content`` and OpenEnv's whole
result (``{"observation", "reward", "done"}``, what ``MCPToolClient.call_tool`` returns) as ``data``, with
the action text that was played. Every answer is HTTP 200 with a JSON-RPC result or error (a ServeError's
message, its code in ``error.data``).
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, Request

from genenv_gym.serve.catalog import Catalog
from genenv_gym.serve.client_kwargs import check_client_kwargs
from genenv_gym.serve.contract import check_json
from genenv_gym.serve.curricula import HostedCurricula
from genenv_gym.serve.errors import EpisodeStateError, ServeError, SessionBusy, UnknownSession
from genenv_gym.serve.http_json import JSONBody, client_address, json_body
from genenv_gym.serve.sessions import Session, SessionManager

#: MCP's protocol version answered to a client that names none.
PROTOCOL_VERSION = "2025-06-18"
INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, SERVER_ERROR = -32600, -32601, -32602, -32000


class McpSessions:
    """MCP's JSON-RPC methods over ``manager``'s sessions, and which sessions have a WebSocket attached."""

    def __init__(self, catalog: Catalog, manager: SessionManager, curricula: HostedCurricula) -> None:
        self.catalog = catalog
        self.manager = manager
        self.curricula = curricula
        self.attached: set[str] = set()
        #: attached sessions whose client asked to close them: closed when their socket detaches
        self.closing: set[str] = set()

    # -- WebSockets attached to a session ------------------------------------------------------------------
    def attach(self, session_id: str, env_id: str, client: str) -> Session:
        """The HTTP session ``session_id`` for a WebSocket of ``client``; ServeError when the socket may not
        have it (unknown, another id's or client's, not an HTTP session, or attached to another socket)."""
        session = self._owned(session_id, env_id, client)
        if session.kind != "http":
            raise UnknownSession(f"session {session_id!r} is not an HTTP session (a socket attaches to one)")
        if session.id in self.attached:
            raise SessionBusy(f"session {session_id!r} already has a WebSocket attached")
        self.attached.add(session.id)
        return session

    async def detach(self, session: Session) -> None:
        """The socket of ``session`` is gone; the session closes now if its client asked to close it."""
        self.attached.discard(session.id)
        if session.id in self.closing:
            self.closing.discard(session.id)
            await self.manager.close(session)

    def _owned(self, session_id: Any, env_id: str, client: str) -> Session:
        if not isinstance(session_id, str):
            raise ServeError("params.session_id must be a string (from openenv/session/create)", 422)
        session = self.manager.get(session_id, env_id)
        if session.client != client:
            raise UnknownSession(f"no open session {session_id!r} for {env_id} (closed or unknown)")
        return session

    # -- JSON-RPC -----------------------------------------------------------------------------------------
    async def answer(self, env_id: str, request: Any, client: str, socket: Session | None = None) -> dict:
        """The JSON-RPC response to ``request`` (``socket``: the WebSocket's session, if it came by one)."""
        if (
            not isinstance(request, dict)
            or request.get("jsonrpc") != "2.0"
            or not isinstance(request.get("method"), str)
        ):
            return _error(None, INVALID_REQUEST, 'a JSON-RPC 2.0 request: {"jsonrpc": "2.0", "method", "id"}')
        request_id = request.get("id")
        params = request.get("params") or {}
        if not isinstance(params, dict):
            return _error(request_id, INVALID_PARAMS, "params must be an object")
        try:
            result = await self._call(env_id, request["method"], params, client, socket)
        except ServeError as error:
            code = INVALID_PARAMS if error.status < 500 else SERVER_ERROR
            return _error(request_id, code, error.message, {"code": error.code, "status": error.status})
        if result is None:
            return _error(request_id, METHOD_NOT_FOUND, f"Method not found: {request['method']}")
        return {"jsonrpc": "2.0", "id": request_id, "result": result}

    async def _call(
        self, env_id: str, method: str, params: dict[str, Any], client: str, socket: Session | None
    ) -> dict[str, Any] | None:
        if method == "initialize":
            return {
                "protocolVersion": params.get("protocolVersion") or PROTOCOL_VERSION,
                "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": {"name": env_id, "version": _version()},
            }
        if method in ("ping", "notifications/initialized"):
            return {}
        if method == "openenv/session/create":
            created = socket.id if socket is not None else await self._create(env_id, params, client)
            return {"session_id": created}
        if method == "openenv/session/close":
            session = self._owned(params.get("session_id"), env_id, client)
            if session is socket:
                raise SessionBusy("a WebSocket's own session closes with the socket: send close")
            if session.id in self.attached:  # closed when its socket ends (OpenEnv closes both at once)
                self.closing.add(session.id)
                return {"session_id": session.id, "closed": False, "closing": True}
            await self.manager.close(session)
            return {"session_id": session.id, "closed": True}
        if method not in ("tools/list", "tools/call"):
            return None
        session = socket if socket is not None else self._owned(params.get("session_id"), env_id, client)
        if session.episode_id is None:
            raise EpisodeStateError("call reset first: an episode's tools are its task's")
        if method == "tools/list":
            return json.loads(await self.manager.call(session, {"op": "tools"}, exclusive=socket is None))
        return await self._tool_call(session, params, exclusive=socket is None)

    async def _create(self, env_id: str, params: dict[str, Any], client: str) -> str:
        self.catalog.check(env_id)
        env_kwargs = params.get("env_kwargs") or {}
        if not isinstance(env_kwargs, dict):
            raise ServeError("params.env_kwargs must be an object", 422)
        check_json(env_kwargs, "env_kwargs")
        chosen = check_client_kwargs(self.catalog, self.curricula, env_id, env_kwargs)
        session = self.manager.open(env_id, "http", client)
        try:
            built = await self.manager.build(session, chosen.env_kwargs, chosen.joined)
        except BaseException:
            await self.manager.close(session)
            raise
        self.catalog.remember_spaces(env_id, built)
        return session.id

    async def step(self, session: Session, action: dict[str, Any]) -> dict[str, Any]:
        """An MCP action sent as a WebSocket step (``is_mcp_action``), answered in the shape OpenEnv's
        ``ListToolsObservation`` / ``CallToolObservation`` serialize to."""
        if session.episode_id is None:
            raise EpisodeStateError("call reset first: an episode's tools are its task's")
        if action["type"] == "list_tools":
            tools = json.loads(await self.manager.call(session, {"op": "tools"}, exclusive=False))["tools"]
            return {"observation": {"tools": tools, "metadata": {}}, "reward": None, "done": False}
        params = {"name": action.get("tool_name"), "arguments": action.get("arguments") or {}}
        data = (await self._tool_call(session, params, exclusive=False))["data"]
        observation = {"tool_name": params["name"], "result": data, "error": None, "metadata": {}}
        return {"observation": observation, "reward": data["reward"], "done": data["done"]}

    async def _tool_call(self, session: Session, params: dict[str, Any], exclusive: bool) -> dict[str, Any]:
        name, arguments = params.get("name"), params.get("arguments") or {}
        if not isinstance(name, str) or not isinstance(arguments, dict):
            raise ServeError('tools/call params are {"name": <string>, "arguments": {...}}', 422)
        check_json(arguments, "arguments")
        message = {"op": "call", "name": name, "arguments": arguments}
        answer = json.loads(await self.manager.call(session, message, exclusive))
        session.step_count += 1
        action = answer.pop("action")
        text = answer["observation"]["text"]
        return {
            "content": [{"type": "text", "text": text}],
            "isError": False,
            "data": answer,
            "action": action,
        }


def is_mcp_action(action: Any) -> bool:
    """Whether a step's action is one of OpenEnv's MCP actions (``{"type": "list_tools"}``, ``{"type":
    "call_tool", "tool_name", "arguments"}``) rather than text."""
    return isinstance(action, dict) and action.get("type") in ("list_tools", "call_tool")


def mcp_router(mcp: McpSessions) -> APIRouter:
    """``POST /envs/<id>/mcp``: JSON-RPC 2.0 over HTTP (always 200, errors as JSON-RPC errors)."""
    router = APIRouter(default_response_class=JSONBody)

    @router.post("/envs/{env_id}/mcp")
    async def mcp_http(env_id: str, request: Request) -> dict[str, Any]:
        mcp.catalog.check(env_id)
        return await mcp.answer(env_id, await json_body(request, default={}), client_address(request))

    return router


def _error(request_id: Any, code: int, message: str, data: dict[str, Any] | None = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


def _version() -> str:
    from genenv_gym import __version__

    return __version__
