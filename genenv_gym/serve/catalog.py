"""Which env ids a server serves, what a client may set on each, how a session's env is built, and how an
env's spaces are described."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import gymnasium as gym
from gymnasium import spaces

from genenv_gym.registry.client_params import ClientParams
from genenv_gym.registry.env_kwargs import env_parameters
from genenv_gym.serve.client_kwargs import merge_kwargs
from genenv_gym.serve.errors import EnvFailed, ServeError, UnknownEnv
from genenv_gym.spaces import UnicodeText
from genenv_gym.suggest import did_you_mean

#: Entry points that are clients of a server, not envs to serve (serving them would proxy a proxy).
CLIENT_ENTRY_PREFIX = "genenv_gym.remote"


def registered_env_ids() -> list[str]:
    """Every registered ``GenEnv-`` id that is an env (not the remote client), in registration order."""
    return [
        env_id
        for env_id, spec in gym.registry.items()
        if env_id.startswith("GenEnv-") and not str(spec.entry_point).startswith(CLIENT_ENTRY_PREFIX)
    ]


class Catalog:
    """The served ids, the operator's kwargs per id (data dirs, backends and the like) and what a client may
    set on each (its ``EnvEntry.client``; ``client_params`` adds or replaces declarations, for ids
    registered outside the manifests)."""

    def __init__(
        self,
        env_ids: Iterable[str] | None = None,
        server_kwargs: Callable[[str], Mapping[str, Any]] | Mapping[str, Any] | None = None,
        client_params: Mapping[str, ClientParams] | None = None,
    ) -> None:
        known = registered_env_ids()
        self.env_ids = list(env_ids) if env_ids is not None else known
        for env_id in self.env_ids:
            if env_id not in known:
                raise ValueError(f"not a servable env id: {env_id!r}{did_you_mean(env_id, known)}")
        self._server_kwargs = server_kwargs or {}
        from genenv_gym.registry.registration import ENV_ENTRIES

        self._client = {e.id: e.client for e in ENV_ENTRIES}
        self._client.update(client_params or {})
        self._spaces: dict[str, dict[str, Any]] = {}

    def only(self, env_ids: Iterable[str]) -> Catalog:
        """This catalog served for ``env_ids`` alone (the same kwargs and declarations)."""
        narrowed = Catalog(env_ids, self._server_kwargs)
        narrowed._client = dict(self._client)
        return narrowed

    def check(self, env_id: str) -> None:
        if env_id not in self.env_ids:
            raise UnknownEnv(f"this server does not serve {env_id!r}{did_you_mean(env_id, self.env_ids)}")

    def server_kwargs(self, env_id: str) -> dict[str, Any]:
        """The kwargs the server passes to ``gymnasium.make(env_id)``; a mapping applies each key to the ids
        that accept it."""
        if callable(self._server_kwargs):
            return dict(self._server_kwargs(env_id))
        accepted = env_parameters(env_id)
        return {k: v for k, v in self._server_kwargs.items() if k in accepted or "kwargs" in accepted}

    def client_params(self, env_id: str) -> ClientParams:
        """What a client may set on ``env_id`` (nothing but the seed when undeclared)."""
        return self._client.get(env_id, ClientParams())

    def make(self, env_id: str, client_kwargs: Mapping[str, Any]) -> gym.Env:
        """The env of one session: the server's kwargs with the client's (checked already:
        serve/client_kwargs.py) over them."""
        try:
            return gym.make(env_id, **merge_kwargs(self.server_kwargs(env_id), client_kwargs))
        except ServeError:
            raise
        except Exception as error:
            raise EnvFailed(f"could not make {env_id}: {type(error).__name__}: {error}") from error

    def remember_spaces(self, env_id: str, described: Mapping[str, Any]) -> dict[str, Any]:
        """The spaces of ``env_id`` as a session's process described them (``describe``), with what a client
        may set, remembered per id (``GET /envs/<id>/spec``)."""
        if env_id not in self._spaces:
            self._spaces[env_id] = {
                "env_id": env_id,
                **described,
                "client_params": self.client_params(env_id).describe(),
            }
        return self._spaces[env_id]

    def known_spaces(self, env_id: str) -> dict[str, Any] | None:
        return self._spaces.get(env_id)


def describe(env: gym.Env) -> dict[str, Any]:
    """An env's spaces and render modes as JSON (what a session's process answers a build with)."""
    return {
        "observation_space": space_to_json(env.observation_space),
        "action_space": space_to_json(env.action_space),
        "metadata": {"render_modes": list(env.metadata.get("render_modes", []))},
    }


def space_to_json(space: spaces.Space) -> dict[str, Any]:
    """A text or discrete space as JSON; raises ValueError for others (they have no wire form here)."""
    if isinstance(space, spaces.Text):
        return {"type": "text", "min_length": space.min_length, "max_length": space.max_length}
    if isinstance(space, spaces.Discrete):
        return {"type": "discrete", "n": int(space.n), "start": int(space.start)}
    raise ValueError(f"no wire form for {space!r}")


def space_from_json(data: Mapping[str, Any]) -> spaces.Space:
    """The space ``space_to_json`` described (text spaces as ``UnicodeText``)."""
    if data.get("type") == "text":
        return UnicodeText(max_length=int(data["max_length"]), min_length=int(data["min_length"]))
    if data.get("type") == "discrete":
        return spaces.Discrete(int(data["n"]), start=int(data["start"]))
    raise ValueError(f"unknown space description {dict(data)!r}")
