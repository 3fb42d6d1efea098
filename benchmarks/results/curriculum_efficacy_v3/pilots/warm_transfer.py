"""Pilot (seeds >= 100, not the registered 0-9): does the padded-addition warm start memorize its fixed
task set? Held-out accuracy per whole level every 500 warm-start steps, for a given base_tasks size."""

import json
import sys
import time

import torch

from genenv_gym.train.config import load_config
from genenv_gym.train.loop import Trainer

seed, base_tasks = int(sys.argv[1]), int(sys.argv[2])
torch.set_num_threads(1)
cfg = load_config(
    "configs/efficacy_v3.yaml",
    [
        f"run.seed={seed}",
        f"warmstart.base_tasks={base_tasks}",
        f"run.out_dir=/tmp/pilot-{seed}-{base_tasks}",
        "run.progress=false",
    ],
)
trainer = Trainer(cfg)
cap = cfg.warmstart.steps
start = time.process_time()
for stop in range(500, cap + 1, 500):
    trainer.cfg.warmstart.steps = stop
    trainer.warm_start()
    ev = trainer.evaluate()
    row = {
        "seed": seed,
        "base_tasks": base_tasks,
        "step": trainer.warmstart_step,
        "loss": round(trainer.warmstart_loss, 5),
        "cpu_s": round(time.process_time() - start),
        **{f"L{k[14:]}": v for k, v in ev.items() if k.startswith("heldout_level")},
    }
    print(json.dumps(row), flush=True)
    if trainer._reached_stop_loss():
        break
