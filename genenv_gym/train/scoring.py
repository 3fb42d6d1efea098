"""Scoring tasks with the current agent: ``samples`` attempts at each task, counted apart from training
(the ``as-released`` sampler's reading of its training set; the trainer reports them as
``scoring_samples``)."""

from __future__ import annotations

from collections.abc import Callable

from genenv_gym.agents.backends.base import SamplingParams
from genenv_gym.task import Task
from genenv_gym.train.rollout import RolloutConfig, Trajectory

#: ``play(config, tasks) -> trajectories``: every task played ``config.group_size`` times (``group`` = index).
Play = Callable[[RolloutConfig, list[Task]], list[Trajectory]]


def score_tasks(
    play: Play, params: SamplingParams, seed: int, tasks: list[Task], samples: int
) -> tuple[list[int], int]:
    """The successes of ``samples`` attempts at each of ``tasks`` (in order), and the samples spent."""
    config = RolloutConfig(group_size=samples, max_turns=1, params=params, seed=seed)
    trajectories = play(config, tasks)
    successes = [0] * len(tasks)
    for t in trajectories:
        successes[t.group] += int(t.success)
    return successes, len(trajectories)
