"""The learnability samplers: levels drawn in proportion to ``R_env`` of the agent's running success there
(``LearnabilitySampler``), or single tasks replayed in proportion to ``p (1 - p)`` of their own last success
(``TaskLearnabilitySampler``).

The curriculum-efficacy benchmark's positive control (docs/experiments/design3.md). It has no learned
state and no band filter: every epoch it draws each task's level with probability proportional to
``exp(-beta (p_l - alpha)^2)`` (``CurriculumConfig.reward``), where ``p_l`` is the skill tracker's running
success at level ``l`` (a Beta(1, 1)-smoothed rate over decayed counts, 0.5 where nothing was seen yet, so
unseen levels are tried first). If such a sampler cannot beat a uniform one on a task family, no curriculum
that aims at ``p = alpha`` can show an effect there.

``uniform_mix`` (``sampler.uniform_mix``, default 0) mixes a share of uniformly drawn levels into that
distribution: ``(1 - uniform_mix) R_env-weighted + uniform_mix / levels``. With it the control cannot starve a
level: a solved level keeps at least ``uniform_mix / levels`` of the tasks, so it is rehearsed, and a level
whose success is 0 keeps being tried (the fifth efficacy design's control uses 0.2,
docs/experiments/design5.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from genenv_gym.curriculum import CurriculumConfig
from genenv_gym.domain import Domain
from genenv_gym.simulator import Outcome
from genenv_gym.skill import SkillEstimate
from genenv_gym.task import Task


class LearnabilitySampler:
    """Proposes tasks at levels weighted by ``R_env(p_l)`` of the running per-level success ``p_l``."""

    def __init__(self, domain: Domain, curriculum: CurriculumConfig, uniform_mix: float = 0.0) -> None:
        if not 0.0 <= uniform_mix <= 1.0:
            raise ValueError(f"uniform_mix (sampler.uniform_mix) must be in [0, 1], got {uniform_mix}")
        self.domain = domain
        self.curriculum = curriculum
        self.uniform_mix = uniform_mix

    def probs(self, skill: SkillEstimate) -> np.ndarray:
        """The level distribution for an agent of skill ``skill``: ``R_env(p_l)``, normalised, mixed with
        ``uniform_mix`` of the uniform distribution."""
        weights = np.array([self.curriculum.reward(float(p)) for p in skill.success], dtype=float)
        return (1.0 - self.uniform_mix) * weights / weights.sum() + self.uniform_mix / len(weights)

    def propose(self, n: int, skill: SkillEstimate, rng: np.random.Generator) -> list[Task]:
        """``n`` procedural tasks at levels drawn from ``probs(skill)``."""
        levels = rng.choice(self.domain.num_levels, size=n, p=self.probs(skill))
        return [self.domain.generate(int(level), rng) for level in levels]

    def update(self, outcomes: Sequence[Outcome]) -> dict[str, float]:
        """Nothing to learn: the skill tracker the trainer feeds is the sampler's only state."""
        return {}


def task_key(task: Task) -> str:
    """What identifies a task for per-task statistics: its prompt (two draws of one prompt are one task)."""
    return "\n".join(str(m.get("content", "")) for m in task.messages)


class TaskLearnabilitySampler:
    """Per-task learnability: tasks replayed in proportion to ``p (1 - p)`` of their own last success.

    The score of Sampling For Learnability (SFL; Rutherford et al. 2024, "No Regrets: Investigating and
    Improving Regret Approximations for Curriculum Discovery", arXiv 2408.15099) and of LILO (Foster et al.
    2025, "Learning to Reason at the Frontier of Learnability", arXiv 2502.12272), which rank single tasks
    (levels, prompts) rather than buckets of them; online difficulty filtering (Bae et al. 2025, arXiv
    2504.03380) likewise keeps single prompts of intermediate success. Each epoch a share ``explore`` of
    the tasks is drawn fresh at uniformly drawn levels; the rest are drawn, with replacement, from every task
    seen so far with probability proportional to ``p (1 - p)``, ``p`` being the success of its G attempts
    the last time it was played (a task last solved or failed by every attempt weighs 0). Without a task of
    positive weight every task is fresh.
    """

    def __init__(self, domain: Domain, explore: float = 0.25) -> None:
        if not 0.0 <= explore <= 1.0:
            raise ValueError(f"explore must be in [0, 1], got {explore}")
        self.domain = domain
        self.explore = explore
        self.tasks: dict[str, Task] = {}
        self.last_p: dict[str, float] = {}

    def weights(self) -> tuple[list[str], np.ndarray]:
        """The known tasks' keys and their weights ``p (1 - p)``."""
        keys = list(self.last_p)
        return keys, np.array([self.last_p[k] * (1.0 - self.last_p[k]) for k in keys], dtype=float)

    def propose(self, n: int, skill: SkillEstimate, rng: np.random.Generator) -> list[Task]:
        """``n`` tasks: ``round(explore * n)`` fresh ones (all of them while no known task has weight), the
        rest replayed by weight."""
        keys, weights = self.weights()
        replayed = 0 if weights.sum() <= 0 else n - round(self.explore * n)
        levels = rng.integers(self.domain.num_levels, size=n - replayed)
        tasks = [self.domain.generate(int(level), rng) for level in levels]
        if replayed:
            picks = rng.choice(len(keys), size=replayed, p=weights / weights.sum())
            tasks += [self.tasks[keys[i]] for i in picks]
        return tasks

    def update(self, outcomes: Sequence[Outcome]) -> dict[str, float]:
        """Record each played task's success ``p``; returns the share of known tasks with positive weight."""
        for o in outcomes:
            key = task_key(o.task)
            self.tasks.setdefault(key, o.task)
            self.last_p[key] = o.p
        _, weights = self.weights()
        return {"known_tasks": float(len(weights)), "learnable_share": float(np.mean(weights > 0))}

    def state_dict(self) -> dict[str, Any]:
        return {"tasks": dict(self.tasks), "last_p": dict(self.last_p)}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.tasks, self.last_p = dict(state["tasks"]), dict(state["last_p"])
