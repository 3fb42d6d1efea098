"""The same fixed scripted episodes (the oracle's, and a fixed wrong script) give the same reward played in
process on the Gymnasium env, through TRL's environment object and through verl's agent loop, on every
registered id (every multi-turn id and every simulator id among them)."""

from __future__ import annotations

import asyncio

import pytest
from trainer_episodes import (
    ALL_IDS,
    WRONG_SCRIPT,
    first_task,
    live,
    oracle_script,
    play_trl,
    record_in_process,
    require,
)

from genenv_gym.export.exporter import rows_for
from genenv_gym.integrations.trl_env import GenEnvToolEnvironment, environment_class

pytestmark = pytest.mark.shared_data


def scripts(tasks, task) -> dict[str, list[str]]:
    return {"oracle": oracle_script(tasks, task), "wrong": list(WRONG_SCRIPT)}


def verl_reward(env_id: str, task, script: list[str]) -> float:
    from omegaconf import OmegaConf
    from trainer_episodes import ScriptedServer
    from verl.experimental.agent_loop.agent_loop import DictConfigWrap

    from genenv_gym.agents.tiny_model import build_tokenizer
    from genenv_gym.integrations.verl_agent_loop import GenEnvAgentLoop

    tokenizer = build_tokenizer()
    rollout = {"prompt_length": 10**6, "response_length": 10**6, "n": 2}
    rollout["multi_turn"] = {"max_assistant_turns": len(script)}
    config = OmegaConf.create({"actor_rollout_ref": {"rollout": rollout}, "data": {}})
    loop = GenEnvAgentLoop(
        trainer_config=DictConfigWrap(config),
        server_manager=ScriptedServer(tokenizer, script),
        tokenizer=tokenizer,
        processor=None,
        dataset_cls=None,
        data_config=DictConfigWrap(config.data),
    )
    row = rows_for([task], "verl", env_id, "train")[0]
    return asyncio.run(loop.run({}, **row)).reward_score


@pytest.mark.parametrize("real_env_id", ALL_IDS, indirect=True)
def test_scripted_episodes_score_the_same_in_process_and_through_trl(real_env_id):
    tasks = live(real_env_id)
    task = first_task(tasks)
    row = rows_for([task], "trl", real_env_id, "train")[0] | {"task": task.to_json(), "seed": 0}
    cls = environment_class(tasks)
    assert (cls is GenEnvToolEnvironment) == tasks.multi_turn()
    for name, script in scripts(tasks, task).items():
        reference = record_in_process(tasks, task, script)
        # a multi-turn env's TRL rollout plays all but the last action through `act`; a single-turn env's
        # rollout is one reply, the script's first action
        trl_script = script if cls is GenEnvToolEnvironment else script[: len(reference.actions)]
        assert play_trl(cls(tasks), row, trl_script) == pytest.approx(reference.total_reward), name
    assert record_in_process(tasks, task, scripts(tasks, task)["oracle"]).total_reward > 0


@pytest.mark.parametrize("real_env_id", ALL_IDS, indirect=True)
def test_scripted_episodes_score_the_same_through_verls_agent_loop(real_env_id):
    require("verl.experimental.agent_loop", "see docs/trainers.md")
    tasks = live(real_env_id)
    task = first_task(tasks)
    for name, script in scripts(tasks, task).items():
        reference = record_in_process(tasks, task, script)
        assert verl_reward(real_env_id, task, script) == pytest.approx(reference.total_reward), name
