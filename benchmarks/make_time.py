"""How long ``gym.make(id)`` takes for every registered id in a fresh process, cold and warm.

Run: GENENV_DATA_DIR=/path/to/benchmarks python benchmarks/make_time.py [--warm-runs 3] [--budget 1.0]
     [--ids ID ...]

Each id gets an empty cache folder (``XDG_CACHE_HOME``, so ``GENENV_TASK_CACHE_DIR`` must be unset): the
first process makes the env there (cold: the tasks are built and the on-disk task cache written), then
``--warm-runs`` more processes make it again (warm: the cache is read). The figure is the ``gym.make`` call
alone (``import genenv_gym`` and interpreter start-up excluded, see ``import_time.py``), the env's first
``close`` excluded too. Prints a table of seconds per id (warm: the best run) and exits non-zero when a warm
figure exceeds ``--budget`` or an id fails to make.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

PROBE = (
    "import time, gymnasium as gym, genenv_gym; t = time.perf_counter(); env = gym.make({env_id!r}); "
    "dt = time.perf_counter() - t; env.close(); print('MAKE_SECONDS', dt)"
)


def make_seconds(env_id: str, cache_home: str) -> float:
    """Seconds of one ``gym.make(env_id)`` in a fresh interpreter whose cache folder is ``cache_home``."""
    env = {**os.environ, "XDG_CACHE_HOME": cache_home}
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(env_id=env_id)], capture_output=True, text=True, env=env
    )
    lines = [line for line in out.stdout.splitlines() if line.startswith("MAKE_SECONDS ")]
    if out.returncode != 0 or not lines:
        last = (out.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"gym.make({env_id!r}) failed: {last}")
    return float(lines[-1].split()[1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--warm-runs", type=int, default=3, help="warm processes per id (the best is shown)")
    parser.add_argument("--budget", type=float, default=1.0, help="seconds a warm make may take")
    parser.add_argument("--ids", nargs="*", help="only these ids (default: every registered one)")
    args = parser.parse_args(argv)
    if os.environ.get("GENENV_TASK_CACHE_DIR"):
        parser.error("unset GENENV_TASK_CACHE_DIR: each id must start from an empty cache folder")
    from genenv_gym.registry.registration import ENV_ENTRIES

    ids = args.ids or [entry.id for entry in ENV_ENTRIES]
    print(f"data: {os.environ.get('GENENV_DATA_DIR', '(default data dir)')}; warm = best of {args.warm_runs}")
    print(f"{'env id':<42} {'cold s':>8} {'warm s':>8}")
    over = []
    for env_id in ids:
        with tempfile.TemporaryDirectory(prefix="genenv-make-time-") as cache_home:
            try:
                cold = make_seconds(env_id, cache_home)
                warm = min(make_seconds(env_id, cache_home) for _ in range(args.warm_runs))
            except RuntimeError as error:
                print(f"{env_id:<42} {'error':>8} {'error':>8}  {error}", flush=True)
                over.append(env_id)
                continue
        flag = "  over budget" if warm > args.budget else ""
        print(f"{env_id:<42} {cold:8.2f} {warm:8.2f}{flag}", flush=True)
        if warm > args.budget:
            over.append(env_id)
    if over:
        print(f"{len(over)} of {len(ids)} ids over {args.budget:.2f} s warm (or failed): {', '.join(over)}")
        return 1
    print(f"every id under {args.budget:.2f} s warm")
    return 0


if __name__ == "__main__":
    sys.exit(main())
