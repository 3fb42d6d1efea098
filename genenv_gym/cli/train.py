"""``genenv train``: the co-evolution trainer's subcommand (torch is imported only when it runs)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from genenv_gym.registry.extras import MissingExtraError, require_extra


def add_train_command(commands: Any) -> argparse.ArgumentParser:
    """Register ``train`` on the ``genenv`` subparsers object."""
    parser = commands.add_parser(
        "train",
        help="co-evolve an LLM agent and its environment simulator (GenEnv Algorithm 1)",
        description="Run GenEnv's co-evolution loop. Overrides look like run.epochs=3 agent.lr=1e-5. "
        "A run folder that already holds a run is refused unless --resume or --overwrite is given. "
        "run.sampler picks the task sampler: alpha-curriculum (the default, the paper's rule) reproduces the "
        "paper; no sampler has beaten uniform on this project's evidence (docs/experiments/), so "
        "run.sampler=uniform is the one recommended for an agent's learning per sample.",
    )
    parser.add_argument(
        "--config",
        metavar="NAME|FILE",
        help="a YAML config file, or the name of a shipped config (demo is the CPU miniature; "
        "genenv train --config with a wrong name lists them)",
    )
    again = parser.add_mutually_exclusive_group()
    again.add_argument("--resume", action="store_true", help="continue from run.out_dir/checkpoint.pt")
    again.add_argument(
        "--overwrite", action="store_true", help="delete the run already in run.out_dir and start afresh"
    )
    parser.add_argument("overrides", nargs="*", metavar="section.key=value", help="config overrides")
    parser.set_defaults(func=cmd_train)
    return parser


def cmd_train(args: argparse.Namespace) -> int:
    if not args.config:
        from genenv_gym.train.shipped_configs import shipped_configs

        print(
            "genenv train: give --config NAME or --config FILE.yaml; the shipped configs are "
            f"{', '.join(shipped_configs())} (--config demo is the CPU miniature)",
            file=sys.stderr,
        )
        return 2
    try:
        require_extra("train", "genenv train")
    except MissingExtraError as error:
        print(error, file=sys.stderr)
        return 2
    from genenv_gym.train.config import load_config
    from genenv_gym.train.run_dir import (
        CHECKPOINT_NAME,
        remove_stale_temp_files,
        run_files,
        stopped_before_first_checkpoint,
    )

    try:
        config = load_config(args.config, args.overrides)
    except (ValueError, FileNotFoundError) as exc:
        print(f"genenv train: {exc}", file=sys.stderr)
        return 2
    out_dir = config.run.out_dir
    for stale in remove_stale_temp_files(out_dir):
        print(f"genenv train: removed {stale} (left by a write a kill cut short)", file=sys.stderr)
    existing = run_files(out_dir)
    if existing and not (args.resume or args.overwrite):
        names = ", ".join(p.name for p in existing)
        print(
            f"genenv train: {out_dir} already holds a run ({names}); pass --resume to continue it, "
            f"--overwrite to replace it, or choose another folder with run.out_dir=DIR",
            file=sys.stderr,
        )
        return 2
    resume = args.resume
    if resume and not any(p.name == CHECKPOINT_NAME for p in existing):
        if not stopped_before_first_checkpoint(out_dir, config.to_dict()):
            print(
                f"genenv train: nothing to resume: no {CHECKPOINT_NAME} in {out_dir} "
                "(run without --resume to start this run)",
                file=sys.stderr,
            )
            return 2
        print(
            f"genenv train: this run stopped before its first checkpoint ({out_dir} holds its record, no "
            f"{CHECKPOINT_NAME}): starting it from the beginning",
            file=sys.stderr,
        )
        resume = False
    from genenv_gym.train.checkpoint import UnreadableCheckpointError
    from genenv_gym.train.loop import Trainer
    from genenv_gym.train.metrics import DamagedMetricsError

    try:
        trainer = Trainer(config)
        trainer.run(resume=resume)
    except (FileNotFoundError, UnreadableCheckpointError, DamagedMetricsError) as exc:
        print(f"genenv train: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(
            f"\ngenenv train: interrupted; the same command plus --resume continues the run in {out_dir} "
            "(from its last checkpoint, or from the beginning if it wrote none)",
            file=sys.stderr,
        )
        return 130
    files = ", ".join(str(p) for p in trainer.run_files())
    print(f"genenv train: run files: {files}")
    return 0
