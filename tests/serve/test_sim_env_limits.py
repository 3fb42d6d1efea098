"""The simulator env keeps its curriculum moving when episodes end outside it, and when generation fails."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.wrappers import TimeLimit
from toy_dialog import DialogDomain

from genenv_gym.envs.simulator_env import SimulatorEnv
from genenv_gym.simulator import ProceduralSimulator


def test_a_time_limit_truncation_counts_as_a_failed_attempt():
    env = TimeLimit(SimulatorEnv(DialogDomain(), batch_size=1), max_episode_steps=1)
    sim = env.unwrapped
    seen_tasks, updates = [], 0
    env.reset(seed=0)
    for _ in range(12):  # 3 tasks x 4 attempts, each cut after one wrong turn by the TimeLimit
        seen_tasks.append(sim.task.id)
        _, _, terminated, truncated, _ = env.step("wrong")
        assert truncated and not terminated
        env.reset()
        updates = sim.simulator.stats.outcomes
    assert updates == 3 and len(set(seen_tasks)) == 3


def test_an_unstepped_reset_is_not_an_attempt():
    env = SimulatorEnv(DialogDomain(), batch_size=1)
    env.reset(seed=0)
    for _ in range(5):
        _, info = env.reset()
        assert info["attempt"] == 0
    assert env.simulator.stats.outcomes == 0


class _Flaky(DialogDomain):
    """Generates valid tasks at first, then only invalid ones (a planner that starts timing out)."""

    def __init__(self) -> None:
        self.calls = 0

    def validate(self, task):
        self.calls += 1
        return [] if self.calls <= 2 else ["planner_timeout"]


def test_generation_that_keeps_failing_reuses_a_recent_valid_task_instead_of_raising():
    domain = _Flaky()
    simulator = ProceduralSimulator(domain, max_retries=5)
    rng = np.random.default_rng(0)
    first = simulator.propose(2, None, rng)
    again = simulator.propose(3, None, rng)
    assert {t.id for t in again} <= {t.id for t in first}
    assert simulator.stats.reused == 3 and simulator.stats.rejected["planner_timeout"] == 15


def test_generation_that_never_succeeded_raises_with_the_reasons():
    class Never(DialogDomain):
        def validate(self, task):
            return ["planner_timeout"]

    with pytest.raises(RuntimeError, match=r"no valid task was generated before: \['planner_timeout'\]"):
        ProceduralSimulator(Never(), max_retries=3).propose(1, None, np.random.default_rng(0))
