"""One env id's tasks for a trainer that holds many episodes at once (TRL's GRPO groups, verl's agent loops).

A dataset row pins the task its rollouts play: a benchmark task by ``task_id``, a generated task by its
content (``task``, the Task JSON) and the ``seed`` it was proposed with. For a simulator id
(``GenEnv-Sim-*``) the rows come from the env's live curriculum (``propose_row``: the simulator proposes at
the agent's current skill), and every finished episode is reported back (``record``): the skill tracker
sees each attempt, and once a proposal has been played ``group_size`` times (a GRPO group) the simulator is
updated with the group's outcome, as ``SimulatorEnv`` does after its ``attempts``. Both go through the id's
``curriculum`` (a ``genenv_gym.curriculum_service.TrainerCurriculum``): by default a ``CurriculumService``
of this env's own simulator and tracker, in this process; given a shared one (a named Ray actor), every
process's rows are proposed by, and every process's episodes recorded into, that one curriculum.

Every episode owns its state (``Domain.start_episode``; ALFWorld gives each open episode an engine of its
own), so a trainer may hold any number open and step them in any order. A trainer that runs env work off
its event loop (verl) runs it on ``executor``: one thread per id, so that an id's episodes are never stepped
at the same moment, whatever its domain's thread safety (a simulator's curriculum is one object). Ids run on
their own threads at once: what two ids (or two envs of one id) share is safe to share (ALFWorld's engine,
whose textworld memo and caches are the process's, takes one process lock per call;
``tests/integrations/test_concurrent_families.py`` plays every pair of families at once).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import gymnasium as gym
import numpy as np

from genenv_gym.curriculum_service.protocol import TrainerCurriculum
from genenv_gym.curriculum_service.service import CurriculumService
from genenv_gym.domain import Episode, SingleTurnEpisode
from genenv_gym.export.exporter import is_simulator, rows_for
from genenv_gym.task import Task


def env_kwargs_with(env_id: str, domain_kwargs: Mapping[str, Any] | None) -> dict[str, Any]:
    """The ``gymnasium.make`` arguments of ``env_id`` whose domain takes ``domain_kwargs`` (what
    ``genenv export`` writes in a row: the data folder the tasks were read from): a benchmark env takes them
    itself; a simulator env merges them into its registered ``domain_kwargs``."""
    if not domain_kwargs:
        return {}
    registered = dict(gym.spec(env_id).kwargs)
    if "domain" in registered:  # a simulator env: SimulatorEnv(domain=..., domain_kwargs=...)
        return {"domain_kwargs": {**dict(registered.get("domain_kwargs") or {}), **dict(domain_kwargs)}}
    return dict(domain_kwargs)


class LiveTasks:
    """The tasks of ``env_id`` (made with ``env_kwargs``) and, for a simulator id, its curriculum.

    Args:
        env_id: any registered genenv id.
        group_size: rollouts per task in one group (GRPO's ``num_generations``, verl's ``rollout.n``).
        env_kwargs: ``gymnasium.make`` arguments.
        curriculum: the curriculum a simulator id proposes from and records into (a ``TrainerCurriculum``:
            the trainer reads its stream, end-of-step diagnostics and checkpoints from it, e.g.
            ``ray_actor.shared_curriculum``); None: a ``CurriculumService`` of this env's own simulator and
            tracker.
    """

    def __init__(
        self,
        env_id: str,
        group_size: int = 1,
        env_kwargs: Mapping[str, Any] | None = None,
        curriculum: TrainerCurriculum | None = None,
    ) -> None:
        if group_size < 1:
            raise ValueError(f"group_size must be >= 1, got {group_size}")
        self.env_id = env_id
        self.group_size = group_size
        self.env = gym.make(env_id, **dict(env_kwargs or {}))
        self.base = self.env.unwrapped
        self.domain = self.base.domain
        self.simulated = is_simulator(self.env)
        tasks = getattr(self.base, "tasks", None) or []
        self._by_id: dict[str, Task] = {task.id: task for task in tasks}
        if curriculum is None and self.simulated:
            curriculum = CurriculumService(
                self.base.simulator, self.base.tracker, self.base.curriculum_config, group_size
            )
        #: the simulator id's curriculum (None for a benchmark id)
        self.curriculum: TrainerCurriculum | None = curriculum
        #: the stream position a trainer's stream starts at (a resumed run's next unplayed row)
        self.stream_start = 0
        #: the simulator's update statistics, one per completed group (simulator ids)
        self.updates: list[dict[str, float]] = []
        self._executor: ThreadPoolExecutor | None = None

    @property
    def executor(self) -> ThreadPoolExecutor:
        """The one thread on which a trainer's event loop runs this id's env work (made on first use)."""
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"genenv-{self.env_id}")
        return self._executor

    # -- tasks ---------------------------------------------------------------------------------------------
    @property
    def tasks(self) -> list[Task]:
        """A benchmark env's official tasks (empty for a simulator id)."""
        return list(self._by_id.values())

    def rows(self, limit: int | None = None) -> list[dict[str, Any]]:
        """Dataset rows of a benchmark env's tasks (TRL's export layout; at most ``limit``)."""
        if self.simulated:
            raise ValueError(f"{self.env_id} generates its tasks: use propose_row / row_stream")
        tasks = self.tasks if limit is None else self.tasks[:limit]
        return [self._row(task, row, seed=0) for task, row in zip(tasks, self._layout(tasks), strict=True)]

    def propose_row(self, seed: int) -> dict[str, Any]:
        """A row holding a task the simulator proposes now, at the agent's current skill (simulator ids)."""
        if not self.simulated:
            raise ValueError(f"{self.env_id} serves fixed tasks: use rows()")
        proposal = self.curriculum.propose(1, seed)[0]
        row = self._row(proposal.task, self._layout([proposal.task])[0], seed)
        return {**row, "proposal_id": proposal.proposal_id}

    def row_stream(self, seed: int = 0, start: int = 0) -> Iterator[dict[str, Any]]:
        """Endless rows from the live curriculum from position ``start`` on, each proposed when the trainer
        asks for it. The row at a position is the curriculum's proposal for that position (``propose_at``),
        so processes that read one stream from a shared curriculum (TRL's ranks) read the same rows."""
        index = start
        while True:
            proposal = self.curriculum.propose_at(index, seed + index)
            row = self._row(proposal.task, self._layout([proposal.task])[0], seed + index)
            yield {**row, "proposal_id": proposal.proposal_id}
            index += 1

    def _layout(self, tasks: list[Task]) -> list[dict[str, Any]]:
        return rows_for(tasks, "trl", self.env_id, "train" if self.simulated else "test", domain=self.domain)

    @staticmethod
    def _row(task: Task, row: dict[str, Any], seed: int) -> dict[str, Any]:
        return {**row, "task": task.to_json(), "seed": int(seed)}

    def task_for(self, row: Mapping[str, Any]) -> Task:
        """The task a row pins: its ``task_id`` among the env's official tasks, else its ``task`` content.

        An official task is taken from the env itself, not from the row's JSON: ``Task.to_json`` sorts keys,
        and some prompts show their data in the file's order (BFCL multi-turn's held-out function docs).
        """
        task_id = row.get("task_id")
        if task_id in self._by_id:
            return self._by_id[task_id]
        content = row.get("task")
        if content:
            task = Task.from_json(content) if isinstance(content, str) else Task.from_dict(dict(content))
            if task.domain != self.domain.name:
                raise ValueError(f"the row's task is a {task.domain} task, not one of {self.env_id}")
            return task
        raise KeyError(f"no task with id {task_id!r} in {self.env_id}, and the row holds no task")

    def start(self, task: Task) -> Episode:
        """A fresh episode of ``task`` on the env's domain."""
        return self.domain.start_episode(task)

    def multi_turn(self) -> bool:
        """Whether the env's episodes take more than one action (read from one of its episodes)."""
        # a simulator id's task from this env's own simulator: asking the curriculum would count a proposal
        sample = self.tasks or self.base.simulator.propose(
            1, self.base.tracker.estimate(), np.random.default_rng(0)
        )
        task = sample[0]
        episode = self.start(task)
        episode.close()
        return not isinstance(episode, SingleTurnEpisode)

    # -- curriculum ---------------------------------------------------------------------------------------
    def record(
        self, task: Task, success: bool, proposal_id: str | None = None, validation: bool = False
    ) -> dict[str, float] | None:
        """Report one finished episode (its group is keyed by ``proposal_id``, else the task's id; a
        validation episode is logged and changes nothing); the simulator's update statistics when it
        completes a group."""
        if not self.simulated:
            return None
        stats = self.curriculum.record(
            task, bool(success), proposal_id=proposal_id, group_size=self.group_size, validation=validation
        )
        if stats is not None:
            self.updates.append(dict(stats))
        return stats

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None
        self.env.close()
