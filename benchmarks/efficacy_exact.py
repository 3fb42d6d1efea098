"""The fourth curriculum-efficacy design's figures: the exact metric's summary, its tests, data and plots.

The primary metric of a run is its area under the exact learning curve: ``heldout_gold_prob`` (the mean over
the held-out set of the teacher-forced probability of each task's reference answer) averaged over the
evaluations after training starts. Differences between methods are paired by seed (one warm start and one
secret ladder per seed) and tested with a paired t-test; 95% bootstrap intervals are over seeds and over seeds
and held-out tasks. The learning-signal diagnostics of every epoch (share of GRPO groups with a signal, too
easy, too hard, in band; whether the simulator's update kept anything; per-level success) are averaged per
method. ``curriculum_efficacy.py`` runs the seeds and calls ``exact_summary`` and ``write_exact_outputs``.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import numpy as np
from efficacy_stats import band, bootstrap_mean_ci, paired_t, two_level_bootstrap_ci

#: Column widths of ``print_exact_report``'s table.
WIDTHS = (18, 16, 11, 13, 7, 8)
#: Per-epoch diagnostics averaged per method (None where a method has none, e.g. ``sim_updated``).
DIAGNOSTICS = ("signal_share", "too_easy_share", "too_hard_share", "in_band_share", "sim_updated")


def eval_rows(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The rows of a run that hold an evaluation (epoch 0, the warm-started agent, first)."""
    return [row for row in record["rows"] if "heldout_acc" in row]


def gold_curve(record: dict[str, Any], key: str = "heldout_gold_prob") -> list[tuple[int, float]]:
    """``(agent samples, key)`` at every evaluation of a run."""
    return [(row["agent_samples"], row[key]) for row in eval_rows(record)]


def gold_auc(record: dict[str, Any]) -> float:
    """The primary metric of one run: ``heldout_gold_prob`` averaged over the evaluations after epoch 0."""
    return float(np.mean([y for x, y in gold_curve(record) if x > 0]))


def task_auc(record: dict[str, Any]) -> np.ndarray:
    """Per held-out task: its gold probability averaged over the evaluations after epoch 0."""
    rows = eval_rows(record)
    kept = [i for i, row in enumerate(rows) if row["agent_samples"] > 0]
    gold = np.exp(np.array([record["eval_gold"][i] for i in kept], dtype=float))
    return gold.mean(axis=0)


def epoch_mean(records: list[dict[str, Any]], key: str) -> list[float | None]:
    """``key`` per epoch (1..E), averaged over seeds where present."""
    table = [[row.get(key) for row in r["rows"][1:]] for r in records]
    out: list[float | None] = []
    for column in zip(*table, strict=True):
        values = [float(v) for v in column if v is not None]
        out.append(float(np.mean(values)) if values else None)
    return out


def difference(
    a: str,
    b: str,
    auc: dict[str, np.ndarray],
    tasks: dict[str, np.ndarray],
    rng: np.random.Generator,
    resamples: int,
) -> dict[str, Any]:
    """The paired difference ``a - b`` of the primary metric: per seed, mean, sd, paired t and intervals."""
    diff = auc[a] - auc[b]
    test = paired_t(diff)
    return {
        "minuend": a,
        "subtrahend": b,
        "per_seed": diff.tolist(),
        "mean": float(diff.mean()),
        "sd": float(diff.std(ddof=1)) if len(diff) > 1 else 0.0,
        "paired_t": test,
        "ci95_seeds": list(bootstrap_mean_ci(diff, rng, resamples)),
        "ci95_seeds_and_tasks": list(two_level_bootstrap_ci(tasks[a], tasks[b], rng, min(resamples, 2_000))),
        "seeds_ahead": int((diff > 0).sum()),
        "significant": bool(test["p"] < 0.05),
    }


def exact_summary(runs: dict[str, list[dict[str, Any]]], design: Any, resamples: int) -> dict[str, Any]:
    """Per method the primary metric and the diagnostics; the primary, control and secondary differences;
    the verdict (void unless the control's difference is positive with p < 0.05)."""
    rng = np.random.default_rng(0)
    auc = {m: np.array([gold_auc(r) for r in records]) for m, records in runs.items()}
    tasks = {m: np.array([task_auc(r) for r in records]) for m, records in runs.items()}
    out: dict[str, Any] = {
        "design": {
            "methods": list(design.methods),
            "primary": list(design.primary),
            "control": list(design.control),
            "secondary": [list(p) for p in design.secondary],
            "method_overrides": {m: list(o) for m, o in design.method_overrides.items()},
        },
        "methods": {},
    }
    for method, records in runs.items():
        last = [eval_rows(r)[-1] for r in records]
        levels = sorted(int(k.rsplit("_", 1)[1]) for k in last[0] if k.startswith("heldout_gold_prob_level_"))
        entry: dict[str, Any] = {
            "gold_auc_per_seed": auc[method].tolist(),
            "gold_auc_mean": float(auc[method].mean()),
            "gold_auc_sd": float(auc[method].std(ddof=1)) if len(records) > 1 else 0.0,
            "final_gold_prob_mean": float(np.mean([row["heldout_gold_prob"] for row in last])),
            "final_greedy_mean": float(np.mean([row["heldout_acc"] for row in last])),
            "greedy_auc_mean": float(
                np.mean([np.mean([y for x, y in gold_curve(r, "heldout_acc") if x > 0]) for r in records])
            ),
            "final_gold_prob_per_level": {
                str(lv): float(np.mean([row[f"heldout_gold_prob_level_{lv}"] for row in last]))
                for lv in levels
            },
            "curve_samples": [x for x, _ in gold_curve(records[0])],
            "curve_mean": np.mean([[y for _, y in gold_curve(r)] for r in records], axis=0).tolist(),
        }
        for key in DIAGNOSTICS:
            per_epoch = epoch_mean(records, key)
            present = [v for v in per_epoch if v is not None]
            entry[f"{key}_per_epoch"] = per_epoch
            entry[f"{key}_mean"] = float(np.mean(present)) if present else None
        entry["scoring_samples_per_run"] = float(
            np.mean([r["rows"][-1].get("scoring_samples", 0) or 0 for r in records])
        )
        out["methods"][method] = entry
    pairs = {"primary": design.primary, "control": design.control}
    pairs |= {f"{a}_vs_{b}": (a, b) for a, b in design.secondary}
    for name, (a, b) in pairs.items():
        if a in runs and b in runs:
            out[name] = difference(a, b, auc, tasks, rng, resamples)
    control = out.get("control")
    out["control_beats_comparator"] = bool(control and control["mean"] > 0 and control["significant"])
    primary = out.get("primary")
    if not out["control_beats_comparator"]:
        out["verdict"] = "void: the positive control did not beat the comparator"
    elif primary is None:
        out["verdict"] = "control only: the primary methods were not run"
    elif primary["significant"]:
        side = "ahead of" if primary["mean"] > 0 else "behind"
        out["verdict"] = f"significant: {primary['minuend']} {side} {primary['subtrahend']}"
    else:
        out["verdict"] = "not significant"
    return out


def write_exact_outputs(runs: dict[str, list[dict[str, Any]]], summary: dict[str, Any], out: Path) -> None:
    """``gold_curves.csv``, ``level_gold.csv``, ``diagnostics.csv`` and the figures drawn from them:
    ``gold_vs_samples.png``, ``level_gold_heatmap.png``, ``diagnostics.png``."""
    with (out / "gold_curves.csv").open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["method", "seed", "agent_samples", "gold_prob", "greedy_acc"])
        for method, records in runs.items():
            for r in records:
                for row in eval_rows(r):
                    writer.writerow(
                        [method, r["seed"], row["agent_samples"], f"{row['heldout_gold_prob']:.5f}",
                         f"{row['heldout_acc']:.4f}"]
                    )  # fmt: skip
    with (out / "level_gold.csv").open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["method", "level", "agent_samples", "mean_gold_prob"])
        for method, records in runs.items():
            for lv, xs, ys in level_grid(records):
                for x, y in zip(xs, ys, strict=True):
                    writer.writerow([method, lv, x, f"{y:.5f}"])
    with (out / "diagnostics.csv").open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["method", "epoch", *DIAGNOSTICS])
        for method, entry in summary["methods"].items():
            for e, values in enumerate(zip(*(entry[f"{k}_per_epoch"] for k in DIAGNOSTICS), strict=True), 1):
                writer.writerow([method, e, *("" if v is None else f"{v:.4f}" for v in values)])
    plot_exact(runs, summary, out)


def level_grid(
    records: list[dict[str, Any]], prefix: str = "heldout_gold_prob_level_"
) -> list[tuple[int, list[int], np.ndarray]]:
    """Per level: the evaluations' sample counts and the mean (over seeds) of the level's figure there
    (``<prefix><level>``: the gold probability by default)."""
    first = eval_rows(records[0])
    levels = sorted(int(k.rsplit("_", 1)[1]) for k in first[0] if k.startswith(prefix))
    xs = [row["agent_samples"] for row in first]
    return [
        (lv, xs, np.mean([[row[f"{prefix}{lv}"] for row in eval_rows(r)] for r in records], axis=0))
        for lv in levels
    ]


def plot_level_heatmaps(runs: dict[str, list[dict[str, Any]]], prefix: str, path: Path, label: str) -> None:
    """One heatmap per method of ``level_grid(records, prefix)`` (levels by agent samples), side by side."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(runs), figsize=(3.6 * len(runs), 3.6), sharey=True)
    image = None
    for ax, (method, records) in zip(np.atleast_1d(axes), runs.items(), strict=True):
        grid = level_grid(records, prefix)
        xs = grid[0][1]
        image = ax.imshow(np.array([ys for _, _, ys in grid]), origin="lower", aspect="auto", vmin=0, vmax=1)
        ax.set_title(method, fontsize=9)
        ticks = list(range(0, len(xs), max(1, len(xs) // 6)))
        ax.set_xticks(ticks, [str(xs[i]) for i in ticks], rotation=60, fontsize=7)
        ax.set_yticks(range(len(grid)), [str(lv) for lv, _, _ in grid])
        ax.set_xlabel("agent samples")
    np.atleast_1d(axes)[0].set_ylabel("level")
    fig.colorbar(image, ax=axes, shrink=0.8, label=label)
    fig.savefig(path, dpi=80, bbox_inches="tight")
    plt.close(fig)


def plot_exact(runs: dict[str, list[dict[str, Any]]], summary: dict[str, Any], out: Path) -> None:
    """The three figures of ``write_exact_outputs``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rng = np.random.default_rng(3)
    comparator = summary["design"]["control"][1]
    fig, (ax, ax_diff) = plt.subplots(1, 2, figsize=(13, 4.8))
    curves = {m: np.array([[y for _, y in gold_curve(r)] for r in records]) for m, records in runs.items()}
    for method, records in runs.items():
        xs = [x for x, _ in gold_curve(records[0])]
        ys = curves[method]
        lo, hi = band(ys, rng)
        line = ax.plot(xs, ys.mean(0), marker="o", markersize=2, label=method)[0]
        ax.fill_between(xs, lo, hi, alpha=0.15)
        if method != comparator and comparator in curves:
            diff = ys - curves[comparator]
            lo, hi = band(diff, rng)
            ax_diff.plot(xs, diff.mean(0), color=line.get_color(), label=f"{method} - {comparator}")
            ax_diff.fill_between(xs, lo, hi, alpha=0.15, color=line.get_color())
    ax.set_xlabel("agent samples")
    ax.set_ylabel("held-out gold probability (teacher-forced)")
    ax.set_title(f"exact metric, mean over {len(next(iter(runs.values())))} seeds, 95% band", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    ax_diff.axhline(0.0, color="black", linewidth=1)
    ax_diff.set_xlabel("agent samples")
    ax_diff.set_ylabel("paired difference")
    ax_diff.grid(alpha=0.3)
    ax_diff.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "gold_vs_samples.png", dpi=90)
    plt.close(fig)

    plot_level_heatmaps(
        runs, "heldout_gold_prob_level_", out / "level_gold_heatmap.png", "gold probability (mean over seeds)"
    )

    fig, axes = plt.subplots(1, len(DIAGNOSTICS), figsize=(4 * len(DIAGNOSTICS), 3.8))
    titles = {
        "signal_share": "groups with a learning signal",
        "too_easy_share": "groups all solved (too easy)",
        "too_hard_share": "groups all failed (too hard)",
        "in_band_share": "tasks in the band |p - alpha| <= k_min",
        "sim_updated": "share of seeds whose RWR update kept a batch",
    }
    for ax, key in zip(axes, DIAGNOSTICS, strict=True):
        for method, entry in summary["methods"].items():
            values = entry[f"{key}_per_epoch"]
            points = [(e, v) for e, v in enumerate(values, 1) if v is not None]
            if points:
                ax.plot(*zip(*points, strict=True), marker="o", markersize=2, label=method)
        ax.set_ylim(0, 1)
        ax.set_xlabel("epoch")
        ax.set_title(titles[key], fontsize=9)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "diagnostics.png", dpi=80)
    plt.close(fig)


def print_exact_report(summary: dict[str, Any]) -> None:
    """The design's table, as text."""
    header = ("method", "gold AUC", "final gold", "final greedy", "signal", "RWR upd")
    cells = [f"{h:{'<' if i == 0 else '>'}{w}}" for i, (h, w) in enumerate(zip(header, WIDTHS, strict=True))]
    print("\n" + " ".join(cells))
    for method, s in summary["methods"].items():
        updated = "-" if s["sim_updated_mean"] is None else f"{s['sim_updated_mean']:.2f}"
        auc = f"{s['gold_auc_mean']:.3f} +- {s['gold_auc_sd']:.3f}"
        print(
            f"{method:<18} {auc:>16} {s['final_gold_prob_mean']:>11.3f} {s['final_greedy_mean']:>13.3f}"
            f" {s['signal_share_mean']:>7.2f} {updated:>8}"
        )
    for name in ["primary", "control", *(k for k in summary if "_vs_" in k)]:
        d = summary.get(name)
        if not isinstance(d, dict) or "paired_t" not in d:
            continue
        ci, ci2 = d["ci95_seeds"], d["ci95_seeds_and_tasks"]
        print(
            f"{name}: {d['minuend']} - {d['subtrahend']} = {d['mean']:+.3f} (sd {d['sd']:.3f}), paired t "
            f"{d['paired_t']['t']:.2f} p={d['paired_t']['p']:.4f}, CI seeds [{ci[0]:+.3f}, {ci[1]:+.3f}], "
            f"seeds+tasks [{ci2[0]:+.3f}, {ci2[1]:+.3f}], {d['seeds_ahead']}/{len(d['per_seed'])} seeds ahead"
        )
    print(f"verdict: {summary['verdict']}")
