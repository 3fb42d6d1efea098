"""A session process's handle on a curriculum the server hosts (serve/curricula.py).

A session that joined one builds its env as any other, then makes it propose from and record into the
hosted curriculum (``SimulatorEnv.join_curriculum``) through ``SessionCurriculum``: each call is one ``C``
frame to the server on the session's own socket, answered before the process goes on (serve/frames.py).
What crosses is data: a call names a method and plain values; an answer holds task JSON and numbers. The
server decides what a call may do (serve/curricula.py): the process cannot name another session's
proposals, nor the task a record is about.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Mapping
from typing import Any

from genenv_gym.curriculum_service.protocol import Curriculum, Proposal
from genenv_gym.serve import frames
from genenv_gym.task import Task


class CurriculumRefused(ValueError):
    """The server refused a curriculum call (its message says why)."""


class SessionCurriculum(Curriculum):
    """The server's curriculum as a ``Curriculum``: ``propose`` / ``record`` / ``discard`` / ``state``, each
    answered by the server. Not a ``TrainerCurriculum``: the server answers a session nothing else, since the
    curriculum is shared with other clients' sessions (curriculum_service/protocol.py says why)."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock

    def _call(self, message: dict[str, Any]) -> dict[str, Any]:
        self._sock.sendall(frames.encode_reply(frames.CALL, json.dumps(message).encode("ascii")))
        answer = frames.receive(self._sock)
        if not isinstance(answer, dict):
            raise CurriculumRefused("the server's curriculum answered with something that is not an object")
        if "error" in answer:
            raise CurriculumRefused(f"the server's curriculum refused: {answer['error']}")
        return answer

    def propose(self, n: int = 1, seed: int | None = None) -> list[Proposal]:
        """``n`` proposals (the hosted curriculum draws its own seeds: ``seed`` is not sent)."""
        answer = self._call({"method": "propose", "n": int(n)})
        return [
            Proposal(str(p["proposal_id"]), Task.from_json(p["task"]), int(p["seed"]))
            for p in answer["proposals"]
        ]

    def record(
        self,
        task: Task,
        success: bool,
        *,
        proposal_id: str | None = None,
        group_size: int | None = None,
        validation: bool = False,
        recorder: str = "",
    ) -> dict[str, float] | None:
        """Record one episode of a proposal this session was given (the server knows its task and group
        size; ``task``, ``group_size`` and ``recorder`` are not sent)."""
        if validation:
            raise CurriculumRefused("a session of the server records training episodes only")
        answer = self._call({"method": "record", "proposal_id": proposal_id, "success": bool(success)})
        update = answer.get("update")
        return dict(update) if isinstance(update, Mapping) else None

    def discard(self, proposal_id: str, recorder: str = "") -> bool:
        """Abandon a proposal this session was given (its group, if open, is dropped)."""
        return bool(self._call({"method": "discard", "proposal_id": proposal_id})["discarded"])

    def state(self) -> dict[str, Any]:
        """The hosted curriculum's ``state()``."""
        return dict(self._call({"method": "state"})["state"])


def join_hosted_curriculum(env: Any, sock: socket.socket, joined: Mapping[str, Any]) -> None:
    """Make ``env`` (a simulator id's) propose from and record into the server's curriculum."""
    base = getattr(env, "unwrapped", env)
    if not hasattr(base, "join_curriculum"):
        raise ValueError(
            f"{type(base).__name__} has no curriculum to share: only a simulator id can join one"
        )
    base.join_curriculum(SessionCurriculum(sock), group_size=int(joined["group_size"]))
