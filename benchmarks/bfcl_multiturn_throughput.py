"""Throughput of the BFCL multi-turn stack on one core: checker, envs, and the task generator.

Measures
- **checker**: entries checked per second, the ground truth of every real entry (800) played through
  :func:`check_entry` (each turn one call step);
- **env steps**: steps per second of the scripted oracle through ``GenEnv-BFCL-MultiTurn-v0`` (all 800
  entries) and ``GenEnv-BFCL-LongContext-Step-v0`` (all 734 turn tasks), resets included;
- **generator** (when ``GenEnv-Sim-BFCL-MultiTurn-v0``'s generator exists): generated + validated tasks per
  second at each difficulty level.

Run on one thread: ``OMP_NUM_THREADS=1 python benchmarks/bfcl_multiturn_throughput.py --data-dir DIR``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import gymnasium as gym
import numpy as np

import genenv_gym  # noqa: F401  (registers the ids)
from genenv_gym.agents.scripted import OracleAgent
from genenv_gym.envs.bfcl_multiturn.checker import check_entry
from genenv_gym.envs.bfcl_multiturn.data import load_entries


def timed(work: Callable[[], int]) -> tuple[int, float]:
    """Run ``work`` (which returns how many items it did); the count and the seconds it took."""
    start = time.perf_counter()
    count = work()
    return count, time.perf_counter() - start


def check_all(data_dir: str) -> int:
    """Check the ground truth of every real entry; the number checked (all must pass)."""
    entries = load_entries(None, data_dir)
    for entry in entries:
        verdict = check_entry(entry, [[turn] if turn else [] for turn in entry["ground_truth"]])
        if not verdict.valid:
            raise SystemExit(f"{entry['id']}: the ground truth fails: {verdict.error_type}")
    return len(entries)


def oracle_steps(env_id: str, data_dir: str) -> tuple[int, int, float]:
    """Play the oracle on every task of the env; (tasks, steps, seconds), env construction excluded."""
    env = gym.make(env_id, data_dir=data_dir)
    agent = OracleAgent(env)
    tasks = env.unwrapped.tasks
    steps = 0
    start = time.perf_counter()
    for task in tasks:
        obs, info = env.reset(options={"task_id": task.id})
        done, total = False, 0.0
        while not done:
            obs, reward, terminated, truncated, _ = env.step(agent.act(obs, info))
            steps += 1
            total += reward
            done = terminated or truncated
        if total != 1.0:
            raise SystemExit(f"{env_id}: the oracle failed {task.id}")
    return len(tasks), steps, time.perf_counter() - start


def generator_rates(per_level: int, seed: int) -> list[tuple[int, int, float]]:
    """Per level: (level, tasks, seconds) to generate and validate ``per_level`` tasks; [] without one."""
    from genenv_gym.envs.bfcl_multiturn.domain import BFCLMultiTurnDomain

    domain = BFCLMultiTurnDomain()
    rng = np.random.default_rng(seed)
    try:
        domain.generate(0, rng)
    except NotImplementedError:
        return []
    rows = []
    for level in range(domain.num_levels):
        start = time.perf_counter()
        for _ in range(per_level):
            task = domain.generate(level, rng)
            problems = domain.validate(task)
            if problems:
                raise SystemExit(f"level {level}: a generated task is invalid: {problems}")
        rows.append((level, per_level, time.perf_counter() - start))
    return rows


def main() -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None, help="data root holding bfcl/ (default $GENENV_DATA_DIR)")
    parser.add_argument("--per-level", type=int, default=50, help="generated tasks per level")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    load_entries(None, args.data_dir)  # warm the file cache: reading is not checking
    rows: list[tuple[str, str, str, str]] = []
    count, seconds = timed(lambda: check_all(args.data_dir))
    rows.append(
        (
            "checker: ground truth of every real entry",
            f"{count} entries",
            f"{seconds:.2f}",
            f"{count / seconds:.0f} entries/s",
        )
    )
    for env_id in ("GenEnv-BFCL-MultiTurn-v0", "GenEnv-BFCL-LongContext-Step-v0"):
        tasks, steps, seconds = oracle_steps(env_id, args.data_dir)
        rows.append(
            (
                f"oracle through {env_id}",
                f"{tasks} tasks, {steps} steps",
                f"{seconds:.2f}",
                f"{steps / seconds:.0f} steps/s",
            )
        )
    for level, tasks, seconds in generator_rates(args.per_level, args.seed):
        rows.append(
            (
                f"generate + validate, level {level}",
                f"{tasks} tasks",
                f"{seconds:.2f}",
                f"{tasks / seconds:.0f} tasks/s",
            )
        )

    header = ("measure", "work", "seconds", "rate")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(4)]
    for row in [header, tuple("-" * w for w in widths), *rows]:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())


if __name__ == "__main__":
    main()
