"""Several samples per task (``genenv eval --samples k``): pass@k, pass^k and the per-task success rate.

- pass@k: the chance that at least one of k tries succeeds, by the unbiased estimator over n >= k samples
  with c successes, ``1 - C(n - c, k) / C(n, k)`` (Chen et al. 2021), averaged over tasks;
- pass^k: the chance that all k tries succeed, unbiased ``C(c, k) / C(n, k)`` (tau-bench), averaged over
  tasks;
- the per-task success rate ``c / n``: its mean over tasks (the expected pass@1) and its spread (the
  standard deviation over tasks, and the standard error of the mean).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k of one task from ``n`` samples with ``c`` successes."""
    _check(n, c, k)
    return 1.0 if n - c < k else 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """Unbiased pass^k (all k tries succeed) of one task from ``n`` samples with ``c`` successes."""
    _check(n, c, k)
    return math.comb(c, k) / math.comb(n, k)


def _check(n: int, c: int, k: int) -> None:
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")


def check_samples(samples: int, env_ids: Iterable[str]) -> None:
    """Raise ValueError saying what to do unless ``samples`` tries per task fit every env id."""
    from genenv_gym.registry.registration import is_simulator_id

    if samples < 1:
        raise ValueError(f"--samples must be at least 1, got {samples}")
    simulators = [env_id for env_id in env_ids if is_simulator_id(env_id)]
    if samples > 1 and simulators:
        raise ValueError(
            f"--samples applies to benchmark envs; {simulators[0]} is a simulator env (its tasks are "
            "proposed "
            "afresh each episode): use --samples 1 there"
        )


def greedy_samples_warning(samples: int, llm_agent: bool, temperature: float) -> str | None:
    """What to say when an LLM agent would sample every try greedily (k identical tries), else None."""
    if samples > 1 and llm_agent and temperature == 0:
        return (
            f"--samples {samples} with --temperature 0: a greedy LLM agent gives the same reply every try, "
            "so pass@k = pass^k = accuracy; sample with --temperature above 0"
        )
    return None


def task_outcomes(records: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, tuple[int, int]]]:
    """category -> task id -> (samples, successes) over episode records."""
    counts: dict[str, dict[str, list[int]]] = {}
    for record in records:
        tasks = counts.setdefault(str(record.get("category", "")), {})
        n_c = tasks.setdefault(str(record.get("task_id")), [0, 0])
        n_c[0] += 1
        n_c[1] += int(bool(record.get("success")))
    return {cat: {t: (n, c) for t, (n, c) in tasks.items()} for cat, tasks in counts.items()}


def _group_stats(outcomes: list[tuple[int, int]], k: int) -> dict[str, float | int]:
    rates = [c / n for n, c in outcomes]
    mean = sum(rates) / len(rates)
    std = math.sqrt(sum((r - mean) ** 2 for r in rates) / (len(rates) - 1)) if len(rates) > 1 else 0.0
    usable = [(n, c) for n, c in outcomes if n >= k]
    return {
        "tasks": len(outcomes),
        "samples": sum(n for n, _ in outcomes),
        "pass@k": sum(pass_at_k(n, c, k) for n, c in usable) / len(usable) if usable else math.nan,
        "pass^k": sum(pass_hat_k(n, c, k) for n, c in usable) / len(usable) if usable else math.nan,
        "task_success_mean": mean,
        "task_success_std": std,
        "task_success_sem": std / math.sqrt(len(rates)),
    }


def sample_stats(records: Iterable[Mapping[str, Any]], k: int) -> dict[str, Any]:
    """pass@k, pass^k and the per-task success rate per category and overall (tasks with fewer than ``k``
    samples, from an interrupted run, count in the success rate only)."""
    by_category = task_outcomes(records)
    everything = [nc for tasks in by_category.values() for nc in tasks.values()]
    if not everything:
        return {}
    return {
        "k": k,
        "categories": {cat: _group_stats(list(tasks.values()), k) for cat, tasks in by_category.items()},
        "overall": _group_stats(everything, k),
    }


def sample_lines(stats: Mapping[str, Any], width: int) -> list[str]:
    """``sample_stats`` as rows under an env's table (none for a single-sample run)."""
    if not stats:
        return []
    k = stats["k"]
    head = f"pass@{k}", f"pass^{k}", "task mean", "std"
    lines = [f"{f'{k} samples per task':<{width}}{'tasks':>8}" + "".join(f"{h:>10}" for h in head)]
    for name, row in [*stats["categories"].items(), ("overall", stats["overall"])]:
        values = row["pass@k"], row["pass^k"], row["task_success_mean"], row["task_success_std"]
        lines.append(f"{name:<{width}}{row['tasks']:>8}" + "".join(f"{100 * v:>9.1f}%" for v in values))
    return lines


def sample_csv_rows(env_id: str, agent: str, stats: Mapping[str, Any]) -> list[dict[str, Any]]:
    """``sample_stats`` as CSV rows (group ``pass@k``, ``pass^k``, ``task_success_mean``,
    ``task_success_std``; ``total`` is the number of tasks)."""
    if not stats:
        return []
    k = stats["k"]
    rows = []
    for name, row in [*stats["categories"].items(), ("overall", stats["overall"])]:
        for key, group in (
            ("pass@k", f"pass@{k}"),
            ("pass^k", f"pass^{k}"),
            ("task_success_mean", "task_success_mean"),
            ("task_success_std", "task_success_std"),
        ):
            rows.append(
                {"env_id": env_id, "agent": agent, "group": group, "name": name}
                | {"passed": "", "total": row["tasks"], "accuracy": row[key]}
            )
    return rows
