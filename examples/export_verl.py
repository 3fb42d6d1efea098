"""Training data for verl: export an env's tasks as verl's RL parquet, grade completions with the reward
function verl will call, and print the ``verl.trainer.main_ppo`` line that trains on them (README,
"Training data for LLM trainers"; docs/trainers.md).

    pip install -e ".[export]"
    python examples/export_verl.py                                   # GenEnv-BFCL-v0, 20 tasks per category
    python examples/export_verl.py --env GenEnv-BFCL-MultiTurn-v0 --limit 5 --out data/bfcl_mt.parquet

verl itself is not needed to run this: the rows are read back with pyarrow and graded with
``genenv_gym.export.rewards.compute_score`` exactly as verl's reward manager calls it (a single-turn env's
reference answer scores 1, a wrong one 0). Multi-turn ids are played live by the ``genenv_agent`` loop
during training; their rows carry ``agent_name`` for it, and ``scores`` says why none is computed here. With
no benchmark data installed the export reads the small fixtures shipped with the package (and warns);
``genenv export`` refuses to.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="GenEnv-BFCL-v0")
    parser.add_argument("--limit", type=int, default=20, help="benchmark envs: tasks per category")
    parser.add_argument("--num-tasks", type=int, default=100, help="simulator envs: tasks to generate")
    parser.add_argument("--out", default=None, help="the parquet file (default: a temporary folder)")
    parser.add_argument("--model", default="Qwen/Qwen3-0.6B", help="the model in the printed verl line")
    args = parser.parse_args(argv)

    import pyarrow.parquet as pq

    from genenv_gym.domain import SingleTurnEpisode
    from genenv_gym.export import export, rewards
    from genenv_gym.export.rewards import compute_score, task_of
    from genenv_gym.integrations import VERL_AGENT_LOOP_CONFIG
    from genenv_gym.registry.registration import make_domain

    out = Path(args.out or Path(tempfile.mkdtemp(prefix="genenv-verl-")) / f"{args.env}.parquet")
    result = export(args.env, "verl", out, limit=args.limit, num_tasks=args.num_tasks)  # `genenv export`
    rows = pq.read_table(result.path).to_pylist()

    # what verl's reward manager does with each rollout: compute_score(data_source, text, ground_truth, ...)
    row = rows[0]
    task = task_of(row["reward_model"]["ground_truth"])
    episode = make_domain(task.domain).start_episode(task)
    graded: dict[str, Any] = {  # one completion cannot grade an episode of several turns
        "none": f"{args.env} is multi-turn: verl plays its rows live with the genenv_agent loop, whose "
        "reward_score is the episode's return; compute_score grades single-turn rows"
    }
    if isinstance(episode, SingleTurnEpisode):
        graded = {}
        reference = episode.oracle_action()
        for name, text in (("reference answer", reference), ("wrong answer", "I cannot help with that.")):
            graded[name] = compute_score(
                row["data_source"], text, row["reward_model"]["ground_truth"], row["extra_info"]
            )
    command = (
        f"python -m verl.trainer.main_ppo data.train_files={result.path} data.val_files={result.path} "
        f"data.return_raw_chat=True actor_rollout_ref.model.path={args.model} actor_rollout_ref.rollout.n=8 "
        "actor_rollout_ref.rollout.mode=async algorithm.adv_estimator=grpo "
        f"actor_rollout_ref.rollout.agent.agent_loop_config_path={VERL_AGENT_LOOP_CONFIG} "
        f"custom_reward_function.path={rewards.__file__} custom_reward_function.name=compute_score"
    )
    summary = {
        "path": str(result.path),
        "rows": result.rows,
        "split": result.split,
        "columns": sorted(row),
        "agent_name": row.get("agent_name"),
        "first_task": task.id,
        "scores": graded,
        "verl": command,
    }
    print(json.dumps(summary, indent=2))
    return summary


if __name__ == "__main__":
    main()
