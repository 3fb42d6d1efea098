"""GRPO with TRL on a live genenv env: the env's own reward, its tool for multi-turn envs, and for a
simulator id the curriculum fed by every group (docs/trainers.md).

    pip install -e ".[trl]"
    python examples/trl_grpo.py --env GenEnv-Sim-Digits-v0 --steps 2     # a tiny random model, on the CPU
    python examples/trl_grpo.py --env GenEnv-Bamboogle-v0 --model Qwen/Qwen3-0.6B --num-generations 8

``--model tiny`` builds a random-weight model locally (no download); any other value is a causal LM that
``from_pretrained`` loads, whose chat template renders tool calls.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from typing import Any

os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="GenEnv-Sim-Digits-v0")
    parser.add_argument("--model", default="tiny")
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--num-generations", type=int, default=4)
    parser.add_argument("--groups-per-step", type=int, default=2)
    parser.add_argument("--max-completion-length", type=int, default=64)
    parser.add_argument("--limit", type=int, default=None, help="at most this many benchmark tasks")
    parser.add_argument("--output-dir", default=None)
    args = parser.parse_args(argv)

    import torch
    from trl import GRPOConfig, GRPOTrainer

    from genenv_gym.integrations.trl_env import trl_environment

    if args.model == "tiny":
        from genenv_gym.agents.tiny_model import build_tiny

        model, tokenizer = build_tiny()
    else:
        from transformers import AutoModelForCausalLM, AutoTokenizer

        model = AutoModelForCausalLM.from_pretrained(args.model)
        tokenizer = AutoTokenizer.from_pretrained(args.model, padding_side="left")
    setup = trl_environment(args.env, num_generations=args.num_generations, limit=args.limit)
    config = GRPOConfig(
        output_dir=args.output_dir or tempfile.mkdtemp(prefix="genenv-trl-"),
        num_generations=args.num_generations,
        per_device_train_batch_size=args.num_generations * args.groups_per_step,
        max_completion_length=args.max_completion_length,
        max_steps=args.steps,
        shuffle_dataset=False,  # a simulator's rows are proposed as the trainer reads them
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        use_cpu=not torch.cuda.is_available(),
        bf16=torch.cuda.is_available(),
    )
    trainer = GRPOTrainer(
        model=model,
        processing_class=tokenizer,
        reward_funcs=setup.reward_func,
        train_dataset=setup.dataset,
        environment_factory=setup.environment_factory,
        args=config,
    )
    trainer.train()
    rewards = [row["reward"] for row in trainer.state.log_history if "reward" in row]
    summary: dict[str, Any] = {
        "env": args.env,
        "offered_as": "act tool" if setup.multi_turn else "reply",
        "steps": trainer.state.global_step,
        "reward_per_step": rewards,
    }
    if setup.tasks.simulated:
        state = setup.tasks.base.curriculum_state()
        updates = setup.tasks.updates
        summary["curriculum"] = {
            # every finished GRPO group reaches the simulator; RWR takes a step only on a group whose success
            # p is in the band |p - alpha| <= k_min, so a model that always fails (or always succeeds) gives
            # groups_reported > 0 and rwr_steps == 0
            "groups_reported": len(updates),
            "rwr_steps": int(sum(u["kept_batches"] for u in updates)),
            "mean_level": state["mean_level"],
            "level_probs": [round(p, 4) for p in state["level_probs"]],
        }
    print(json.dumps(summary, default=str))
    return summary


if __name__ == "__main__":
    main()
