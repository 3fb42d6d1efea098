"""API-Bank with a client's task: playing a dialogue and scoring a response cost time linear in the task,
within a second at the declared bounds (``TASK_BOUNDS`` of the manifest).

ROUGE-L compares every word of the reference with every word of the reply (a 60,000-character reference
took 32 s), so a client's reference response is held to the official data's length.
"""

from __future__ import annotations

import time

import gymnasium as gym
import pytest

from genenv_gym.envs.apibank.manifest import TASK_BOUNDS
from genenv_gym.envs.apibank.rouge_score import rouge_l
from genenv_gym.fixtures import FIXTURES_DIR
from genenv_gym.registry.client_params import ParamError, TaskData
from genenv_gym.task import Task

BOUNDS = {bound.what: bound.limit for bound in TASK_BOUNDS}


def best_of_3(run) -> float:
    best = float("inf")
    for _ in range(3):
        begin = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - begin)
    return best


@pytest.fixture(scope="module")
def env():
    return gym.make("GenEnv-APIBank-Dialogue-v0", data_dir=str(FIXTURES_DIR)).unwrapped


def dialogue(env, turns: int) -> Task:
    """A fixture dialogue repeated to ``turns`` turns (its API turns within the declared expected calls)."""
    base = max(env.tasks, key=lambda t: sum(turn["role"] == "API" for turn in t.evaluation["turns"]))
    recorded = list(base.evaluation["turns"])
    task = base.to_dict()
    task["evaluation"]["turns"] = (recorded * (turns // len(recorded) + 1))[:turns]
    TaskData(bounds=TASK_BOUNDS).check(task, "options.task")
    return Task.from_dict(task)


def test_a_dialogue_costs_linear_time_in_its_turns(env):
    """Reset (every recorded API call run for its expected result) and the oracle transcript graded."""
    most = BOUNDS["expected calls"] * 2  # the fixture's turns are about half API turns
    small, large = dialogue(env, most // 4), dialogue(env, most)

    def play(task):
        return lambda: (
            env.reset(options={"task": task}),
            env.domain.verify(task, env.domain.oracle_action(task)),
        )

    small_s, large_s = best_of_3(play(small)), best_of_3(play(large))
    assert large_s < 8 * small_s + 0.05, (small_s, large_s)
    assert large_s < 1.0


def test_rouge_costs_linear_time_in_the_reference_and_a_longer_one_is_refused():
    reply = "a b " * 100
    limit = BOUNDS["reference response characters"]
    small = best_of_3(lambda: rouge_l(("b a " * limit)[: limit // 4], reply))
    large = best_of_3(lambda: rouge_l(("b a " * limit)[:limit], reply))
    assert large < 8 * small + 0.05, (small, large)
    task = {
        "id": "x",
        "domain": "apibank_response",
        "evaluation": {"ground_truth": {"text": "a" * (limit + 1)}},
    }
    with pytest.raises(ParamError, match="reference response characters"):
        TaskData(bounds=TASK_BOUNDS).check(task, "options.task")
