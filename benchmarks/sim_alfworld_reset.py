"""Reset latency of GenEnv-Sim-ALFWorld-v0, with the planner's on-disk cache cold and then warm.

    python benchmarks/sim_alfworld_reset.py --data-dir ../shared/benchmarks --episodes 64

Plays ``--episodes`` one-step episodes (``look``, then a TimeLimit-style abandon) through the curriculum
in a fresh process per pass, and prints the reset times of the resets that had to generate tasks (the
others only serve the next attempt). Pass 1 starts from an empty plan cache; pass 2 is a new process on
the cache pass 1 wrote (what a vector-env copy or a later run sees).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time

PASS = r"""
import json, sys, time
import gymnasium as gym
import numpy as np
import genenv_gym  # noqa: F401
data_dir, cache, episodes = sys.argv[1], sys.argv[2], int(sys.argv[3])
kwargs = {"data_dir": data_dir, "scene_split": "valid_unseen", "plan_cache": cache}
env = gym.make("GenEnv-Sim-ALFWorld-v0", domain_kwargs=kwargs)
times, generated = [], []
for episode in range(episodes):
    before = env.unwrapped.simulator.stats.proposed
    start = time.perf_counter()
    env.reset(seed=0) if episode == 0 else env.reset()
    elapsed = time.perf_counter() - start
    times.append(elapsed)
    if env.unwrapped.simulator.stats.proposed > before:
        generated.append(elapsed)
    env.step("look")
print(json.dumps({"all": times, "generating": generated}))
env.close()
"""


def summary(values: list[float]) -> str:
    if not values:
        return "none"
    ordered = sorted(values)
    return (
        f"n={len(values)} mean {sum(values) / len(values):.2f}s median {ordered[len(values) // 2]:.2f}s "
        f"max {ordered[-1]:.2f}s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--episodes", type=int, default=64)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as cache:
        for name in ("cold plan cache", "warm plan cache"):
            start = time.perf_counter()
            out = subprocess.run(
                [sys.executable, "-c", PASS, args.data_dir, cache, str(args.episodes)],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            result = json.loads(out.strip().splitlines()[-1])
            print(
                f"{name}: resets that generate: {summary(result['generating'])}; all resets: "
                f"{summary(result['all'])}; pass {time.perf_counter() - start:.1f}s"
            )


if __name__ == "__main__":
    main()
