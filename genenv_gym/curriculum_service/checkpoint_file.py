"""A hosted curriculum's own checkpoint file (the Ray actor's ``checkpoint_path``, ``genenv serve
--curriculum-dir``'s ``NAME.ckpt``): a pickle, as verl's own ``data.pt``, that only the host writes."""

from __future__ import annotations

import os
import pickle

from genenv_gym.atomic_write import write_atomically
from genenv_gym.curriculum_service.service import CurriculumService


def write_checkpoint(service: CurriculumService, path: str) -> dict:
    """Write ``service``'s checkpoint to ``path`` (atomically); the checkpoint."""
    saved = service.checkpoint()
    write_atomically(path, pickle.dumps(saved))
    return saved


def restore_from_file(service: CurriculumService, path: str) -> bool:
    """Restore ``service`` from ``path`` when the file exists, and write the new incarnation's checkpoint
    there at once, before it proposes anything: a host restarted twice from one file never hands out the
    same proposal id twice. Whether there was a file."""
    if not os.path.exists(path):
        return False
    with open(path, "rb") as handle:  # the host's own file
        service.restore(pickle.load(handle))
    write_checkpoint(service, path)
    return True
