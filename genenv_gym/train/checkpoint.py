"""Atomic checkpoints: written to a temporary file in the same directory, then renamed over the old one."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import torch

CHECKPOINT_NAME = "checkpoint.pt"


def save_checkpoint(state: dict[str, Any], directory: str | Path) -> Path:
    """Write ``state`` to ``directory/checkpoint.pt`` atomically (a crash leaves the old one intact)."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / CHECKPOINT_NAME
    fd, tmp = tempfile.mkstemp(prefix=".checkpoint-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            torch.save(state, handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def load_checkpoint(directory: str | Path) -> dict[str, Any]:
    """Read ``directory/checkpoint.pt`` (the trainer's own file: tasks and pools are pickled objects)."""
    path = Path(directory) / CHECKPOINT_NAME
    if not path.exists():
        raise FileNotFoundError(f"no checkpoint at {path}: run without --resume first, or check run.out_dir")
    return torch.load(path, map_location="cpu", weights_only=False)
