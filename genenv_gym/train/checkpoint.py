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
    return torch.load(path, map_location="cpu", weights_only=False)
