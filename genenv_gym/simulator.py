"""The environment policy: the Simulator protocol and the ProceduralSimulator.

A simulator proposes tasks for the agent's current skill and learns from how the agent fared on them:
every completed task yields an ``Outcome`` (successes out of attempts), whose alpha-curriculum reward
``R_env(p)`` drives a reward-weighted regression update of the simulator.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from genenv_gym.curriculum import CurriculumConfig, empirical_success
from genenv_gym.domain import Domain
from genenv_gym.rwr import rwr_categorical_step
from genenv_gym.skill import SkillEstimate
from genenv_gym.task import Task


@dataclass(frozen=True)
class Outcome:
    """How the agent fared on one proposed task: ``successes`` out of ``attempts``."""

    task: Task
    successes: int
    attempts: int
    context: SkillEstimate | None = None

    @property
    def p(self) -> float:
        """The empirical success ``p_hat``."""
        return empirical_success(self.successes, self.attempts)


def level_batches(outcomes: Sequence[Outcome]) -> dict[int, tuple[int, int, int]]:
    """Per level, in order of first appearance: ``(successes, attempts, outcomes)`` summed over the
    outcomes at that level. Each level's outcomes are one batch of task variations (the paper's ``p`` is
    ``successes / attempts`` over the batch)."""
    totals: dict[int, tuple[int, int, int]] = {}
    for o in outcomes:
        s, a, n = totals.get(o.task.level, (0, 0, 0))
        totals[o.task.level] = (s + o.successes, a + o.attempts, n + 1)
    return totals


@runtime_checkable
class Simulator(Protocol):
    """An environment policy: proposes tasks at a skill level and learns from outcomes."""

    def propose(self, n: int, skill: SkillEstimate, rng: np.random.Generator) -> list[Task]:
        """``n`` validated tasks for an agent of the given skill."""
        ...

    def update(self, outcomes: Sequence[Outcome]) -> dict[str, float]:
        """Learn from outcomes; returns statistics of the update."""
        ...


#: Valid tasks kept per level for ``ProceduralSimulator``'s fallback.
RECENT_PER_LEVEL = 16


@dataclass
class ProceduralSimulatorStats:
    """Running counts a ProceduralSimulator reports through the env's ``info``."""

    proposed: int = 0
    rejected: Counter = field(default_factory=Counter)
    outcomes: int = 0
    kept: int = 0
    updates: int = 0
    #: Tasks served again from the recent valid ones because ``max_retries`` new ones in a row failed.
    reused: int = 0


class ProceduralSimulator:
    """A learnable categorical distribution over a domain's difficulty levels, trained by RWR.

    ``propose`` samples a level from the distribution and asks the domain to generate a task there;
    tasks that fail the domain's validation are rejected with their reason counted and redrawn. The
    skill estimate is the conditioning context recorded with each outcome; this policy reads the agent
    only through the outcomes (the ``min_prob`` floor keeps it exploring every level), which keeps its
    proposals a function of its parameters and the random generator alone. ``update`` scores each
    outcome with ``R_env(p)``, drops those with ``|p - alpha| > k_min``, and moves the distribution
    toward the kept levels weighted by ``exp(lambda * R_env)``, within ``max_kl`` per update.

    Args:
        domain: the domain that generates and validates tasks.
        curriculum: alpha, beta, k_min, attempts and lambda.
        step_size: the largest mixing step toward the regression target.
        max_kl: the cap on ``KL(new || old)`` of one update.
        min_prob: floor on every level's probability, so the policy can follow a changing agent.
        max_retries: redraws allowed for one task before proposal fails with the rejection reasons.
        neighbour_prob: share of proposals drawn one level away from the sampled level (half below, half
            above; at the ends the level stays): exploration where an improving agent's next level is.
            The band filter only ever pulls the distribution toward levels with in-band outcomes, so
            without it a distribution that has settled on a level the agent has outgrown learns of the
            next level only through the ``min_prob`` floor.
        band_filter: the paper's rule (True): batches with ``|p - alpha| > k_min`` are dropped. False: the
            soft variant, every batch is a regression sample weighted by ``exp(lambda * R_env)``, so an epoch
            with no batch in band still moves the distribution, away from the solved and hopeless levels
            (a policy that has settled on a level the agent has since solved is otherwise never updated
            again: no batch is in band, nothing is kept).
    """

    def __init__(
        self,
        domain: Domain,
        curriculum: CurriculumConfig | None = None,
        step_size: float = 0.3,
        max_kl: float = 0.2,
        min_prob: float = 0.01,
        max_retries: int = 20,
        neighbour_prob: float = 0.0,
        band_filter: bool = True,
    ) -> None:
        if not 0.0 < step_size <= 1.0:
            raise ValueError(f"step_size must be in (0, 1], got {step_size}")
        if not 0.0 <= neighbour_prob <= 1.0:
            raise ValueError(f"neighbour_prob must be in [0, 1], got {neighbour_prob}")
        if not 0.0 <= min_prob * domain.num_levels <= 1.0:
            raise ValueError(f"min_prob * num_levels must be <= 1, got {min_prob * domain.num_levels}")
        self.domain = domain
        self.curriculum = curriculum or CurriculumConfig()
        self.step_size = step_size
        self.max_kl = max_kl
        self.min_prob = min_prob
        self.max_retries = max_retries
        self.neighbour_prob = neighbour_prob
        self.band_filter = band_filter
        self.probs = np.full(domain.num_levels, 1.0 / domain.num_levels)
        #: The distribution before any update, which ``relax_toward_prior`` returns to.
        self.prior = self.probs.copy()
        self.stats = ProceduralSimulatorStats()
        #: The last valid tasks per level: what is served when fresh generation keeps failing.
        self._recent: dict[int, deque[Task]] = {}

    def propose(self, n: int, skill: SkillEstimate, rng: np.random.Generator) -> list[Task]:
        return [self._propose_one(rng) for _ in range(n)]

    def _propose_one(self, rng: np.random.Generator) -> Task:
        """A freshly generated valid task; after ``max_retries`` invalid ones in a row, a recent valid task
        from the nearest level to the last one sampled (counted in ``stats.reused``)."""
        reasons: list[str] = []
        level = 0
        for _ in range(self.max_retries):
            level = int(rng.choice(self.domain.num_levels, p=self.proposal_probs()))
            task = self.domain.generate(level, rng)
            self.stats.proposed += 1
            problems = self.domain.validate(task)
            if not problems:
                self._recent.setdefault(task.level, deque(maxlen=RECENT_PER_LEVEL)).append(task)
                return task
            self.stats.rejected.update(problems)
            reasons.extend(problems)
        levels = sorted(
            (lvl for lvl, tasks in self._recent.items() if tasks), key=lambda lvl: abs(lvl - level)
        )
        if levels:
            self.stats.reused += 1
            recent = self._recent[levels[0]]
            return recent[int(rng.integers(len(recent)))]
        raise RuntimeError(
            f"{self.domain.name}: {self.max_retries} generated tasks in a row failed validation and no valid "
            f"task was generated before: {sorted(set(reasons))} (raise max_retries, or the domain's limits "
            "such as planner_timeout_s)"
        )

    def update(self, outcomes: Sequence[Outcome]) -> dict[str, float]:
        """One RWR step on ``outcomes``; the outcomes at one level form one batch of task variations.

        A batch's success is ``p = sum(successes) / sum(attempts)`` (Eq. 2 over the batch); batches with
        ``|p - alpha| > k_min`` are dropped (unless ``band_filter`` is off), and every generation of a kept
        batch is a regression sample of its level with weight ``exp(lambda * R_env(p))``.
        """
        cfg = self.curriculum
        levels: list[int] = []
        weights: list[float] = []
        rewards: list[float] = []
        kept_batches = 0
        batches = level_batches(outcomes)
        for level, (successes, attempts, count) in batches.items():
            p = successes / attempts
            rewards.append(cfg.reward(p))
            if cfg.in_band(p) or not self.band_filter:
                kept_batches += 1
                levels += [level] * count
                weights += [cfg.rwr_weight(p)] * count
        self.stats.outcomes += len(outcomes)
        self.stats.kept += len(levels)
        self.probs, kl = rwr_categorical_step(
            self.probs, levels, weights, self.step_size, self.max_kl, self.min_prob
        )
        if levels:
            self.stats.updates += 1
        return {
            "outcomes": float(len(outcomes)),
            "kept": float(len(levels)),
            "batches": float(len(batches)),
            "kept_batches": float(kept_batches),
            "mean_r_env": float(np.mean(rewards)) if rewards else 0.0,
            "kl": kl,
            "mean_level": self.mean_level(),
        }

    def relax_toward_prior(self, fraction: float) -> None:
        """Move ``fraction`` of the way back to the prior: the pull of past updates fades (a hosted
        curriculum does this after every group it counts, so that a departed client's pull decays even
        while no batch is in band; ``CurriculumService(prior_half_life=...)``)."""
        if not 0.0 <= fraction <= 1.0:
            raise ValueError(f"fraction must be in [0, 1], got {fraction}")
        self.probs = (1.0 - fraction) * self.probs + fraction * self.prior

    def proposal_probs(self) -> np.ndarray:
        """The distribution levels are drawn from: ``probs`` with ``neighbour_prob`` of each level's mass
        moved to its neighbours (``probs`` itself when ``neighbour_prob`` is 0)."""
        if self.neighbour_prob == 0.0:
            return self.probs
        half = self.neighbour_prob / 2.0
        moved = np.zeros_like(self.probs)
        moved[1:] += half * self.probs[:-1]
        moved[:-1] += half * self.probs[1:]
        moved[0] += half * self.probs[0]
        moved[-1] += half * self.probs[-1]
        return (1.0 - self.neighbour_prob) * self.probs + moved

    def mean_level(self) -> float:
        """The expected difficulty level under the current policy."""
        return float(np.dot(self.probs, np.arange(len(self.probs))))

    def state_dict(self) -> dict[str, Any]:
        return {"probs": self.probs.tolist()}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        probs = np.asarray(state["probs"], dtype=float)
        if probs.shape != self.probs.shape:
            raise ValueError(f"expected {self.probs.shape[0]} level probabilities, got {probs.shape[0]}")
        self.probs = probs
