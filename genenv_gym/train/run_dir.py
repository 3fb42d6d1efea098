"""The files a training run writes into ``run.out_dir``: which they are, and clearing them for a fresh run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

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


def stopped_before_first_checkpoint(directory: str | Path, config: dict[str, Any]) -> bool:
    """Whether ``directory`` holds the record of a run of ``config`` that wrote no checkpoint (it was killed
    before or during its first): such a run resumes by starting again."""
    directory = Path(directory)
    if (directory / CHECKPOINT_NAME).exists():
        return False
    try:
        record = json.loads((directory / RUN_RECORD).read_text())
    except (OSError, ValueError):
        return False
    return isinstance(record, dict) and record.get("config") == json.loads(json.dumps(config))


def remove_stale_temp_files(directory: str | Path) -> list[Path]:
    """Remove the temporary files that a kill during an atomic write of a run file left in ``directory``
    (``.checkpoint.pt-*.tmp`` and the like); returns those removed."""
    directory = Path(directory)
    if not directory.is_dir():
        return []
    stale = [p for name in RUN_FILES for p in directory.glob(f".{name}-*.tmp") if p.is_file()]
    for path in stale:
        path.unlink(missing_ok=True)
    return stale
