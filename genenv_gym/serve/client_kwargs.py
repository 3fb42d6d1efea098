"""The one door a client's env kwargs and reset options pass before any env sees them, and how the
operator's kwargs and the client's merge when a session's env is built.

Every route that takes them (``POST /envs/<id>/sessions``, the one-shot ``POST /envs/<id>/reset``, a
WebSocket's ``reset``) parses the request first (serve/contract.py: objects, JSON depth, text UTF-8 can
carry), then calls ``check_client_kwargs``, which checks, in this order:

1. ``JOIN_KEY``, the hosted curriculum a session joins (serve/curricula.py): taken out of the kwargs (404
   UNKNOWN_CURRICULUM for a name the server does not host for the id), or refused (422) where the request
   plays no episode to join it with;
2. the env kwargs against the id's allow-list (its ``EnvEntry.client``, genenv_gym/registry/client_params.py):
   403 FORBIDDEN_KWARGS for an undeclared key, nested ones included, before any value is looked at; 422
   for a declared key's bad value;
3. the reset options the same way.

The allow-list is the only check: that each key it declares is an argument its id's constructor takes is
checked once for every registered id by tests/serve/test_client_params.py, not on every request.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from genenv_gym.registry.client_params import ParamError
from genenv_gym.serve.errors import ForbiddenKwargs, ServeError

if TYPE_CHECKING:
    from genenv_gym.serve.catalog import Catalog
    from genenv_gym.serve.curricula import HostedCurricula

#: The client kwarg that names the hosted curriculum a session joins (taken out before the env's own
#: kwargs are checked).
JOIN_KEY = "shared_curriculum"


@dataclass(frozen=True)
class ClientKwargs:
    """A client's choices for one env id, checked: the env's kwargs (without ``JOIN_KEY``), the reset
    options, and what the session's process needs to join the named curriculum (None: none named)."""

    env_kwargs: dict[str, Any]
    options: dict[str, Any] | None = None
    joined: dict[str, Any] | None = None


def check_client_kwargs(
    catalog: Catalog,
    curricula: HostedCurricula,
    env_id: str,
    env_kwargs: Mapping[str, Any],
    options: Mapping[str, Any] | None = None,
    *,
    may_join: bool = True,
) -> ClientKwargs:
    """The client's ``env_kwargs`` and reset ``options`` for ``env_id``, checked in the module's order;
    raises the ServeError of the first refused one. ``may_join``: False where a request plays no episode
    (a one-shot reset), so that naming a curriculum is refused."""
    if not may_join and JOIN_KEY in env_kwargs:
        raise ServeError(
            f"{JOIN_KEY}: a one-shot reset plays no episode; join a curriculum with POST "
            "/envs/<id>/sessions or on the WebSocket",
            422,
        )
    kwargs, joined = curricula.take(env_id, env_kwargs)
    allowed = catalog.client_params(env_id)
    try:
        return ClientKwargs(allowed.check_kwargs(kwargs), allowed.check_options(options), joined)
    except ParamError as error:
        if error.forbidden:
            raise ForbiddenKwargs(str(error)) from None
        raise ServeError(str(error), 422) from None


def merge_kwargs(server: Mapping[str, Any], client: Mapping[str, Any]) -> dict[str, Any]:
    """The client's env kwargs over the server's; nested mappings (``domain_kwargs``) merge one level."""
    merged = dict(server)
    for key, value in client.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = {**merged[key], **value}
        else:
            merged[key] = value
    return merged
