"""The pilot gates of the ladder designs (docs/experiments/design4.md and design5.md), on pilot seeds that
are never measured seeds. The thresholds are the design's (``GATES``, fixed before its pilots ran). Per seed:

- **G0, the warm start**: after the config's warm start, the public levels (``0 .. public_steps - 1``) have a
  mean teacher-forced gold probability >= ``g0_public`` (0.9), at least ``g0_format`` (0.95) of the replies
  sampled at temperature 1 at every level are well formed (one labelled step per level), and the first
  secret level's gold probability is within ``g0_chance_band`` of chance (``1 / symbols``): the agent knows
  the format and the public steps and guesses the secret ones.
- **G1, one step is learnable**: from that warm start, GRPO on the first secret level alone
  (``oracle-frontier`` fixed at that level) raises that level's gold probability from chance to >=
  ``g1_target`` (0.8): at the last of ``g1_epochs`` epochs (design 4), or at any of them (``g1_within``,
  design 5).
- **G2, the control** (``--g2``; design 5): every method of the design from the same warm start, as the
  measured seeds will run (``curriculum_efficacy.run_seed``, with the per-token probes), into
  ``<out>/seeds/seed-<n>.json``; the seed's gold-AUC difference control - uniform. Across the pilot seeds in
  ``<out>`` G2 passes when the difference is > 0 on every one of ``g2_seeds`` seeds and its mean is >=
  ``g2_min_mean``. Reported with it, as diagnostics and not gates, per method: the first unlearned step's
  conditional, the share of references where the end token is preferred, forgetting of solved levels and
  the signal share (``efficacy_probes.py``); and the seed count the registration needs (``seeds_for_power``:
  sd = max(pilot sd, ``min_sd``), power >= 0.9 at the pilots' mean difference, at least ``min_seeds``).

Writes ``<out>/gates-seed-<n>.json`` per seed (G0, G1, and with ``--g2`` the seed's G2 figures and
diagnostics) and ``<out>/pilot.json`` (G2 over the pilot seeds there, the power calculation), and prints the
verdicts. G2 of design 4 ran through ``curriculum_efficacy.py`` itself (``--methods uniform learnability``).

    python benchmarks/curriculum_gates.py --config configs/efficacy_v4.yaml --seeds 100 101
    python benchmarks/curriculum_gates.py --config configs/efficacy_v5.yaml --seeds 100 --g2 \
        --out benchmarks/results/curriculum_efficacy_v5/pilots/attempt-1
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from curriculum_efficacy import (
    DESIGNS,
    QUIET_RUN,
    ExactDesign,
    run_seed,
    seed_job,
    warm_started_weights,
    write_json,
)
from efficacy_exact import gold_auc
from efficacy_probes import forgetting
from efficacy_stats import paired_t_power

from genenv_gym.agents.backends.base import SamplingParams
from genenv_gym.train.config import load_config
from genenv_gym.train.loop import Trainer
from genenv_gym.train.rollout import RolloutConfig, RolloutEngine


@dataclass(frozen=True)
class Gates:
    """A design's pilot gates (module docstring), fixed before its pilots ran."""

    g0_public: float
    g0_format: float
    g0_chance_band: float
    g1_epochs: int
    g1_target: float
    #: G1 passes when any of its epochs reaches the target (else: the last one)
    g1_within: bool = False
    #: G2: the pilot seeds it needs, and the control's least mean difference (None: no G2 here)
    g2_seeds: int = 0
    g2_min_mean: float | None = None
    #: the registration's seed count: power >= ``power`` at sd = max(pilot sd, ``min_sd``), >= ``min_seeds``
    power: float = 0.9
    min_sd: float = 0.05
    min_seeds: int = 14


#: The gates by config name (the file stem of ``--config``).
GATES = {
    "efficacy_v4": Gates(g0_public=0.9, g0_format=0.95, g0_chance_band=0.10, g1_epochs=10, g1_target=0.8),
    "efficacy_v5": Gates(
        g0_public=0.9,
        g0_format=0.95,
        g0_chance_band=0.05,
        g1_epochs=15,
        g1_target=0.8,
        g1_within=True,
        g2_seeds=4,
        g2_min_mean=0.04,
    ),
}


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


def gates_for_seed(args: argparse.Namespace, gates: Gates, seed: int) -> dict[str, Any]:
    """G0 and G1 of one pilot seed (its warm start is kept in ``args.runs_dir`` for G2)."""
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
        g0["public_gold_prob"] >= gates.g0_public
        and g0["min_format_share"] >= gates.g0_format
        and abs(g0["first_secret_gold_prob"] - chance) <= gates.g0_chance_band
    )
    print(f"seed {seed} G0 {'PASS' if g0['passed'] else 'FAIL'}: {g0} ({warm_seconds:.0f}s)", flush=True)
    # G1: the first secret level alone, from this warm start.
    trainer.cfg.run.sampler = "oracle-frontier"
    trainer.cfg.sampler.frontier_level = public
    trainer.cfg.run.epochs = gates.g1_epochs
    trainer.sampler = trainer._build_sampler()
    curve = [gold[public]]
    clock = time.perf_counter()
    rows = []
    for _ in range(gates.g1_epochs):
        row = trainer.train_epoch()
        rows.append(row)
        curve.append(row[f"heldout_gold_prob_level_{public}"])
        print(
            f"seed {seed} G1 epoch {trainer.epoch}: level {public} gold {curve[-1]:.3f}"
            f" signal {row['signal_share']:.2f} train success {row['train_success']:.2f}"
            f" ({row['seconds']:.0f}s)",
            flush=True,
        )
    reached = [epoch for epoch, y in enumerate(curve) if epoch > 0 and y >= gates.g1_target]
    g1 = {
        "level": public,
        "curve": curve,
        "samples": [0, *(r["agent_samples"] for r in rows)],
        "signal_share": [r["signal_share"] for r in rows],
        "other_levels_final": {
            str(lv): rows[-1][f"heldout_gold_prob_level_{lv}"] for lv in range(trainer.domain.num_levels)
        },
        "first_epoch_at_target": reached[0] if reached else None,
        "seconds": time.perf_counter() - clock,
    }
    g1["passed"] = bool(reached) if gates.g1_within else bool(curve[-1] >= gates.g1_target)
    print(
        f"seed {seed} G1 {'PASS' if g1['passed'] else 'FAIL'}: {curve[0]:.3f} -> {curve[-1]:.3f}"
        f" (first at target: epoch {g1['first_epoch_at_target']})",
        flush=True,
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
        "thresholds": asdict(gates),
    }


def g2_for_seed(args: argparse.Namespace, design: ExactDesign, seed: int) -> dict[str, Any]:
    """Every method of ``design`` on one pilot seed (``<out>/seeds/seed-<n>.json``), from the warm start G0
    checked; the seed's gold AUC per method, control - uniform, and the diagnostics per method."""
    overrides = [*QUIET_RUN, *args.overrides]
    if args.epochs is not None:
        overrides.append(f"run.epochs={args.epochs}")
    job = seed_job(
        args.config, overrides, list(design.methods), args.runs_dir, Path(args.out), design, args.runs_dir
    )
    record = json.loads(run_seed(job, seed).read_text())
    return seed_figures(record, design)


def seed_figures(record: dict[str, Any], design: ExactDesign) -> dict[str, Any]:
    """From one seed file: gold AUC per method, the control's difference, and the diagnostics per method."""
    levels = record["heldout_levels"]
    runs = {m: r[0] for m, r in record["runs"].items()}
    auc = {m: gold_auc(r) for m, r in runs.items()}
    a, b = design.control
    diagnostics = {}
    for method, run in runs.items():
        probes = run.get("probes", {})
        signal = [row["signal_share"] for row in run["rows"][1:] if row.get("signal_share") is not None]
        diagnostics[method] = {
            "first_unlearned_median": probes.get("first_unlearned_median"),
            "chance": probes.get("chance"),
            "end_preferred": [probes.get("end_preferred"), probes.get("end_preferred_of")],
            "end_preferred_unsolved": [
                probes.get("end_preferred_unsolved"),
                probes.get("end_preferred_unsolved_of"),
            ],
            "forgetting": forgetting(run, levels),
            "signal_share_mean": float(np.mean(signal)) if signal else None,
            "final_gold_prob": run["rows"][-1].get("heldout_gold_prob"),
            "seconds": run["seconds"],
        }
    return {
        "epochs": len(next(iter(runs.values()))["rows"]) - 1,
        "gold_auc": auc,
        "control": [a, b],
        "control_diff": auc[a] - auc[b] if a in auc and b in auc else None,
        "diff_vs_uniform": {m: auc[m] - auc["uniform"] for m in auc if "uniform" in auc and m != "uniform"},
        "diagnostics": diagnostics,
    }


def seeds_for_power(delta: float, sd: float, gates: Gates, most: int = 100) -> int | None:
    """The fewest seeds (>= ``gates.min_seeds``) whose paired t-test has power >= ``gates.power`` at mean
    difference ``delta`` and sd ``max(sd, gates.min_sd)``; None when ``most`` seeds are not enough."""
    sd = max(sd, gates.min_sd)
    for seeds in range(gates.min_seeds, most + 1):
        if paired_t_power(delta, sd, seeds) >= gates.power:
            return seeds
    return None


def pilot_summary(out: Path, gates: Gates) -> dict[str, Any]:
    """G2 over the pilot seeds' files in ``out`` (``gates-seed-*.json`` with G2 figures) and the seed count
    the registration needs."""
    seeds = [json.loads(p.read_text()) for p in sorted(out.glob("gates-seed-*.json"))]
    seeds = [s for s in seeds if s.get("G2") and s["G2"].get("control_diff") is not None]
    diffs = np.array([s["G2"]["control_diff"] for s in seeds], dtype=float)
    summary: dict[str, Any] = {
        "seeds": [s["seed"] for s in seeds],
        "G0": {str(s["seed"]): s["G0"]["passed"] for s in seeds},
        "G1": {str(s["seed"]): s["G1"]["passed"] for s in seeds},
        "control_diff_per_seed": diffs.tolist(),
        "thresholds": asdict(gates),
    }
    if not len(diffs):
        return {**summary, "G2": {"passed": False, "complete": False}}
    mean, sd = float(diffs.mean()), float(diffs.std(ddof=1)) if len(diffs) > 1 else 0.0
    complete = len(diffs) >= gates.g2_seeds
    summary["G2"] = {
        "mean": mean,
        "sd": sd,
        "all_positive": bool((diffs > 0).all()),
        "complete": complete,
        "passed": bool(complete and (diffs > 0).all() and mean >= (gates.g2_min_mean or 0.0)),
    }
    summary["power"] = {
        "delta": mean,
        "sd_used": max(sd, gates.min_sd),
        "power": gates.power,
        "seeds": seeds_for_power(mean, sd, gates) if mean > 0 else None,
    }
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="configs/efficacy_v4.yaml")
    parser.add_argument("--seeds", type=int, nargs="+", default=[100, 101])
    parser.add_argument("--out", default=None, help="default: <the design's results>/pilots")
    parser.add_argument("--runs-dir", default="/tmp/genenv_gates_runs")
    parser.add_argument("--format-samples", type=int, default=8)
    parser.add_argument("--g2", action="store_true", help="also run every method of the design (G2)")
    parser.add_argument("--epochs", type=int, default=None, help="G2's epochs (default: the config's)")
    parser.add_argument("overrides", nargs="*", help="section.key=value config overrides (the learner)")
    args = parser.parse_args()
    name = Path(args.config).stem
    if name not in GATES:
        parser.error(f"no pilot gates for {name}: one of {sorted(GATES)}")
    gates, design = GATES[name], DESIGNS.get(name)
    if args.g2 and not (isinstance(design, ExactDesign) and gates.g2_min_mean is not None):
        parser.error(f"{name} has no G2 here (design 4's ran through curriculum_efficacy.py)")
    out = Path(args.out or f"{design.out if design else 'benchmarks/results'}/pilots")
    args.out = str(out)
    out.mkdir(parents=True, exist_ok=True)
    for seed in args.seeds:
        result = gates_for_seed(args, gates, seed)
        write_json(out / f"gates-seed-{seed}.json", result)
        if args.g2:
            clock = time.perf_counter()
            result["G2"] = g2_for_seed(args, design, seed)
            result["G2"]["seconds"] = time.perf_counter() - clock
            write_json(out / f"gates-seed-{seed}.json", result)
            print(f"seed {seed} G2: {json.dumps(result['G2']['diff_vs_uniform'])}", flush=True)
    if args.g2:
        summary = pilot_summary(out, gates)
        write_json(out / "pilot.json", summary)
        print(f"pilot: {json.dumps({k: summary.get(k) for k in ('seeds', 'G2', 'power')})}", flush=True)


if __name__ == "__main__":
    main()
