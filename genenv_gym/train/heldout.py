"""The held-out metrics of an evaluation: greedy accuracy, the exact (teacher-forced) gold probability and
the sampled accuracy, overall and per level, from the trajectories and log-probabilities the trainer
measured; and which benchmark tasks are held out."""

from __future__ import annotations

import numpy as np

from genenv_gym.task import Task
from genenv_gym.train.gold_probability import gold_probability_metrics
from genenv_gym.train.rollout import Trajectory

#: The prefix of the per-level gold-probability metrics (``heldout_gold_prob_level_<level>``).
GOLD_LEVEL_PREFIX = "heldout_gold_prob_level_"


def heldout_subset(tasks: list[Task], eval_tasks: int) -> list[Task]:
    """Every ``len // eval_tasks``-th task (all of them when ``eval_tasks`` is 0)."""
    return tasks[:: max(1, len(tasks) // eval_tasks)] if eval_tasks else tasks


def greedy_metrics(trajectories: list[Trajectory], num_levels: int) -> dict[str, float]:
    """``heldout_acc`` and ``heldout_level_<level>`` (levels with a task) of one greedy reply per task."""
    result = {"heldout_acc": float(np.mean([t.success for t in trajectories]))}
    for level in range(num_levels):
        hits = [t.success for t in trajectories if t.task.level == level]
        if hits:
            result[f"heldout_level_{level}"] = float(np.mean(hits))
    return result


def gold_metrics(logprobs: list[float], heldout: list[Task]) -> dict[str, float]:
    """``heldout_gold_prob`` and ``heldout_gold_prob_level_<level>``: the mean probability of the held-out
    tasks' reference answers (``logprobs``, in held-out order)."""
    return gold_probability_metrics(logprobs, [t.level for t in heldout])


def gold_success_per_level(metrics: dict[str, float]) -> dict[int, float]:
    """``{level: gold probability}`` of ``gold_metrics``'s per-level entries."""
    prefix = GOLD_LEVEL_PREFIX
    return {int(k[len(prefix) :]): v for k, v in metrics.items() if k.startswith(prefix)}


def sampled_metrics(trajectories: list[Trajectory], heldout: list[Task]) -> dict[str, float]:
    """``heldout_sampled_acc`` and ``heldout_sampled_level_<level>`` of replies sampled per held-out task."""
    result = {"heldout_sampled_acc": float(np.mean([t.success for t in trajectories]))}
    for level in sorted({t.level for t in heldout}):
        hits = [t.success for t in trajectories if t.task.level == level]
        result[f"heldout_sampled_level_{level}"] = float(np.mean(hits))
    return result
