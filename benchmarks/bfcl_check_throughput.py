"""Throughput of the BFCL AST checker: ``grade_output`` calls per second on one core.

Grades the gold answer (``render_answer``) of every real record of the AST categories with a possible
answer, and the oracle output of the (ir)relevance categories (a refusal, or a call to the first
function), looping over each category for ``--seconds`` and then over all records mixed. The process is
pinned to one CPU where the OS allows it.

How to run::

    python benchmarks/bfcl_check_throughput.py [--seconds 3] \\
        [--data-dir /work/shared/benchmarks] [--format python|json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("GENENV_DATA_DIR", ROOT.parent / "shared" / "benchmarks"))
REFUSAL = "None of the provided functions can be used to answer this question."


def load_cases(data_dir: Path, action_format: str) -> dict[str, list[tuple[str, list[dict], Any, str]]]:
    """Per category: (output, functions, ground truth, category) of every record's oracle output."""
    from genenv_gym.envs.bfcl.categories import (
        AST_CATEGORIES,
        NO_GROUND_TRUTH,
        answer_file,
        language_of,
        question_file,
    )
    from genenv_gym.envs.bfcl.render import render_answer

    def read(relative: str) -> list[dict[str, Any]]:
        with (data_dir / "bfcl" / relative).open(encoding="utf-8") as fh:
            return [json.loads(line) for line in fh if line.strip()]

    cases: dict[str, list[tuple[str, list[dict], Any, str]]] = {}
    for category in AST_CATEGORIES:
        questions = read(question_file(category))
        rows = []
        if category in NO_GROUND_TRUTH:
            for q in questions:
                if category == "live_relevance":
                    name = q["function"][0]["name"]
                    call = (
                        json.dumps([{"name": name, "arguments": {}}])
                        if action_format == "json"
                        else f"[{name}()]"
                    )
                else:
                    call = REFUSAL
                rows.append((call, q["function"], None, category))
        else:
            answers = {a["id"]: a["ground_truth"] for a in read(answer_file(category))}
            for q in questions:
                gold = answers[q["id"]]
                output = render_answer(gold, q["function"], language_of(category), action_format)
                rows.append((output, q["function"], gold, category))
        cases[category] = rows
    return cases


def rate(
    rows: list[tuple[str, list[dict], Any, str]], seconds: float, action_format: str
) -> tuple[float, int]:
    """Checks per second over ``rows``, looped until ``seconds`` have passed (at least one full pass)."""
    from genenv_gym.envs.bfcl.checker import grade_output

    done = 0
    start = time.perf_counter()
    while True:
        for output, functions, gold, category in rows:
            grade_output(output, functions, gold, category, action_format)
        done += len(rows)
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return done / elapsed, done


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time spent per category (and overall)")
    parser.add_argument("--data-dir", default=str(DEFAULT_DATA))
    parser.add_argument("--format", choices=("python", "json"), default="python")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    cases = load_cases(Path(args.data_dir), args.format)
    rate(cases["simple_python"][:50], 0.0, args.format)  # warm-up: imports, parsers
    print(f"python {platform.python_version()} on {platform.machine()}, one core, format={args.format}")
    print(f"{'category':<24} {'records':>8} {'checks/s':>10}")
    for category, rows in cases.items():
        per_second, _ = rate(rows, args.seconds, args.format)
        print(f"{category:<24} {len(rows):>8} {per_second:>10.0f}")
    everything = [row for rows in cases.values() for row in rows]
    per_second, done = rate(everything, args.seconds, args.format)
    print(f"{'ALL (mixed)':<24} {len(everything):>8} {per_second:>10.0f}   ({done} checks)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
