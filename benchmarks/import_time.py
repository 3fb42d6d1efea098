"""How long ``import genenv_gym`` takes (it registers every env id), and that it imports no torch.

Run: python benchmarks/import_time.py [--runs 10]
Each run is a fresh interpreter; the figure excludes interpreter start-up (``import sys`` alone).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys

PROBE = (
    "import time; t = time.perf_counter(); import {module}; dt = time.perf_counter() - t; "
    "import sys; print(dt, 'torch' in sys.modules)"
)


def measure(module: str, runs: int) -> tuple[list[float], bool]:
    times, torch_loaded = [], False
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", PROBE.format(module=module)], capture_output=True, text=True, check=True
        )
        seconds, loaded = out.stdout.split()
        times.append(float(seconds))
        torch_loaded |= loaded == "True"
    return times, torch_loaded


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    for module in ("gymnasium", "genenv_gym"):
        times, torch_loaded = measure(module, args.runs)
        print(
            f"import {module:<11} median {1000 * statistics.median(times):6.1f} ms  "
            f"min {1000 * min(times):6.1f} ms  max {1000 * max(times):6.1f} ms  "
            f"torch imported: {torch_loaded}"
        )


if __name__ == "__main__":
    main()
