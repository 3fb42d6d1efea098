"""The same fixed scripted episodes (the oracle's, and a fixed wrong script) give the same reward played in
process on the Gymnasium env, through TRL's rollout function, through verl's agent loop and through
SkyRL-gym's ``BaseTextEnv`` (with the same chat before every turn as ``genenv eval``), on every registered
id (every multi-turn id and every simulator id among them)."""

from __future__ import annotations

import pytest
from trainer_episodes import (
    ALL_IDS,
    WRONG_SCRIPT,
    first_task,
    live,
    oracle_script,
    record_in_process,
    require,
    trl_rollouts,
    verl_rollouts,
)

from genenv_gym.agents.tiny_model import build_tokenizer

pytestmark = pytest.mark.shared_data


@pytest.fixture(scope="module")
def tokenizer():
    return build_tokenizer()


def scripts(tasks, task) -> dict[str, list[str]]:
    return {"oracle": oracle_script(tasks, task), "wrong": list(WRONG_SCRIPT)}


@pytest.mark.parametrize("real_env_id", ALL_IDS, indirect=True)
def test_scripted_episodes_score_the_same_in_process_and_through_trl(real_env_id, tokenizer):
    tasks = live(real_env_id)
    task = first_task(tasks)
    plays = [(task, script) for script in scripts(tasks, task).values()]
    records, _ = trl_rollouts(tasks, plays, tokenizer)
    for (name, script), record in zip(scripts(tasks, task).items(), records, strict=True):
        reference = record_in_process(tasks, task, script)
        assert record.reward == pytest.approx(reference.total_reward), name
        assert record.turns == len(reference.actions) and record.finished == reference.finished, name
    assert record_in_process(tasks, task, scripts(tasks, task)["oracle"]).total_reward > 0


@pytest.mark.parametrize("real_env_id", ALL_IDS, indirect=True)
def test_scripted_episodes_score_the_same_through_verls_agent_loop(real_env_id, tokenizer):
    require("verl.experimental.agent_loop", "see docs/trainers.md")
    tasks = live(real_env_id)
    task = first_task(tasks)
    plays = [(task, script) for script in scripts(tasks, task).values()]
    outputs, _ = verl_rollouts(real_env_id, plays, tokenizer)
    for (name, script), output in zip(scripts(tasks, task).items(), outputs, strict=True):
        reference = record_in_process(tasks, task, script)
        assert output.reward_score == pytest.approx(reference.total_reward), name
        assert output.extra_fields["genenv_finished"] == reference.finished, name


@pytest.mark.parametrize("real_env_id", ALL_IDS, indirect=True)
def test_scripted_episodes_play_the_same_through_skyrl_gym(real_env_id):
    require("skyrl_gym", "pip install 'genenv-gym[skyrl]'")
    from genenv_gym.integrations.skyrl_env import GenEnvSkyRLEnv, skyrl_row

    tasks = live(real_env_id)
    task = first_task(tasks)
    row = skyrl_row(tasks, {"task_id": task.id} if tasks.tasks else {"task": task.to_json()})
    for name, script in scripts(tasks, task).items():
        reference = record_in_process(tasks, task, script)
        env = GenEnvSkyRLEnv.from_tasks(tasks, row)
        chat, _ = env.init(row["prompt"])
        chats, total, done, fresh = [], 0.0, False, [0]
        for turn, action in enumerate(script):
            chats.append([dict(m) for m in env.chat])
            out = env.step(action)
            total += out["reward"]
            if out["metadata"]["replaces_chat"]:
                fresh.append(turn + 1)
            if out["done"]:
                done = True
                break
        env.close()
        assert chat == reference.chats[0], name
        assert chats == reference.chats, name
        assert total == pytest.approx(reference.total_reward) and done == reference.finished, name
        assert fresh == reference.chat_starts, name
