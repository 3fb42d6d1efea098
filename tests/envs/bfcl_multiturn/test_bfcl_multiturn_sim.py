"""GenEnv-Sim-BFCL-MultiTurn-v0: generated multi-turn entries at every level, valid, solvable, seeded."""

from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pytest

import genenv_gym  # noqa: F401  (registers the ids)
from genenv_gym.agents.scripted import OracleAgent
from genenv_gym.envs.bfcl_multiturn.domain import BFCLMultiTurnDomain
from genenv_gym.envs.bfcl_multiturn.generation.classes import class_docs
from genenv_gym.envs.bfcl_multiturn.generation.levels import LEVELS, NUM_LEVELS
from genenv_gym.task import Task, thaw

DOMAIN = BFCLMultiTurnDomain()
ALL_LEVELS = range(NUM_LEVELS)


def tasks_at(level: int, n: int = 3, seed: int = 0) -> list[Task]:
    rng = np.random.default_rng(seed * 100 + level)
    return [DOMAIN.generate(level, rng) for _ in range(n)]


@pytest.mark.parametrize("level", ALL_LEVELS)
def test_every_level_generates_valid_tasks_with_its_knobs(level):
    knobs = LEVELS[level]
    for task in tasks_at(level):
        assert DOMAIN.validate(task) == [], task.id
        assert task.level == level and task.provenance == "procedural" and task.domain == "bfcl_multiturn"
        evaluation = thaw(task.evaluation)
        truth = evaluation["ground_truth"]
        empty = [t for t, calls in enumerate(truth) if not calls]
        assert len(truth) == knobs.turns + knobs.miss_param + knobs.miss_func
        assert len(empty) == knobs.miss_param + knobs.miss_func and len(truth) - 1 not in empty
        assert all(1 <= len(calls) <= knobs.max_calls for calls in truth if calls)
        assert len(evaluation["involved_classes"]) == knobs.classes
        assert evaluation["long_context"] == knobs.long_context
        assert bool(evaluation["holdout"]) == knobs.miss_func
        tools = {doc["name"] for doc in thaw(task.tools)}
        for docs in evaluation["holdout"].values():
            assert all(doc["name"] not in tools for doc in docs)
        assert Task.from_dict(json.loads(json.dumps(task.to_dict()))) == task


def test_user_turns_state_every_value_of_their_calls():
    for task in tasks_at(5, n=4):
        evaluation = thaw(task.evaluation)
        for turn, calls in zip(evaluation["question"], evaluation["ground_truth"], strict=True):
            text = " ".join(m["content"] for m in turn)
            for call in calls:
                for value in call_values(call):
                    assert str(value) in text, (call, text)


def call_values(call_text: str) -> list:
    """The string and number argument values of a ground-truth call (the ones a user must state)."""
    from genenv_gym.envs.bfcl_multiturn.calls import parse_call_string

    values = []
    for value in parse_call_string(call_text).kwargs.values():
        stated = isinstance(value, str) and len(value) > 1
        if stated or (isinstance(value, (int, float)) and not isinstance(value, bool)):
            values.append(value)
    return values


@pytest.mark.parametrize("level", ALL_LEVELS)
def test_the_oracle_passes_generated_tasks_through_the_sim_env(level):
    env = gym.make("GenEnv-Sim-BFCL-MultiTurn-v0")
    agent = OracleAgent(env)
    for task in tasks_at(level, n=2, seed=1):
        obs, info = env.reset(options={"task": task})
        total, done = 0.0, False
        while not done:
            obs, reward, terminated, truncated, step_info = env.step(agent.act(obs, info))
            total += reward
            done = terminated or truncated
        assert total == 1.0 and terminated, (task.id, step_info)


def test_a_wrong_call_fails():
    for level in (0, 3, 6, 9):
        for task in tasks_at(level, n=2, seed=2):
            actions = json.loads(DOMAIN.oracle_action(task))
            first = next(i for i, a in enumerate(actions) if a.startswith("["))
            wrong = list(actions)
            wrong[first] = "[no_such_function(x=1)]"
            verdict = DOMAIN.verify(task, json.dumps(wrong))
            assert not verdict.success and verdict.error_type.startswith("multi_turn:"), task.id
            assert DOMAIN.verify(task, json.dumps(actions)).success


def test_generation_is_deterministic_and_seeds_differ():
    first = [t.to_dict() for t in tasks_at(8, n=2, seed=3)]
    again = [t.to_dict() for t in tasks_at(8, n=2, seed=3)]
    other = [t.to_dict() for t in tasks_at(8, n=2, seed=4)]
    assert first == again and first != other
    env_a, env_b = gym.make("GenEnv-Sim-BFCL-MultiTurn-v0"), gym.make("GenEnv-Sim-BFCL-MultiTurn-v0")
    assert env_a.reset(seed=5) == env_b.reset(seed=5)


def test_validate_rejects_a_failing_or_undocumented_ground_truth():
    task = tasks_at(2, n=1)[0]
    data = task.to_dict()
    data["evaluation"]["ground_truth"][-1] = ["not_documented()"]
    assert any("not documented" in p for p in DOMAIN.validate(Task.from_dict(data)))
    data = task.to_dict()
    if "GorillaFileSystem" in data["evaluation"]["involved_classes"]:
        data["evaluation"]["ground_truth"][-1] = ["cd(folder='no_such_folder')"]
    else:
        data["evaluation"]["involved_classes"].append("MathAPI")
        data["tools"].extend(class_docs("MathAPI"))
        data["evaluation"]["ground_truth"][-1] = ["divide(a=1.0, b=0.0)"]
    assert any("fails" in p for p in DOMAIN.validate(Task.from_dict(data)))
    with pytest.raises(ValueError, match="level"):
        DOMAIN.generate(NUM_LEVELS, np.random.default_rng(0))


def test_json_action_format_for_generated_tasks():
    domain = BFCLMultiTurnDomain(action_format="json")
    task = domain.generate(7, np.random.default_rng(11))
    assert '"arguments"' in task.messages[0]["content"] and domain.validate(task) == []
    assert all(a.startswith('[{"name"') for a in json.loads(domain.oracle_action(task)) if a.startswith("["))
