"""``GenEnv-BFCL-LongContext-Step-v0``: each turn of an entry as its own task (the paper's protocol)."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest
from multiturn_play import play, play_oracle

import genenv_gym  # noqa: F401  (registers the ids)
from genenv_gym.envs.bfcl_multiturn.calls import make_instances, parse_call_string, run_call
from genenv_gym.envs.bfcl_multiturn.checker import (
    EMPTY_TURN,
    FORCE_TERMINATED,
    IRRELEVANCE_ERROR,
    RESPONSE_MISMATCH,
    STATE_MISMATCH,
    state_differences,
)
from genenv_gym.envs.bfcl_multiturn.domain import BFCLMultiTurnStepDomain
from genenv_gym.envs.bfcl_multiturn.episode import ORACLE_DONE, TurnEpisode
from genenv_gym.fixtures import FIXTURES_DIR
from genenv_gym.task import thaw

ENV_ID = "GenEnv-BFCL-LongContext-Step-v0"
ENTRY = "multi_turn_long_context_0"


def make(**kwargs):
    kwargs.setdefault("data_dir", str(FIXTURES_DIR))
    return gym.make(ENV_ID, **kwargs)


def ground_truth_state(evaluation: dict, turns: int) -> dict:
    """Fresh backends of an entry after its first ``turns`` ground-truth turns, run call by call."""
    instances = make_instances(
        evaluation["involved_classes"], evaluation["initial_config"], evaluation["long_context"]
    )
    for turn in evaluation["ground_truth"][:turns]:
        for text in turn:
            run_call(instances, parse_call_string(text))
    return instances


def test_one_task_per_turn_and_the_oracle_scores_one_on_every_fixture_task():
    env = make()
    assert [t.id for t in env.unwrapped.tasks] == [f"{ENTRY}#turn{k}" for k in range(3)]
    domain: BFCLMultiTurnStepDomain = env.unwrapped.domain
    for task in env.unwrapped.tasks:
        total, info = play_oracle(env, task.id)
        assert total == 1.0 and info["success"], (task.id, info)
        assert info["turn_verdicts"] == [{"turn": task.evaluation["turn"], "valid": True, "checked": True}]
        assert info["metrics"] == {"success": 1.0, "checked": 1.0}
        assert domain.verify(task, domain.oracle_action(task)).success
        assert domain.validate(task) == []
    for categories in (["multi_turn_base"], ["multi_turn_miss_func"], ["multi_turn_miss_param"]):
        other = make(categories=categories)
        for task in other.unwrapped.tasks:
            assert play_oracle(other, task.id)[0] == 1.0, task.id


def test_the_state_before_a_turn_is_the_earlier_ground_truth_executed():
    env = make()
    for task in env.unwrapped.tasks:
        turn = task.evaluation["turn"]
        env.reset(options={"task_id": task.id})
        episode: TurnEpisode = env.unwrapped.episode
        assert episode.turn == turn and episode.steps_in_turn == 0
        expected = ground_truth_state(thaw(task.evaluation), turn)
        assert state_differences(episode.instances, expected) == {}
        assert state_differences(episode.checker.truth.instances, expected) == {}
    env.reset(options={"task_id": f"{ENTRY}#turn1"})  # turn 0 went into lab/
    _, _, _, _, step = env.step("[ls()]")
    assert step["execution_results"] == ['{"current_directory_content": ["results.txt", "plan.md", "old"]}']


def test_observation_is_the_prompt_then_the_ground_truth_history_then_the_turn():
    env = make()
    obs, info = env.reset(options={"task_id": f"{ENTRY}#turn2"})
    assert obs.startswith("<|system|>\nYou are an expert in composing functions.")
    history = obs.split("<|user|>\n", 1)[1]
    assert history == (
        "List everything in the lab folder, hidden entries too.\n\n"
        "<|assistant|>\n[cd(folder='lab'), ls(a=True)]\n\n"
        '<|tool|>\n{"current_working_directory": "lab"}\n\n'
        '<|tool|>\n{"current_directory_content": ["results.txt", "plan.md", "old"]}\n\n'
        f"<|assistant|>\n{ORACLE_DONE}\n\n"
        "<|user|>\nCopy plan.md into the old folder.\n\n"
        "<|assistant|>\n[cp(source='plan.md', destination='old')]\n\n"
        "<|tool|>\n{\"result\": \"'plan.md' copied to 'old/plan.md'\"}\n\n"
        f"<|assistant|>\n{ORACLE_DONE}\n\n"
        "<|user|>\nCheck the pressure of my tyres."
    )
    assert info["task_id"] == f"{ENTRY}#turn2" and info["category"] == "multi_turn_long_context"
    assert info["messages"] == env.unwrapped.episode.messages
    assert info["difficulty"]["turn"] == 2 and info["difficulty"]["turn_calls"] == 1


@pytest.mark.parametrize(
    ("task_id", "actions", "error_type"),
    [
        (f"{ENTRY}#turn1", ["[cp(source='results.txt', destination='old')]", "done"], STATE_MISMATCH),
        (f"{ENTRY}#turn2", ["[displayCarStatus(option='fuel')]", "done"], RESPONSE_MISMATCH),
        (f"{ENTRY}#turn0", ["I listed it."], EMPTY_TURN),
    ],
)
def test_a_wrong_turn_fails_with_the_official_error_type(task_id, actions, error_type):
    env = make()
    env.reset(options={"task_id": task_id})
    _, reward, terminated, _, info = play(env, actions)
    assert (reward, terminated, info["success"], info["error_type"]) == (0.0, True, False, error_type)
    assert info["turn_verdict"]["error_type"] == error_type
    assert info["metrics"] == {"success": 0.0, "checked": 1.0}


def test_seeded_resets_reproduce_the_turns():
    def sequence(seed: int) -> list[tuple[str, str]]:
        env = make()
        obs, info = env.reset(seed=seed)
        out = [(info["task_id"], obs)]
        for _ in range(5):
            obs, info = env.reset()
            out.append((info["task_id"], obs))
        return out

    assert sequence(11) == sequence(11)
    assert len({task_id for task_id, _ in sequence(11)}) > 1


def test_the_step_limit_force_terminates_a_turn_unless_it_is_the_last():
    env = make(max_steps_per_turn=1)
    env.reset(options={"task_id": f"{ENTRY}#turn1"})
    steps = [env.step("[cp(source='plan.md', destination='old')]"), env.step("[pwd()]")]
    assert [s[2] for s in steps] == [False, True]
    assert steps[-1][4]["error_type"] == FORCE_TERMINATED and steps[-1][1] == 0.0
    env.reset(options={"task_id": f"{ENTRY}#turn2"})
    _, reward, terminated, _, info = play(env, ["[check_tire_pressure()]", "[check_tire_pressure()]"])
    assert (reward, terminated, info["success"]) == (1.0, True, True)


def test_an_empty_ground_truth_turn_is_unchecked_unless_strict():
    task_id = "multi_turn_miss_param_0#turn1"
    for strict, expected in ((False, 1.0), (True, 0.0)):
        env = make(categories=["multi_turn_miss_param"], strict_irrelevance=strict)
        env.reset(options={"task_id": task_id})
        _, reward, _, _, info = play(env, ["[close_ticket(ticket_id=7)]", "ok"])
        assert reward == expected and info["metrics"]["checked"] == 0.0
        assert info["error_type"] == (IRRELEVANCE_ERROR if strict else None)


def test_a_bad_turn_in_the_task_is_refused():
    task = make().unwrapped.tasks[0]
    bad = type(task)(**{**task.to_dict(), "evaluation": {**thaw(task.evaluation), "turn": 9}})
    assert BFCLMultiTurnStepDomain().validate(bad) != []
    with pytest.raises(ValueError, match="turn 9"):
        TurnEpisode(bad)
    assert json.loads(BFCLMultiTurnStepDomain().oracle_action(task))[-1] == ORACLE_DONE


@pytest.mark.shared_data
def test_real_data_turn_ids_count_and_oracle(shared_data_dir):
    env = make(data_dir=str(shared_data_dir))
    tasks = env.unwrapped.tasks
    assert len(tasks) == 734 and len({t.id for t in tasks}) == 734
    assert tasks[0].id == "multi_turn_long_context_0#turn0"
    assert tasks[-1].id.startswith("multi_turn_long_context_199#turn")
    assert all(t.category == "multi_turn_long_context" for t in tasks)
    for task_id in ("multi_turn_long_context_57#turn0", "multi_turn_long_context_123#turn2"):
        assert play_oracle(env, task_id)[0] == 1.0, task_id
    env.reset(options={"task_id": "multi_turn_long_context_123#turn2"})
    episode = env.unwrapped.episode
    expected = ground_truth_state(thaw(episode.task.evaluation), 2)
    assert state_differences(episode.instances, expected) == {}
    assert env.unwrapped.episode.messages == thaw(episode.task.messages)
