"""Rank trimming, the task rule of the official GenEnv release ("as released").

The release (github.com/Gen-Verse/GenEnv, ``genenv/trainer/genenv_trainer.py``, config
``configs/genenv_config.yaml``) does not run the paper's alpha-curriculum: after each epoch of GRPO it scores
every prompt of its current training set with ``num_generations_per_prompt`` (4) samples, sorts the prompts
by mean score, drops the ``filtering_k`` (10%) lowest and the 10% highest by rank, and has a frozen
environment LLM write one similar task per remaining prompt; the next epoch trains on the original set plus
these new tasks (the previous epoch's new tasks are replaced). Its ``alpha`` and ``beta`` are read nowhere.

``RankTrimSampler`` is that rule with a procedural domain: the original set is ``pool_tasks`` tasks at
uniformly drawn levels (drawn once), "one similar task" is a fresh task at the same level, and each epoch's
``n`` training tasks are drawn from the current set (without replacement while it has enough). Scoring is
done by ``score(tasks, samples)``, a callable the trainer provides that plays each task ``samples`` times
with the current agent and returns the successes; those samples are not trained on (the trainer reports
them as ``scoring_samples``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from genenv_gym.domain import Domain
from genenv_gym.simulator import Outcome
from genenv_gym.skill import SkillEstimate
from genenv_gym.task import Task

#: ``score(tasks, samples) -> successes per task`` (each out of ``samples``).
Scorer = Callable[[list[Task], int], list[int]]


def trim_by_rank(scores: Sequence[float], fraction: float) -> list[int]:
    """Indices kept after dropping the ``int(len * fraction)`` lowest and highest scores by rank (the
    release's ``_filter_prompts``: a stable sort by score, so among ties the first ones go at the low end and
    the last ones at the high end). Where that count is 0 nothing is dropped; the release's slice
    ``sorted_prompts[-0:]`` would drop every prompt there."""
    cut = int(len(scores) * fraction)
    order = sorted(range(len(scores)), key=lambda i: scores[i])
    dropped = set(order[:cut]) | (set(order[-cut:]) if cut else set())
    return [i for i in range(len(scores)) if i not in dropped]


class RankTrimSampler:
    """The official release's rule (see the module docstring)."""

    def __init__(
        self, domain: Domain, score: Scorer, pool_tasks: int = 64, samples: int = 4, trim: float = 0.1
    ) -> None:
        if pool_tasks < 1 or samples < 1 or not 0.0 <= trim < 0.5:
            raise ValueError("pool_tasks and samples must be >= 1 and trim in [0, 0.5)")
        self.domain = domain
        self.score = score
        self.pool_tasks = pool_tasks
        self.samples = samples
        self.trim = trim
        self.original: list[Task] = []
        self.generated: list[Task] = []
        #: the levels of the prompts the last trim kept: the next ``propose`` writes one task at each.
        self.kept_levels: list[int] = []

    @property
    def current(self) -> list[Task]:
        """The training set: the original tasks and the last epoch's similar tasks."""
        return self.original + self.generated

    def propose(self, n: int, skill: SkillEstimate, rng: np.random.Generator) -> list[Task]:
        """``n`` tasks from the current set. The first call draws the original set; a call after an update
        first writes the similar tasks (one fresh task at the level of each kept prompt)."""
        if not self.original:
            levels = rng.integers(self.domain.num_levels, size=self.pool_tasks)
            self.original = [self.domain.generate(int(level), rng) for level in levels]
        if self.kept_levels:
            self.generated = [self.domain.generate(level, rng) for level in self.kept_levels]
            self.kept_levels = []
        pool = self.current
        picks = rng.choice(len(pool), size=n, replace=len(pool) < n)
        return [pool[i] for i in picks]

    def update(self, outcomes: Sequence[Outcome]) -> dict[str, float]:
        """Score the current set with the agent and trim it by rank; the kept prompts' levels are where the
        next epoch's similar tasks are written."""
        pool = self.current
        if not pool:
            return {}
        successes = self.score(pool, self.samples)
        kept = trim_by_rank([s / self.samples for s in successes], self.trim)
        self.kept_levels = [pool[i].level for i in kept]
        scores = np.array(successes, dtype=float) / self.samples
        return {
            "scored_tasks": float(len(pool)),
            "scoring_samples": float(len(pool) * self.samples),
            "kept": float(len(kept)),
            "scored_mean": float(scores.mean()),
            "scored_mixed_share": float(np.mean((scores > 0) & (scores < 1))),
        }

    def state_dict(self) -> dict[str, Any]:
        return {"original": self.original, "generated": self.generated, "kept_levels": self.kept_levels}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.original, self.generated = list(state["original"]), list(state["generated"])
        self.kept_levels = list(state["kept_levels"])
