"""The ``genenv`` command line: list the registered envs, evaluate an agent on them."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from genenv_gym.registration import ENV_ENTRIES


def cmd_list(args: argparse.Namespace) -> int:
    width = max(len(e.id) for e in ENV_ENTRIES)
    for entry in ENV_ENTRIES:
        print(f"{entry.id:<{width}}  {entry.description}")
    return 0


def cmd_eval(args: argparse.Namespace) -> int:
    from genenv_gym.data_dir import MissingDataError
    from genenv_gym.evaluation import evaluate

    known = {e.id for e in ENV_ENTRIES}
    unknown = [env_id for env_id in args.env if env_id not in known]
    if unknown:
        print(f"genenv eval: unknown env id(s) {unknown}; run 'genenv list' to see them", file=sys.stderr)
        return 2
    reports = []
    for env_id in args.env:
        try:
            report = evaluate(env_id, args.agent, args.limit, args.episodes, args.seed, not args.no_progress)
        except MissingDataError as error:
            print(f"genenv eval: {error}", file=sys.stderr)
            return 1
        print(f"\n{env_id} — agent {args.agent}")
        print(report.table())
        reports.append(report.to_dict())
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(reports, fh, indent=2)
        print(f"\nwrote {args.json}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="genenv", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    list_parser = commands.add_parser("list", help="registered env ids with one-line descriptions")
    list_parser.set_defaults(func=cmd_list)

    eval_parser = commands.add_parser("eval", help="score an agent on envs with their official metric")
    eval_parser.add_argument("--env", action="append", required=True, help="env id (repeat for several)")
    eval_parser.add_argument("--agent", choices=("oracle", "random"), default="oracle")
    eval_parser.add_argument("--limit", type=int, default=None, help="at most N tasks per category")
    eval_parser.add_argument("--episodes", type=int, default=100, help="episodes on simulator envs")
    eval_parser.add_argument("--seed", type=int, default=0)
    eval_parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    eval_parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    eval_parser.set_defaults(func=cmd_eval)

    from genenv_gym.cli_train import add_train_command

    add_train_command(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
