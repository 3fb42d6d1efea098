"""Errors per pair of benchmark families whose episodes are played at the same moment, each id's on its own
thread (as one verl worker plays them: ``LiveTasks.executor``), against the same episodes played alone.

    PYTHONPATH=.:tests/helpers python benchmarks/concurrent_families.py --trials 3

Run it with ``PYTHONPATH`` on another checkout's package (and this one's ``tests/helpers``) to measure that
checkout. Prints one line per pair: the trials whose episodes differed from those played alone or raised.
"""

from __future__ import annotations

import argparse
import itertools
import time

from concurrent_play import FAMILIES, family_ids, mismatches, plan_for, play_at_once

import genenv_gym  # noqa: F401  (registers the env ids)
from genenv_gym.integrations.live_tasks import LiveTasks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--trials", type=int, default=3, help="times each pair is started at once")
    parser.add_argument("--rounds", type=int, default=2, help="times each side plays its episodes per trial")
    parser.add_argument("--tasks", type=int, default=3, help="tasks per id (each played by two scripts)")
    parser.add_argument("--families", nargs="*", default=sorted(FAMILIES))
    args = parser.parse_args()
    plans = {}  # (env id, copy): a family of one id pairs two envs of it, each on its own thread
    for family in args.families:
        first, second = family_ids(family)
        for key in ((first, 0), (second, int(second == first))):
            plans[key] = plan_for(LiveTasks(key[0], 1), args.tasks)
    total_bad = total = 0
    start = time.perf_counter()
    for a, b in itertools.combinations_with_replacement(args.families, 2):
        left = (family_ids(a)[0], 0)
        right = (
            (family_ids(b)[1], int(family_ids(b)[0] == family_ids(b)[1])) if a == b else (family_ids(b)[0], 0)
        )
        bad, examples = 0, []
        for _ in range(args.trials):
            pair = [plans[left], plans[right]]
            found = mismatches(pair, play_at_once(pair, args.rounds), args.rounds)
            bad += bool(found)
            examples.extend(found)
        total_bad += bad
        total += args.trials
        example = f"  e.g. {examples[0][:160]}" if examples else ""
        print(
            f"{a:>15} + {b:<15} {left} + {right}: {bad}/{args.trials} trials with errors{example}", flush=True
        )
    print(f"all pairs: {total_bad}/{total} trials with errors ({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
