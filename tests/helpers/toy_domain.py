"""A minimal Domain for tests of the curriculum machinery: the answer to task ``k`` is ``str(k)``."""

from __future__ import annotations

import numpy as np

from genenv_gym.domain import Domain, Verdict
from genenv_gym.task import Task


class CountingDomain(Domain):
    name = "counting"
    num_levels = 10

    def __init__(self) -> None:
        self.generated = 0

    def categories(self):
        return ("count",)

    def load_tasks(self, categories=None, data_dir=None):
        return [self.generate(level, np.random.default_rng(level)) for level in range(self.num_levels)]

    def render(self, task):
        return task.messages[0]["content"]

    def verify(self, task, action):
        ok = action == task.evaluation["answer"]
        return Verdict(float(ok), ok, None if ok else "wrong_answer", None if ok else "wrong answer")

    def validate(self, task):
        return [] if task.evaluation.get("answer") else ["no answer"]

    def generate(self, level, rng):
        self.generated += 1
        n = int(rng.integers(0, 1000))
        return Task(
            id=f"count_{level}_{n}_{self.generated}",
            domain=self.name,
            messages=[{"role": "user", "content": f"Say {n}."}],
            evaluation={"answer": str(n)},
            difficulty={"level": level},
            category="count",
        )

    def oracle_action(self, task):
        return task.evaluation["answer"]

    def random_action(self, task, rng):
        return "?"
