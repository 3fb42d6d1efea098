"""Curriculum efficacy in the CPU miniature: alpha-curriculum vs static vs random-simulator vs base-only.

Every method starts from the same warm-started agent (one warm start per seed), spends the same number of
agent samples per epoch, and is evaluated on the same held-out Digits tasks. Writes a plot of held-out
accuracy against agent samples (mean +- std over seeds), a JSON of all curves, and prints the
data-efficiency ratio: the samples the static baseline spent to reach its final accuracy divided by the
samples the alpha-curriculum needed to reach that accuracy (linear interpolation on the mean curve).

    python benchmarks/curriculum_efficacy.py --seeds 0 1 2 --epochs 12
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
from pathlib import Path

import numpy as np

from genenv_gym.train.config import BASELINES, load_config
from genenv_gym.train.loop import Trainer
from genenv_gym.train.plots import plot_lines


def samples_to_reach(curve: list[tuple[float, float]], target: float) -> float | None:
    """The first sample count at which ``curve`` reaches ``target`` (linear interpolation), or None."""
    for (x0, y0), (x1, y1) in itertools.pairwise(curve):
        if y0 >= target:
            return x0
        if y1 >= target:
            return x0 + (target - y0) / (y1 - y0) * (x1 - x0)
    return curve[0][0] if curve and curve[0][1] >= target else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="configs/demo.yaml")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--out", default="benchmarks/results/curriculum_efficacy")
    parser.add_argument("overrides", nargs="*")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    curves: dict[str, list[list[tuple[float, float]]]] = {b: [] for b in BASELINES}
    start = time.perf_counter()
    for seed in args.seeds:
        base = [
            f"run.seed={seed}",
            f"run.epochs={args.epochs}",
            "run.plots=false",
            "run.progress=false",
            "run.tensorboard=false",
            *args.overrides,
        ]
        warm = Trainer(load_config(args.config, [*base, f"run.out_dir={out}/warm-s{seed}"]))
        warm.warm_start()
        state = {k: v.clone() for k, v in warm.model.state_dict().items()}
        for baseline in BASELINES:
            cfg = load_config(
                args.config,
                [
                    *base,
                    f"run.baseline={baseline}",
                    "warmstart.steps=0",
                    f"run.out_dir={out}/{baseline}-s{seed}",
                ],
            )
            trainer = Trainer(cfg)
            trainer.model.load_state_dict(state)
            rows = trainer.run()
            curve = [(r["agent_samples"], r["heldout_acc"]) for r in rows if "heldout_acc" in r]
            curves[baseline].append(curve)
            print(f"seed {seed} {baseline}: final held-out {curve[-1][1]:.3f}", flush=True)
    summary: dict[str, dict] = {}
    series = {}
    for baseline, runs in curves.items():
        xs = [x for x, _ in runs[0]]
        ys = np.array([[y for _, y in run] for run in runs])
        series[baseline] = list(zip(xs, ys.mean(0).tolist(), ys.std(0).tolist(), strict=True))
        summary[baseline] = {
            "samples": xs,
            "mean": ys.mean(0).tolist(),
            "std": ys.std(0).tolist(),
            "final_per_seed": ys[:, -1].tolist(),
        }
    static_final = summary["static"]["mean"][-1]
    budget = summary["static"]["samples"][-1]
    alpha_curve = list(
        zip(summary["alpha-curriculum"]["samples"], summary["alpha-curriculum"]["mean"], strict=True)
    )
    needed = samples_to_reach(alpha_curve, static_final)
    ratio = None if not needed else budget / needed
    summary["data_efficiency"] = {
        "static_final": static_final,
        "static_samples": budget,
        "alpha_samples_to_match": needed,
        "ratio": ratio,
    }
    summary["seconds"] = time.perf_counter() - start
    (out / "curves.json").write_text(json.dumps(summary, indent=1))
    plot_lines(
        series,
        out / "heldout_vs_samples.png",
        "agent samples",
        "held-out accuracy",
        f"Digits miniature, {len(args.seeds)} seeds",
    )
    print(f"\n{'method':<18} {'final held-out (mean +- std)':>30}")
    for baseline in BASELINES:
        s = summary[baseline]
        print(f"{baseline:<18} {s['mean'][-1]:>22.3f} +- {s['std'][-1]:.3f}")
    if ratio is None:
        print(f"data efficiency: alpha-curriculum never reached static's final {static_final:.3f}")
    else:
        print(
            f"data efficiency: static needs {budget} samples for {static_final:.3f}; alpha-curriculum "
            f"{needed:.0f} -> ratio {ratio:.2f}x"
        )
    print(f"wrote {out}/curves.json and heldout_vs_samples.png in {summary['seconds']:.0f}s")


if __name__ == "__main__":
    main()
