"""The state behind the simulated APIs: a private deep copy of the init databases, and recorded replies."""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any


class ApiException(Exception):
    """An API's own failure: it becomes the ``exception`` field of the API's result."""


def recording_key(api_name: str, inputs: Any) -> str:
    """The key a recorded reply of an internet-backed API is stored under."""
    return api_name + json.dumps(inputs, sort_keys=True, ensure_ascii=False, default=str)


class World:
    """One episode's databases: each table is deep-copied from the init databases on first use.

    Nothing one episode changes reaches another.

    ``recordings`` maps :func:`recording_key` to the ``{"output", "exception"}`` recorded in the dialogues
    for the APIs that need the internet (Dictionary, Translate) or a neural model (ToolSearcher), which
    are replayed offline; it is shared and read-only.
    """

    def __init__(
        self, init_databases: Mapping[str, Any], recordings: Mapping[str, Any] | None = None
    ) -> None:
        self._init = init_databases
        self.db: dict[str, Any] = {}
        self.recordings: Mapping[str, Any] = recordings or {}
        self.verification_code: int | None = None
        self.reset_username: str | None = None

    def fork(self) -> World:
        """An independent copy of this world (same init databases and recordings, copied changes)."""
        twin = World(self._init, self.recordings)
        twin.db = copy.deepcopy(self.db)
        twin.verification_code, twin.reset_username = self.verification_code, self.reset_username
        return twin

    def table(self, name: str) -> Any:
        """The database called ``name``, deep-copied on first use (an empty dict when the data has none)."""
        if name not in self.db:
            self.db[name] = copy.deepcopy(self._init[name]) if name in self._init else {}
        return self.db[name]

    def check_token(self, token: Any) -> str:
        """The username that owns ``token``; raises the official 'invalid token' exception otherwise."""
        accounts = self.table("Account")
        for username in accounts:
            if accounts[username]["token"] == token:
                return username
        raise ApiException("The token is invalid.")


def _jsonable(value: Any) -> Any:
    if isinstance(value, Exception):
        return repr(value)
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def output_json(output: Any) -> str | None:
    """An API's output as JSON text (``info["api_output"]``), None when there is none.

    One type whatever the API returns (a number, a text, a dict, a list), so that vector envs can merge
    the info of their copies; ``json.loads`` gives the value back.
    """
    if output is None:
        return None
    return json.dumps(_jsonable(output), ensure_ascii=False, default=str)
