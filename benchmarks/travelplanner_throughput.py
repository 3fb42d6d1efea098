"""TravelPlanner figures: plans verified per second (official and corrected scoring) and env steps/s.

    OMP_NUM_THREADS=1 taskset -c 0 python benchmarks/travelplanner_throughput.py \
        --data-dir /work/shared/benchmarks

Plans: the 45 annotated train plans, one random-agent plan per query (seeded), and mutations of each
gold plan (a repeated meal, an unknown restaurant, a day dropped, a self-driving return, the attraction's
last ``;`` removed). Each set is graded ``--repeats`` times with ``evaluate.evaluate_plan`` (the
``Sandbox`` indexes are built once, and every set graded once untimed, before timing). Env steps/s:
``GenEnv-TravelPlanner-v0`` with the oracle and the random agent, parsing of the text action and resets
included. Each figure is the best of ``--trials`` timings (the least disturbed by other load).
"""

from __future__ import annotations

import argparse
import copy
import time
from collections.abc import Callable, Sequence

import gymnasium as gym
import numpy as np

import genenv_gym  # noqa: F401  (registers the ids)
from genenv_gym.envs.travelplanner.action import parse_plan
from genenv_gym.envs.travelplanner.domain import TravelPlannerDomain
from genenv_gym.envs.travelplanner.evaluate import evaluate_plan
from genenv_gym.envs.travelplanner.sandbox import sandbox_for
from genenv_gym.task import thaw


def mutations(plan: list[dict]) -> list[list[dict]]:
    """A few failing variants of a gold plan (each changes one thing)."""
    days = [day for day in plan if day]
    out = []
    repeated = copy.deepcopy(days)
    repeated[-1]["dinner"] = days[0]["breakfast"] if days[0]["breakfast"] != "-" else days[1]["lunch"]
    out.append(repeated)
    unknown = copy.deepcopy(days)
    unknown[1]["lunch"] = "Nowhere Diner, " + unknown[1]["lunch"].rsplit(",", 1)[-1].strip()
    out.append(unknown)
    out.append(copy.deepcopy(days[:1] + days[2:]))
    driving = copy.deepcopy(days)
    driving[-1]["transportation"] = "Self-driving, " + driving[-1]["current_city"]
    out.append(driving)
    trimmed = copy.deepcopy(days)
    for day in trimmed:
        if day["attraction"].endswith(";"):
            day["attraction"] = day["attraction"][:-1]
    out.append(trimmed)
    return out


def rate(queries: Sequence[dict], plans: Sequence[object], db, scoring: str, repeats: int) -> float:
    """Plans graded per second (``len(plans) * repeats`` gradings)."""
    start = time.perf_counter()
    for _ in range(repeats):
        for query, plan in zip(queries, plans, strict=True):
            evaluate_plan(query, plan, db, scoring)
    return len(plans) * repeats / (time.perf_counter() - start)


def steps_per_second(
    data_dir: str, act: Callable[[gym.Env, np.random.Generator], str], episodes: int
) -> float:
    """Env steps/s (one step per episode; reset, parsing and grading included)."""
    env = gym.make("GenEnv-TravelPlanner-v0", data_dir=data_dir)
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    start = time.perf_counter()
    for _ in range(episodes):
        env.step(act(env, rng))
        env.reset()
    elapsed = time.perf_counter() - start
    env.close()
    return episodes / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-dir", default=None, help="data root holding travelplanner/")
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--episodes", type=int, default=2000)
    parser.add_argument("--trials", type=int, default=3, help="report the best of this many timings")
    args = parser.parse_args()
    domain = TravelPlannerDomain("train")
    tasks = domain.load_tasks(None, args.data_dir)
    db = domain.database()
    sandbox_for(db)  # the look-up indexes, built once
    queries = [thaw(task.evaluation["query"]) for task in tasks]
    gold = [thaw(task.evaluation["gold_plan"]) for task in tasks]
    random_plans = [
        parse_plan(domain.random_action(task, np.random.default_rng([0, i])))[0]
        for i, task in enumerate(tasks)
    ]
    mutated_queries, mutated = [], []
    for query, plan in zip(queries, gold, strict=True):
        for variant in mutations(plan):
            mutated_queries.append(query)
            mutated.append(variant)
    sets = (
        ("45 gold plans", queries, gold),
        ("45 random-agent plans", queries, random_plans),
        (f"{len(mutated)} gold-plan mutations", mutated_queries, mutated),
    )
    for _, set_queries, plans in sets:  # warm-up: one untimed pass in each mode
        for scoring in ("official", "corrected"):
            rate(set_queries, plans, db, scoring, 1)
    print(
        f"plans verified per second ({args.repeats} passes over each set after a warm-up pass; "
        f"best of {args.trials} timings):"
    )
    for name, set_queries, plans in sets:
        official = max(rate(set_queries, plans, db, "official", args.repeats) for _ in range(args.trials))
        corrected = max(rate(set_queries, plans, db, "corrected", args.repeats) for _ in range(args.trials))
        print(f"  {name:<28} official {official:>9,.0f}/s   corrected {corrected:>9,.0f}/s")
    oracle = max(
        steps_per_second(args.data_dir, lambda env, rng: env.unwrapped.episode.oracle_action(), args.episodes)
        for _ in range(args.trials)
    )
    random = max(
        steps_per_second(
            args.data_dir, lambda env, rng: env.unwrapped.episode.random_action(rng), args.episodes
        )
        for _ in range(args.trials)
    )
    print(
        f"GenEnv-TravelPlanner-v0 env steps/s ({args.episodes} episodes, resets included; "
        f"best of {args.trials}):"
    )
    print(f"  oracle {oracle:,.0f}/s   random {random:,.0f}/s")


if __name__ == "__main__":
    main()
