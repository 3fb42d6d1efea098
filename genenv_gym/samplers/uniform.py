"""The uniform task sampler: every task at a level drawn uniformly, nothing learned."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from genenv_gym.domain import Domain
from genenv_gym.simulator import Outcome
from genenv_gym.skill import SkillEstimate
from genenv_gym.task import Task


class UniformSampler:
    """Proposes tasks at uniformly drawn levels: the baseline every curriculum must beat."""

    def __init__(self, domain: Domain) -> None:
        self.domain = domain

    def propose(self, n: int, skill: SkillEstimate, rng: np.random.Generator) -> list[Task]:
        """``n`` procedural tasks, each at a level drawn uniformly."""
        levels = rng.integers(self.domain.num_levels, size=n)
        return [self.domain.generate(int(level), rng) for level in levels]

    def update(self, outcomes: Sequence[Outcome]) -> dict[str, float]:
        """Nothing to learn."""
        return {}
