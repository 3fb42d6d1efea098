"""Atomic checkpoints: written to a temporary file in the same directory, then renamed over the old one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from genenv_gym.atomic_write import atomic_open
from genenv_gym.train.run_dir import CHECKPOINT_NAME


def save_checkpoint(state: dict[str, Any], directory: str | Path) -> Path:
    """Write ``state`` to ``directory/checkpoint.pt`` atomically (a crash leaves the old one intact)."""
    target = Path(directory) / CHECKPOINT_NAME
    with atomic_open(target) as handle:
        torch.save(state, handle)
    return target


def load_checkpoint(directory: str | Path) -> dict[str, Any]:
    """Read ``directory/checkpoint.pt`` (the trainer's own file: tasks and pools are pickled objects)."""
    path = Path(directory) / CHECKPOINT_NAME
    if not path.exists():
        raise FileNotFoundError(f"no checkpoint at {path}: run without --resume first, or check run.out_dir")
    try:
        state = torch.load(path, map_location="cpu", weights_only=False)
    except Exception as error:  # torch raises many types for a truncated or foreign file
        raise UnreadableCheckpointError(path, error) from error
    if not isinstance(state, dict):
        raise UnreadableCheckpointError(path, TypeError(f"it holds a {type(state).__name__}, not a dict"))
    return state


class UnreadableCheckpointError(RuntimeError):
    """``checkpoint.pt`` exists but cannot be read (empty, truncated, or not a trainer checkpoint)."""

    def __init__(self, path: Path, error: BaseException) -> None:
        size = path.stat().st_size if path.exists() else 0
        super().__init__(
            f"cannot resume: {path} ({size} bytes) is not a readable checkpoint "
            f"({type(error).__name__}: {str(error)[:200]}). No earlier checkpoint is kept (each write "
            f"replaces the last one), so this run cannot be resumed: start it afresh with --overwrite, "
            f"or choose another folder with run.out_dir=DIR"
        )
