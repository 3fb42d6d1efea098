"""ALFWorld with a client's task: its walkthrough is replayed on the engine at reset (the step env's
transcript), at a cost linear in its length, and within a second at the declared bound (``TASK_BOUNDS``).

Each command is one engine step (about 1.5 ms in the tiny room); nothing in the replay looks back over the
commands before it.
"""

from __future__ import annotations

import time

import gymnasium as gym
import pytest

from genenv_gym.envs.alfworld.manifest import TASK_BOUNDS
from genenv_gym.task import Task

BOUND = {bound.what: bound.limit for bound in TASK_BOUNDS}["walkthrough steps"]


@pytest.fixture(scope="module")
def env(alfworld_tiny_root):
    env = gym.make("GenEnv-ALFWorld-Step-v0", data_dir=alfworld_tiny_root).unwrapped
    env.reset(options={"task": env.tasks[0]})  # the engine loaded once
    yield env
    env.close()


def reset_seconds(env, commands: int, repeats: int = 3) -> float:
    """The quickest of ``repeats`` resets on a client's task whose walkthrough holds ``commands`` commands
    (a new goal each time: the replay is cached per game and goal)."""
    base = env.tasks[0].to_dict()
    walkthrough = [*base["evaluation"]["walkthrough"], "look", "inventory", "go to nowhere 1"]
    best = float("inf")
    for _ in range(repeats):
        task = dict(base, id=f"cost-{time.perf_counter_ns()}")
        task["evaluation"] = dict(base["evaluation"], goal=f"{base['evaluation']['goal']} {task['id']}")
        task["evaluation"]["walkthrough"] = (walkthrough * commands)[:commands]
        begin = time.perf_counter()
        env.reset(options={"task": Task.from_dict(task)})
        best = min(best, time.perf_counter() - begin)
    return best


def test_a_client_walkthrough_costs_linear_time(env):
    small, large = reset_seconds(env, BOUND // 16), reset_seconds(env, BOUND // 4)
    assert large < 8 * small + 0.05, (small, large)  # 4x the commands: about 4x the time, never 16x
    assert reset_seconds(env, BOUND, repeats=1) < 2.0  # about 0.8 s on an idle core


def test_a_client_walkthrough_for_a_known_goal_gets_its_own_replay(env):
    """Another walkthrough of the same game and goal is replayed, not answered from the first one's cache."""
    base = env.tasks[0]
    task = base.to_dict()
    task["id"] = "client-walkthrough"
    task["evaluation"] = dict(task["evaluation"], walkthrough=["look", "inventory"])
    other = Task.from_dict(task)
    assert len(env.domain.replay(base).feedbacks) == len(base.evaluation["walkthrough"])
    assert len(env.domain.replay(other).feedbacks) == 2
    assert len(env.domain.replay(base).feedbacks) == len(base.evaluation["walkthrough"])
