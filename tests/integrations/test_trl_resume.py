"""TRL resumes a simulator id's run where it stopped: the curriculum saved with each checkpoint
(``setup.callbacks``) is restored, and the row stream goes on from one past the furthest row trained on, so
the resumed run plays the same tasks and ends with the same curriculum as the uninterrupted one."""

from __future__ import annotations

import json
import os
import pickle
import shutil

import pytest
from trainer_episodes import require

require("trl", "pip install 'genenv-gym[trl]'")
from trl import GRPOConfig, GRPOTrainer  # noqa: E402

from genenv_gym.agents.tiny_model import build_tiny  # noqa: E402
from genenv_gym.integrations.trl_env import ROW_KEY, env_reward, trl_environment  # noqa: E402
from genenv_gym.integrations.trl_resume import CURRICULUM_FILE  # noqa: E402

SIM = "GenEnv-Sim-Digits-v0"
GROUP = 2
BATCH = 4


class Played:
    """The env's reward, noting the task each rollout of each batch played."""

    __name__ = "env_reward"

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    def __call__(self, completions, **kwargs):
        self.batches.append([json.loads(p[0][ROW_KEY])["task"] for p in kwargs["prompts"]])
        return env_reward(completions, **kwargs)


def train(output_dir, resume: str | None = None, ignore_data_skip: bool = True):
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    setup = trl_environment(SIM, num_generations=GROUP)
    model, tokenizer = build_tiny()
    played = Played()
    args = GRPOConfig(
        output_dir=str(output_dir),
        num_generations=GROUP,
        per_device_train_batch_size=BATCH,
        max_completion_length=16,
        max_steps=3,
        use_cpu=True,
        report_to="none",
        save_strategy="steps",
        save_steps=1,
        logging_steps=1,
        shuffle_dataset=False,
        learning_rate=1e-3,
        seed=0,
        ignore_data_skip=ignore_data_skip,
    )
    trainer = GRPOTrainer(
        model=model,
        processing_class=tokenizer,
        reward_funcs=played,
        train_dataset=setup.dataset,
        rollout_func=setup.rollout_func,
        callbacks=setup.callbacks,
        args=args,
    )
    trainer.train(resume_from_checkpoint=resume)
    return setup, played.batches


def test_a_resumed_run_plays_the_same_tasks_and_ends_with_the_same_curriculum(tmp_path):
    full, batches = train(tmp_path / "full")
    assert len(batches) == 3
    saved = pickle.loads((tmp_path / "full" / "checkpoint-1" / CURRICULUM_FILE).read_bytes())
    assert saved["stream"]["next"] == BATCH // GROUP  # one step's groups were trained on
    shutil.copytree(tmp_path / "full" / "checkpoint-1", tmp_path / "resumed" / "checkpoint-1")
    resumed, tail = train(tmp_path / "resumed", resume=str(tmp_path / "resumed" / "checkpoint-1"))
    assert tail == batches[1:]
    after, expected = resumed.tasks.curriculum.checkpoint(), full.tasks.curriculum.checkpoint()
    for key in ("tracker", "simulator", "groups", "proposals", "groups_completed", "stream"):
        assert after[key] == expected[key], key


def test_resuming_without_ignore_data_skip_says_what_to_set(tmp_path):
    train(tmp_path)
    with pytest.raises(ValueError, match="ignore_data_skip=True"):
        train(tmp_path, resume=str(tmp_path / "checkpoint-2"), ignore_data_skip=False)
