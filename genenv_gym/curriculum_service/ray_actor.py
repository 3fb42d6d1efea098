"""The curriculum service as a named Ray actor: every rollout worker of a run proposes from and records into
one ``CurriculumService``, wherever Ray placed it.

``shared_curriculum(name, env_id, ...)`` gets the actor of that name, or creates it (Ray's get-if-exists, so
workers racing to create it get one actor). The ``RayCurriculum`` it returns is a
``protocol.TrainerCurriculum``, as the service is; each call is one actor call, and the actor runs one call
at a time, so its log is the order in which the workers' records arrived. With ``checkpoint_path`` the
actor writes each ``checkpoint`` there (a pickle, as verl's own ``data.pt``: point it only at a file the run
itself writes) and a new actor of that name starts from the file (a dead actor's successor loses only what
came after it, and hands out no proposal id twice: see ``service``, "Restarts").

Imports ray (the 'verl' extra installs it).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from genenv_gym.curriculum_service.checkpoint_file import restore_from_file, write_checkpoint
from genenv_gym.curriculum_service.protocol import Proposal, TrainerCurriculum
from genenv_gym.curriculum_service.service import CurriculumService
from genenv_gym.registry.extras import require_extra
from genenv_gym.task import Task

#: The Ray namespace of the curriculum actors: one for every job, so that separate drivers (TRL's ranks, each
#: its own Ray job) find one actor by name (a job's default namespace is its own).
NAMESPACE = "genenv"

#: The service methods a client may call on the actor.
METHODS = frozenset(
    {
        "propose",
        "propose_at",
        "record",
        "record_group",
        "discard",
        "end_step",
        "state",
        "log",
        "checkpoint",
        "restore",
    }
)


class CurriculumHost:
    """What the actor holds: a simulator id's ``CurriculumService`` (and where its checkpoints go)."""

    def __init__(
        self,
        env_id: str,
        env_kwargs: Mapping[str, Any] | None = None,
        service_kwargs: Mapping[str, Any] | None = None,
        checkpoint_path: str | None = None,
    ) -> None:
        self.service = CurriculumService.for_env(env_id, env_kwargs, **dict(service_kwargs or {}))
        self.env_id = env_id
        self.checkpoint_path = checkpoint_path
        if checkpoint_path:
            restore_from_file(self.service, checkpoint_path)

    def call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        if method not in METHODS:
            raise ValueError(f"{method!r} is not a curriculum service method ({sorted(METHODS)})")
        if method == "checkpoint" and self.checkpoint_path:
            return write_checkpoint(self.service, self.checkpoint_path)
        return getattr(self.service, method)(*args, **kwargs)

    def describe(self) -> dict[str, Any]:
        return {"env_id": self.env_id, "group_size": self.service.group_size, "pid": os.getpid()}


class RayCurriculum(TrainerCurriculum):
    """A client of the named actor: ``CurriculumService``'s interface (``TrainerCurriculum``), each method one
    blocking actor call (the protocol's docstrings say what each means)."""

    def __init__(self, handle: Any, name: str) -> None:
        self.handle = handle
        self.name = name

    def _call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        import ray

        return ray.get(self.handle.call.remote(method, *args, **kwargs))

    def propose(self, n: int = 1, seed: int | None = None) -> list[Proposal]:
        return self._call("propose", n, seed)

    def propose_at(self, index: int, seed: int) -> Proposal:
        return self._call("propose_at", index, seed)

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
        return self._call(
            "record",
            task,
            success,
            proposal_id=proposal_id,
            group_size=group_size,
            validation=validation,
            recorder=recorder,
        )

    def record_group(
        self,
        task: Task,
        successes: Sequence[bool],
        *,
        proposal_id: str | None = None,
        validation: bool = False,
        recorder: str = "",
    ) -> dict[str, float] | None:
        return self._call(
            "record_group",
            task,
            list(successes),
            proposal_id=proposal_id,
            validation=validation,
            recorder=recorder,
        )

    def discard(self, proposal_id: str, recorder: str = "") -> bool:
        return self._call("discard", proposal_id, recorder)

    def end_step(self) -> dict[str, float]:
        return self._call("end_step")

    def state(self) -> dict[str, Any]:
        return self._call("state")

    def log(self, start: int = 0) -> list[dict[str, Any]]:
        return self._call("log", start)

    def checkpoint(self) -> dict[str, Any]:
        return self._call("checkpoint")

    def restore(self, state: Mapping[str, Any]) -> None:
        self._call("restore", dict(state))

    def describe(self) -> dict[str, Any]:
        import ray

        return ray.get(self.handle.describe.remote())


def shared_curriculum(
    name: str,
    env_id: str | None = None,
    env_kwargs: Mapping[str, Any] | None = None,
    *,
    group_size: int = 1,
    seed: int = 0,
    max_open_groups: int | None = None,
    checkpoint_path: str | None = None,
    log_path: str | None = None,
    max_restarts: int = 3,
    namespace: str = NAMESPACE,
) -> RayCurriculum:
    """The curriculum actor named ``name``: the running one, else a new one for ``env_id`` (a simulator id).

    Only the creator's arguments count: a caller that finds the actor running gets it as it is. The actor
    lives while a handle to it does (Ray's reference counting; not detached, so a later run on the same
    cluster never finds a stale curriculum): the creator keeps its client for the run. Names live in one
    namespace (``NAMESPACE``) for every job: give each run its own name where runs share a cluster. Without
    ``env_id`` the actor must exist. ``log_path``: the file the actor appends every proposal and record to
    (``CurriculumService``). An actor whose process dies is restarted by Ray (up to ``max_restarts``
    times) from ``checkpoint_path`` (afresh without one), behind the same handles; calls in flight are
    retried once (at least once: a record the dead actor had applied but not answered counts twice).
    Needs a running Ray (``ray.init``), as every verl worker has.
    """
    require_extra("verl", "shared_curriculum", modules=("ray",))
    import ray

    if env_id is None:
        return RayCurriculum(ray.get_actor(name, namespace=namespace), name)
    service_kwargs: dict[str, Any] = {"group_size": group_size, "seed": seed}
    if max_open_groups is not None:
        service_kwargs["max_open_groups"] = max_open_groups
    if log_path is not None:
        service_kwargs["log_path"] = log_path
    actor = ray.remote(num_cpus=0)(CurriculumHost)
    options = {"max_restarts": max_restarts, "max_task_retries": 1 if max_restarts else 0}
    handle = actor.options(name=name, namespace=namespace, get_if_exists=True, **options).remote(
        env_id, dict(env_kwargs or {}), service_kwargs, checkpoint_path
    )
    return RayCurriculum(handle, name)
