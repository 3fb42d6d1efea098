"""The curriculum interface: what every placement of a run's curriculum offers, and what crosses it.

A curriculum is one simulator and one skill tracker that every rollout of a run proposes from and records
into (``service.CurriculumService`` documents the behaviour; this module only declares it). It has three
placements, and each declares the protocol it implements:

- ``service.CurriculumService``, in the caller's process: ``TrainerCurriculum``;
- ``ray_actor.RayCurriculum``, a client of the service as a named Ray actor: ``TrainerCurriculum``;
- ``serve.session_curriculum.SessionCurriculum``, a ``genenv serve`` session's handle on a curriculum the
  server hosts: ``Curriculum`` only.

The split is the server's rule, not a gap to fill: a hosted curriculum is shared by the sessions of clients
that do not trust each other, and the server answers a session's process ``propose``, ``record``,
``discard`` and ``state`` and nothing else (serve/curricula.py). ``checkpoint`` / ``restore`` would let one
client read or overwrite everyone's curriculum, ``log`` would show it the other clients' records,
``end_step`` would take the diagnostics the server writes, ``record_group`` would let it declare a group's
size (the server's, never the session's), and ``propose_at`` serves a trainer's ranks reading one stream.
So a simulator env that joins a curriculum (``SimulatorEnv.join_curriculum``) needs a ``Curriculum``; a
trainer that reads a stream, reports per-step diagnostics and checkpoints with its model (``LiveTasks``
and the TRL and verl integrations) needs a ``TrainerCurriculum``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from genenv_gym.task import Task


@dataclass(frozen=True)
class Proposal:
    """One proposed task: ``proposal_id`` keys its group; ``seed`` is the seed it was drawn with."""

    proposal_id: str
    task: Task
    seed: int


@runtime_checkable
class Curriculum(Protocol):
    """What every placement offers: propose tasks, record finished episodes, abandon a group, report state.

    ``isinstance(x, Curriculum)`` checks only that the methods exist (``typing.runtime_checkable``).
    """

    def propose(self, n: int = 1, seed: int | None = None) -> list[Proposal]:
        """``n`` tasks the simulator proposes now, at the tracker's current estimate, each with a proposal
        id (the key its group is counted by) and the seed it was drawn with. Seeds follow one counter from
        the curriculum's own seed, or are ``seed``, ``seed + 1``, ... when given (a placement shared by
        untrusting clients, the session's, draws its own and ignores ``seed``)."""
        ...

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
        """Record one finished episode of ``task``. The tracker sees it; its group (keyed by
        ``proposal_id``, else the task's id) closes at ``group_size`` records (the curriculum's own size when
        None), across all recorders, and then updates the simulator: the update's statistics are returned
        (None while the group is open). A ``validation`` record is logged and counted apart, and changes
        nothing. ``recorder`` names who recorded it in the log."""
        ...

    def discard(self, proposal_id: str, recorder: str = "") -> bool:
        """Drop the open group of ``proposal_id``, which its player abandoned before it was complete: it
        updates nothing and is counted as dropped. Whether there was one."""
        ...

    def state(self) -> dict[str, Any]:
        """The agent's skill estimate, the proposal and group counts and the simulator's state, as JSON-able
        values (equal states: equal curricula, to everything a caller can observe)."""
        ...


@runtime_checkable
class TrainerCurriculum(Curriculum, Protocol):
    """A ``Curriculum`` that a trainer drives: a proposal stream its ranks share, whole groups recorded at
    once, per-step diagnostics, the arrival log and checkpoints (the in-process service and its Ray actor;
    the module docstring says why a ``genenv serve`` session's handle offers only ``Curriculum``)."""

    def propose_at(self, index: int, seed: int) -> Proposal:
        """The proposal at position ``index`` of a stream that several processes read (TRL's ranks each read
        the whole stream and keep their slice): drawn with ``seed`` when first asked for, the same proposal
        for every later caller."""
        ...

    def record_group(
        self,
        task: Task,
        successes: Sequence[bool],
        *,
        proposal_id: str | None = None,
        validation: bool = False,
        recorder: str = "",
    ) -> dict[str, float] | None:
        """Record a whole group of ``task`` at once (its size is ``len(successes)``), as that many
        ``record`` calls in a row; the update's statistics."""
        ...

    def end_step(self) -> dict[str, float]:
        """The diagnostics of the records since the last call (``curriculum/...`` floats:
        ``diagnostics.StepDiagnostics``), which then start afresh."""
        ...

    def log(self, start: int = 0) -> list[dict[str, Any]]:
        """Every proposal and record from the ``start``-th (its ``seq``) on, in the order it arrived
        (``service.replay`` plays a log into a fresh service, which then holds the same state)."""
        ...

    def checkpoint(self) -> dict[str, Any]:
        """Everything ``restore`` needs to go on as this curriculum would, including where a ``propose_at``
        stream goes on and the positions read ahead of it."""
        ...

    def restore(self, state: Mapping[str, Any]) -> None:
        """Go on from a ``checkpoint`` (the log and the step's diagnostics start afresh)."""
        ...
