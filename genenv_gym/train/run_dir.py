"""The files a training run writes into ``run.out_dir``: which they are, and clearing them for a fresh run."""

from __future__ import annotations

import shutil
from pathlib import Path

CHECKPOINT_NAME = "checkpoint.pt"
#: The config and provenance (library versions, weight and tokenizer fingerprints) of the run.
RUN_RECORD = "run.json"
#: What a training run writes into its ``run.out_dir``.
RUN_FILES = (CHECKPOINT_NAME, "metrics.jsonl", "curves.png", "tensorboard", RUN_RECORD)


def run_files(directory: str | Path) -> list[Path]:
    """The run files present in ``directory``."""
    return [Path(directory) / name for name in RUN_FILES if (Path(directory) / name).exists()]


def clear_run_files(directory: str | Path) -> None:
    """Remove an earlier run's files from ``directory`` (other files are left alone)."""
    for path in run_files(directory):
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink()
