"""The Gymnasium env over a domain's official benchmark tasks; each domain's env subclasses it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import gymnasium as gym

from genenv_gym.domain import Domain, Episode
from genenv_gym.spaces import UnicodeText
from genenv_gym.task import Task, thaw

#: Longest observation text (characters); BFCL's largest live_multiple prompt is ~60k.
MAX_OBSERVATION_CHARS = 1_000_000
#: Longest action text accepted; longer actions are graded as errors, never parsed.
MAX_ACTION_CHARS = 100_000


def task_info(task: Task) -> dict[str, Any]:
    """What every env's ``reset`` puts in ``info`` about the task."""
    return {
        "task_id": task.id,
        "category": task.category,
        "level": task.level,
        "difficulty": thaw(task.difficulty),
        "provenance": task.provenance,
        "messages": thaw(task.messages),
        "tools": thaw(task.tools),
    }


class EpisodeRunner:
    """Gymnasium bookkeeping around one Episode: refuses ``step`` before ``reset`` or after the end."""

    def __init__(self) -> None:
        self.episode: Episode | None = None

    def start(self, episode: Episode) -> None:
        self.episode = episode

    def step(self, action: Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        if self.episode is None:
            raise RuntimeError("call reset() before step()")
        if self.episode.done:
            raise RuntimeError("the episode has ended: call reset() to start a new one")
        if isinstance(action, str) and len(action) > MAX_ACTION_CHARS:
            result = self.episode.invalid_action(
                "action_error:too_long",
                f"action has {len(action)} characters, more than the limit of {MAX_ACTION_CHARS}",
            )
        else:
            result = self.episode.step(action)
        self.episode.observation = result.observation
        return result.observation, result.reward, result.terminated, result.truncated, result.info


class BenchmarkEnv(gym.Env):
    """Official benchmark tasks of one domain as a Gymnasium env (see each domain's env for details).

    ``reset(options={"task_id": ...})`` selects a task by its official id and
    ``reset(options={"task": Task})`` plays any task of the domain; otherwise the task is drawn with the
    env's seeded random generator, so ``reset(seed=s)`` reproduces the same sequence of tasks.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"]}

    def __init__(
        self,
        domain: Domain,
        categories: Sequence[str] | None = None,
        data_dir: str | None = None,
        render_mode: str | None = None,
    ) -> None:
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.domain = domain
        self.render_mode = render_mode
        self.tasks = domain.load_tasks(categories, data_dir)
        if not self.tasks:
            raise ValueError(f"no {domain.name} tasks in categories {categories}")
        self._index = {task.id: i for i, task in enumerate(self.tasks)}
        self.observation_space = UnicodeText(MAX_OBSERVATION_CHARS)
        self.action_space = UnicodeText(MAX_ACTION_CHARS)
        self.task: Task | None = None
        self._runner = EpisodeRunner()

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        self.task = self._choose_task(options or {})
        episode = self.domain.start_episode(self.task)
        self._runner.start(episode)
        return episode.observation, task_info(self.task)

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
        return self.tasks[int(self.np_random.integers(len(self.tasks)))]

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self._runner.step(action)
        info["task_id"] = self.task.id if self.task else None
        return obs, reward, terminated, truncated, info

    @property
    def episode(self) -> Episode | None:
        """The episode in progress (None before the first reset)."""
        return self._runner.episode

    def render(self) -> str | None:
        if self.render_mode == "ansi":
            return self._runner.episode.observation if self._runner.episode else ""
        return None
