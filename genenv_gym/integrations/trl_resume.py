"""A simulator id's curriculum in TRL's checkpoints, and a stream that resumes where training stopped.

``CurriculumCheckpoint`` is a ``transformers.TrainerCallback`` (``trl_environment`` returns it in
``TRLSetup.callbacks``). At every checkpoint TRL saves, the main process writes the curriculum's
``checkpoint()`` beside it (``checkpoint-<step>/genenv_curriculum.pkl``, a pickle, as verl's ``data.pt``:
the run's own file). When training resumes from ``checkpoint-<step>`` of the run's ``output_dir``, it
restores the curriculum from that file (the main process, for a curriculum the ranks share; each process,
for its own) and makes the row stream go on from one past the furthest row trained on, the rows read ahead
of training then being proposed again exactly as they were. Trainer's own fast-forward, which re-reads the
stream's first rows to skip them, would propose those rows anew: resuming therefore needs
``GRPOConfig(ignore_data_skip=True)``, and says so otherwise.
"""

from __future__ import annotations

import os
import pickle
from typing import Any

from transformers import TrainerCallback

from genenv_gym.atomic_write import write_atomically
from genenv_gym.integrations.live_tasks import LiveTasks

#: The file beside each TRL checkpoint that holds the curriculum.
CURRICULUM_FILE = "genenv_curriculum.pkl"


class CurriculumCheckpoint(TrainerCallback):
    """Saves ``tasks``' curriculum with each TRL checkpoint and restores it on resume (module docstring).

    Args:
        tasks: the simulator id's ``LiveTasks`` (its curriculum and its row stream).
        shared: whether the ranks share one curriculum (restored once, by the main process).
    """

    def __init__(self, tasks: LiveTasks, shared: bool) -> None:
        self.tasks = tasks
        self.shared = shared

    def on_save(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        if not state.is_world_process_zero:
            return
        path = os.path.join(args.output_dir, f"checkpoint-{state.global_step}", CURRICULUM_FILE)
        write_atomically(path, pickle.dumps(self.tasks.curriculum.checkpoint()))

    def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        if state.global_step == 0:
            return
        if not args.ignore_data_skip:
            raise ValueError(
                "resuming on a simulator id needs GRPOConfig(ignore_data_skip=True): its row stream goes on "
                "where training stopped, and Trainer's fast-forward would propose the rows it skips anew"
            )
        path = os.path.join(args.output_dir, f"checkpoint-{state.global_step}", CURRICULUM_FILE)
        if not os.path.exists(path):
            raise FileNotFoundError(
                f"no curriculum saved at {path}: resume from a checkpoint of this run's output_dir, saved "
                "with the callbacks trl_environment returns (TRLSetup.callbacks)"
            )
        with open(path, "rb") as handle:  # the run's own file, written by on_save
            saved = pickle.load(handle)
        if state.is_world_process_zero or not self.shared:
            self.tasks.curriculum.restore(saved)
        _barrier()  # no rank reads the stream before the shared curriculum is restored
        self.tasks.stream_start = int(saved["stream"]["next"])


def _barrier() -> None:
    import torch.distributed as dist

    if dist.is_available() and dist.is_initialized():
        dist.barrier()
