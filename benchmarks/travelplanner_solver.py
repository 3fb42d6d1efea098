"""Sim-TravelPlanner figures: solver time per train query by trip length, generator throughput per level.

    OMP_NUM_THREADS=1 taskset -c 0 python benchmarks/travelplanner_solver.py \
        --data-dir /work/shared/benchmarks

Solver: ``solver.solve`` on each of the 45 train queries (with their budgets), ``--repeats`` times after
one untimed warm-up pass (the ``Sandbox`` indexes are built once); per trip length (3 / 5 / 7 days) the
median and the maximum of each query's best time, and how many queries were solved. Generator: for
each level, ``--tasks`` tasks from ``QueryGenerator.generate`` (proposals, solving, budget and text;
seeded), tasks per second, the proposals dropped by reason, and the same through
``TravelPlannerSimDomain.generate`` (which adds the reference information and the prompt). Sim env:
the median, mean and maximum ``reset`` time of ``GenEnv-Sim-TravelPlanner-v0`` over ``--resets`` resets
after the first, the oracle answering each task (a reset that empties the queue proposes 8 new tasks).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter, defaultdict

import gymnasium as gym
import numpy as np

import genenv_gym  # noqa: F401  (registers the ids)
from genenv_gym.agents.scripted import OracleAgent
from genenv_gym.envs.travelplanner.database import Database
from genenv_gym.envs.travelplanner.domain import load_rows, split_file
from genenv_gym.envs.travelplanner.generator import LEVELS, QueryGenerator
from genenv_gym.envs.travelplanner.sim_domain import TravelPlannerSimDomain
from genenv_gym.envs.travelplanner.solver import solve


def solver_times(db: Database, data_dir: str, repeats: int) -> None:
    rows = load_rows(split_file("train", data_dir))
    for row in rows:  # warm-up: sandbox and flight indexes
        solve(row, db)
    best: dict[int, list[float]] = defaultdict(list)
    solved: Counter = Counter()
    reasons = []
    for index, row in enumerate(rows, start=1):
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            result = solve(row, db)
            times.append(time.perf_counter() - start)
        best[int(row["days"])].append(min(times))
        solved[int(row["days"])] += result.feasible
        if not result.feasible:
            reasons.append(f"train/{index}: {result.reason}")
    print(f"solver on the {len(rows)} train queries (flights: {db.flights_source}), best of {repeats}:")
    print("| days | queries | solved | median ms | max ms |")
    print("|---|---|---|---|---|")
    for days in sorted(best):
        times = best[days]
        print(
            f"| {days} | {len(times)} | {solved[days]} | {1000 * statistics.median(times):.1f} | "
            f"{1000 * max(times):.1f} |"
        )
    print(f"solved {sum(solved.values())}/{len(rows)}" + ("; " + "; ".join(reasons) if reasons else ""))


def generator_rates(db: Database, data_dir: str, tasks: int, seed: int) -> None:
    generator = QueryGenerator(db)
    domain = TravelPlannerSimDomain(data_dir=data_dir)
    print(f"\ngenerator, {tasks} tasks per level (seed {seed}):")
    print(
        "| level | days | queries/s | tasks/s (with prompt) | proposals per query | dropped (reason: count) |"
    )
    print("|---|---|---|---|---|---|")
    for level, knobs in enumerate(LEVELS):
        rng = np.random.default_rng(seed + level)
        rejected: Counter = Counter()
        proposals = 0
        start = time.perf_counter()
        for _ in range(tasks):
            found = generator.generate(level, rng)
            rejected.update(found.rejected)
            proposals += found.proposals
        query_rate = tasks / (time.perf_counter() - start)
        rng = np.random.default_rng(seed + level)
        start = time.perf_counter()
        for _ in range(tasks):
            domain.generate(level, rng)
        task_rate = tasks / (time.perf_counter() - start)
        dropped = ", ".join(f"{k}: {v}" for k, v in rejected.most_common()) or "-"
        print(
            f"| {level} | {knobs.days} | {query_rate:.1f} | {task_rate:.1f} | {proposals / tasks:.2f} | "
            f"{dropped} |"
        )


def env_resets(data_dir: str, resets: int) -> None:
    env = gym.make("GenEnv-Sim-TravelPlanner-v0", domain_kwargs={"data_dir": data_dir})
    agent = OracleAgent(env)
    start = time.perf_counter()
    obs, info = env.reset(seed=0)
    first = time.perf_counter() - start
    times = []
    for _ in range(resets):
        env.step(agent.act(obs, info))
        start = time.perf_counter()
        obs, info = env.reset()
        times.append(time.perf_counter() - start)
    env.close()
    print(
        f"\nGenEnv-Sim-TravelPlanner-v0 reset (batch_size 8): first {1000 * first:.0f} ms (builds the "
        "generator; the database is already cached in this process); "
        f"next {resets}: median {1000 * statistics.median(times):.2f} ms, "
        f"mean {1000 * statistics.mean(times):.1f} ms, max {1000 * max(times):.0f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data-dir", required=True, help="the folder holding travelplanner/")
    parser.add_argument("--repeats", type=int, default=3, help="timed solves per train query")
    parser.add_argument("--tasks", type=int, default=20, help="generated tasks per level")
    parser.add_argument("--resets", type=int, default=64, help="sim env resets timed")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    db = Database.load(args.data_dir)
    solver_times(db, args.data_dir, args.repeats)
    generator_rates(db, args.data_dir, args.tasks, args.seed)
    env_resets(args.data_dir, args.resets)


if __name__ == "__main__":
    main()
