"""Regenerate every figure that README and docs/training.md quote from the demo, and check for drift.

    python benchmarks/reproduce_demo.py                 # both seeds of configs/demo.yaml (~4 min each)
    python benchmarks/reproduce_demo.py --check         # the same, then compare with the committed results
    python benchmarks/reproduce_demo.py --check --epochs 1 --seeds 0   # what the CI test runs (~60 s)
    python benchmarks/reproduce_demo.py --config configs/demo_llm_sim.yaml   # docs/training_llm_simulator.md

Each run writes ``metrics-seed<s>.jsonl``, ``run-seed<s>.json`` (config, library versions, weight and
tokenizer fingerprints) and ``curves-seed<s>.png`` into ``benchmarks/results/<config name>/`` and prints
the per-epoch table of docs/training.md. ``--check`` writes to a temporary folder instead and exits 1 when a
quoted figure moved by more than the tolerance below, naming the figure and the library versions that
differ. A run of fewer epochs is compared with the committed run's first epochs: epochs are prefixes of a
longer run (``tests/train/test_resume.py`` shows a run split in two equals the straight run).

Every run trains in a child process under ``PORTABLE_NUMERICS`` (below): with the default float kernels the
same seed gives other figures on another CPU (AVX2 vs AVX-512, Intel vs AMD), because training amplifies
last-bit differences; with these it gives the same figures on any x86-64 CPU. To get the published figures
from ``genenv train``, set the same two variables: ``MKL_CBWR=COMPATIBLE ATEN_CPU_CAPABILITY=default``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from genenv_gym.train.metrics import read_metrics

RESULTS = Path(__file__).resolve().parent / "results"
CONFIG = Path(__file__).resolve().parents[1] / "configs" / "demo.yaml"
#: Largest accepted drift per quoted figure (absolute); held-out accuracy is over 200 tasks.
TOLERANCE = {"heldout_acc": 0.03, "warmstart_loss": 0.02, "gen_success": 0.06, "task_level": 0.75}
#: Float kernels that give the same numbers on every x86-64 CPU: MKL's conditional numerical
#: reproducibility and ATen's scalar kernels. Read when torch starts, hence the child process.
PORTABLE_NUMERICS = {"MKL_CBWR": "COMPATIBLE", "ATEN_CPU_CAPABILITY": "default"}


def run_demo(seed: int, folder: Path, epochs: int | None = None, config_path: Path = CONFIG) -> list[dict]:
    """Train the demo for ``seed`` (``epochs``: fewer than the config's) into ``folder`` in a child process
    under ``PORTABLE_NUMERICS``; its metrics rows."""
    command = [
        sys.executable,
        __file__,
        "--train-one",
        str(seed),
        "--out",
        str(folder),
        "--config",
        str(config_path),
    ]
    command += ["--epochs", str(epochs)] if epochs is not None else []
    subprocess.run(command, check=True, env={**os.environ, **PORTABLE_NUMERICS})
    return read_metrics(folder / f"metrics-seed{seed}.jsonl")


def _train_one(seed: int, folder: Path, epochs: int | None, config_path: Path) -> None:
    """The child process's work: one seed's run, its files copied into ``folder``."""
    from genenv_gym.train.config import load_config
    from genenv_gym.train.loop import Trainer

    overrides = [f"run.seed={seed}", "run.progress=false", "run.tensorboard=false"]
    overrides += [f"run.epochs={epochs}"] if epochs is not None else []
    with tempfile.TemporaryDirectory() as tmp:
        config = load_config(config_path, [*overrides, f"run.out_dir={tmp}"])
        Trainer(config).run()
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy(Path(tmp) / "metrics.jsonl", folder / f"metrics-seed{seed}.jsonl")
        shutil.copy(Path(tmp) / "run.json", folder / f"run-seed{seed}.json")
        if (Path(tmp) / "curves.png").exists():
            shutil.copy(Path(tmp) / "curves.png", folder / f"curves-seed{seed}.png")


def docs_table(rows: list[dict]) -> str:
    """The per-epoch table of docs/training.md."""

    def cell(row: dict, key: str, fmt: str) -> str:
        return fmt.format(row[key]) if row.get(key) is not None else "-"

    lines = [
        "| epoch | agent samples | success on generated tasks | in-band share | mean generated level "
        "| simulator mean level | held-out acc |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        cells = [
            str(row["epoch"]),
            str(row["agent_samples"]),
            cell(row, "gen_success", "{:.3f}"),
            cell(row, "in_band_share", "{:.3f}"),
            cell(row, "task_level", "{:.2f}"),
            cell(row, "sim_mean_level", "{:.2f}"),
            cell(row, "heldout_acc", "{:.3f}"),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def drift(reference: list[dict], fresh: list[dict]) -> list[str]:
    """The quoted figures of ``fresh`` that moved from ``reference`` by more than the tolerance."""
    problems = []
    reference = reference[: len(fresh)]
    if [r["epoch"] for r in reference] != [r["epoch"] for r in fresh]:
        return [f"epochs differ: {[r['epoch'] for r in reference]} vs {[r['epoch'] for r in fresh]}"]
    for old, new in zip(reference, fresh, strict=True):
        for key, tolerance in TOLERANCE.items():
            if old.get(key) is None or new.get(key) is None:
                continue
            if abs(old[key] - new[key]) > tolerance:
                problems.append(
                    f"epoch {old['epoch']} {key}: {new[key]:.4f} here, {old[key]:.4f} committed "
                    f"(tolerance {tolerance})"
                )
    return problems


def version_differences(reference_record: Path, fresh_record: dict) -> list[str]:
    """Library versions and fingerprints that differ from the committed run record."""
    if not reference_record.exists():
        return [f"no committed run record at {reference_record}"]
    old = json.loads(reference_record.read_text())
    changed = [
        f"{name} {old['versions'].get(name)} -> {version}"
        for name, version in fresh_record["versions"].items()
        if name != "genenv-gym" and old["versions"].get(name) != version
    ]
    for key in ("initial_weights_sha256", "tokenizer_sha256", "cpu_capability", "mkl_cbwr"):
        if old.get(key) != fresh_record.get(key):
            changed.append(f"{key} {old.get(key)} -> {fresh_record.get(key)}")
    return changed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, default=CONFIG, help="configs/demo.yaml or demo_llm_sim.yaml")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    parser.add_argument("--epochs", type=int, default=None, help="fewer epochs than the config's")
    parser.add_argument(
        "--check", action="store_true", help="compare with the committed results; exit 1 on drift"
    )
    parser.add_argument("--train-one", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.train_one is not None:
        _train_one(args.train_one, args.out, args.epochs, args.config)
        return 0
    committed = RESULTS / args.config.stem
    target = Path(tempfile.mkdtemp()) if args.check else committed
    failed = False
    for seed in args.seeds:
        rows = run_demo(seed, target, args.epochs, args.config)
        if args.config.stem == "demo":
            print(f"\nSeed {seed}:\n\n{docs_table(rows)}")
        if args.check:
            problems = drift(read_metrics(committed / f"metrics-seed{seed}.jsonl"), rows)
            fresh_record = json.loads((target / f"run-seed{seed}.json").read_text())
            if problems:
                failed = True
                print(f"\nseed {seed}: DRIFT from {committed}:\n  " + "\n  ".join(problems))
                changes = version_differences(committed / f"run-seed{seed}.json", fresh_record)
                print("  differences in the environment: " + ("; ".join(changes) or "none recorded"))
            else:
                print(f"\nseed {seed}: matches {committed} within {TOLERANCE}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
