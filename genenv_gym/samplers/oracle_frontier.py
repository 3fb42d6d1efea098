"""The oracle-frontier schedule: every task at the lowest level the agent has not yet mastered, read from an
exact measurement of the agent (an oracle no curriculum has; for pilots and upper bounds only)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from genenv_gym.domain import Domain
from genenv_gym.simulator import Outcome
from genenv_gym.skill import SkillEstimate
from genenv_gym.task import Task

#: ``oracle() -> {level: the agent's exact success there}`` (the trainer's held-out gold probability).
Oracle = Callable[[], dict[int, float]]


class OracleFrontierSampler:
    """Proposes every task at one level: ``level`` when it is >= 0 (training on one level alone), else the
    lowest level whose exact success (``oracle()``) is below ``threshold`` (the top level once all pass)."""

    def __init__(self, domain: Domain, oracle: Oracle, threshold: float = 0.8, level: int = -1) -> None:
        if level >= domain.num_levels:
            raise ValueError(f"level must be < {domain.num_levels}, got {level}")
        self.domain = domain
        self.oracle = oracle
        self.threshold = threshold
        self.level = level
        self.frontier = max(level, 0)

    def choose_level(self) -> int:
        """The level this epoch trains on."""
        if self.level >= 0:
            return self.level
        success = self.oracle()
        below = [lv for lv in sorted(success) if success[lv] < self.threshold]
        return below[0] if below else self.domain.num_levels - 1

    def propose(self, n: int, skill: SkillEstimate, rng: np.random.Generator) -> list[Task]:
        self.frontier = self.choose_level()
        return [self.domain.generate(self.frontier, rng) for _ in range(n)]

    def update(self, outcomes: Sequence[Outcome]) -> dict[str, float]:
        """Nothing to learn; reports the level trained on."""
        return {"frontier": float(self.frontier)}
