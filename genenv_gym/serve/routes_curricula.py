"""The curricula the server hosts (``--curriculum NAME=ID``, serve/curricula.py), as a client sees them:
``GET /curricula`` lists them, ``GET /curricula/<name>`` gives one's state and last diagnostics."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter

from genenv_gym.serve.curricula import HostedCurricula
from genenv_gym.serve.http_json import JSONBody


def curricula_router(curricula: HostedCurricula) -> APIRouter:
    """The read-only routes over ``curricula``."""
    router = APIRouter(default_response_class=JSONBody)

    @router.get("/curricula")
    async def curricula_list() -> dict[str, Any]:
        return {"curricula": curricula.describe()}

    @router.get("/curricula/{name}")
    async def curriculum_state(name: str) -> dict[str, Any]:
        return await asyncio.to_thread(curricula.state, name)

    return router
