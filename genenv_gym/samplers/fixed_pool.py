"""The fixed-pool sampler: every epoch's tasks drawn from one set that never changes (the ``static`` and
``base-only`` baselines), nothing learned."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from genenv_gym.simulator import Outcome
from genenv_gym.skill import SkillEstimate
from genenv_gym.task import Task


class FixedPoolSampler:
    """Proposes tasks drawn from the set ``tasks()`` returns (read at each call, so a resumed run's set is
    the one its trainer loaded), with replacement only when the set is smaller than the batch."""

    def __init__(self, tasks: Callable[[], Sequence[Task]]) -> None:
        self.tasks = tasks

    def propose(self, n: int, skill: SkillEstimate, rng: np.random.Generator) -> list[Task]:
        """``n`` tasks of the pool."""
        pool = self.tasks()
        return [pool[i] for i in rng.choice(len(pool), size=n, replace=len(pool) < n)]

    def update(self, outcomes: Sequence[Outcome]) -> dict[str, float]:
        """Nothing to learn."""
        return {}
