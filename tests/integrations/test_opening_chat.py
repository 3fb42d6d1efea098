"""Every adapter opens an episode with the chat the env's own ``reset`` opens it with (what ``genenv eval``
shows the agent first): TRL's dataset rows, exported verl rows, the live rollout's first prompt (TRL's
rollout function) and verl's agent loop's first prompt, on every registered id (one per env class by
default, the rest under ``-m slow``). The later turns are the trainer conformance test's."""

from __future__ import annotations

import pytest
from representative_ids import every_id_the_rest_slow
from trainer_episodes import chat_ids, live, require, trl_rollouts, verl_rollouts

from genenv_gym.agents.chat_session import opening_messages
from genenv_gym.agents.tiny_model import build_tokenizer
from genenv_gym.export import export, rows_for
from genenv_gym.integrations.live_tasks import LiveTasks
from genenv_gym.integrations.trl_env import ROW_KEY
from genenv_gym.task import Task, thaw

pytestmark = pytest.mark.shared_data


@pytest.fixture(scope="module")
def tokenizer():
    return build_tokenizer()


def as_prompt(messages: list[dict]) -> list[dict[str, str]]:
    """Chat messages as a row's ``prompt`` holds them (role and content)."""
    return [{"role": str(m["role"]), "content": str(m["content"])} for m in messages]


def first_row(tasks: LiveTasks) -> tuple[Task, dict]:
    """The id's first TRL dataset row and the task it pins."""
    row = tasks.rows(limit=1)[0] if not tasks.simulated else tasks.propose_row(0)
    return tasks.task_for(row), row


def eval_opening(tasks: LiveTasks, task: Task) -> list[dict]:
    """The chat ``genenv eval``'s agent opens with: ``reset``'s ``info["messages"]``."""
    observation, info = tasks.env.reset(options={"task": task})
    return opening_messages(observation, info)


@pytest.mark.parametrize("real_env_id", every_id_the_rest_slow(), indirect=True)
def test_trl_rows_verl_rows_and_live_rollouts_open_with_the_envs_reset_chat(real_env_id, tokenizer):
    tasks = live(real_env_id)
    task, row = first_row(tasks)
    opening = eval_opening(tasks, task)
    assert row["prompt"] == as_prompt(opening)  # TRL's dataset row
    assert {k: v for k, v in row["prompt"][0].items() if k != ROW_KEY} == as_prompt(opening)[0]
    split = "train" if tasks.simulated else "test"
    verl_row = rows_for([task], "verl", real_env_id, split, domain=tasks.domain)[0]
    assert verl_row["prompt"] == as_prompt(opening)  # an exported verl row
    _, prompts = trl_rollouts(tasks, [(task, ["nothing"])], tokenizer)
    assert prompts[0][0] == chat_ids(tokenizer, opening)  # the live rollout's first prompt
    require("verl.experimental.agent_loop", "see docs/trainers.md")
    _, servers = verl_rollouts(real_env_id, [(task, ["nothing"])], tokenizer)
    assert servers[0].prompts[0] == chat_ids(tokenizer, opening)  # verl's agent loop's first prompt


def test_genenv_export_writes_the_step_envs_transcript_as_the_prompt(alfworld_tiny_root, tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    kwargs = {"data_dir": alfworld_tiny_root}
    result = export("GenEnv-ALFWorld-Step-v0", "verl", tmp_path / "step.parquet", limit=1, env_kwargs=kwargs)
    rows = pq.read_table(result.path).to_pylist()
    tasks = LiveTasks("GenEnv-ALFWorld-Step-v0", env_kwargs=kwargs)
    try:
        for row in rows[:2]:
            task = Task.from_json(row["reward_model"]["ground_truth"])
            opening = eval_opening(tasks, task)
            assert row["prompt"] == as_prompt(opening)
            assert opening != thaw(task.messages) and "Looking quickly around you" in opening[1]["content"]
    finally:
        tasks.close()
