"""How the torchrun test workers end (``ddp_worker.py``, ``train_worker.py``)."""

from __future__ import annotations

import os
import sys

import torch


def leave_without_teardown() -> None:
    """Exit once every rank has saved, skipping gloo's teardown: on a loaded machine its threads can abort
    the interpreter's exit (``terminate called without an active exception``) after the work is done."""
    torch.distributed.barrier()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
