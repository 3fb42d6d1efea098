"""``genenv rescore RUN_DIR``: judge a stored run's episodes again with the current evaluator."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def add_rescore_command(commands: Any) -> argparse.ArgumentParser:
    """Register ``rescore`` on the ``genenv`` subparsers object."""
    parser = commands.add_parser(
        "rescore",
        help="judge a stored run's episodes again with the current evaluator (no agent)",
        description="Replays the recorded actions of every episode in RUN_DIR/episodes.jsonl on the env "
        "(multi-turn episodes reach their state again) and judges them with the current evaluator. Writes "
        "RUN_DIR/episodes.rescored.jsonl and RUN_DIR/report.rescored.json beside the old files; says first "
        "whether the data, the evaluator or the env version differ from the run's, then per category which "
        "verdicts and error types changed and why.",
    )
    parser.add_argument("run_dir", metavar="RUN_DIR", help="a 'genenv eval --out' folder")
    parser.add_argument(
        "--check", action="store_true", help="exit 1 when a pin, a verdict or an error type changed"
    )
    parser.set_defaults(func=cmd_rescore)
    return parser


def cmd_rescore(args: argparse.Namespace) -> int:
    from genenv_gym.datasets.data_dir import MissingDataError
    from genenv_gym.evaluation.rescore import RESCORED_REPORT, rescore_run

    try:
        results = rescore_run(args.run_dir)
    except (FileNotFoundError, MissingDataError, ImportError, ValueError) as error:
        print(f"genenv rescore: {error}", file=sys.stderr)
        return 1
    headline = [line for result in results for line in result.headline()]
    if headline:
        print("the run's pins differ from the current ones:")
        print("\n".join(f"  {line}" for line in headline))
    else:
        print("env versions, data and evaluators: the same as the run's")
    for result in results:
        print("\n".join(result.lines()))
    print(f"wrote {args.run_dir}/{RESCORED_REPORT} and the rescored episodes beside it")
    changed = bool(headline) or any(result.changed for result in results)
    return 1 if args.check and changed else 0
