"""Run by ``test_distributed.py`` under ``torch.distributed.run``: the Trainer on two CPU processes.

Every rank trains (rollouts sharded, gradients synced by DDP, outcomes gathered); each saves its final
agent weights and skill estimate to ``OUT/rank{r}.pt`` for the test to compare.
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch
from torchrun_exit import leave_without_teardown

from genenv_gym.train.config import TrainConfig, apply_overrides
from genenv_gym.train.loop import Trainer


def main(out: Path, overrides: list[str]) -> None:
    torch.set_num_threads(1)
    trainer = Trainer(apply_overrides(TrainConfig(), [f"run.out_dir={out}", *overrides]))
    rows = trainer.run()
    state = {
        "weights": {k: v.detach().clone() for k, v in trainer.model.state_dict().items()},
        "skill": trainer.skill.state_dict(),
        "simulator": trainer.simulator.state_dict(),
        "rows": [{k: v for k, v in r.items() if not k.endswith("seconds")} for r in rows],
    }
    torch.save(state, out / f"rank{trainer.dist.rank}.pt")
    leave_without_teardown()


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2:])
