"""How well formed a ladder agent's sampled replies are after a warm start of N steps, per level, with its
warm-start loss (design 5's pilot attempt 2, docs/experiments/design5.md).

The warm start is the config's with its stop loss off, run to each of ``--steps`` in turn (one run, read at
every count). At each count: per level the share of ``--samples`` replies per held-out task (temperature 1)
that are well formed, the mean loss of the last 20 warm-start steps, the public levels' and the first secret
level's gold probability. With ``warmstart.final_lr_ratio`` below 1 the learning rate's schedule ends at each
count in turn, so read one count per run. Run it on scratch seeds (never a design's pilot or measured seeds):

    python benchmarks/warmstart_format.py warmstart.base_tasks=4096 --config configs/efficacy_v5.yaml \
        --seed 200 --steps 1200 1800 2400 3000
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import torch
from curriculum_efficacy import QUIET_RUN
from curriculum_gates import sampled_format

from genenv_gym.train.config import load_config
from genenv_gym.train.loop import Trainer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", default="configs/efficacy_v5.yaml")
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--steps", type=int, nargs="+", required=True, help="warm-start step counts, rising")
    parser.add_argument("--samples", type=int, default=64, help="replies per held-out task")
    parser.add_argument("--runs-dir", default="/tmp/genenv_warmstart_format")
    parser.add_argument("overrides", nargs="*", help="section.key=value config overrides")
    args = parser.parse_args()
    torch.set_num_threads(1)
    seed = args.seed
    overrides = [
        *QUIET_RUN,
        f"run.seed={seed}",
        f"run.domain_seed={seed}",
        f"run.out_dir={args.runs_dir}/s{seed}",
        "warmstart.stop_loss=0",
        "warmstart.min_steps=0",
        *args.overrides,
    ]
    trainer = Trainer(load_config(args.config, overrides))
    public = trainer.domain.public_steps
    for steps in sorted(args.steps):
        trainer.cfg.warmstart.steps = steps
        clock = time.perf_counter()
        trainer.warm_start()
        exact = trainer.exact_metrics()
        formats = sampled_format(trainer, args.samples)
        row = {
            "seed": seed,
            "steps": steps,
            "loss_last_20": round(float(np.mean(trainer.warmstart_recent)), 4),
            "format_share": {k: round(v, 3) for k, v in formats.items()},
            "least_format_share": round(min(formats.values()), 3),
            "public_gold_prob": round(
                float(np.mean([exact[f"heldout_gold_prob_level_{lv}"] for lv in range(public)])), 3
            ),
            "first_secret_gold_prob": round(exact[f"heldout_gold_prob_level_{public}"], 3),
            "seconds": round(time.perf_counter() - clock),
        }
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
