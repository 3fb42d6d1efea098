"""Two runs compared over their shared tasks (``genenv compare RUN_A RUN_B``).

Per env, per category and overall: each shared task's success rate in each run (the mean over its
samples), the difference B - A of their means, a paired test and a bootstrap interval over tasks.

- Paired test: with one sample per task (every rate 0 or 1), the exact McNemar test (a two-sided binomial
  test on the discordant tasks); otherwise the paired t-test on the per-task rates.
- Bootstrap: the 95% percentile interval of the mean difference over tasks resampled with replacement,
  from a seeded generator (the same runs and seed give the same interval).

Runs whose verdicts are not comparable (the env version, the evaluator, or the data of a shared task
differ) are refused unless forced (``pin_conflicts``).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from genenv_gym.evaluation.pins import pin_differences
from genenv_gym.evaluation.results_file import Run

BOOTSTRAP_RESAMPLES = 2000
CONFIDENCE = 0.95


@dataclass(frozen=True)
class Difference:
    """One row of a comparison: a category (or ``overall``) over the tasks both runs played."""

    name: str
    tasks: int
    mean_a: float
    mean_b: float
    test: str
    p_value: float
    low: float
    high: float

    @property
    def difference(self) -> float:
        return self.mean_b - self.mean_a


def task_rates(records: list[Mapping[str, Any]]) -> dict[str, tuple[str, float]]:
    """task id -> (category, success rate over its samples)."""
    counts: dict[str, list] = {}
    for record in records:
        entry = counts.setdefault(str(record.get("task_id")), [str(record.get("category", "")), 0, 0])
        entry[1] += 1
        entry[2] += int(bool(record.get("success")))
    return {task: (category, c / n) for task, (category, n, c) in counts.items()}


def task_data(records: list[Mapping[str, Any]]) -> dict[str, str | None]:
    """task id -> the data fingerprint its records were pinned to."""
    return {str(r.get("task_id")): (r.get("pins") or {}).get("data") for r in records}


def mcnemar_exact(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sided exact McNemar p-value of paired 0/1 outcomes."""
    only_a = int(np.sum((a == 1) & (b == 0)))
    only_b = int(np.sum((a == 0) & (b == 1)))
    n = only_a + only_b
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(only_a, only_b) + 1)) / 2.0**n
    return min(1.0, 2.0 * tail)


def paired_t(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sided p-value of the paired t-test of ``b - a`` (1.0 when every difference is the same zero)."""
    d = b - a
    n = len(d)
    if n < 2:
        return 1.0
    sd = float(np.std(d, ddof=1))
    if sd == 0.0:
        return 1.0 if float(np.mean(d)) == 0.0 else 0.0
    t = float(np.mean(d)) / (sd / math.sqrt(n))
    df = n - 1
    return _incomplete_beta(df / 2.0, 0.5, df / (df + t * t))


def _incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b) (a continued fraction, Numerical Recipes)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x > (a + 1.0) / (a + b + 2.0):
        return 1.0 - _incomplete_beta(b, a, 1.0 - x)
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-14:
            break
    return math.exp(log_front) * h / a


def bootstrap_interval(
    a: np.ndarray, b: np.ndarray, seed: int, resamples: int = BOOTSTRAP_RESAMPLES
) -> tuple[float, float]:
    """The ``CONFIDENCE`` percentile interval of mean(b - a) over tasks resampled with replacement."""
    d = b - a
    rng = np.random.default_rng(seed)
    means = d[rng.integers(0, len(d), size=(resamples, len(d)))].mean(axis=1)
    tail = (1.0 - CONFIDENCE) / 2.0
    return float(np.quantile(means, tail)), float(np.quantile(means, 1.0 - tail))


def difference(name: str, a: np.ndarray, b: np.ndarray, seed: int) -> Difference:
    """The row comparing paired per-task rates ``a`` and ``b``."""
    binary = bool(np.all((a == 0) | (a == 1)) and np.all((b == 0) | (b == 1)))
    test, p = ("McNemar exact", mcnemar_exact(a, b)) if binary else ("paired t", paired_t(a, b))
    low, high = bootstrap_interval(a, b, seed)
    return Difference(name, len(a), float(a.mean()), float(b.mean()), test, p, low, high)


@dataclass(frozen=True)
class EnvComparison:
    env_id: str
    agents: tuple[str, str]
    only_a: int
    only_b: int
    rows: tuple[Difference, ...]


def compare_env(
    env_id: str, agents: tuple[str, str], a: list[dict[str, Any]], b: list[dict[str, Any]], seed: int
) -> EnvComparison:
    """Per category and overall, B - A over the tasks both runs played."""
    rates_a, rates_b = task_rates(a), task_rates(b)
    shared = [task for task in rates_a if task in rates_b]
    by_category: dict[str, list[str]] = defaultdict(list)
    for task in shared:
        by_category[rates_a[task][0]].append(task)
    rows = []
    for name, tasks in [*by_category.items(), ("overall", shared)]:
        if tasks:
            xa = np.array([rates_a[t][1] for t in tasks])
            xb = np.array([rates_b[t][1] for t in tasks])
            rows.append(difference(name, xa, xb, seed))
    return EnvComparison(env_id, agents, len(rates_a) - len(shared), len(rates_b) - len(shared), tuple(rows))


def pin_conflicts(run_a: Run, key_a: tuple[str, str], run_b: Run, key_b: tuple[str, str]) -> list[str]:
    """Why two runs' verdicts on an env are not comparable: the env version or the evaluator differ, or the
    data of shared tasks does; ``[]`` when they are comparable."""
    pins_a, pins_b = run_a.pins.get(key_a) or {}, run_b.pins.get(key_b) or {}
    if not pins_a or not pins_b:
        return ["a run has no pins (recorded before pins existed): nothing says its verdicts are comparable"]
    conflicts = [
        line for line in pin_differences(pins_a, pins_b) if not line.startswith(("data ", "package "))
    ]
    data_a, data_b = task_data(run_a.records[key_a]), task_data(run_b.records[key_b])
    differ = [task for task in data_a if task in data_b and data_a[task] != data_b[task]]
    if differ:
        conflicts.append(f"the data of {len(differ)} shared tasks differs (e.g. {differ[0]})")
    return conflicts


def pin_warnings(run_a: Run, key_a: tuple[str, str], run_b: Run, key_b: tuple[str, str]) -> list[str]:
    """Differences that leave the verdicts comparable but are worth saying (the package version)."""
    pins_a, pins_b = run_a.pins.get(key_a) or {}, run_b.pins.get(key_b) or {}
    return [line for line in pin_differences(pins_a, pins_b) if line.startswith("package ")]


def comparison_lines(comparison: EnvComparison) -> list[str]:
    """A comparison as a table."""
    agent_a, agent_b = comparison.agents
    title = f"{comparison.env_id}: B ({agent_b}) - A ({agent_a})"
    if comparison.only_a or comparison.only_b:
        title += f"; tasks only in A: {comparison.only_a}, only in B: {comparison.only_b} (left out)"
    width = max([len("category"), *(len(r.name) for r in comparison.rows)]) + 2
    lines = [
        title,
        f"{'category':<{width}}{'tasks':>7}{'A':>9}{'B':>9}{'B - A':>9}  {'95% bootstrap':<18}{'p':>8}  test",
    ]
    for r in comparison.rows:
        interval = f"[{100 * r.low:+.1f}, {100 * r.high:+.1f}]"
        lines.append(
            f"{r.name:<{width}}{r.tasks:>7}{100 * r.mean_a:>8.1f}%{100 * r.mean_b:>8.1f}%"
            f"{100 * r.difference:>+8.1f}%  {interval:<18}{r.p_value:>8.3g}  {r.test}"
        )
    return lines


def comparison_dict(comparison: EnvComparison) -> dict[str, Any]:
    return {
        "env_id": comparison.env_id,
        "agents": list(comparison.agents),
        "only_a": comparison.only_a,
        "only_b": comparison.only_b,
        "rows": [
            {
                "name": r.name,
                "tasks": r.tasks,
                "a": r.mean_a,
                "b": r.mean_b,
                "difference": r.difference,
                "interval": [r.low, r.high],
                "p_value": r.p_value,
                "test": r.test,
            }
            for r in comparison.rows
        ],
    }
