"""Memory per copy of ALFWorld in an async vector env: PSS of the whole process tree as copies visit games.

For each N in ``--copies``, ``gym.make_vec(id, num_envs=N, vectorization_mode="async")`` (fork-started
copies, as on Linux by default) plays ``--games`` episodes, each on the next game of the split (every copy
plays the same game, so each copy visits that many distinct games), ``--steps`` admissible commands each.
After the first game and after the last, the PSS of the parent and of every process below it is read from
``/proc/<pid>/smaps_rollup``; the per-copy figure is the whole tree's PSS divided by N, and the mean PSS of
one copy (a child process) is what each further copy adds. The mean seconds of a reset on a game no copy
has played yet (every copy at once) is printed too.

By default the games' translations are first stored on disk (``ALFWorldDomain.prepare``: once per machine,
as the first run does game by game); ``--fresh-cache`` measures a first run on a machine instead (an empty
cache folder, nothing prepared).

    GENENV_DATA_DIR=/path/to/benchmarks python benchmarks/alfworld_memory.py --copies 1 4 8 16 --games 64
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import gymnasium as gym

import genenv_gym
from genenv_gym.envs.alfworld.data import discover_games

PREPARE = """
from genenv_gym.envs.alfworld.domain import ALFWorldDomain
domain = ALFWorldDomain()
prepare = getattr(domain, "prepare", None)  # absent before the on-disk store existed
print(prepare() if prepare else "no")
domain.close()
"""


def pss_mb(pid: int) -> float:
    """The proportional set size of one process, in MB (0 when it is gone)."""
    try:
        text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return 0.0
    for line in text.splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1]) / 1024
    return 0.0


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (children, their children, ...)."""
    found: list[int] = []
    pending = [pid]
    while pending:
        parent = pending.pop()
        for task in Path(f"/proc/{parent}/task").glob("*"):
            try:
                children = [int(c) for c in (task / "children").read_text().split()]
            except OSError:
                continue
            found += children
            pending += children
    return found


def tree_pss() -> tuple[float, float]:
    """(this process's PSS, the PSS of every process below it), in MB."""
    me = os.getpid()
    return pss_mb(me), sum(pss_mb(pid) for pid in descendants(me))


def measure(env_id: str, copies: int, games: list[str], steps: int) -> dict[str, float]:
    """Play ``games`` on ``copies`` async copies; the tree's PSS after the first game and after the last."""
    envs = gym.make_vec(env_id, num_envs=copies, vectorization_mode="async")
    figures: dict[str, float] = {"copies": copies, "games": len(games)}
    first_visits = []
    try:
        for index, game in enumerate(games):
            start = time.perf_counter()
            _, info = envs.reset(seed=index, options={"game": game})
            first_visits.append(time.perf_counter() - start)
            for _ in range(steps):
                commands = [next(iter(admissible)) for admissible in info["admissible_commands"]]
                _, _, _, _, info = envs.step(commands)
            if index == 0 or index == len(games) - 1:
                parent, children = tree_pss()
                label = "first" if index == 0 else "last"
                figures[f"{label}_parent_mb"] = parent
                figures[f"{label}_children_mb"] = children
                figures[f"{label}_per_copy_mb"] = (parent + children) / copies
                figures[f"{label}_one_copy_mb"] = children / copies
    finally:
        envs.close()
    figures["first_reset_s"] = sum(first_visits[1:]) / max(1, len(first_visits) - 1)
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--id", default="GenEnv-ALFWorld-v0")
    parser.add_argument("--copies", type=int, nargs="+", default=[1, 4, 8])
    parser.add_argument("--games", type=int, default=32, help="distinct games each copy plays")
    parser.add_argument("--steps", type=int, default=3, help="commands per episode")
    parser.add_argument("--fresh-cache", action="store_true", help="an empty cache folder, nothing prepared")
    parser.add_argument("--out", help="write the figures to this JSON file")
    args = parser.parse_args(argv)
    if args.fresh_cache:
        os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="alfworld_memory_")
    genenv_gym.register_envs()
    names = [game.id for game in discover_games()][: args.games]
    if not args.fresh_cache:  # in a process of its own, which leaves this one as a user's would be
        start = time.perf_counter()
        made = subprocess.run([sys.executable, "-c", PREPARE], capture_output=True, text=True, check=True)
        print(f"prepared {made.stdout.strip()} games in {time.perf_counter() - start:.1f} s", flush=True)
    rows = []
    print(f"{args.id}, {len(names)} distinct games per copy, {args.steps} steps each; PSS in MB", flush=True)
    print(
        "copies | per copy, 1st game | per copy, last game | one copy, last game | total, last game "
        "| new-game reset s"
    )
    for copies in args.copies:
        row = measure(args.id, copies, names, args.steps)
        rows.append(row)
        total = row["last_parent_mb"] + row["last_children_mb"]
        print(
            f"{copies:6d} | {row['first_per_copy_mb']:18.1f} | {row['last_per_copy_mb']:19.1f} | "
            f"{row['last_one_copy_mb']:19.1f} | {total:17.1f} | {row['first_reset_s']:.3f}",
            flush=True,
        )
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
