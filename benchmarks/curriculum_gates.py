"""The fourth curriculum-efficacy design's pilot gates G0 and G1 (docs/efficacy.md, "fourth design").

On pilot seeds (never the measured ones), per seed:

- **G0, the warm start**: after the config's warm start, the public levels (``0 .. public_steps - 1``) have a
  mean teacher-forced gold probability >= ``--g0-public`` (0.9), at least ``--g0-format`` (0.95) of the
  replies sampled at temperature 1 at every level are well formed (one labelled step per level), and the
  first secret level's gold probability is near chance (``1 / num_symbols``; within ``--g0-chance-band``,
  0.10, of it): the agent knows the format and the public steps and guesses the secret ones.
- **G1, one step is learnable**: from that warm start, GRPO on the first secret level alone
  (``oracle-frontier`` fixed at that level) for ``--g1-epochs`` epochs raises that level's gold probability
  from chance to >= ``--g1-target`` (0.8).

G2 (the positive control beats uniform) runs through ``curriculum_efficacy.py`` itself on the pilot seeds
(``--methods uniform learnability``). Writes ``<out>/gates-seed-<n>.json`` per seed and prints the verdicts.

    python benchmarks/curriculum_gates.py --config configs/efficacy_v4.yaml --seeds 100 101
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from curriculum_efficacy import QUIET_RUN, warm_started_weights, write_json

from genenv_gym.agents.backends.base import SamplingParams
from genenv_gym.train.config import load_config
from genenv_gym.train.loop import Trainer
from genenv_gym.train.rollout import RolloutConfig, RolloutEngine


def sampled_format(trainer: Trainer, samples: int) -> dict[str, float]:
    """Per level, the share of ``samples`` replies per held-out task (temperature 1) that are well formed
    (``error_type`` other than ``wrong_format``)."""
    a = trainer.cfg.agent
    params = SamplingParams(temperature=a.temperature, max_new_tokens=a.max_new_tokens)
    config = RolloutConfig(group_size=samples, max_turns=1, params=params, seed=0)
    trajectories = RolloutEngine(trainer.backend, config).run(trainer.env_fn, trainer.heldout)
    out: dict[str, float] = {}
    for level in sorted({t.level for t in trainer.heldout}):
        mine = [t for t in trajectories if t.task.level == level]
        out[str(level)] = float(np.mean([t.infos[-1].get("error_type") != "wrong_format" for t in mine]))
    return out


def gates_for_seed(args: argparse.Namespace, seed: int) -> dict[str, Any]:
    """G0 and G1 of one pilot seed."""
    torch.set_num_threads(1)
    base = [*QUIET_RUN, f"run.seed={seed}", f"run.domain_seed={seed}", *args.overrides]
    clock = time.perf_counter()
    cfg = load_config(args.config, [*base, f"run.out_dir={args.runs_dir}/g1-s{seed}"])
    _, trainer = warm_started_weights(cfg, args.runs_dir)
    warm = {"warmstart_loss": trainer.warmstart_loss, "warmstart_steps": trainer.warmstart_step}
    warm_seconds = time.perf_counter() - clock
    public = trainer.domain.public_steps
    chance = 1.0 / len(trainer.domain.symbols)
    exact = trainer.exact_metrics()
    gold = {lv: exact[f"heldout_gold_prob_level_{lv}"] for lv in range(trainer.domain.num_levels)}
    formats = sampled_format(trainer, args.format_samples)
    g0 = {
        "public_gold_prob": float(np.mean([gold[lv] for lv in range(public)])),
        "first_secret_gold_prob": gold[public],
        "chance": chance,
        "min_format_share": min(formats.values()),
    }
    g0["passed"] = bool(
        g0["public_gold_prob"] >= args.g0_public
        and g0["min_format_share"] >= args.g0_format
        and abs(g0["first_secret_gold_prob"] - chance) <= args.g0_chance_band
    )
    print(f"seed {seed} G0 {'PASS' if g0['passed'] else 'FAIL'}: {g0} ({warm_seconds:.0f}s)", flush=True)
    # G1: the first secret level alone, from this warm start.
    trainer.cfg.run.sampler = "oracle-frontier"
    trainer.cfg.sampler.frontier_level = public
    trainer.cfg.run.epochs = args.g1_epochs
    trainer.sampler = trainer._build_sampler()
    curve = [gold[public]]
    clock = time.perf_counter()
    rows = []
    for _ in range(args.g1_epochs):
        row = trainer.train_epoch()
        rows.append(row)
        curve.append(row[f"heldout_gold_prob_level_{public}"])
        print(
            f"seed {seed} G1 epoch {trainer.epoch}: level {public} gold {curve[-1]:.3f}"
            f" signal {row['signal_share']:.2f} train success {row['train_success']:.2f}"
            f" ({row['seconds']:.0f}s)",
            flush=True,
        )
    g1 = {
        "level": public,
        "curve": curve,
        "samples": [0, *(r["agent_samples"] for r in rows)],
        "signal_share": [r["signal_share"] for r in rows],
        "other_levels_final": {
            str(lv): rows[-1][f"heldout_gold_prob_level_{lv}"] for lv in range(trainer.domain.num_levels)
        },
        "seconds": time.perf_counter() - clock,
    }
    g1["passed"] = bool(curve[-1] >= args.g1_target)
    print(
        f"seed {seed} G1 {'PASS' if g1['passed'] else 'FAIL'}: {curve[0]:.3f} -> {curve[-1]:.3f}", flush=True
    )
    return {
        "seed": seed,
        "config": args.config,
        "overrides": args.overrides,
        "warm_start": {**warm, "seconds": warm_seconds},
        "gold_after_warm_start": {str(k): v for k, v in gold.items()},
        "format_share_after_warm_start": formats,
        "G0": g0,
        "G1": g1,
        "thresholds": {
            "g0_public": args.g0_public,
            "g0_format": args.g0_format,
            "g0_chance_band": args.g0_chance_band,
            "g1_target": args.g1_target,
            "g1_epochs": args.g1_epochs,
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="configs/efficacy_v4.yaml")
    parser.add_argument("--seeds", type=int, nargs="+", default=[100, 101])
    parser.add_argument("--out", default="benchmarks/results/curriculum_efficacy_v4/pilots")
    parser.add_argument("--runs-dir", default="/tmp/genenv_gates_runs")
    parser.add_argument("--format-samples", type=int, default=8)
    parser.add_argument("--g0-public", type=float, default=0.9)
    parser.add_argument("--g0-format", type=float, default=0.95)
    parser.add_argument("--g0-chance-band", type=float, default=0.10)
    parser.add_argument("--g1-epochs", type=int, default=10)
    parser.add_argument("--g1-target", type=float, default=0.8)
    parser.add_argument("overrides", nargs="*", help="section.key=value config overrides")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for seed in args.seeds:
        write_json(out / f"gates-seed-{seed}.json", gates_for_seed(args, seed))


if __name__ == "__main__":
    main()
