"""BFCL multi-turn envs: the official prompting loop, turn ends, step limit, hostile actions, real data."""

from __future__ import annotations

import json
import os

import gymnasium as gym
import pytest
from multiturn_play import play, play_oracle

import genenv_gym  # noqa: F401  (registers the ids)
from genenv_gym.envs.bfcl_multiturn.checker import EMPTY_TURN, FORCE_TERMINATED, STATE_MISMATCH
from genenv_gym.envs.bfcl_multiturn.domain import BFCLMultiTurnDomain
from genenv_gym.envs.bfcl_multiturn.prompt import ADDITIONAL_FUNCTIONS
from genenv_gym.fixtures import FIXTURES_DIR

IDS = {
    "GenEnv-BFCL-MultiTurn-v0": 5,
    "GenEnv-BFCL-MultiTurnBase-v0": 2,
    "GenEnv-BFCL-MultiTurnMissFunc-v0": 1,
    "GenEnv-BFCL-MultiTurnMissParam-v0": 1,
    "GenEnv-BFCL-MultiTurnLongContext-v0": 1,
}


def make(env_id: str = "GenEnv-BFCL-MultiTurn-v0", **kwargs):
    kwargs.setdefault("data_dir", str(FIXTURES_DIR))
    return gym.make(env_id, **kwargs)


@pytest.mark.parametrize("env_id", list(IDS))
def test_each_id_loads_its_fixture_entries(env_id):
    assert len(make(env_id).unwrapped.tasks) == IDS[env_id]


def test_oracle_scores_one_on_every_fixture_entry():
    env = make()
    for task in env.unwrapped.tasks:
        total, info = play_oracle(env, task.id)
        assert total == 1.0 and info["success"], (task.id, info)
        assert all(v["valid"] for v in info["turn_verdicts"])
        assert info["metrics"] == {"success": 1.0, "turns_passed": 1.0}


def test_observation_is_the_official_prompt_then_the_conversation():
    env = make()
    obs, info = env.reset(options={"task_id": "multi_turn_base_0"})
    assert obs.startswith("<|system|>\nYou are an expert in composing functions.")
    assert "Note that the provided function is in Python 3 syntax." in obs
    assert obs.endswith("find the lines of results.txt that mention 'failed'.")
    assert info["category"] == "multi_turn_base" and info["tools"][0]["name"] == "pwd"
    obs, reward, terminated, _, step = env.step(
        "[cd(folder='lab'), grep(file_name='results.txt', pattern='failed')]"
    )
    assert (reward, terminated, step["turn"]) == (0.0, False, 0)
    assert step["execution_results"][1] == '{"matching_lines": ["trial 2 failed"]}'
    assert obs.endswith('<|tool|>\n{"matching_lines": ["trial 2 failed"]}')
    obs, _, _, _, step = env.step("Found it.")
    assert step["turn_verdict"] == {"turn": 0, "valid": True, "checked": True}
    assert obs.endswith(
        "<|assistant|>\nFound it.\n\n<|user|>\nOpen a ticket titled 'Trial 2 failed' with "
        "description 'trial 2 failed' at priority 3."
    )


def test_miss_func_turn_shows_the_held_out_docs():
    env = make()
    obs, _ = env.reset(options={"task_id": "multi_turn_miss_func_0"})
    assert '"name": "sort"' not in obs
    play(
        env,
        ["[cd(folder='lab'), wc(file_name='results.txt', mode='l')]", "done", "Sorting is not available."],
    )
    obs = env.unwrapped.episode.observation
    assert obs.endswith(ADDITIONAL_FUNCTIONS) and "'name': 'sort'" in obs


def test_plain_text_in_a_turn_that_needs_calls_fails_the_entry():
    env = make()
    env.reset(options={"task_id": "multi_turn_base_1"})
    _, reward, terminated, _, info = play(env, ["I will not do that.", "Nor this."])
    assert (reward, terminated, info["success"]) == (0.0, True, False)
    assert info["error_type"] == EMPTY_TURN and "decode_error" in info
    assert [v["valid"] for v in info["turn_verdicts"]] == [False, False]


def test_wrong_state_is_reported_with_the_official_error_type():
    env = make()
    env.reset(options={"task_id": "multi_turn_base_1"})
    _, reward, _, _, info = play(
        env, ["[fillFuelTank(fuelAmount=20)]", "ok", "[mean(numbers=[3.0, 8.0, 10.0])]", "ok"]
    )
    assert reward == 0.0 and info["error_type"] == STATE_MISMATCH
    assert info["turn_verdicts"][0]["differing_attributes"] == {"VehicleControlAPI": ["fuelLevel"]}


def test_step_limit_force_terminates_before_the_last_turn():
    env = make(max_steps_per_turn=2)
    env.reset(options={"task_id": "multi_turn_base_1"})
    steps = [env.step("[displayCarStatus(option='fuel')]") for _ in range(3)]
    assert [s[2] for s in steps] == [False, False, True]
    assert steps[-1][4]["error_type"] == FORCE_TERMINATED and steps[-1][1] == 0.0


def test_step_limit_in_the_last_turn_judges_the_turn():
    env = make(max_steps_per_turn=1)
    env.reset(options={"task_id": "multi_turn_base_1"})
    play(env, ["[fillFuelTank(fuelAmount=20.5)]", "ok"])
    _, reward, terminated, _, info = play(env, ["[add(a=1, b=1)]", "[mean(numbers=[3.0, 8.0, 10.0])]"])
    assert (reward, terminated, info["success"]) == (1.0, True, True)


@pytest.mark.parametrize(
    "action",
    [
        "",
        "x" * 2_000_000,
        "[f(" * 50_000,
        "__import__('os').system('touch /tmp/genenv_mt_pwned')",
        "[exit()]",
        "[_load_scenario(scenario={})]",
        "[__init__()]",
        "[cd(folder=open('/etc/passwd').read())]",
        "[edit_ticket(ticket_id=7, updates={})]",
        "[cd(folder=(10**4000)*(10**4000)*(10**4000))]",
        '[{"name": "cd", "arguments": {"folder": 1' + "0" * 5000 + "}}]",
        "\x00\x01\x7f",
        42,
        None,
    ],
)
def test_hostile_actions_are_outcomes(action, tmp_path):
    env = make()
    env.reset(options={"task_id": "multi_turn_base_0"})
    obs, reward, terminated, truncated, info = env.unwrapped.step(action)
    assert reward == 0.0 and not truncated and isinstance(obs, str)
    for follow_up in ("no", "no", "no", "no", "no"):
        if terminated:
            break
        obs, reward, terminated, truncated, info = env.unwrapped.step(follow_up)
    assert terminated and reward == 0.0 and info["error_type"]
    assert not os.path.exists("/tmp/genenv_mt_pwned")


def test_domain_verifies_a_transcript():
    env = make()
    domain: BFCLMultiTurnDomain = env.unwrapped.domain
    for task in env.unwrapped.tasks:
        transcript = domain.oracle_action(task)
        assert domain.verify(task, transcript).success, task.id
        assert domain.validate(task) == []
    task = env.unwrapped.tasks[0]
    assert domain.verify(task, json.dumps(["nothing"])).error_type == "multi_turn:force_terminated"
    assert domain.verify(task, "not json").error_type == "action_error:not_a_transcript"


def test_strict_irrelevance_fails_calls_in_a_missing_parameter_turn():
    early = [
        "[get_ticket(ticket_id=7)]",
        "ok",
        "[close_ticket(ticket_id=7)]",
        "ok",
        "[close_ticket(ticket_id=7)]",
        "ok",
    ]
    for strict, expected in ((False, 1.0), (True, 0.0)):
        env = make(strict_irrelevance=strict)
        env.reset(options={"task_id": "multi_turn_miss_param_0"})
        assert play(env, early)[1] == expected


@pytest.mark.shared_data
def test_real_entries_play_to_one_with_the_oracle(shared_data_dir):
    for category, env_id in (
        ("base", "GenEnv-BFCL-MultiTurnBase-v0"),
        ("miss_func", "GenEnv-BFCL-MultiTurnMissFunc-v0"),
        ("miss_param", "GenEnv-BFCL-MultiTurnMissParam-v0"),
        ("long_context", "GenEnv-BFCL-MultiTurnLongContext-v0"),
    ):
        env = make(env_id, data_dir=str(shared_data_dir))
        assert len(env.unwrapped.tasks) == 200
        for index in (0, 57, 123, 199):
            total, info = play_oracle(env, f"multi_turn_{category}_{index}")
            assert total == 1.0, (category, index, info)
    obs, _ = env.reset(options={"task_id": "multi_turn_long_context_0"})
    assert '"name": "cd"' in obs


def test_a_call_over_python_s_digit_limit_is_a_decode_failure_as_officially():
    env = make()
    env.reset(options={"task_id": "multi_turn_base_0"})
    _, reward, _, _, info = env.unwrapped.step("[cd(folder=(10**4000)*(10**4000)*(10**4000))]")
    assert reward == 0.0 and "cannot be rebuilt as text" in info["decode_error"]
