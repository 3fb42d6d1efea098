"""The learnability sampler: levels drawn in proportion to ``R_env`` of the agent's running success there.

The curriculum-efficacy benchmark's positive control (docs/training.md, third design). It has no learned
state and no band filter: every epoch it draws each task's level with probability proportional to
``exp(-beta (p_l - alpha)^2)`` (``CurriculumConfig.reward``), where ``p_l`` is the skill tracker's running
success at level ``l`` (a Beta(1, 1)-smoothed rate over decayed counts, 0.5 where nothing was seen yet, so
unseen levels are tried first). If such a sampler cannot beat a uniform one on a task family, no curriculum
that aims at ``p = alpha`` can show an effect there.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from genenv_gym.curriculum import CurriculumConfig
from genenv_gym.domain import Domain
from genenv_gym.simulator import Outcome
from genenv_gym.skill import SkillEstimate
from genenv_gym.task import Task


class LearnabilitySampler:
    """Proposes tasks at levels weighted by ``R_env(p_l)`` of the running per-level success ``p_l``."""

    def __init__(self, domain: Domain, curriculum: CurriculumConfig) -> None:
        self.domain = domain
        self.curriculum = curriculum

    def probs(self, skill: SkillEstimate) -> np.ndarray:
        """The level distribution for an agent of skill ``skill``: ``R_env(p_l)``, normalised."""
        weights = np.array([self.curriculum.reward(float(p)) for p in skill.success], dtype=float)
        return weights / weights.sum()

    def propose(self, n: int, skill: SkillEstimate, rng: np.random.Generator) -> list[Task]:
        """``n`` procedural tasks at levels drawn from ``probs(skill)``."""
        levels = rng.choice(self.domain.num_levels, size=n, p=self.probs(skill))
        return [self.domain.generate(int(level), rng) for level in levels]

    def update(self, outcomes: Sequence[Outcome]) -> dict[str, float]:
        """Nothing to learn: the skill tracker the trainer feeds is the sampler's only state."""
        return {}
