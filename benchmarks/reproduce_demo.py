"""Regenerate every figure that README and docs/training.md quote from the demo, and check for drift.

    python benchmarks/reproduce_demo.py                 # both seeds of configs/demo.yaml (~4 min each)
    python benchmarks/reproduce_demo.py --check         # the same, then compare with the committed results
    python benchmarks/reproduce_demo.py --check --epochs 1 --seeds 0   # the slow test's check (minutes)
    python benchmarks/reproduce_demo.py --small         # the default test's small run: rewrites its fixture
    python benchmarks/reproduce_demo.py --small --check # the default test's check
    python benchmarks/reproduce_demo.py --config configs/demo_llm_sim.yaml   # docs/training_llm_simulator.md

Each run writes ``metrics-seed<s>.jsonl``, ``run-seed<s>.json`` (config, library versions, weight and
tokenizer fingerprints) and ``curves-seed<s>.png`` into ``benchmarks/results/<config name>/`` and prints
the per-epoch table of docs/training.md. ``--check`` writes to a temporary folder instead and exits 1 when a
quoted figure moved by more than the tolerance below, naming the figure and the library versions that
differ. A run of fewer epochs is compared with the committed run's first epochs: epochs are prefixes of a
longer run (``tests/train/test_resume.py`` shows a run split in two equals the straight run).

``--small`` runs seed 0 at ``SMALL`` (a short warm start and one small epoch: every code path of the first
epoch in under a minute) and compares it with ``tests/fixtures/demo_small/`` by ``SMALL_TOLERANCE``, which
also holds figures the docs do not quote: the small model barely learns, so its success rates alone would
hide a drift.

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
from collections.abc import Sequence
from pathlib import Path

from genenv_gym.train.metrics import read_metrics

RESULTS = Path(__file__).resolve().parent / "results"
CONFIG = Path(__file__).resolve().parents[1] / "configs" / "demo.yaml"
#: Largest accepted drift per quoted figure (absolute); held-out accuracy is over 200 tasks.
TOLERANCE = {"heldout_acc": 0.03, "warmstart_loss": 0.02, "gen_success": 0.06, "task_level": 0.75}
#: Float kernels that give the same numbers on every x86-64 CPU: MKL's conditional numerical
#: reproducibility and ATen's scalar kernels. Read when torch starts, hence the child process.
PORTABLE_NUMERICS = {"MKL_CBWR": "COMPATIBLE", "ATEN_CPU_CAPABILITY": "default"}
#: The default test's size: configs/demo.yaml (seed 0, one epoch) with a warm start of 100 half batches on
#: levels 0-2 only, at a learning rate that makes it learn them (the config's 500 steps on all 15 levels
#: cost minutes), and 32 tasks in the epoch: some groups succeed, so the GRPO update has a signal.
#: Its committed figures: ``SMALL_RESULTS`` (``--small`` rewrites them).
SMALL = (
    "warmstart.steps=100",
    "warmstart.batch_size=32",
    "warmstart.lr=1e-2",
    "warmstart.max_level=2",
    "agent.tasks_per_epoch=32",
    "run.plots=false",
)
SMALL_RESULTS = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "demo_small"
#: The small run's compared figures: tighter, and more of them (the update's and the replies' too). Under
#: ``PORTABLE_NUMERICS`` the same code gives the same figures on any x86-64 CPU.
SMALL_TOLERANCE = {
    "warmstart_loss": 1e-3,
    "heldout_acc": 1e-3,
    "gen_success": 1e-3,
    "task_level": 1e-3,
    "response_tokens": 1e-3,
    "r_env": 1e-4,
    "pg_loss": 1e-4,
    "kl": 1e-4,
    "clip_fraction": 1e-4,
    "grad_norm": 1e-3,
}


def run_demo(
    seed: int,
    folder: Path,
    epochs: int | None = None,
    config_path: Path = CONFIG,
    overrides: Sequence[str] = (),
) -> list[dict]:
    """Train the demo for ``seed`` (``epochs``: fewer than the config's; ``overrides``: ``section.key=value``
    changes such as ``SMALL``) into ``folder`` in a child process under ``PORTABLE_NUMERICS``; its metrics
    rows."""
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
    command += [f"--set={override}" for override in overrides]
    subprocess.run(command, check=True, env={**os.environ, **PORTABLE_NUMERICS})
    return read_metrics(folder / f"metrics-seed{seed}.jsonl")


def _train_one(
    seed: int, folder: Path, epochs: int | None, config_path: Path, extra: Sequence[str] = ()
) -> None:
    """The child process's work: one seed's run, its files copied into ``folder``."""
    from genenv_gym.train.config import load_config
    from genenv_gym.train.loop import Trainer

    overrides = [f"run.seed={seed}", "run.progress=false", "run.tensorboard=false"]
    overrides += [f"run.epochs={epochs}"] if epochs is not None else []
    overrides += list(extra)
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


def drift(reference: list[dict], fresh: list[dict], tolerances: dict[str, float] = TOLERANCE) -> list[str]:
    """The figures of ``fresh`` (by default the quoted ones) that moved from ``reference`` by more than
    their tolerance in ``tolerances``."""
    problems = []
    reference = reference[: len(fresh)]
    if [r["epoch"] for r in reference] != [r["epoch"] for r in fresh]:
        return [f"epochs differ: {[r['epoch'] for r in reference]} vs {[r['epoch'] for r in fresh]}"]
    for old, new in zip(reference, fresh, strict=True):
        for key, tolerance in tolerances.items():
            if old.get(key) is None or new.get(key) is None:
                continue
            if abs(old[key] - new[key]) > tolerance:
                problems.append(
                    f"epoch {old['epoch']} {key}: {new[key]:.4f} here, {old[key]:.4f} committed "
                    f"(tolerance {tolerance})"
                )
    return problems


def setting_differences(reference_record: Path, fresh_record: dict, overrides: Sequence[str]) -> list[str]:
    """The settings named in ``overrides`` whose value in ``fresh_record``'s config differs from the
    committed record's (a size changed without regenerating the committed figures)."""
    if not reference_record.exists():
        return [f"no committed run record at {reference_record}"]
    old = json.loads(reference_record.read_text())["config"]
    changed = []
    for override in overrides:
        section, key = override.split("=", 1)[0].split(".", 1)
        before, now = old.get(section, {}).get(key), fresh_record["config"].get(section, {}).get(key)
        if before != now:
            changed.append(f"{section}.{key}: {now} here, {before} committed")
    return changed


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
    parser.add_argument(
        "--small",
        action="store_true",
        help=f"seed 0 of demo.yaml at the default test's size, one epoch, into {SMALL_RESULTS.name}",
    )
    parser.add_argument("--train-one", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--set", action="append", default=[], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.train_one is not None:
        _train_one(args.train_one, args.out, args.epochs, args.config, args.set)
        return 0
    committed, overrides, tolerances = RESULTS / args.config.stem, (), TOLERANCE
    if args.small:
        committed, overrides, tolerances = SMALL_RESULTS, SMALL, SMALL_TOLERANCE
        args.config, args.seeds, args.epochs = CONFIG, [0], 1
    target = Path(tempfile.mkdtemp()) if args.check else committed
    failed = False
    for seed in args.seeds:
        rows = run_demo(seed, target, args.epochs, args.config, overrides)
        if args.config.stem == "demo" and not args.small:
            print(f"\nSeed {seed}:\n\n{docs_table(rows)}")
        if args.check:
            problems = drift(read_metrics(committed / f"metrics-seed{seed}.jsonl"), rows, tolerances)
            fresh_record = json.loads((target / f"run-seed{seed}.json").read_text())
            if problems:
                failed = True
                print(f"\nseed {seed}: DRIFT from {committed}:\n  " + "\n  ".join(problems))
                changes = version_differences(committed / f"run-seed{seed}.json", fresh_record)
                print("  differences in the environment: " + ("; ".join(changes) or "none recorded"))
            else:
                print(f"\nseed {seed}: matches {committed} within {tolerances}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
