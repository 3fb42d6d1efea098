"""``genenv train``: the co-evolution trainer's subcommand (torch is imported only when it runs)."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def add_train_command(commands: Any) -> argparse.ArgumentParser:
    """Register ``train`` on the ``genenv`` subparsers object."""
    parser = commands.add_parser(
        "train",
        help="co-evolve an LLM agent and its environment simulator (GenEnv Algorithm 1)",
        description="Run GenEnv's co-evolution loop. Overrides look like run.epochs=3 agent.lr=1e-5.",
    )
    parser.add_argument("--config", metavar="FILE", help="a YAML config (configs/demo.yaml is the miniature)")
    parser.add_argument("--resume", action="store_true", help="continue from run.out_dir/checkpoint.pt")
    parser.add_argument("overrides", nargs="*", metavar="section.key=value", help="config overrides")
    parser.set_defaults(func=cmd_train)
    return parser


def cmd_train(args: argparse.Namespace) -> int:
    try:
        from genenv_gym.train.config import load_config
    except ImportError as exc:  # pragma: no cover - depends on the install
        print(f"genenv train needs the train extra: pip install 'genenv-gym[train]' ({exc})", file=sys.stderr)
        return 2
    try:
        config = load_config(args.config, args.overrides)
    except (ValueError, FileNotFoundError) as exc:
        print(f"genenv train: {exc}", file=sys.stderr)
        return 2
    from genenv_gym.train.loop import train

    try:
        train(config, resume=args.resume)
    except FileNotFoundError as exc:
        print(f"genenv train: {exc}", file=sys.stderr)
        return 2
    return 0
