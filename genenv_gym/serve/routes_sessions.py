"""Our session extension, for multi-turn play over plain HTTP (not part of OpenEnv).

``POST /envs/<id>/sessions`` (body ``{"env_kwargs": {...}}``, or empty) builds the session's env and
returns its ``session_id`` and spaces; ``reset``, ``step`` and ``state`` with that ``session_id``
(serve/routes_openenv.py) play it; ``DELETE /envs/<id>/sessions/<session id>`` closes it. A session joins
a hosted curriculum with ``env_kwargs={"shared_curriculum": NAME}`` (serve/curricula.py).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from genenv_gym.serve.catalog import Catalog
from genenv_gym.serve.client_kwargs import check_client_kwargs
from genenv_gym.serve.contract import parse_session
from genenv_gym.serve.curricula import HostedCurricula
from genenv_gym.serve.http_json import JSONBody, client_address, json_body
from genenv_gym.serve.sessions import SessionManager


def sessions_router(catalog: Catalog, manager: SessionManager, curricula: HostedCurricula) -> APIRouter:
    """The routes that open and close HTTP sessions in ``manager``."""
    router = APIRouter(default_response_class=JSONBody)

    @router.post("/envs/{env_id}/sessions", status_code=201)
    async def open_session(env_id: str, request: Request) -> dict[str, Any]:
        catalog.check(env_id)
        requested = parse_session(await json_body(request, default={}))
        chosen = check_client_kwargs(catalog, curricula, env_id, requested)
        session = manager.open(env_id, "http", client_address(request))
        try:
            built = await manager.build(session, chosen.env_kwargs, chosen.joined)
            spaces = catalog.remember_spaces(env_id, built)
        except BaseException:
            await manager.close(session)
            raise
        return {"session_id": session.id, **spaces}

    @router.delete("/envs/{env_id}/sessions/{session_id}")
    async def close_session(env_id: str, session_id: str) -> dict[str, Any]:
        catalog.check(env_id)
        await manager.close(manager.get(session_id, env_id))
        return {"session_id": session_id, "closed": True}

    return router
