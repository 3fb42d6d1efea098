"""``GET /envs/<id>/openapi.json``: the OpenAPI document of one served id, as OpenEnv's validator reads a
single env's server (``openenv validate --url <server>/envs/<id>``): the app's routes under
``/envs/{env_id}``, with that prefix (and its path parameter) taken off, and the package's version."""

from __future__ import annotations

import copy
from typing import Any

from fastapi import APIRouter, Request

from genenv_gym.serve.catalog import Catalog
from genenv_gym.serve.http_json import JSONBody

PREFIX = "/envs/{env_id}"


def openapi_router(catalog: Catalog) -> APIRouter:
    router = APIRouter(default_response_class=JSONBody)

    @router.get("/envs/{env_id}/openapi.json")
    async def env_openapi(env_id: str, request: Request) -> dict[str, Any]:
        catalog.check(env_id)
        return id_openapi(request.app.openapi(), env_id)

    return router


def id_openapi(document: dict[str, Any], env_id: str) -> dict[str, Any]:
    """``document`` (the app's OpenAPI) narrowed to the routes of one env id, as if it were the root."""
    from genenv_gym import __version__

    paths: dict[str, Any] = {}
    for path, operations in document.get("paths", {}).items():
        if not path.startswith(PREFIX + "/") or path == PREFIX + "/openapi.json":
            continue
        operations = copy.deepcopy(operations)
        for operation in operations.values():
            if isinstance(operation, dict) and "parameters" in operation:
                kept = [p for p in operation["parameters"] if p.get("name") != "env_id"]
                if kept:
                    operation["parameters"] = kept
                else:
                    del operation["parameters"]
        paths[path[len(PREFIX) :]] = operations
    return {
        "openapi": document.get("openapi", "3.1.0"),
        "info": {"title": f"{env_id} (genenv serve, OpenEnv contract)", "version": __version__},
        "paths": paths,
        "components": document.get("components", {}),
    }
