"""The alpha-curriculum: the environment policy's reward and the band filter of GenEnv (Eqs. 2-3).

``R_env(p) = exp(-beta * (p - alpha)^2)`` rewards a task whose empirical agent success ``p`` is close to
the target ``alpha``. Batches with ``|p - alpha| > k_min`` are dropped from simulator updates.

The paper gives no beta. The default ``beta = 20`` separates the band clearly: inside
``|p - alpha| <= 0.1`` the reward is at least ``exp(-0.2) = 0.82``; with 4 attempts the nearest
out-of-band success rates (0.25, 0.75) get ``exp(-1.25) = 0.29``, and tasks the agent always solves or
always fails get ``exp(-5) = 0.007``. (The official config's unused ``beta: 2`` would give 0.61 to an
always-failed task: hardly a signal.)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

DEFAULT_ALPHA = 0.5
DEFAULT_BETA = 20.0
DEFAULT_K_MIN = 0.1
DEFAULT_ATTEMPTS = 4
DEFAULT_RWR_LAMBDA = 1.0


@dataclass(frozen=True)
class CurriculumConfig:
    """The alpha-curriculum's constants (defaults from the GenEnv paper, beta chosen here).

    Attributes:
        alpha: target success rate of generated tasks.
        beta: sharpness of the reward around alpha.
        k_min: band half-width; batches with ``|p - alpha| > k_min`` do not train the simulator.
        attempts: agent attempts per task from which its empirical success ``p`` is measured.
        rwr_lambda: temperature of the reward-weighted regression weights ``exp(lambda * R_env)``.
    """

    alpha: float = DEFAULT_ALPHA
    beta: float = DEFAULT_BETA
    k_min: float = DEFAULT_K_MIN
    attempts: int = DEFAULT_ATTEMPTS
    rwr_lambda: float = DEFAULT_RWR_LAMBDA

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        """Raise ValueError naming the first out-of-range field."""
        if not 0.0 <= self.alpha <= 1.0:
            raise ValueError(f"alpha must be in [0, 1], got {self.alpha}")
        if self.beta <= 0:
            raise ValueError(f"beta must be > 0, got {self.beta}")
        if not 0.0 <= self.k_min <= 1.0:
            raise ValueError(f"k_min must be in [0, 1], got {self.k_min}")
        if self.attempts < 1:
            raise ValueError(f"attempts must be >= 1, got {self.attempts}")
        if self.rwr_lambda < 0:
            raise ValueError(f"rwr_lambda must be >= 0, got {self.rwr_lambda}")

    def reward(self, p: float) -> float:
        """``R_env(p)``."""
        return alpha_reward(p, self.alpha, self.beta)

    def in_band(self, p: float) -> bool:
        """Whether a batch with success ``p`` is kept for the simulator update."""
        return in_band(p, self.alpha, self.k_min)

    def rwr_weight(self, p: float) -> float:
        """The regression weight ``exp(lambda * R_env(p))`` of a generation with success ``p``."""
        return math.exp(self.rwr_lambda * self.reward(p))


def empirical_success(successes: int, attempts: int) -> float:
    """``p_hat = k / n`` (Eq. 2)."""
    if attempts <= 0:
        raise ValueError("empirical success needs at least one attempt")
    if not 0 <= successes <= attempts:
        raise ValueError(f"successes must be in [0, {attempts}], got {successes}")
    return successes / attempts


def alpha_reward(p: float, alpha: float = DEFAULT_ALPHA, beta: float = DEFAULT_BETA) -> float:
    """``R_env(p) = exp(-beta (p - alpha)^2)`` (Eq. 3)."""
    return math.exp(-beta * (p - alpha) ** 2)


def in_band(p: float, alpha: float = DEFAULT_ALPHA, k_min: float = DEFAULT_K_MIN) -> bool:
    """True unless ``|p - alpha| > k_min`` (with a tolerance for float rounding at the edge)."""
    return abs(p - alpha) <= k_min + 1e-12
