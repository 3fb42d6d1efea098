"""API-Bank on the real data: sample counts, official gold-call scores and the official gold failures."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

import genenv_gym  # noqa: F401 - registers the ids
from genenv_gym.agents.scripted import OracleAgent, RandomAgent
from genenv_gym.envs.apibank.known_defects import DESCRIPTION_DRIFT, OFFICIAL_GOLD_FAILURES

pytestmark = pytest.mark.shared_data


def _play(env, agent) -> dict[str, float]:
    rewards = {}
    for task in env.tasks:
        obs, info = env.reset(options={"task_id": task.id})
        rewards[task.id] = env.step(agent.act(obs, info))[1]
    return rewards


@pytest.mark.parametrize(
    ("env_id", "count", "gold_passes"),
    [("GenEnv-APIBank-v0", 399, 347), ("GenEnv-APIBank-L2-v0", 135, 95)],
)
def test_official_gold_score_and_its_failures(shared_data_dir, env_id, count, gold_passes):
    env = gym.make(env_id, data_dir=str(shared_data_dir)).unwrapped
    assert len(env.tasks) == count
    rewards = _play(env, OracleAgent(env))
    assert sum(rewards.values()) == gold_passes
    failures = {task_id for task_id, reward in rewards.items() if reward == 0.0}
    expected = {t for t in OFFICIAL_GOLD_FAILURES if t.startswith(env.tasks[0].id.split("/")[0])}
    assert failures == expected
    random_rewards = _play(env, RandomAgent(env, seed=0))
    assert sum(random_rewards.values()) / count < 0.05


def test_response_samples_and_their_oracle(shared_data_dir):
    env = gym.make("GenEnv-APIBank-Response-v0", data_dir=str(shared_data_dir)).unwrapped
    assert len(env.tasks) == 375 + 103
    assert set(_play(env, OracleAgent(env)).values()) == {1.0}


def test_replayed_apis_answer_their_recorded_inputs(shared_data_dir):
    env = gym.make("GenEnv-APIBank-v0", data_dir=str(shared_data_dir)).unwrapped
    replayed = [
        t for t in env.tasks if t.evaluation["ground_truth"]["api_name"] in ("Dictionary", "Translate")
    ]
    assert len(replayed) == 9
    oracle = OracleAgent(env)
    for task in replayed:
        obs, info = env.reset(options={"task_id": task.id})
        assert env.step(oracle.act(obs, info))[1] == 1.0


def _step(env, task_id: str, action: str) -> tuple[float, dict]:
    env.reset(options={"task_id": task_id})
    _, reward, _, _, info = env.step(action)
    return reward, info


def test_official_toolsearcher_returns_the_present_day_entry(shared_data_dir):
    """A recorded ToolSearcher output that holds an older API entry fails officially (the official
    ToolSearcher formats today's entry), whatever the ranking; one whose entry is today's passes. The
    corrected mode compares with the recorded output and passes both."""
    drifted = "level-2-toolsearcher/AddAgenda-level-3-1.jsonl#0"
    current = "level-2-toolsearcher/Calculator-level-3-1.jsonl#0"
    assert OFFICIAL_GOLD_FAILURES[drifted] == DESCRIPTION_DRIFT and current not in OFFICIAL_GOLD_FAILURES
    for scoring, expected in (
        ("official", {drifted: 0.0, current: 1.0}),
        ("corrected", {drifted: 1.0, current: 1.0}),
    ):
        env = gym.make("GenEnv-APIBank-L2-v0", data_dir=str(shared_data_dir), scoring=scoring).unwrapped
        oracle = OracleAgent(env)
        for task_id, reward in expected.items():
            obs, info = env.reset(options={"task_id": task_id})
            _, got, _, _, info = env.step(oracle.act(obs, info))
            assert got == reward, (scoring, task_id, info.get("error"))
            if scoring == "official" and task_id == drifted:
                assert info["error_type"] == "output_mismatch"
                entries = json.loads(info["api_output"])
                assert [e["name"] for e in entries] == ["GetUserToken", "AddAgenda"]
                assert entries[0]["description"] != "Get the user token."  # the recorded text


@pytest.mark.parametrize(
    ("task_id", "action"),
    [
        ("level-1-given-desc/Dictionary-level-1-1.jsonl#0", "[Dictionary(keyword=' Perplexed ')]"),
        ("level-1-given-desc/Translate-level-1-1.jsonl#0", None),
    ],
)
def test_replayed_apis_read_their_parameters_as_officially(shared_data_dir, task_id, action):
    """The official Dictionary normalises the keyword before looking it up, and the official Translate
    reads language names and codes in any case: such calls get the recorded reply and pass."""
    env = gym.make("GenEnv-APIBank-v0", data_dir=str(shared_data_dir)).unwrapped
    truth = next(t for t in env.tasks if t.id == task_id).evaluation["ground_truth"]
    if action is None:  # the target language by its name, upper-cased
        names = {"fr": "French", "es": "Spanish"}
        params = dict(truth["param_dict"], tgt_lang=names[truth["param_dict"]["tgt_lang"]].upper())
        action = "[Translate(" + ", ".join(f"{k}='{v}'" for k, v in params.items()) + ")]"
    assert _step(env, task_id, action)[0] == 1.0
    wrong = action.replace("Perplexed", "Perplexd").replace("='FRENCH'", "='Klingon'")
    wrong = wrong.replace("='SPANISH'", "='Klingon'")
    reward, info = _step(env, task_id, wrong)
    assert reward == 0.0 and info["error_type"] == "exception"


def test_response_scores_equal_the_rouge_package_on_every_real_reply(shared_data_dir):
    """The scorer (repeats scored once, a length cap) gives the package's own numbers on every real reply:
    as itself, against another reply, shuffled, doubled, with its sentences repeated, and halved."""
    import random

    from rouge import Rouge

    from genenv_gym.envs.apibank.rouge_score import MAX_SCORED_CHARS, rouge_l

    env = gym.make("GenEnv-APIBank-Response-v0", data_dir=str(shared_data_dir)).unwrapped
    replies = [task.evaluation["ground_truth"]["text"] for task in env.tasks]
    assert max(map(len, replies)) <= MAX_SCORED_CHARS / 2
    rng = random.Random(0)
    for reference in replies:
        words = reference.split()
        rng.shuffle(words)
        for hypothesis in (
            reference,
            rng.choice(replies),
            " ".join(words),
            reference + " " + reference,
            reference.replace(".", ". ."),
            reference[: len(reference) // 2],
        ):
            official = round(float(Rouge().get_scores(hypothesis, reference)[0]["rouge-l"]["f"]), 4)
            assert rouge_l(reference, hypothesis) == (official, None)
