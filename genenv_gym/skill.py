"""Tracking the agent's skill: its recent success rate at each difficulty level."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from genenv_gym.domain import check_level


@dataclass(frozen=True)
class SkillEstimate:
    """A snapshot of the agent's skill, the conditioning context of a simulator's proposals.

    Attributes:
        success: estimated success rate per level (the prior mean 0.5 where nothing was seen).
        evidence: the (decayed) number of attempts behind each estimate.
        frontier: the level whose estimated success is closest to the target alpha.
        recent_success: success rate over all recent attempts, any level.
    """

    success: tuple[float, ...]
    evidence: tuple[float, ...]
    frontier: int
    recent_success: float

    def to_dict(self) -> dict:
        return {
            "success": list(self.success),
            "evidence": list(self.evidence),
            "frontier": self.frontier,
            "recent_success": self.recent_success,
        }


class SkillTracker:
    """Per-level success counts with exponential forgetting, so the estimate follows a learning agent.

    Each level keeps a Beta(1, 1)-smoothed success rate over decayed counts: every update multiplies
    the counts of that level by ``decay`` before adding the new outcome, so the estimate is a weighted
    average over roughly the last ``1 / (1 - decay)`` attempts at that level.
    """

    def __init__(self, num_levels: int, alpha: float = 0.5, decay: float = 0.95) -> None:
        if num_levels < 1:
            raise ValueError(f"num_levels must be >= 1, got {num_levels}")
        if not 0.0 < decay <= 1.0:
            raise ValueError(f"decay must be in (0, 1], got {decay}")
        self.num_levels = num_levels
        self.alpha = alpha
        self.decay = decay
        self.successes = np.zeros(num_levels)
        self.attempts = np.zeros(num_levels)
        self._recent_successes = 0.0
        self._recent_attempts = 0.0

    def update(self, level: int, success: bool) -> None:
        """Record one attempt at ``level``."""
        check_level(level, self.num_levels)
        self.successes[level] = self.successes[level] * self.decay + float(success)
        self.attempts[level] = self.attempts[level] * self.decay + 1.0
        self._recent_successes = self._recent_successes * self.decay + float(success)
        self._recent_attempts = self._recent_attempts * self.decay + 1.0

    def success_rates(self) -> np.ndarray:
        """Smoothed success rate per level (0.5 where there is no evidence)."""
        return (self.successes + 1.0) / (self.attempts + 2.0)

    def frontier(self) -> int:
        """The level where success is estimated closest to alpha, among levels with evidence.

        Without evidence anywhere, level 0: a simulator should start easy.
        """
        seen = self.attempts > 0
        if not seen.any():
            return 0
        distance = np.where(seen, np.abs(self.success_rates() - self.alpha), np.inf)
        return int(np.argmin(distance))

    def estimate(self) -> SkillEstimate:
        recent = self._recent_successes / self._recent_attempts if self._recent_attempts else 0.0
        return SkillEstimate(
            success=tuple(float(x) for x in self.success_rates()),
            evidence=tuple(float(x) for x in self.attempts),
            frontier=self.frontier(),
            recent_success=float(recent),
        )

    def state_dict(self) -> dict:
        return {
            "successes": self.successes.tolist(),
            "attempts": self.attempts.tolist(),
            "recent": [self._recent_successes, self._recent_attempts],
        }

    def load_state_dict(self, state: dict) -> None:
        self.successes = np.asarray(state["successes"], dtype=float)
        self.attempts = np.asarray(state["attempts"], dtype=float)
        self._recent_successes, self._recent_attempts = state["recent"]
