"""``genenv compare RUN_A RUN_B``: two runs' scores over their shared tasks, with a paired test."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def add_compare_command(commands: Any) -> argparse.ArgumentParser:
    """Register ``compare`` on the ``genenv`` subparsers object."""
    parser = commands.add_parser(
        "compare",
        help="compare two runs over their shared tasks: differences, paired tests, bootstrap intervals",
        description="For every env id both runs played (by agent, or pairing the only agent of each run): "
        "per category and overall, B - A over the shared tasks, the exact McNemar test (one sample per "
        "task) or the paired t-test (several), and a seeded bootstrap interval. Refuses runs whose env "
        "versions, evaluators or task data differ, unless --force.",
    )
    parser.add_argument("run_a", metavar="RUN_A", help="a 'genenv eval --out' folder")
    parser.add_argument("run_b", metavar="RUN_B", help="another one")
    parser.add_argument("--seed", type=int, default=0, help="the bootstrap's seed (default: 0)")
    parser.add_argument(
        "--force", action="store_true", help="compare even when the pins differ (each difference is printed)"
    )
    parser.add_argument("--json", metavar="PATH", help="also write the comparison as JSON")
    parser.set_defaults(func=cmd_compare)
    return parser


def _pairs(keys_a: list[tuple[str, str]], keys_b: list[tuple[str, str]]) -> list[tuple[Any, Any]]:
    """The (env id, agent) of A and of B to compare: the same key, or per env id the one agent of each."""
    pairs = []
    for key in keys_a:
        if key in keys_b:
            pairs.append((key, key))
            continue
        agents_a = [k for k in keys_a if k[0] == key[0]]
        agents_b = [k for k in keys_b if k[0] == key[0]]
        if len(agents_a) == 1 and len(agents_b) == 1:
            pairs.append((key, agents_b[0]))
    return pairs


def cmd_compare(args: argparse.Namespace) -> int:
    from genenv_gym.evaluation.compare import (
        compare_env,
        comparison_dict,
        comparison_lines,
        pin_conflicts,
        pin_warnings,
    )
    from genenv_gym.evaluation.results_file import load_run

    try:
        run_a, run_b = load_run(args.run_a), load_run(args.run_b)
    except (FileNotFoundError, ValueError) as error:
        print(f"genenv compare: {error}", file=sys.stderr)
        return 2
    pairs = _pairs(list(run_a.records), list(run_b.records))
    if not pairs:
        print("genenv compare: the runs share no env id: nothing to compare", file=sys.stderr)
        return 2
    refused = False
    for key_a, key_b in pairs:
        for line in pin_warnings(run_a, key_a, run_b, key_b):
            print(f"genenv compare: warning: {key_a[0]}: {line}", file=sys.stderr)
        conflicts = pin_conflicts(run_a, key_a, run_b, key_b)
        for line in conflicts:
            what = "warning" if args.force else "not comparable"
            print(f"genenv compare: {what}: {key_a[0]}: {line}", file=sys.stderr)
        refused = refused or bool(conflicts)
    if refused and not args.force:
        print(
            "genenv compare: the runs' verdicts come from different envs, evaluators or data; rescore one "
            "('genenv rescore RUN_DIR') or pass --force to compare anyway",
            file=sys.stderr,
        )
        return 2
    comparisons = [
        compare_env(key_a[0], (key_a[1], key_b[1]), run_a.records[key_a], run_b.records[key_b], args.seed)
        for key_a, key_b in pairs
    ]
    for comparison in comparisons:
        print("\n".join(comparison_lines(comparison)) + "\n")
    if args.json:
        payload = [comparison_dict(c) for c in comparisons]
        Path(args.json).write_text(json.dumps(payload, indent=2), encoding="utf-8")
        print(f"wrote {args.json}")
    return 0
