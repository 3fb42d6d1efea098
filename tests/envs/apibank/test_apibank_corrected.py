"""API-Bank corrected mode: state across the dialogue, typed parameters, current names, hostile lists."""

from __future__ import annotations

import gymnasium as gym
import pytest

import genenv_gym  # noqa: F401 - registers the ids
from genenv_gym.agents.scripted import OracleAgent
from genenv_gym.envs.apibank.corrected import score_corrected
from genenv_gym.envs.apibank.world import World
from genenv_gym.fixtures import FIXTURES_DIR

ACCOUNTS = {"Account": {"kit": {"password": "old", "token": "tok-kit", "email": "kit@example.com"}}}


def _truth(api_name: str, params: dict) -> dict:
    return {"api_name": api_name, "param_dict": params}


def test_the_second_step_of_a_password_reset_sees_the_first():
    first = _truth(
        "ForgotPassword", {"status": "Forgot Password", "username": "kit", "email": "kit@example.com"}
    )
    second = _truth(
        "ForgotPassword", {"status": "Verification Code", "verification_code": "970420", "new_password": "n"}
    )
    action = "[ForgotPassword(status='Verification Code', verification_code='970420', new_password='n')]"
    assert score_corrected(World(ACCOUNTS), [first], second, action).correct
    login = _truth("GetUserToken", {"username": "kit", "password": "n"})
    verdict = score_corrected(
        World(ACCOUNTS), [first, second], login, "[GetUserToken(username='kit', password='n')]"
    )
    assert verdict.correct and verdict.result["output"] == {"token": "tok-kit"}


def test_list_parameters_are_typed_and_compared_as_lists():
    truth = _truth(
        "RecordHealthData",
        {"user_id": "U1", "time": "2023-01-01 10:00:00", "health_data": "[{'name': 'pulse', 'value': '60'}]"},
    )
    good = (
        "[RecordHealthData(user_id='U1', time='2023-01-01 10:00:00', "
        "health_data=[{'name': 'pulse', 'value': '60'}])]"
    )
    verdict = score_corrected(World({}), [], truth, good)
    assert verdict.correct and verdict.result["output"] == "success"
    bad = "[RecordHealthData(user_id='U1', time='2023-01-01 10:00:00', health_data=[oops])]"
    assert score_corrected(World({}), [], truth, bad).bucket == "invalid_parameter"


def test_stale_parameter_names_are_current_ones_and_bools_are_typed():
    truth = _truth("TimedSwitch", {"device_id": "lamp", "time": "2023-01-01 10:00:00", "on": "True"})
    assert score_corrected(
        World({}), [], truth, "[TimedSwitch(name='lamp', time='2023-01-01 10:00:00', on=true)]"
    ).correct
    off = "[TimedSwitch(name='lamp', time='2023-01-01 10:00:00', on='False')]"
    assert score_corrected(World({}), [], truth, off).bucket == "input_mismatch"
    stale = "[TimedSwitch(device_id='lamp', time='2023-01-01 10:00:00', on='True')]"
    assert score_corrected(World({}), [], truth, stale).bucket == "invalid_parameter"


@pytest.mark.parametrize(
    "value",
    [
        "[" * 50_000 + "]" * 50_000,
        "[" + "1," * 15_000 + "]",
        "__import__('os').system('echo pwned')",
        "[1, 2",
    ],
)
def test_hostile_list_values_are_outcomes(value):
    reference = "[{'name': 'pulse', 'value': '60'}]"
    truth = _truth(
        "RecordHealthData", {"user_id": "U1", "time": "2023-01-01 10:00:00", "health_data": reference}
    )
    action = f"[RecordHealthData(user_id='U1', time='2023-01-01 10:00:00', health_data={value})]"
    verdict = score_corrected(World({}), [], truth, action)
    assert not verdict.correct and verdict.bucket in {"invalid_parameter", "exception", "missing_parameter"}


def test_corrected_fixture_oracle_scores_one():
    for env_id in ("GenEnv-APIBank-v0", "GenEnv-APIBank-L2-v0"):
        env = gym.make(env_id, data_dir=str(FIXTURES_DIR), scoring="corrected").unwrapped
        oracle = OracleAgent(env)
        for task in env.tasks:
            obs, info = env.reset(options={"task_id": task.id})
            assert env.step(oracle.act(obs, info))[1] == 1.0


def test_unknown_scoring_is_a_clear_error():
    with pytest.raises(
        ValueError, match=r"unknown scoring 'lenient'; choose from \['official', 'corrected'\]"
    ):
        gym.make("GenEnv-APIBank-v0", data_dir=str(FIXTURES_DIR), scoring="lenient")


@pytest.mark.shared_data
@pytest.mark.parametrize("env_id", ["GenEnv-APIBank-v0", "GenEnv-APIBank-L2-v0"])
def test_corrected_gold_scores_one_on_the_real_data(shared_data_dir, env_id):
    env = gym.make(env_id, data_dir=str(shared_data_dir), scoring="corrected").unwrapped
    oracle = OracleAgent(env)
    assert env.domain.reference_failures() == {}
    for task in env.tasks:
        obs, info = env.reset(options={"task_id": task.id})
        assert env.step(oracle.act(obs, info))[1] == 1.0, task.id
