"""Run by ``test_trl_ranks.py`` under ``torch.distributed.run``: two GRPOTrainer steps on a simulator id in
each of two CPU processes, both on one shared curriculum (a Ray actor in the test's Ray); each rank writes
the proposals it played to ``OUT/rank{r}.json``."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import ray
import torch
from torchrun_exit import leave_without_teardown

ENV_ID = "GenEnv-Sim-Digits-v0"
GROUP = 4  # one group of 4 per step, 2 rollouts on each rank


def main(out: Path, address: str) -> None:
    torch.set_num_threads(1)
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    from trl import GRPOConfig, GRPOTrainer

    from genenv_gym.agents.tiny_model import build_tiny
    from genenv_gym.curriculum_service.ray_actor import shared_curriculum
    from genenv_gym.integrations.trl_env import row_of, trl_environment

    ray.init(address=address, log_to_driver=False)
    curriculum = shared_curriculum("trl-ranks", ENV_ID, group_size=GROUP)
    setup = trl_environment(ENV_ID, GROUP, curriculum=curriculum)
    played: list[list[str]] = []

    def reward(completions, prompts, **kwargs):
        played.append([row_of(p)["proposal_id"] for p in prompts])
        return [float(r) for r in kwargs["genenv_reward"]]

    reward.__name__ = "env_reward"
    torch.manual_seed(0)
    model, tokenizer = build_tiny()
    args = GRPOConfig(
        output_dir=str(out / "trainer"),
        num_generations=GROUP,
        per_device_train_batch_size=GROUP // 2,
        max_completion_length=16,
        max_steps=2,
        use_cpu=True,
        report_to="none",
        save_strategy="no",
        logging_steps=1,
        shuffle_dataset=False,
        seed=0,
    )
    trainer = GRPOTrainer(
        model=model,
        processing_class=tokenizer,
        reward_funcs=reward,
        train_dataset=setup.dataset,
        rollout_func=setup.rollout_func,
        args=args,
    )
    trainer.train()
    rank = torch.distributed.get_rank()
    (out / f"rank{rank}.json").write_text(json.dumps({"played": played, "updates": setup.tasks.updates}))
    leave_without_teardown()


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2])
