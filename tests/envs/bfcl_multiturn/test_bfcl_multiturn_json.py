"""BFCL multi-turn envs with ``action_format="json"``: JSON tool calls, the JSON prompt, the oracle."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

import genenv_gym  # noqa: F401  (registers the ids)
from genenv_gym.agents.scripted import OracleAgent
from genenv_gym.envs.bfcl.decode_errors import DecodeError
from genenv_gym.envs.bfcl_multiturn.calls import Call, decode_calls, render_calls
from genenv_gym.envs.bfcl_multiturn.domain import BFCLMultiTurnDomain
from genenv_gym.fixtures import FIXTURES_DIR

JSON_FORMAT_LINE = '[{"name": "func_name1", "arguments": {"param1": "value1"}}'
PYTHON_FORMAT_LINE = "[func_name1(params_name1=params_value1"


def make(env_id: str = "GenEnv-BFCL-MultiTurn-v0", **kwargs):
    kwargs.setdefault("data_dir", str(FIXTURES_DIR))
    kwargs.setdefault("action_format", "json")
    return gym.make(env_id, **kwargs)


def play_oracle(env, task_id: str) -> tuple[float, list[str], dict]:
    agent = OracleAgent(env)
    obs, info = env.reset(options={"task_id": task_id})
    total, done, actions = 0.0, False, []
    while not done:
        actions.append(agent.act(obs, info))
        obs, reward, terminated, truncated, step_info = env.step(actions[-1])
        total += reward
        done = terminated or truncated
    return total, actions, step_info


def test_decode_calls_reads_json_tool_calls_with_the_single_turn_decoder():
    text = (
        '```json\n[{"name": "cd", "arguments": {"folder": "lab"}}, '
        '{"function": {"name": "ls", "arguments": "{}"}}]\n```'
    )
    assert decode_calls(text, "json") == [Call("cd", {"folder": "lab"}), Call("ls", {})]
    assert decode_calls("[]", "json") == []
    # a dict argument stays a dict (the official FC path rebuilds it with repr), never a nested call
    nested = '[{"name": "f", "arguments": {"x": {"g": {}}}}]'
    assert decode_calls(nested, "json") == [Call("f", {"x": {"g": {}}})]
    with pytest.raises(DecodeError):
        decode_calls("[cd(folder='lab')]", "json")
    with pytest.raises(ValueError, match="action_format"):
        decode_calls("[]", "xml")


def test_render_calls_round_trips_through_the_json_decoder():
    calls = [Call("cd", {"folder": "lab"}), Call("mean", {"numbers": [3.0, 8.0]})]
    assert decode_calls(render_calls(calls, "json"), "json") == calls
    assert render_calls(calls) == "[cd(folder='lab'), mean(numbers=[3.0, 8.0])]"


@pytest.mark.parametrize("env_id", ["GenEnv-BFCL-MultiTurn-v0", "GenEnv-BFCL-LongContext-Step-v0"])
def test_prompt_describes_the_json_format(env_id):
    obs, info = make(env_id).reset(seed=0)
    assert JSON_FORMAT_LINE in obs and PYTHON_FORMAT_LINE not in obs
    assert JSON_FORMAT_LINE in info["messages"][0]["content"]
    python_obs, _ = make(env_id, action_format="python").reset(seed=0)
    assert PYTHON_FORMAT_LINE in python_obs and JSON_FORMAT_LINE not in python_obs


@pytest.mark.parametrize("env_id", ["GenEnv-BFCL-MultiTurn-v0", "GenEnv-BFCL-LongContext-Step-v0"])
def test_json_oracle_scores_one_on_every_fixture_task(env_id):
    env = make(env_id)
    for task in env.unwrapped.tasks:
        total, actions, info = play_oracle(env, task.id)
        assert total == 1.0, (task.id, info)
        calls = [a for a in actions if a.startswith("[")]
        assert calls and all(isinstance(json.loads(a), list) for a in calls)


def test_step_env_replays_earlier_turns_in_json():
    env = make("GenEnv-BFCL-LongContext-Step-v0")
    _, info = env.reset(options={"task_id": "multi_turn_long_context_0#turn1"})
    assistant = [m["content"] for m in info["messages"] if m["role"] == "assistant"]
    assert json.loads(assistant[0]) == [
        {"name": "cd", "arguments": {"folder": "lab"}},
        {"name": "ls", "arguments": {"a": True}},
    ]


def test_json_calls_run_and_python_text_ends_the_turn():
    env = make()
    env.reset(options={"task_id": "multi_turn_base_0"})
    _, _, terminated, _, info = env.step('[{"name": "cd", "arguments": {"folder": "lab"}}]')
    assert not terminated and info["execution_results"] == ['{"current_working_directory": "lab"}']
    # Python-style text is not JSON: it decodes to no call and ends the turn (which then fails)
    _, _, _, _, info = env.step("[grep(file_name='results.txt', pattern='failed')]")
    assert "decode_error" in info and not info["turn_verdict"]["valid"]


def test_domain_verifies_a_json_transcript_and_rejects_bad_formats():
    domain = BFCLMultiTurnDomain(action_format="json")
    task = next(t for t in domain.load_tasks(["multi_turn_base"], str(FIXTURES_DIR)) if t.id.endswith("_1"))
    transcript = [
        '[{"name": "fillFuelTank", "arguments": {"fuelAmount": 20.5}}]',
        "Done.",
        '[{"name": "mean", "arguments": {"numbers": [3.0, 8.0, 10.0]}}]',
        "Done.",
    ]
    assert domain.verify(task, json.dumps(transcript)).success
    assert domain.verify(task, domain.oracle_action(task)).success
    assert not domain.verify(task, json.dumps(["[fillFuelTank(fuelAmount=20.5)]", "ok", "ok"])).success
    with pytest.raises(ValueError, match="action_format"):
        BFCLMultiTurnDomain(action_format="yaml")
    with pytest.raises(ValueError, match="action_format"):
        make(action_format="yaml")


def test_real_entries_pass_with_the_json_oracle(shared_data_dir):
    env = make(data_dir=str(shared_data_dir), categories=["multi_turn_miss_func", "multi_turn_miss_param"])
    for task in env.unwrapped.tasks[::20]:
        total, _, info = play_oracle(env, task.id)
        assert total == 1.0, (task.id, info)
