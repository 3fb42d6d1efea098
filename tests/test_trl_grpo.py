"""TRL's real GRPOTrainer trains a tiny random model for two optimizer steps on our envs through the adapter:
the generated simulator id (its curriculum updated by every group) and a multi-turn benchmark id (its
``act`` tool called by TRL's own tool loop)."""

from __future__ import annotations

import os

import pytest
from trainer_episodes import require

require("trl", "pip install 'genenv-gym[trl]'")
import torch  # noqa: E402
from trl import GRPOConfig, GRPOTrainer  # noqa: E402

from genenv_gym.agents.tiny_model import build_tiny  # noqa: E402
from genenv_gym.integrations.trl_env import env_reward, trl_environment  # noqa: E402

pytestmark = pytest.mark.shared_data

GROUP = 2
BATCH = 4  # two groups of two rollouts per optimizer step


@pytest.fixture
def real_data(shared_data_dir, monkeypatch):
    monkeypatch.setenv("GENENV_DATA_DIR", str(shared_data_dir))


class PlayedTasks:
    """The env's reward function, noting which task and how many steps each rollout played."""

    __name__ = "env_reward"

    def __init__(self) -> None:
        self.batches: list[list[tuple[str, int, float]]] = []

    def __call__(self, completions, environments, **kwargs):
        rewards = env_reward(completions, environments, **kwargs)
        played = [(e.episode.task.id, e.episode.steps, r) for e, r in zip(environments, rewards, strict=True)]
        self.batches.append(played)
        return rewards


def grpo(setup, model, tokenizer, tmp_path, reward):
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    args = GRPOConfig(
        output_dir=str(tmp_path),
        num_generations=GROUP,
        per_device_train_batch_size=BATCH,
        max_completion_length=48,
        max_steps=2,
        use_cpu=True,
        report_to="none",
        save_strategy="no",
        logging_steps=1,
        shuffle_dataset=False,
        learning_rate=1e-3,
        max_tool_calling_iterations=2,
        seed=0,
    )
    trainer = GRPOTrainer(
        model=model,
        processing_class=tokenizer,
        reward_funcs=reward,
        train_dataset=setup.dataset,
        environment_factory=setup.environment_factory,
        args=args,
    )
    trainer.train()
    assert trainer.state.global_step == 2
    return trainer


def assert_groups_play_one_task(batches):
    assert len(batches) == 2
    for batch in batches:
        assert len(batch) == BATCH
        groups = [batch[i : i + GROUP] for i in range(0, BATCH, GROUP)]
        for group in groups:
            assert len({task_id for task_id, _, _ in group}) == 1
        assert len({group[0][0] for group in groups}) == len(groups)


def test_grpo_two_steps_on_the_simulator_feeds_every_group_to_its_curriculum(tmp_path, real_data):
    setup = trl_environment("GenEnv-Sim-Digits-v0", num_generations=GROUP)
    assert not setup.multi_turn
    model, tokenizer = build_tiny()
    reward = PlayedTasks()
    grpo(setup, model, tokenizer, tmp_path, reward)
    assert_groups_play_one_task(reward.batches)
    # every group of the two steps updated the simulator once, with its GROUP attempts
    assert len(setup.tasks.updates) == 2 * BATCH // GROUP
    assert all(update["outcomes"] == 1.0 for update in setup.tasks.updates)
    assert setup.tasks.base.tracker.estimate() is not None


def tool_calling_model(setup, tokenizer, steps: int = 120):
    """A tiny model taught (a few supervised steps) to answer every prompt with one ``act`` call."""
    from transformers.utils import get_json_schema

    model, _ = build_tiny()
    schema = get_json_schema(setup.environment_factory().act)
    reply = (
        '<tool_call>\n{"name": "act", "arguments": {"action": "<search> capital </search>"}}\n</tool_call>'
    )
    texts = []
    for row in setup.dataset:
        prompt = tokenizer.apply_chat_template(
            row["prompt"], tools=[schema], tokenize=False, add_generation_prompt=True
        )
        texts.append((prompt, reply + tokenizer.eos_token))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    model.train()
    for step in range(steps):
        prompt, target = texts[step % len(texts)]
        p_ids = tokenizer.encode(prompt, add_special_tokens=False)
        t_ids = tokenizer.encode(target, add_special_tokens=False)
        ids = torch.tensor([p_ids + t_ids])
        labels = torch.tensor([[-100] * len(p_ids) + t_ids])
        loss = model(input_ids=ids, labels=labels).loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return model


def test_grpo_two_steps_on_a_multi_turn_benchmark_plays_the_act_tool(tmp_path, real_data):
    setup = trl_environment("GenEnv-Bamboogle-v0", num_generations=GROUP, limit=4)
    assert setup.multi_turn
    _, tokenizer = build_tiny()
    model = tool_calling_model(setup, tokenizer)
    reward = PlayedTasks()
    trainer = grpo(setup, model, tokenizer, tmp_path, reward)
    assert_groups_play_one_task(reward.batches)
    # TRL's tool loop called `act`, which played the search on the env
    assert any(steps >= 1 for batch in reward.batches for _, steps, _ in batch)
    calls = [
        row["tools/call_frequency"] for row in trainer.state.log_history if "tools/call_frequency" in row
    ]
    assert calls and max(calls) > 0
