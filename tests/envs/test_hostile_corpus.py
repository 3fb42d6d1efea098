"""Every id takes a fixed corpus of hostile actions (tests/helpers/hostile_corpus.py) as outcomes: each step
returns within a CPU-time bound without raising, its observation stays in the observation space, and the
env still plays its oracle to 1.0 afterwards.
"""

from __future__ import annotations

import gc
import math
import time

import pytest
from hostile_corpus import hostile_actions

import genenv_gym
from genenv_gym.agents.scripted import OracleAgent

#: CPU seconds one step may take on an action of up to 100,000 characters (generous for a loaded 2-core CI;
#: the slowest step measured on an idle core is reported in the failure message).
STEP_CPU_BOUND = 0.5

ALL_IDS = [entry.id for entry in genenv_gym.ENV_ENTRIES]


def timed_step(env, action: str) -> tuple:
    """``env.step(action)`` and the CPU seconds it took, with the garbage collector held off: a full
    collection of what earlier tests left behind is not the step's cost."""
    gc.disable()
    try:
        start = time.process_time()
        obs, reward, terminated, truncated, _ = env.step(action)
        return obs, reward, terminated, truncated, time.process_time() - start
    finally:
        gc.enable()


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_hostile_actions_are_bounded_outcomes_and_the_oracle_still_scores_one(env_id, offline_envs):
    env = offline_envs.make(env_id)
    space = env.observation_space
    env.reset(seed=0)
    slow = []
    for name, action in hostile_actions():
        obs, reward, terminated, truncated, spent = timed_step(env, action)
        if spent > STEP_CPU_BOUND:  # once more from a fresh reset: one slow try can be the machine's
            env.reset()
            obs, reward, terminated, truncated, again = timed_step(env, action)
            spent = min(spent, again)
        if spent > STEP_CPU_BOUND:
            slow.append((name, round(spent, 2)))
        assert space.contains(obs) and math.isfinite(reward), name
        if terminated or truncated:
            env.reset()
    assert not slow, f"steps over {STEP_CPU_BOUND} s CPU: {slow}"

    agent = OracleAgent(env)
    obs, info = env.reset()
    total, done = 0.0, False
    while not done:
        obs, reward, terminated, truncated, step_info = env.step(agent.act(obs, info))
        total += reward
        done = terminated or truncated
    assert total == 1.0 and not truncated, (info["task_id"], step_info)
    env.close()
