"""What an epoch's row reports about its tasks and rollouts: the paper's per-batch ``p`` and ``R_env`` of
the generated tasks, and the mechanism metrics (what the GRPO update could learn from, and from which
tasks). Pure functions of the epoch's tasks, outcomes and trajectories: they read no RNG."""

from __future__ import annotations

from typing import Any

import numpy as np

from genenv_gym.curriculum import CurriculumConfig
from genenv_gym.simulator import Outcome, level_batches
from genenv_gym.task import Task
from genenv_gym.train.grpo import group_signal
from genenv_gym.train.rollout import Trajectory


def level_batch_success(outcomes: list[Outcome]) -> dict[int, float]:
    """``p`` per level: total successes / total attempts of the outcomes at that level (one batch each).

    This is how ``ProceduralSimulator.update`` groups outcomes; the metrics use the same batches, so
    ``in_band_share`` is the share of generated tasks the simulator's band filter keeps.
    """
    return {level: s / a for level, (s, a, _) in level_batches(outcomes).items() if a}


def generation_metrics(
    outcomes: list[Outcome], batch_p: dict[int, float], curriculum: CurriculumConfig
) -> dict[str, float]:
    """The generated tasks as the curriculum sees them: ``gen_success`` (success over all their attempts),
    ``in_band_share`` (share of tasks whose batch is in the band), ``r_env`` (mean ``R_env`` of their
    batch's ``p``), ``task_level`` (mean level)."""
    return {
        "gen_success": sum(o.successes for o in outcomes) / sum(o.attempts for o in outcomes),
        "in_band_share": float(np.mean([curriculum.in_band(batch_p[o.task.level]) for o in outcomes])),
        "r_env": float(np.mean([curriculum.reward(batch_p[o.task.level]) for o in outcomes])),
        "task_level": float(np.mean([o.task.level for o in outcomes])),
    }


def trained_rows(trajectories: list[Trajectory]) -> list[Trajectory]:
    """The trajectories the GRPO update trains on: those with tokens and at least one model token."""
    return [t for t in trajectories if t.token_ids and sum(t.mask) > 0]


def mechanism_metrics(tasks: list[Task], trajectories: list[Trajectory], num_levels: int) -> dict[str, Any]:
    """What the epoch's GRPO update could learn from, and from which tasks.

    ``signal_share``: share of the update's groups (tasks) with a non-zero advantage, over the same rows
    the update uses; ``too_easy_share`` / ``too_hard_share``: share of those groups whose samples all
    succeeded / all failed (no signal either way); ``reward_var``: their mean within-group reward variance
    (``p (1 - p)`` for 0/1 rewards); ``train_success``: success over all the epoch's samples (generated
    and replayed tasks);
    ``train_level_counts``: trained tasks per difficulty level (index = level);
    ``train_level_success``: success per level over those samples (None where no task was trained).
    """
    rows = trained_rows(trajectories)
    signal = group_signal([t.reward for t in rows], [t.group for t in rows])
    counts = [0] * num_levels
    for task in tasks:
        if 0 <= task.level < num_levels:
            counts[task.level] += 1
    hits, tries = [0] * num_levels, [0] * num_levels
    for t in trajectories:
        if 0 <= t.task.level < num_levels:
            hits[t.task.level] += int(t.success)
            tries[t.task.level] += 1
    by_group: dict[int, list[bool]] = {}
    for t in rows:
        by_group.setdefault(t.group, []).append(bool(t.success))
    groups = max(1, len(by_group))
    return {
        "signal_share": signal.share,
        "signal_groups": signal.signal_groups,
        "too_easy_share": sum(len(g) >= 2 and all(g) for g in by_group.values()) / groups,
        "too_hard_share": sum(len(g) >= 2 and not any(g) for g in by_group.values()) / groups,
        "reward_var": signal.reward_var,
        "train_success": float(np.mean([t.success for t in trajectories])) if trajectories else 0.0,
        "train_level_counts": counts,
        "train_level_success": [h / n if n else None for h, n in zip(hits, tries, strict=True)],
    }
