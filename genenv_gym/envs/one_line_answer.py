"""What the procedural one-line-answer domains (Digits, padded addition) share: a held-out set generated
from a fixed seed, one category per level, the prompt as the observation, and an exact, whitespace-normalised
match of the one-line reference answer as the verdict."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence

import numpy as np

from genenv_gym.domain import Domain, Verdict
from genenv_gym.task import Task


class OneLineAnswerDomain(Domain):
    """A procedural domain whose task is one user turn and whose answer is one line compared exactly.

    Subclasses set ``task_id_prefix`` (the ids' first word), ``heldout_seed``, ``heldout_per_level`` and
    ``wrong_answer_error`` (what a wrong answer's error says: never the answer, since a Sim env serves the
    same task several times), and implement ``heldout_levels``, ``generate``, ``validate`` and
    ``random_action``.
    """

    task_id_prefix: str = ""
    heldout_seed: int = 0
    heldout_per_level: int = 0
    wrong_answer_error: str = "not the answer"

    @abstractmethod
    def heldout_levels(self) -> tuple[int, ...]:
        """The levels the held-out set holds, in the order they are generated."""

    def categories(self) -> tuple[str, ...]:
        return tuple(f"level_{level}" for level in range(self.num_levels))

    def load_tasks(self, categories: Sequence[str] | None = None, data_dir: str | None = None) -> list[Task]:
        """The held-out set: ``heldout_per_level`` tasks per held-out level, from a fixed seed."""
        rng = np.random.default_rng(self.heldout_seed)
        tasks = []
        for level in self.heldout_levels():
            for i in range(self.heldout_per_level):
                task_id = f"{self.task_id_prefix}-heldout-{level}-{i}"
                task = self.generate(level, rng, task_id=task_id, provenance="benchmark:heldout")
                if categories is None or task.category in categories:
                    tasks.append(task)
        return tasks

    def procedural_id(self, level: int, rng: np.random.Generator) -> str:
        """A generated task's id: the prefix, the level and 62 random bits."""
        return f"{self.task_id_prefix}-{level}-{int(rng.integers(1 << 62)):x}"

    def render(self, task: Task) -> str:
        return str(task.messages[0]["content"])

    def verify(self, task: Task, action: str) -> Verdict:
        if not isinstance(action, str):
            error = f"action must be a str, got {type(action).__name__}"
            return Verdict(reward=0.0, success=False, error_type="action_error:not_text", error=error)
        if " ".join(action.split()) == str(task.evaluation["answer"]):
            return Verdict(reward=1.0, success=True)
        return Verdict(reward=0.0, success=False, error_type="wrong_answer", error=self.wrong_answer_error)

    def oracle_action(self, task: Task) -> str:
        return str(task.evaluation["answer"])
