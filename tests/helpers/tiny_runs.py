"""What the trainer and efficacy tests share: the overrides of a tiny, quick training run, and the efficacy
script (benchmarks/curriculum_efficacy.py) loaded as a module."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]

#: A two-epoch run of a tiny model on four tasks of two rollouts per epoch.
TINY_RUN = [
    "run.epochs=2",
    "model.hidden_size=32",
    "model.intermediate_size=64",
    "warmstart.steps=2",
    "warmstart.base_tasks=16",
    "agent.tasks_per_epoch=4",
    "agent.group_size=2",
    "agent.mini_batch_size=2",
    "agent.micro_batch_size=2",
]
#: No progress bars, TensorBoard, plots or checkpoints; one torch thread.
QUIET = [
    "run.progress=false",
    "run.tensorboard=false",
    "run.plots=false",
    "run.threads=1",
    "run.checkpoint_every=1000000",
]


def efficacy_script() -> ModuleType:
    """benchmarks/curriculum_efficacy.py as the module ``curriculum_efficacy``."""
    if str(ROOT / "benchmarks") not in sys.path:  # the script imports its sibling modules
        sys.path.insert(0, str(ROOT / "benchmarks"))
    spec = importlib.util.spec_from_file_location(
        "curriculum_efficacy", ROOT / "benchmarks/curriculum_efficacy.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules["curriculum_efficacy"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module
