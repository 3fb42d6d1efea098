"""GenEnv-APIBank-Dialogue-v0: multi-turn play, persistent state within an episode, none across episodes."""

from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pytest

import genenv_gym  # noqa: F401 - registers the ids
from genenv_gym.agents.scripted import OracleAgent
from genenv_gym.fixtures import FIXTURES_DIR

ALARM = "level-1-given-desc/AddAlarm-GetUserToken-level-1-1.jsonl"


@pytest.fixture()
def env():
    return gym.make("GenEnv-APIBank-Dialogue-v0", data_dir=str(FIXTURES_DIR)).unwrapped


def test_the_oracle_plays_every_fixture_dialogue_to_success(env):
    oracle = OracleAgent(env)
    for task in env.tasks:
        obs, info = env.reset(options={"task_id": task.id})
        terminated = truncated = False
        while not (terminated or truncated):
            obs, reward, terminated, truncated, info = env.step(oracle.act(obs, info))
        assert terminated and reward == 1.0 and info["metrics"]["effects_reached"] == 1.0, task.id


def test_state_persists_within_the_episode_and_not_across(env):
    obs, _ = env.reset(options={"task_id": ALARM})
    assert obs.endswith("user: Please set an alarm for 6:45 tomorrow morning, the 2nd of February.")
    obs, reward, terminated, _, info = env.step("[GetUserToken(username='quill', password='inkpot7')]")
    assert json.loads(info["api_output"]) == {"token": "qx1l2l3t4o5k6e7n8z"}
    assert not terminated and reward == 0.0
    env.step("[ModifyPassword(token='qx1l2l3t4o5k6e7n8z', old_password='inkpot7', new_password='new')]")
    _, _, _, _, info = env.step("[GetUserToken(username='quill', password='new')]")
    assert info["api_exception"] is None  # the new password holds in this episode
    env.reset(options={"task_id": ALARM})
    _, _, _, _, info = env.step("[GetUserToken(username='quill', password='new')]")
    assert info["api_exception"] == "The password is incorrect."  # and not in the next one


def test_a_reply_moves_to_the_next_user_turn_and_missing_effects_fail(env):
    env.reset(options={"task_id": ALARM})
    obs, *_ = env.step("Who are you?")
    assert obs.endswith("assistant: Who are you?\n\nuser: I am quill and my password is inkpot7.")
    for _ in range(10):
        obs, reward, terminated, truncated, info = env.step("Fine.")
        if terminated or truncated:
            break
    assert reward == 0.0 and info["error_type"] == "effects_missing"


def test_hostile_actions_are_steps(env):
    env.reset(options={"task_id": ALARM})
    for action in ("[" * 50_000, "[AddAlarm(token=__import__('os'))]", "\x00\x1b", 42):
        _, reward, terminated, truncated, _ = env.step(action)
        assert reward == 0.0
        if terminated or truncated:
            break


def test_verify_grades_a_whole_transcript(env):
    task = env.tasks[0]
    domain = env.domain
    assert domain.verify(task, domain.oracle_action(task)).success
    assert not domain.verify(task, json.dumps(["Hello."])).success
    assert domain.verify(task, "not json").error_type == "action_error:not_a_transcript"
    assert domain.verify(task, domain.random_action(task, np.random.default_rng(0))).reward == 0.0


@pytest.mark.shared_data
def test_the_oracle_reaches_every_effect_of_the_real_dialogues(shared_data_dir):
    env = gym.make("GenEnv-APIBank-Dialogue-v0", data_dir=str(shared_data_dir)).unwrapped
    assert len(env.tasks) == 264
    oracle = OracleAgent(env)
    for task in env.tasks:
        obs, info = env.reset(options={"task_id": task.id})
        done = False
        while not done:
            obs, reward, terminated, truncated, info = env.step(oracle.act(obs, info))
            done = terminated or truncated
        assert terminated and reward == 1.0, task.id
