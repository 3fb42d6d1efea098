"""A training run's learning curve and costs as a Markdown table, from its ``metrics.jsonl``.

One row per epoch: agent samples, success on the epoch's own tasks, held-out accuracy (where evaluated),
the learning-signal share, rollout and update tokens per second, epoch seconds and the epoch's peak GPU
memory. Then the held-out accuracy at the first and last evaluation, and the run's token rates over the
epochs after the first (compilation and warm-up fall in epoch 1)::

    python benchmarks/train_run_table.py runs/smollm2_digits_gpu
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from genenv_gym.train.metrics import read_metrics


def _cell(value: Any, fmt: str) -> str:
    return "-" if value is None else fmt.format(value)


def _rate(tokens: Any, seconds: Any) -> float | None:
    return tokens / seconds if tokens is not None and seconds else None


def table(rows: list[dict[str, Any]]) -> list[str]:
    """The Markdown lines of the module docstring's table."""
    lines = [
        "| epoch | samples | success on its tasks | held-out | signal share | rollout tok/s | update tok/s"
        " | epoch s | peak GPU GiB |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row['epoch']} | {row.get('agent_samples', 0)} | {_cell(row.get('gen_success'), '{:.3f}')}"
            f" | {_cell(row.get('heldout_acc'), '{:.3f}')} | {_cell(row.get('signal_share'), '{:.2f}')}"
            f" | {_cell(_rate(row.get('rollout_tokens'), row.get('rollout_seconds')), '{:,.0f}')}"
            f" | {_cell(_rate(row.get('update_tokens'), row.get('update_seconds')), '{:,.0f}')}"
            f" | {_cell(row.get('seconds'), '{:.1f}')} | {_cell(row.get('peak_gpu_gib'), '{:.2f}')} |"
        )
    return lines


def summary(rows: list[dict[str, Any]]) -> list[str]:
    """Held-out accuracy first -> last, and the token rates of epochs 2 on."""
    evaluated = [r for r in rows if r.get("heldout_acc") is not None]
    lines = []
    if evaluated:
        first, last = evaluated[0], evaluated[-1]
        lines.append(
            f"held-out: {first['heldout_acc']:.3f} (epoch {first['epoch']}) -> {last['heldout_acc']:.3f}"
            f" (epoch {last['epoch']})"
        )
    steady = [r for r in rows if r["epoch"] >= 2 and r.get("rollout_seconds")]
    if steady:
        rollout = sum(r["rollout_tokens"] for r in steady) / sum(r["rollout_seconds"] for r in steady)
        update = sum(r["update_tokens"] for r in steady) / sum(r["update_seconds"] for r in steady)
        seconds = sum(r["seconds"] for r in steady)
        peaks = [r["peak_gpu_gib"] for r in rows if r.get("peak_gpu_gib") is not None]
        peak = f"; peak GPU memory {max(peaks):.2f} GiB" if peaks else ""
        span = f"epochs {steady[0]['epoch']}-{steady[-1]['epoch']} ({seconds:.0f} s)"
        lines.append(f"{span}: rollout {rollout:,.0f} tok/s, update {update:,.0f} tok/s{peak}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", type=Path, help="a genenv train run.out_dir (holding metrics.jsonl)")
    args = parser.parse_args()
    rows = read_metrics(args.run_dir / "metrics.jsonl")
    print("\n".join([*table(rows), "", *summary(rows)]))


if __name__ == "__main__":
    main()
