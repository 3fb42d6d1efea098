"""Curriculum efficacy in the CPU miniature: alpha-curriculum vs static vs random-simulator vs base-only.

Every method starts from the same warm-started agent (one warm start per seed, so the comparison is paired),
spends the same number of agent samples per epoch, and is evaluated on the same held-out Digits tasks.
Per seed and method the script keeps the trainer's per-epoch metrics, among them the mechanism the
alpha-curriculum targets: ``signal_share`` (the share of GRPO groups with a non-zero advantage),
``train_success`` (the agent's success on the tasks it trained on) and ``train_level_counts`` (the levels
of those tasks). It writes, into ``--out``:

- ``efficacy.json``: the config, every run's curves and mechanism metrics, the final held-out outcome of
  every task, the paired differences vs the alpha-curriculum per seed with 95% bootstrap confidence
  intervals (over seeds, and over seeds and held-out tasks), and the samples-to-reach ratios;
- ``heldout_vs_samples.png``: held-out accuracy against agent samples, mean over seeds with a 95% band,
  and the paired difference (alpha-curriculum minus each method) with its 95% band over seeds;
- ``signal_share.png``: learning-signal share and success on the trained tasks per epoch;
- ``levels.png``: the level distribution of the trained tasks over the epochs, per method.

    python benchmarks/curriculum_efficacy.py --config configs/efficacy.yaml --seeds 0 1 2 3 4
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from genenv_gym.train.config import BASELINES, TrainConfig, load_config
from genenv_gym.train.loop import Trainer

#: The method every other one is compared with.
REFERENCE = "alpha-curriculum"
#: Per-epoch metrics kept in the JSON (the rest of a metrics row stays in the run folders).
KEPT = (
    "epoch",
    "agent_samples",
    "heldout_acc",
    "gen_success",
    "in_band_share",
    "task_level",
    "sim_mean_level",
    "signal_share",
    "reward_var",
    "train_success",
    "train_level_counts",
    "train_level_success",
    "seconds",
)


#: Overrides of every run these benchmarks make: no plots, progress bars or TensorBoard, one torch thread,
#: one checkpoint (at the last epoch).
QUIET_RUN = (
    "run.plots=false",
    "run.progress=false",
    "run.tensorboard=false",
    "run.threads=1",
    "run.checkpoint_every=1000000",
)


def warm_started_weights(cfg: TrainConfig) -> tuple[dict[str, torch.Tensor], Trainer]:
    """The agent's weights after the warm start of ``cfg``, and the Trainer that made them (its loss and
    steps)."""
    warm = Trainer(cfg)
    warm.warm_start()
    return {k: v.clone() for k, v in warm.model.state_dict().items()}, warm


class RecordingTrainer(Trainer):
    """A Trainer that also keeps the per-task held-out outcomes of its latest evaluation."""

    last_outcomes: list[int]

    def evaluate(self) -> dict[str, float]:
        """``Trainer.evaluate``'s figures; the per-task successes (held-out order) go to ``last_outcomes``."""
        from dataclasses import replace

        from genenv_gym.agents.backends.base import SamplingParams

        params = SamplingParams(temperature=0.0, max_new_tokens=self.cfg.agent.max_new_tokens)
        self.eval_engine.config = replace(self.eval_engine.config, params=params, seed=0)
        trajectories = self._run_sharded(self.eval_engine, self.heldout)
        index = {task.id: i for i, task in enumerate(self.heldout)}
        outcomes = [0] * len(self.heldout)
        for t in trajectories:
            outcomes[index[t.task.id]] = int(t.success)
        self.last_outcomes = outcomes
        result = {"heldout_acc": float(np.mean(outcomes))}
        for level in range(self.domain.num_levels):
            hits = [t.success for t in trajectories if t.task.level == level]
            if hits:
                result[f"heldout_level_{level}"] = float(np.mean(hits))
        return result


def samples_to_reach(curve: list[tuple[float, float]], target: float) -> float | None:
    """The first sample count at which ``curve`` reaches ``target`` (linear interpolation), or None."""
    for (x0, y0), (x1, y1) in itertools.pairwise(curve):
        if y0 >= target:
            return x0
        if y1 >= target:
            return x0 + (target - y0) / (y1 - y0) * (x1 - x0)
    return curve[0][0] if curve and curve[0][1] >= target else None


def bootstrap_mean_ci(
    values: np.ndarray, rng: np.random.Generator, resamples: int = 10_000, level: float = 0.95
) -> tuple[float, float]:
    """Percentile bootstrap CI of the mean of ``values`` (resampled with replacement)."""
    values = np.asarray(values, dtype=float)
    idx = rng.integers(0, len(values), size=(resamples, len(values)))
    means = values[idx].mean(axis=1)
    tail = (1.0 - level) / 2 * 100
    return float(np.percentile(means, tail)), float(np.percentile(means, 100 - tail))


def two_level_bootstrap_ci(
    outcomes_a: np.ndarray,
    outcomes_b: np.ndarray,
    rng: np.random.Generator,
    resamples: int = 2_000,
    level: float = 0.95,
) -> tuple[float, float]:
    """CI of the mean paired difference ``a - b`` resampling seeds, then held-out tasks (the same for both).

    ``outcomes_*``: ``[seeds, tasks]`` arrays of 0/1 held-out outcomes; the task resample is shared by the
    two methods and by all seeds of one draw, so the difference stays paired by task.
    """
    diff = outcomes_a.astype(float) - outcomes_b.astype(float)
    seeds, tasks = diff.shape
    means = np.empty(resamples)
    for r in range(resamples):
        s = rng.integers(0, seeds, size=seeds)
        t = rng.integers(0, tasks, size=tasks)
        means[r] = diff[np.ix_(s, t)].mean()
    tail = (1.0 - level) / 2 * 100
    return float(np.percentile(means, tail)), float(np.percentile(means, 100 - tail))


def band(ys: np.ndarray, rng: np.random.Generator, resamples: int = 2_000) -> tuple[np.ndarray, np.ndarray]:
    """Pointwise 95% bootstrap band (over seeds, rows of ``ys``) of the mean curve."""
    idx = rng.integers(0, ys.shape[0], size=(resamples, ys.shape[0]))
    means = ys[idx].mean(axis=1)
    return np.percentile(means, 2.5, axis=0), np.percentile(means, 97.5, axis=0)


def summarise(runs: dict[str, list[dict[str, Any]]], resamples: int, seed: int = 0) -> dict[str, Any]:
    """Paired differences with CIs, samples-to-reach ratios and per-epoch mechanism means, from ``runs``.

    ``runs[method]`` is one record per seed (same seed order for every method): ``rows`` (kept metrics per
    epoch, epoch 0 first) and ``final_outcomes`` (0/1 per held-out task of the last evaluation).
    """
    rng = np.random.default_rng(seed)
    out: dict[str, Any] = {"methods": {}}
    ref_final = np.array([r["rows"][-1]["heldout_acc"] for r in runs[REFERENCE]])
    ref_outcomes = np.array([r["final_outcomes"] for r in runs[REFERENCE]])
    ref_curve = mean_curve(runs[REFERENCE])
    for method, records in runs.items():
        curve = mean_curve(records)
        final = np.array([r["rows"][-1]["heldout_acc"] for r in records])
        outcomes = np.array([r["final_outcomes"] for r in records])
        entry: dict[str, Any] = {
            "final_per_seed": final.tolist(),
            "final_mean": float(final.mean()),
            "final_std": float(final.std()),
            "curve_samples": [x for x, _ in curve],
            "curve_mean": [y for _, y in curve],
        }
        # the held-out set's own sampling error of one run's accuracy (binomial, mean over seeds)
        entry["heldout_se"] = float(np.mean(np.sqrt(final * (1 - final) / outcomes.shape[1])))
        for key in (
            "signal_share",
            "reward_var",
            "train_success",
            "gen_success",
            "in_band_share",
            "task_level",
        ):
            per_seed = np.array(
                [[row.get(key, np.nan) for row in r["rows"][1:]] for r in records], dtype=float
            )
            entry[f"{key}_per_epoch"] = np.nanmean(per_seed, axis=0).tolist() if per_seed.size else []
        counts = np.array(
            [[row["train_level_counts"] for row in r["rows"][1:]] for r in records], dtype=float
        )
        entry["level_share_per_epoch"] = (counts.sum(0) / counts.sum(0).sum(1, keepdims=True)).tolist()
        if method != REFERENCE:
            diff = ref_final - final
            lo, hi = bootstrap_mean_ci(diff, rng, resamples)
            lo2, hi2 = two_level_bootstrap_ci(ref_outcomes, outcomes, rng, min(resamples, 2_000))
            task_diff = ref_outcomes.astype(float) - outcomes.astype(float)
            entry["paired_diff"] = {
                "per_seed": diff.tolist(),
                "mean": float(diff.mean()),
                "ci95_seeds": [lo, hi],
                "ci95_seeds_and_tasks": [lo2, hi2],
                # the held-out set's sampling error of one seed's paired difference (tasks resampled)
                "heldout_se_per_seed": (task_diff.std(axis=1, ddof=1) / np.sqrt(task_diff.shape[1])).tolist(),
                "seeds_ahead": int((diff > 0).sum()),
            }
            target, budget = curve[-1][1], curve[-1][0]
            needed = samples_to_reach(ref_curve, target)
            per_seed_ratio = []
            for ref_rec, rec in zip(runs[REFERENCE], records, strict=True):
                own = [
                    (row["agent_samples"], row["heldout_acc"]) for row in rec["rows"] if "heldout_acc" in row
                ]
                ref = [
                    (row["agent_samples"], row["heldout_acc"])
                    for row in ref_rec["rows"]
                    if "heldout_acc" in row
                ]
                n = samples_to_reach(ref, own[-1][1])
                per_seed_ratio.append(None if not n else own[-1][0] / n)
            # ratio None: the alpha-curriculum never reached the target (or already had it at 0 samples,
            # "alpha_samples": 0)
            entry["samples_to_reach"] = {
                "target": target,
                "method_samples": budget,
                "alpha_samples": needed,
                "ratio": None if not needed else budget / needed,
                "ratio_per_seed": per_seed_ratio,
            }
        out["methods"][method] = entry
    return out


def mean_curve(records: list[dict[str, Any]]) -> list[tuple[float, float]]:
    """``(agent samples, mean held-out accuracy over seeds)`` at every evaluated epoch."""
    xs = [row["agent_samples"] for row in records[0]["rows"] if "heldout_acc" in row]
    ys = np.array([[row["heldout_acc"] for row in r["rows"] if "heldout_acc" in row] for r in records])
    return list(zip(xs, ys.mean(0).tolist(), strict=True))


def plot_all(runs: dict[str, list[dict[str, Any]]], summary: dict[str, Any], out: Path, title: str) -> None:
    """The three figures: held-out accuracy vs samples, mechanism per epoch, level distribution per epoch."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rng = np.random.default_rng(1)
    fig, (ax, ax_diff) = plt.subplots(1, 2, figsize=(13, 4.8))

    def heldout(records: list[dict[str, Any]]) -> tuple[list[int], np.ndarray]:
        xs = [row["agent_samples"] for row in records[0]["rows"] if "heldout_acc" in row]
        ys = np.array([[row["heldout_acc"] for row in r["rows"] if "heldout_acc" in row] for r in records])
        return xs, ys

    _, ref_ys = heldout(runs[REFERENCE])
    for method, records in runs.items():
        xs, ys = heldout(records)
        lo, hi = band(ys, rng)
        line = ax.plot(xs, ys.mean(0), marker="o", markersize=3, label=method)[0]
        ax.fill_between(xs, lo, hi, alpha=0.15)
        if method != REFERENCE:  # paired by seed: alpha-curriculum minus this method
            diff = ref_ys - ys
            lo, hi = band(diff, rng)
            ax_diff.plot(xs, diff.mean(0), marker="o", markersize=3, color=line.get_color(), label=method)
            ax_diff.fill_between(xs, lo, hi, alpha=0.15, color=line.get_color())
    ax.set_xlabel("agent samples")
    ax.set_ylabel("held-out accuracy")
    ax.set_title(f"{title}: mean over seeds, 95% bootstrap band", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend()
    ax_diff.axhline(0.0, color="black", linewidth=1)
    ax_diff.set_xlabel("agent samples")
    ax_diff.set_ylabel(f"{REFERENCE} minus method (paired by seed)")
    ax_diff.set_title("paired held-out difference, 95% bootstrap band over seeds", fontsize=10)
    ax_diff.grid(alpha=0.3)
    ax_diff.legend()
    fig.tight_layout()
    fig.savefig(out / "heldout_vs_samples.png", dpi=90)
    plt.close(fig)

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for key, ax, label in (
        ("signal_share", axes[0], "share of GRPO groups with non-zero advantage"),
        ("train_success", axes[1], "success on the tasks trained on"),
    ):
        for method, records in runs.items():
            ys = np.array([[row[key] for row in r["rows"][1:]] for r in records], dtype=float)
            xs = np.arange(1, ys.shape[1] + 1)
            lo, hi = band(ys, rng)
            ax.plot(xs, ys.mean(0), marker="o", markersize=3, label=method)
            ax.fill_between(xs, lo, hi, alpha=0.15)
        if key == "train_success":
            ax.axhspan(0.4, 0.6, color="green", alpha=0.1, label="[0.4, 0.6]")
        ax.set_ylim(0, 1)
        ax.set_xlabel("epoch")
        ax.set_title(label)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "signal_share.png", dpi=90)
    plt.close(fig)

    fig, axes = plt.subplots(1, len(runs), figsize=(4 * len(runs), 4), sharey=True)
    for ax, method in zip(np.atleast_1d(axes), runs, strict=True):
        share = np.array(summary["methods"][method]["level_share_per_epoch"])
        image = ax.imshow(share.T, origin="lower", aspect="auto", cmap="viridis", vmin=0, vmax=0.5)
        ax.set_title(method)
        ax.set_xlabel("epoch")
        ax.set_xticks(range(0, share.shape[0], 2), [str(e + 1) for e in range(0, share.shape[0], 2)])
    np.atleast_1d(axes)[0].set_ylabel("task level")
    fig.colorbar(image, ax=axes, shrink=0.8, label="share of trained tasks")
    fig.savefig(out / "levels.png", dpi=80)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="configs/efficacy.yaml")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    parser.add_argument("--epochs", type=int, default=None, help="default: the config's run.epochs")
    parser.add_argument(
        "--heldout-per-length",
        type=int,
        default=None,
        help="held-out tasks per length (default: the domain's)",
    )
    parser.add_argument("--methods", nargs="+", default=list(BASELINES), choices=BASELINES)
    parser.add_argument("--bootstrap", type=int, default=10_000, help="bootstrap resamples")
    parser.add_argument("--out", default="benchmarks/results/curriculum_efficacy")
    parser.add_argument(
        "--runs-dir", default="/tmp/genenv_efficacy_runs", help="the runs' own folders (metrics, checkpoints)"
    )
    parser.add_argument(
        "--merge",
        nargs="+",
        default=None,
        metavar="JSON",
        help="no training: summarise and plot the complete seeds of earlier efficacy.json files (the seeds "
        "of one measurement run as several processes)",
    )
    parser.add_argument("overrides", nargs="*", help="section.key=value config overrides")
    args = parser.parse_args()
    if args.merge:
        merge(args.merge, Path(args.out), args.bootstrap)
        return
    if REFERENCE not in args.methods:
        parser.error(f"--methods must include {REFERENCE}")
    torch.set_num_threads(1)  # shared CPU: one thread, whatever the config says
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    runs: dict[str, list[dict[str, Any]]] = {m: [] for m in args.methods}
    start = time.perf_counter()
    runs_dir = Path(args.runs_dir)
    common = list(QUIET_RUN)
    if args.epochs is not None:
        common.append(f"run.epochs={args.epochs}")
    config = load_config(args.config, [*common, *args.overrides])
    record: dict[str, Any] = {"command": vars(args), "config": config.to_dict()}
    for seed in args.seeds:
        base = [*common, f"run.seed={seed}", *args.overrides]
        clock = time.perf_counter()
        warm_cfg = load_config(args.config, [*base, f"run.out_dir={runs_dir}/warm-s{seed}"])
        state, warm = warm_started_weights(warm_cfg)
        record.setdefault("warm_starts", {})[str(seed)] = {
            "loss": warm.warmstart_loss,
            "steps": warm.warmstart_step,
            "seconds": time.perf_counter() - clock,
        }
        print(
            f"seed {seed}: warm start loss {warm.warmstart_loss:.4f} after {warm.warmstart_step} steps"
            f" in {time.perf_counter() - clock:.0f}s",
            flush=True,
        )
        del warm
        for method in args.methods:
            cfg = load_config(
                args.config,
                [
                    *base,
                    f"run.baseline={method}",
                    "warmstart.steps=0",
                    f"run.out_dir={runs_dir}/{method}-s{seed}",
                ],
            )
            trainer = RecordingTrainer(cfg)
            if args.heldout_per_length is not None:
                trainer.domain.heldout_per_length = args.heldout_per_length
            trainer.model.load_state_dict(state)
            clock = time.perf_counter()
            rows = trainer.run()
            if "heldout_acc" not in rows[-1]:  # the last epoch was not an evaluation epoch
                rows[-1].update(trainer.evaluate())
            runs[method].append(
                {
                    "seed": seed,
                    "rows": [{k: r[k] for k in KEPT if k in r} for r in rows],
                    "heldout_levels": {k: v for k, v in rows[-1].items() if k.startswith("heldout_level_")},
                    "final_outcomes": trainer.last_outcomes,
                }
            )
            last = rows[-1]
            signal = np.mean([r["signal_share"] for r in rows[1:]]) if len(rows) > 1 else float("nan")
            print(
                f"seed {seed} {method:<17} held-out {rows[0]['heldout_acc']:.3f} -> {last['heldout_acc']:.3f}"
                f"  mean signal share {signal:.3f}  ({time.perf_counter() - clock:.0f}s,"
                f" total {time.perf_counter() - start:.0f}s)",
                flush=True,
            )
            record["runs"] = runs
            (out / "efficacy.json").write_text(json.dumps(record, separators=(",", ":")))
    summary = summarise(runs, args.bootstrap)
    record.update(summary=summary, heldout_tasks=len(runs[REFERENCE][0]["final_outcomes"]))
    record["seconds"] = time.perf_counter() - start
    (out / "efficacy.json").write_text(json.dumps(record, separators=(",", ":")))
    title = f"Digits ({config.run.domain}), {len(args.seeds)} seeds"
    plot_all(runs, summary, out, title)
    print_report(summary)
    print(f"wrote {out}/efficacy.json and 3 PNGs in {record['seconds']:.0f}s")


def merge(paths: list[str], out: Path, resamples: int) -> None:
    """Summarise, plot and write the seeds of several ``efficacy.json`` files as one measurement.

    A seed counts once (from the first file that has it for every method); seeds with a method missing (a
    process stopped midway) are left out. The files must come from the same config.
    """
    records = [json.loads(Path(p).read_text()) for p in paths]
    config = records[0]["config"]
    for path, record in zip(paths, records, strict=True):
        if record["config"] | {"run": None} != config | {"run": None}:
            raise SystemExit(f"{path} was run with another config than {paths[0]}")
    methods = list(records[0]["runs"])
    runs: dict[str, list[dict[str, Any]]] = {m: [] for m in methods}
    seeds: list[int] = []
    for record in records:
        by_seed = {m: {r["seed"]: r for r in record["runs"].get(m, [])} for m in methods}
        for seed in by_seed[REFERENCE]:
            if seed not in seeds and all(seed in by_seed[m] for m in methods):
                seeds.append(seed)
                for m in methods:
                    runs[m].append(by_seed[m][seed])
    order = np.argsort(seeds)
    runs = {m: [records_[i] for i in order] for m, records_ in runs.items()}
    out.mkdir(parents=True, exist_ok=True)
    summary = summarise(runs, resamples)
    merged = {
        "command": records[0]["command"],
        "merged_from": [
            {"path": str(p), "command": r["command"]} for p, r in zip(paths, records, strict=True)
        ],
        "config": config,
        "warm_starts": {k: v for r in records for k, v in r.get("warm_starts", {}).items()},
        "runs": runs,
        "summary": summary,
        "heldout_tasks": len(runs[REFERENCE][0]["final_outcomes"]),
        "seconds": sum(r.get("seconds", 0.0) for r in records),
    }
    (out / "efficacy.json").write_text(json.dumps(merged, separators=(",", ":")))
    plot_all(runs, summary, out, f"Digits ({config['run']['domain']}), {len(seeds)} seeds")
    print_report(summary)
    print(f"seeds {sorted(seeds)}; wrote {out}/efficacy.json and 3 PNGs")


def print_report(summary: dict[str, Any]) -> None:
    """The tables of docs/training.md, as text."""
    methods = summary["methods"]
    header = "diff vs alpha [95% CI seeds | seeds+tasks]"
    print(f"\n{'method':<18} {'final held-out':>15} {header:>48} {'ratio':>7}")
    for method, s in methods.items():
        line = f"{method:<18} {s['final_mean']:>8.3f} +- {s['final_std']:.3f}"
        if "paired_diff" in s:
            d, r = s["paired_diff"], s["samples_to_reach"]["ratio"]
            reached = s["samples_to_reach"]["alpha_samples"] is not None
            ci, ci2 = d["ci95_seeds"], d["ci95_seeds_and_tasks"]
            line += f" {d['mean']:>+10.3f} [{ci[0]:+.3f}, {ci[1]:+.3f} | {ci2[0]:+.3f}, {ci2[1]:+.3f}]"
            line += f" {f'{r:.2f}x' if r is not None else 'at start' if reached else 'never':>9}"
        print(line)
    for key in ("signal_share", "train_success", "gen_success"):
        print(f"\n{key} per epoch (mean over seeds)")
        for method, s in methods.items():
            print(f"{method:<18} " + " ".join(f"{v:.2f}" for v in s[f"{key}_per_epoch"]))


if __name__ == "__main__":
    main()
