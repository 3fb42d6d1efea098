"""The statistics of the curriculum-efficacy benchmarks: bootstrap intervals, bands, the paired t-test and the
exact signed-rank test (``curriculum_efficacy.py`` and ``efficacy_exact.py`` read them from here)."""

from __future__ import annotations

import math

import numpy as np


def bootstrap_mean_ci(
    values: np.ndarray, rng: np.random.Generator, resamples: int = 10_000, level: float = 0.95
) -> tuple[float, float]:
    """Percentile bootstrap CI of the mean of ``values`` (resampled with replacement)."""
    values = np.asarray(values, dtype=float)
    idx = rng.integers(0, len(values), size=(resamples, len(values)))
    means = values[idx].mean(axis=1)
    tail = (1.0 - level) / 2 * 100
    return float(np.percentile(means, tail)), float(np.percentile(means, 100 - tail))


def two_level_bootstrap_ci(
    outcomes_a: np.ndarray,
    outcomes_b: np.ndarray,
    rng: np.random.Generator,
    resamples: int = 2_000,
    level: float = 0.95,
) -> tuple[float, float]:
    """CI of the mean paired difference ``a - b`` resampling seeds, then held-out tasks (the same for both).

    ``outcomes_*``: ``[seeds, tasks]`` arrays of 0/1 held-out outcomes; the task resample is shared by the
    two methods and by all seeds of one draw, so the difference stays paired by task.
    """
    diff = outcomes_a.astype(float) - outcomes_b.astype(float)
    seeds, tasks = diff.shape
    means = np.empty(resamples)
    for r in range(resamples):
        s = rng.integers(0, seeds, size=seeds)
        t = rng.integers(0, tasks, size=tasks)
        means[r] = diff[np.ix_(s, t)].mean()
    tail = (1.0 - level) / 2 * 100
    return float(np.percentile(means, tail)), float(np.percentile(means, 100 - tail))


def band(ys: np.ndarray, rng: np.random.Generator, resamples: int = 2_000) -> tuple[np.ndarray, np.ndarray]:
    """Pointwise 95% bootstrap band (over seeds, rows of ``ys``) of the mean curve."""
    idx = rng.integers(0, ys.shape[0], size=(resamples, ys.shape[0]))
    means = ys[idx].mean(axis=1)
    return np.percentile(means, 2.5, axis=0), np.percentile(means, 97.5, axis=0)


def student_t_two_sided_p(t: float, df: int) -> float:
    """Two-sided p-value of Student's t with ``df`` degrees of freedom (the closed forms of Abramowitz and
    Stegun 26.7.3-4)."""
    if df < 1 or math.isnan(t):
        return float("nan")
    if math.isinf(t):
        return 0.0
    theta = math.atan(abs(t) / math.sqrt(df))
    c2 = math.cos(theta) ** 2
    term, total = 1.0, 1.0
    if df % 2:  # 1 + 2/3 c2 + (2 4)/(3 5) c2^2 + ... (df - 3) / 2 terms after the 1
        for k in range(1, (df - 3) // 2 + 1):
            term *= 2 * k / (2 * k + 1) * c2
            total += term
        inside = math.sin(theta) * math.cos(theta) * total if df > 1 else 0.0
        area = 2 / math.pi * (theta + inside)
    else:  # 1 + 1/2 c2 + (1 3)/(2 4) c2^2 + ... (df - 2) / 2 terms after the 1
        for k in range(1, df // 2):
            term *= (2 * k - 1) / (2 * k) * c2
            total += term
        area = math.sin(theta) * total
    return float(min(1.0, max(0.0, 1.0 - area)))


def paired_t(diff: np.ndarray) -> dict[str, float]:
    """Paired t-test of ``diff`` (one value per seed) against 0: t, df, two-sided p."""
    diff = np.asarray(diff, dtype=float)
    n = len(diff)
    if n < 2:
        return {"t": float("nan"), "df": n - 1, "p": float("nan")}
    sd = float(diff.std(ddof=1))
    t = float(diff.mean()) / (sd / math.sqrt(n)) if sd > 0 else math.copysign(math.inf, float(diff.mean()))
    if sd == 0 and diff.mean() == 0:
        t = 0.0
    return {"t": t, "df": n - 1, "p": student_t_two_sided_p(t, n - 1) if t != 0 else 1.0}


def signed_rank_p(diff: np.ndarray) -> dict[str, float]:
    """Exact two-sided Wilcoxon signed-rank test of ``diff`` (zeros dropped, tied ranks averaged): the
    statistic W+ and p by enumerating every sign pattern (for up to 16 non-zero differences)."""
    d = np.asarray([x for x in diff if x != 0], dtype=float)
    n = len(d)
    if n == 0:
        return {"w_plus": 0.0, "n": 0, "p": 1.0}
    if n > 16:
        raise ValueError("the exact signed-rank test enumerates 2^n patterns: at most 16 differences")
    magnitude = np.abs(d)
    ranks = np.empty(n)
    order = np.argsort(magnitude, kind="stable")
    i = 0
    while i < n:  # average ranks over ties
        j = i
        while j + 1 < n and magnitude[order[j + 1]] == magnitude[order[i]]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2 + 1
        i = j + 1
    w_plus = float(ranks[d > 0].sum())
    expected = ranks.sum() / 2
    signs = (np.arange(2**n)[:, None] >> np.arange(n)) & 1
    null = signs @ ranks
    p = float(np.mean(np.abs(null - expected) >= abs(w_plus - expected) - 1e-9))
    return {"w_plus": w_plus, "n": n, "p": p}


def paired_t_power(
    delta: float, sd: float, seeds: int, alpha: float = 0.05, sims: int = 20_000, seed: int = 0
) -> float:
    """The power of the two-sided paired t-test at level ``alpha`` with ``seeds`` differences drawn from
    ``Normal(delta, sd)``: the share of ``sims`` simulated designs whose test rejects."""
    rng = np.random.default_rng(seed)
    draws = rng.normal(delta, sd, size=(sims, seeds))
    t = draws.mean(axis=1) / (draws.std(axis=1, ddof=1) / math.sqrt(seeds))
    return float(np.mean([student_t_two_sided_p(float(x), seeds - 1) < alpha for x in t]))
