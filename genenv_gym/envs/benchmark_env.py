"""The Gymnasium env over a domain's official benchmark tasks; each domain's env subclasses it."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

from genenv_gym.datasets.data_dir import ENV_VAR, MissingDataError, fixtures_instead
from genenv_gym.domain import Domain
from genenv_gym.envs.text_env import TextEnv, task_info
from genenv_gym.task import Task


class BenchmarkEnv(TextEnv):
    """Official benchmark tasks of one domain as a Gymnasium env (see each domain's env for details).

    ``reset(options={"task_id": ...})`` selects a task by its official id and
    ``reset(options={"task": Task})`` plays any task of the domain; otherwise the task is drawn with the
    env's seeded random generator, so ``reset(seed=s)`` reproduces the same sequence of tasks.

    ``tasks``: serve these tasks instead of the domain's official ones; no file is read. With an empty
    list the env plays only the tasks ``reset(options={"task": Task})`` hands it (the trainer's rollouts
    do), and a plain ``reset()`` raises.

    On a fresh install (no ``data_dir`` given, ``$GENENV_DATA_DIR`` unset, nothing in the default data dir)
    the env plays the small fixtures shipped with the package where there are some, as ``genenv eval``
    does, and warns that they are not the benchmark; a chosen data dir without the data raises
    ``MissingDataError``.
    """

    def __init__(
        self,
        domain: Domain,
        categories: Sequence[str] | None = None,
        data_dir: str | None = None,
        render_mode: str | None = None,
        tasks: Sequence[Task] | None = None,
    ) -> None:
        super().__init__(render_mode)
        self.domain = domain
        if tasks is None:
            self.tasks = self._load_official(categories, data_dir)
            if not self.tasks:
                raise ValueError(f"no {domain.name} tasks in categories {categories}")
        elif categories is not None or data_dir is not None:
            raise ValueError("give tasks or categories/data_dir (which select official tasks), not both")
        else:
            self.tasks = list(tasks)
            for task in self.tasks:
                if not isinstance(task, Task):
                    raise ValueError(f"tasks must be {domain.name} Tasks, got a {type(task).__name__}")
                if task.domain != domain.name:
                    raise ValueError(
                        f"tasks must be {domain.name} Tasks, got a {task.domain} one ({task.id})"
                    )
        self._index = {task.id: i for i, task in enumerate(self.tasks)}

    def _load_official(self, categories: Sequence[str] | None, data_dir: str | None) -> list[Task]:
        """The domain's official tasks, or on a fresh install its shipped fixtures (with a warning)."""
        try:
            return self.domain.load_tasks(categories, data_dir)
        except MissingDataError as error:
            fixtures = fixtures_instead(error, data_dir)
            if fixtures is None:
                raise
            benchmark = error.benchmark
            warnings.warn(
                f"no {benchmark} data installed: running on the small fixtures shipped with the package, not "
                f"the benchmark (get the real data with 'genenv data fetch {benchmark}', or point data_dir "
                f"or ${ENV_VAR} at it)",
                stacklevel=4,
            )
            return self.domain.load_tasks(categories, str(fixtures))

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        self.task = self._choose_task(options or {})
        self._runner.close()
        episode = self.domain.start_episode(self.task)
        self._runner.start(episode)
        return episode.observation, task_info(self.task, self.domain)

    def _choose_task(self, options: dict[str, Any]) -> Task:
        if "task" in options:
            task = options["task"]
            if not isinstance(task, Task) or task.domain != self.domain.name:
                raise ValueError(f"options['task'] must be a {self.domain.name} Task")
            return task
        if "task_id" in options:
            task_id = options["task_id"]
            if task_id not in self._index:
                raise KeyError(f"no task with id {task_id!r} in this env ({len(self.tasks)} tasks loaded)")
            return self.tasks[self._index[task_id]]
        if not self.tasks:
            raise RuntimeError(
                "this env was made with tasks=[] and has no tasks to draw: reset(options={'task': task})"
            )
        return self.tasks[int(self.np_random.integers(len(self.tasks)))]

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self._runner.step(action)
        info["task_id"] = self.task.id if self.task else None
        return obs, reward, terminated, truncated, info
