"""Scripted baselines on GenEnv-ALFWorld-v0: the expert walkthrough and a uniform-random agent, per task type.

The expert replays each game's walkthrough through the env (it must win all of them); the random agent picks
uniformly among the admissible commands for up to 50 steps (ALFWorld's random baseline).

    python benchmarks/alfworld_baselines.py --data-dir ../shared/benchmarks --agents expert random
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from typing import Any

import gymnasium as gym

import genenv_gym  # noqa: F401  (registers the env ids)
from genenv_gym.agents.scripted import make_agent


def play(env: gym.Env, agent_name: str, seed: int) -> dict[str, Any]:
    """Every game once with one agent: successes per task type, steps and time."""
    agent = make_agent("oracle" if agent_name == "expert" else agent_name, env, seed=seed)
    wins: dict[str, list[int]] = defaultdict(list)
    steps = 0
    start, cpu = time.perf_counter(), time.process_time()
    for task in env.unwrapped.tasks:
        obs, info = env.reset(seed=seed, options={"game": task.id})
        done = False
        while not done:
            obs, _, terminated, truncated, info = env.step(agent.act(obs, info))
            done = terminated or truncated
            steps += 1
        wins[task.category].append(int(info["won"]))
    total = sum(sum(v) for v in wins.values())
    games = sum(len(v) for v in wins.values())
    return {
        "agent": agent_name,
        "won": total,
        "games": games,
        "success_rate": total / games,
        "per_task_type": {k: sum(v) / len(v) for k, v in sorted(wins.items())},
        "steps": steps,
        "wall_s": time.perf_counter() - start,
        "cpu_s": time.process_time() - cpu,
    }


def main() -> None:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("--data-dir", default=None, help="benchmark data root (default $GENENV_DATA_DIR)")
    parser.add_argument("--agents", nargs="+", default=["expert", "random"], choices=["expert", "random"])
    parser.add_argument("--split", default="valid_unseen")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None, help="write the results as JSON here")
    args = parser.parse_args()
    env = gym.make("GenEnv-ALFWorld-v0", data_dir=args.data_dir, split=args.split)
    results = [play(env, name, args.seed) for name in args.agents]
    print(json.dumps(results, indent=2))
    if args.out:
        with open(args.out, "w") as handle:
            json.dump(results, handle, indent=2)


if __name__ == "__main__":
    main()
