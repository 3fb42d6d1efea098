"""PNG plots of a run's curves (the paper's Figs. 4-8 in miniature) from its ``metrics.jsonl``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from genenv_gym.train.metrics import read_metrics

PANELS = (
    ("gen_success", "success on generated tasks"),
    ("in_band_share", "share of in-band tasks"),
    ("r_env", "mean R_env"),
    ("task_level", "generated-task level (difficulty)"),
    ("task_tokens", "generated-task length (tokens)"),
    ("response_tokens", "agent response length (tokens)"),
    ("validity", "validity rate of generated tasks"),
    ("heldout_acc", "held-out (benchmark) accuracy"),
)


def plot_run(run_dir: str | Path, alpha: float = 0.5, k_min: float = 0.1) -> Path | None:
    """Write ``run_dir/curves.png``; None (with a message) when matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("genenv train: matplotlib is not installed (pip install 'genenv-gym[train]'); no plots written")
        return None
    run_dir = Path(run_dir)
    rows = [r for r in read_metrics(run_dir / "metrics.jsonl") if r.get("epoch", 0) >= 1]
    if not rows:
        return None
    fig, axes = plt.subplots(3, 4, figsize=(16, 10.5))
    plot_signal_panels(axes[2], rows, read_metrics(run_dir / "metrics.jsonl"))
    for ax, (key, title) in zip(axes.flat, PANELS, strict=False):
        points = [(r["epoch"], r[key]) for r in rows if r.get(key) is not None]
        if key == "heldout_acc":
            points = [
                (r["epoch"], r[key])
                for r in read_metrics(run_dir / "metrics.jsonl")
                if r.get(key) is not None
            ]
        if points:
            ax.plot(*zip(*points, strict=True), marker="o")
        if key == "gen_success":
            ax.axhspan(alpha - k_min, alpha + k_min, color="green", alpha=0.15, label="alpha band")
            ax.axhline(alpha, color="green", linestyle="--", linewidth=1)
            ax.set_ylim(0, 1)
            ax.legend(loc="lower right")
        ax.set_title(title)
        ax.set_xlabel("epoch")
        ax.grid(alpha=0.3)
    fig.tight_layout()
    out = run_dir / "curves.png"
    fig.savefig(out, dpi=90)
    plt.close(fig)
    return out


def plot_signal_panels(axes: Any, rows: list[dict[str, Any]], all_rows: list[dict[str, Any]]) -> None:
    """The learning-signal row of ``curves.png``: the shares of GRPO groups with a signal, too easy and too
    hard; whether the simulator's update kept anything; the exact held-out metric; per-level success."""
    ax = axes[0]
    for key, label in (
        ("signal_share", "signal"),
        ("too_easy_share", "too easy"),
        ("too_hard_share", "too hard"),
    ):
        points = [(r["epoch"], r[key]) for r in rows if r.get(key) is not None]
        if points:
            ax.plot(*zip(*points, strict=True), marker="o", markersize=3, label=label)
    ax.set_ylim(0, 1)
    ax.legend(fontsize=8)
    ax.set_title("GRPO groups: with a signal / all solved / all failed")
    ax = axes[1]
    points = [(r["epoch"], r["sim_updated"]) for r in rows if r.get("sim_updated") is not None]
    if points:
        ax.plot(*zip(*points, strict=True), marker="s", linestyle="none")
    ax.set_ylim(-0.1, 1.1)
    ax.set_title("simulator update kept a batch (1) or nothing (0)")
    ax = axes[2]
    points = [
        (r["epoch"], r["heldout_gold_prob"]) for r in all_rows if r.get("heldout_gold_prob") is not None
    ]
    if points:
        ax.plot(*zip(*points, strict=True), marker="o")
    ax.set_title("held-out gold probability (exact)")
    ax = axes[3]
    grid = [[float("nan") if p is None else p for p in r["level_p"]] for r in rows if r.get("level_p")]
    if grid:
        image = ax.imshow(list(zip(*grid, strict=True)), origin="lower", aspect="auto", vmin=0, vmax=1)
        ax.figure.colorbar(image, ax=ax, shrink=0.8)
    ax.set_ylabel("level")
    ax.set_title("per-level success p of the epoch's tasks")
    for ax in axes:
        ax.set_xlabel("epoch")
        ax.grid(alpha=0.3)
