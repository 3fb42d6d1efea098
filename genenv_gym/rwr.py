"""Reward-weighted regression for a categorical distribution, with a cap on the KL of one update.

The regression target is the weighted empirical distribution of the kept samples; the update moves the
current distribution toward it by a step that is halved until ``KL(new || old) <= max_kl``. This is the
closed form of weighted maximum likelihood for a categorical, with a trust region: the same rule the
LLM simulator follows with gradient steps.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def kl_divergence(p: np.ndarray, q: np.ndarray) -> float:
    """``KL(p || q)`` for categorical distributions (q > 0 wherever p > 0)."""
    mask = p > 0
    return float(np.sum(p[mask] * np.log(p[mask] / q[mask])))


def rwr_categorical_step(
    probs: np.ndarray,
    samples: Sequence[int],
    weights: Sequence[float],
    step_size: float,
    max_kl: float,
    min_prob: float = 0.0,
) -> tuple[np.ndarray, float]:
    """One RWR update of ``probs`` toward the weighted histogram of ``samples``.

    Returns the new distribution and the KL divergence from the old one. With no samples (all batches
    were filtered out) the distribution is returned unchanged. ``min_prob`` keeps every category
    reachable so the distribution can follow an agent whose skill changes.
    """
    probs = np.asarray(probs, dtype=float)
    if len(samples) == 0:
        return probs.copy(), 0.0
    if len(samples) != len(weights):
        raise ValueError("samples and weights must have the same length")
    target = np.zeros_like(probs)
    np.add.at(target, np.asarray(samples, dtype=int), np.asarray(weights, dtype=float))
    if target.sum() <= 0:
        return probs.copy(), 0.0
    target /= target.sum()
    eta = step_size
    for _ in range(30):
        new = (1.0 - eta) * probs + eta * target
        if min_prob > 0:
            new = np.maximum(new, min_prob)
            new /= new.sum()
        kl = kl_divergence(new, probs)
        if kl <= max_kl:
            return new, kl
        eta /= 2.0
    return probs.copy(), 0.0
