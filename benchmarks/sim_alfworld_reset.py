"""Reset latency of GenEnv-Sim-ALFWorld-v0, with the planner's on-disk cache cold and then warm.

    python benchmarks/sim_alfworld_reset.py --data-dir ../shared/benchmarks --episodes 64

Plays ``--episodes`` one-step episodes (``look``, then a TimeLimit-style abandon) through the curriculum
in a fresh process per pass, and prints the reset times of the resets that had to generate tasks (the
others only serve the next attempt). Pass 1 starts from an empty plan cache; pass 2 is a new process on
the cache pass 1 wrote (what a vector-env copy or a later run sees). Each generating reset is also split
into its phases: ``generate`` (proposing goals and waiting for their plans), ``validate`` (replaying the plan
on this process's engine) and ``start_episode`` (loading the served game for play); ``--verbose`` prints
every generating reset with its task.
"""

from __future__ import annotations

import argparse
import json
import resource
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
domain, phases = env.unwrapped.domain, {}
def timed(name, call):
    def run(*args):
        start = time.perf_counter()
        try:
            return call(*args)
        finally:
            phases[name] = phases.get(name, 0.0) + time.perf_counter() - start
    return run
for name in ("generate", "validate", "start_episode"):
    setattr(domain, name, timed(name, getattr(domain, name)))
times, generated, details = [], [], []
for episode in range(episodes):
    before = env.unwrapped.simulator.stats.proposed
    phases.clear()
    start = time.perf_counter()
    _, info = env.reset(seed=0) if episode == 0 else env.reset()
    elapsed = time.perf_counter() - start
    times.append(elapsed)
    if env.unwrapped.simulator.stats.proposed > before:
        generated.append(elapsed)
        details.append({"reset": elapsed, **phases, "task": info["task_id"], "level": info["level"]})
    env.step("look")
print(json.dumps({"all": times, "generating": generated, "details": details}))
env.close()
domain.close()  # stops (and waits for) the planner worker, so that its CPU time is counted
"""


def summary(values: list[float]) -> str:
    if not values:
        return "none"
    return (
        f"n={len(values)} mean {sum(values) / len(values):.2f}s median {median(values):.2f}s "
        f"max {max(values):.2f}s"
    )


def children_cpu() -> float:
    """CPU seconds of the finished child processes (a pass and its planner worker): on a loaded machine
    the work a pass does, where its wall time mostly measures the other processes."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2] if values else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--episodes", type=int, default=64)
    parser.add_argument("--verbose", action="store_true", help="print every generating reset")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as cache:
        for name in ("cold plan cache", "warm plan cache"):
            start, cpu = time.perf_counter(), children_cpu()
            out = subprocess.run(
                [sys.executable, "-c", PASS, args.data_dir, cache, str(args.episodes)],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            result = json.loads(out.strip().splitlines()[-1])
            print(
                f"{name}: resets that generate: {summary(result['generating'])}; all resets: "
                f"{summary(result['all'])}; pass {time.perf_counter() - start:.1f}s, "
                f"CPU {children_cpu() - cpu:.1f}s (this process and the planner worker)"
            )
            print(
                "  phases of the resets that generate (median): "
                + ", ".join(
                    f"{phase} {median([d.get(phase, 0.0) for d in result['details']]):.2f}s"
                    for phase in ("generate", "validate", "start_episode")
                )
            )
            if args.verbose:
                for d in result["details"]:
                    print(
                        f"    {d['reset']:.2f}s = generate {d.get('generate', 0.0):.2f}s + validate "
                        f"{d.get('validate', 0.0):.2f}s + start {d.get('start_episode', 0.0):.2f}s "
                        f"(+ the rest); level {d['level']} {d['task']}"
                    )


if __name__ == "__main__":
    main()
