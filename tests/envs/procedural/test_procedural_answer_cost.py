"""Digits, padded addition and the ladder with a client's task: the one-line checker costs time linear in
the answer and the reply, and stays far below a second at the declared bound (``TASK_BOUNDS``: 4,096 answer
characters) with a reply at the env's action limit."""

from __future__ import annotations

import time

import gymnasium as gym
import pytest

from genenv_gym.envs.addition.manifest import TASK_BOUNDS as ADDITION_BOUNDS
from genenv_gym.envs.digits.manifest import TASK_BOUNDS as DIGITS_BOUNDS
from genenv_gym.envs.ladder.manifest import TASK_BOUNDS as LADDER_BOUNDS
from genenv_gym.envs.text_env import MAX_ACTION_CHARS
from genenv_gym.task import Task

FAMILIES = [
    ("GenEnv-Digits-v0", DIGITS_BOUNDS),
    ("GenEnv-PaddedAddition-v0", ADDITION_BOUNDS),
    ("GenEnv-Ladder-v0", LADDER_BOUNDS),
]


def labelled(chars: int) -> str:
    """Labelled steps ``1A 2A ...`` (what the ladder reads) cut to ``chars`` characters."""
    return " ".join(f"{k}A" for k in range(1, chars))[:chars].strip()


def step_seconds(env, answer: str, reply: str) -> float:
    task = env.tasks[0].to_dict()
    task["evaluation"]["answer"] = answer
    task = Task.from_dict(task)
    best = float("inf")
    for _ in range(3):
        env.reset(options={"task": task})
        begin = time.perf_counter()
        env.step(reply)
        best = min(best, time.perf_counter() - begin)
    return best


@pytest.mark.parametrize(("env_id", "bounds"), FAMILIES)
def test_checking_costs_linear_time_up_to_the_declared_bound(env_id, bounds):
    env = gym.make(env_id).unwrapped
    limit = {bound.what: bound.limit for bound in bounds}["answer characters"]
    for reply in (lambda n: labelled(n), lambda n: "1A " * (n // 3)):
        small = step_seconds(env, labelled(limit // 4), reply(MAX_ACTION_CHARS // 4))
        large = step_seconds(env, labelled(limit), reply(MAX_ACTION_CHARS))
        assert large < 8 * small + 0.02, (small, large)
        assert large < 0.2


def test_a_ladder_answer_longer_than_the_ladder_is_a_wrong_answer_not_a_crash():
    env = gym.make("GenEnv-Ladder-v0").unwrapped
    task = env.tasks[0].to_dict()
    task["evaluation"]["answer"] = " ".join(["1C"] * 10)
    env.reset(options={"task": Task.from_dict(task)})
    reply = " ".join(
        f"{k}{env.domain.alphabets[min(k, len(env.domain.alphabets) - 1)][0]}" for k in range(1, 11)
    )
    *_, info = env.step(reply)
    assert info["error_type"] == "wrong_format"
