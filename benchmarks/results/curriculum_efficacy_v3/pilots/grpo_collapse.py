"""Pilot (seed 100, not a registered seed): after the registered warm start, does the first GRPO epoch's
collapse of solved levels depend on the agent's lr? Held-out per whole level after epochs 1, 2 and 4."""

import json
import sys
import time

import torch

from genenv_gym.train.config import load_config
from genenv_gym.train.loop import Trainer

torch.set_num_threads(1)
seed = int(sys.argv[1])
base = [f"run.seed={seed}", "run.progress=false"]
warm = Trainer(load_config("configs/efficacy_v3.yaml", [*base, "run.out_dir=/tmp/pilot-grpo-warm"]))
start = time.process_time()
warm.warm_start()
state = {k: v.clone() for k, v in warm.model.state_dict().items()}
ev = warm.evaluate()
print(
    json.dumps(
        {
            "warm_steps": warm.warmstart_step,
            "loss": warm.warmstart_loss,
            "cpu_s": round(time.process_time() - start),
            **{f"L{k[14:]}": v for k, v in ev.items() if k.startswith("heldout_level")},
        }
    ),
    flush=True,
)
del warm
for method in ("base-only", "random-simulator"):
    for lr in ("1e-3", "1e-4", "3e-4"):
        cfg = load_config(
            "configs/efficacy_v3.yaml",
            [
                *base,
                f"run.baseline={method}",
                "warmstart.steps=0",
                f"agent.lr={lr}",
                "run.epochs=4",
                "run.eval_every=4",
                "run.eval_epochs=1,2",
                f"run.out_dir=/tmp/pilot-grpo-{method}-{lr}",
            ],
        )
        t = Trainer(cfg)
        t.model.load_state_dict(state)
        rows = t.run()
        for r in rows:
            if "heldout_acc" in r:
                print(
                    json.dumps(
                        {
                            "method": method,
                            "lr": lr,
                            "epoch": r["epoch"],
                            **{f"L{k[14:]}": v for k, v in r.items() if k.startswith("heldout_level")},
                        }
                    ),
                    flush=True,
                )
