"""How closely the LLM simulator's tasks track the alpha band, against the procedural simulator's.

For each seed, both methods start from the same warm-started agent (one agent warm start per seed, as in
``curriculum_efficacy.py``) and train with ``configs/demo_llm_sim.yaml`` (alpha-curriculum): ``llm`` as the
config says, ``procedural`` with ``configs/demo.yaml``'s ``simulator`` section in its place. Per method and
epoch the script prints the success on the generated tasks (``gen_success``), the in-band share, the mean
task level and the held-out accuracy, and per method a summary over epochs 2-12: the epochs with
``gen_success`` in [0.4, 0.6] (per seed and mean) and the mean ``|gen_success - alpha|``, each with a
percentile bootstrap CI over seeds. Before each proposal it also records what the targeting saw: the skill
tracker's frontier and its estimated success there.

It writes ``targeting.json`` (config, every run's rows, the summary) and ``gen_success.png`` (per epoch,
mean and per seed, with the [0.4, 0.6] band) into ``--out``. Each finished run is kept under
``--runs-dir`` (``<method>-s<seed>.json``), so a stopped measurement resumes, and several processes with
different ``--seeds`` can share the work; the last one to finish summarises every seed found there.

    python benchmarks/llm_simulator_targeting.py --seeds 0 1 2
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
from curriculum_efficacy import QUIET_RUN, bootstrap_mean_ci, warm_started_weights

from genenv_gym.task import Task
from genenv_gym.train.config import TrainConfig, load_config
from genenv_gym.train.loop import Trainer

METHODS = ("llm", "procedural")
#: Per-epoch metrics kept in the JSON.
KEPT = (
    "epoch",
    "agent_samples",
    "heldout_acc",
    "gen_success",
    "in_band_share",
    "task_level",
    "train_level_counts",
    "train_level_success",
    "sim_kept",
    "sim_mean_level",
    "sim_fallback",
    "sim_acceptance_rate",
    "sim_mean_target",
    "sim_center",
    "sim_discarded",
    "probe_frontier",
    "seconds",
)
#: The band and the epochs the summary counts.
BAND = (0.4, 0.6)
FIRST_EPOCH = 2


class TargetingTrainer(Trainer):
    """A Trainer that records the skill tracker's frontier and its success estimate there per proposal."""

    seen: list[dict[str, Any]]

    def propose_tasks(self, n: int) -> list[Task]:
        """``Trainer.propose_tasks``; the estimate it was conditioned on goes to ``seen``."""
        estimate = self.skill.estimate()
        self.seen = [*getattr(self, "seen", []), {"frontier": estimate.frontier, "success": estimate.success}]
        return super().propose_tasks(n)


def method_config(config_path: str, method: str, overrides: list[str]) -> TrainConfig:
    """The LLM config, or the same with ``configs/demo.yaml``'s (procedural) simulator section."""
    cfg = load_config(config_path, overrides)
    if method == "procedural":
        procedural = load_config(Path(config_path).parent / "demo.yaml").simulator
        cfg = replace(cfg, simulator=procedural)
    return cfg


def warm_agent(config_path: str, seed: int, common: list[str], runs_dir: Path) -> dict[str, torch.Tensor]:
    """The agent's weights after its warm start for ``seed`` (cached under ``runs_dir``)."""
    path = runs_dir / f"warm-agent-s{seed}.pt"
    if path.exists():
        return torch.load(path)
    clock = time.perf_counter()
    overrides = [*common, f"run.seed={seed}", f"run.out_dir={runs_dir}/warm"]
    state, warm = warm_started_weights(method_config(config_path, "procedural", overrides))
    torch.save(state, path)
    seconds = time.perf_counter() - clock
    print(f"seed {seed}: agent warm start loss {warm.warmstart_loss:.4f} in {seconds:.0f}s", flush=True)
    return state


def run_one(config_path: str, method: str, seed: int, common: list[str], runs_dir: Path) -> dict[str, Any]:
    """One training run from the seed's warm-started agent; its kept rows and proposal contexts."""
    path = runs_dir / f"{method}-s{seed}.json"
    if path.exists():
        return json.loads(path.read_text())
    state = warm_agent(config_path, seed, common, runs_dir)
    overrides = [*common, f"run.seed={seed}", "warmstart.steps=0", f"run.out_dir={runs_dir}/{method}-s{seed}"]
    trainer = TargetingTrainer(method_config(config_path, method, overrides))
    trainer.model.load_state_dict(state)
    clock = time.perf_counter()
    rows = trainer.run()
    if trainer.stop_requested:  # SIGINT/SIGTERM: the Trainer stopped after an epoch; keep no partial run
        raise SystemExit(f"{method} seed {seed} stopped after epoch {trainer.epoch}; nothing kept")
    record = {
        "method": method,
        "seed": seed,
        "rows": [{k: r[k] for k in KEPT if k in r} for r in rows],
        "proposal_skill": trainer.seen,
        "seconds": time.perf_counter() - clock,
    }
    path.write_text(json.dumps(record))
    print(f"seed {seed} {method:<10} {record['seconds']:.0f}s", flush=True)
    return record


def targeting_figures(record: dict[str, Any], alpha: float) -> dict[str, float]:
    """Epochs ``FIRST_EPOCH``.. with gen success in ``BAND``, and the mean ``|gen_success - alpha|`` there."""
    gen = np.array([r["gen_success"] for r in record["rows"] if r["epoch"] >= FIRST_EPOCH])
    return {
        "epochs": len(gen),
        "in_band_epochs": int(((gen >= BAND[0]) & (gen <= BAND[1])).sum()),
        "mean_abs_gap": float(np.abs(gen - alpha).mean()),
    }


def summarise(runs: dict[str, list[dict[str, Any]]], alpha: float, resamples: int) -> dict[str, Any]:
    """Per method: the targeting figures per seed, their means and bootstrap CIs over seeds."""
    rng = np.random.default_rng(0)
    out: dict[str, Any] = {}
    for method, records in runs.items():
        figures = [targeting_figures(r, alpha) for r in records]
        entry: dict[str, Any] = {"seeds": [r["seed"] for r in records], "epochs": figures[0]["epochs"]}
        for key in ("in_band_epochs", "mean_abs_gap"):
            values = np.array([f[key] for f in figures], dtype=float)
            entry[key] = {
                "per_seed": values.tolist(),
                "mean": float(values.mean()),
                "ci95_seeds": list(bootstrap_mean_ci(values, rng, resamples)),
            }
        out[method] = entry
    return out


def print_tables(runs: dict[str, list[dict[str, Any]]], summary: dict[str, Any]) -> None:
    """The per-epoch table of every run, then the summary."""
    for method, records in runs.items():
        for record in records:
            print(f"\n{method}, seed {record['seed']}")
            print("epoch  gen_success  in_band  level  held-out  frontier (est. success)  sim_kept")
            for row in record["rows"]:
                if row["epoch"] == 0:
                    print(f"{0:>5}  {'-':>11}  {'-':>7}  {'-':>5}  {row['heldout_acc']:>8.3f}")
                    continue
                seen = record["proposal_skill"][row["epoch"] - 1]
                kept = row.get("sim_kept")
                print(
                    f"{row['epoch']:>5}  {row['gen_success']:>11.3f}  {row['in_band_share']:>7.3f}"
                    f"  {row['task_level']:>5.2f}  {row['heldout_acc']:>8.3f}"
                    f"  {seen['frontier']:>8} ({seen['success'][seen['frontier']]:.2f})"
                    f"  {'-' if kept is None else int(kept):>13}"
                )
    print(f"\nepochs {FIRST_EPOCH}-end, gen success in [{BAND[0]}, {BAND[1]}] and mean |gen_success - alpha|")
    for method, s in summary.items():
        band, gap = s["in_band_epochs"], s["mean_abs_gap"]
        print(
            f"{method:<10} in band {band['per_seed']} of {s['epochs']}: mean {band['mean']:.2f}"
            f" [{band['ci95_seeds'][0]:.2f}, {band['ci95_seeds'][1]:.2f}]"
            f"   |gap| {gap['mean']:.3f} [{gap['ci95_seeds'][0]:.3f}, {gap['ci95_seeds'][1]:.3f}]"
            f" per seed {', '.join(f'{v:.3f}' for v in gap['per_seed'])}"
        )


def plot(runs: dict[str, list[dict[str, Any]]], path: Path) -> None:
    """Gen success per epoch, mean over seeds (thick) and per seed (thin), with the [0.4, 0.6] band."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    ax.axhspan(*BAND, color="green", alpha=0.12, label=f"[{BAND[0]}, {BAND[1]}]")
    for method, records in runs.items():
        ys = np.array([[r["gen_success"] for r in rec["rows"] if r["epoch"] > 0] for rec in records])
        xs = np.arange(1, ys.shape[1] + 1)
        line = ax.plot(xs, ys.mean(0), marker="o", linewidth=2, label=f"{method} (mean of {len(records)})")[0]
        for y in ys:
            ax.plot(xs, y, color=line.get_color(), alpha=0.35, linewidth=0.8)
    ax.set_ylim(0, 1)
    ax.set_xlabel("epoch")
    ax.set_ylabel("success on the generated tasks")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="configs/demo_llm_sim.yaml")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    parser.add_argument("--bootstrap", type=int, default=10_000, help="bootstrap resamples")
    parser.add_argument("--out", default="benchmarks/results/llm_simulator_targeting")
    parser.add_argument(
        "--runs-dir",
        default="/tmp/genenv_llm_targeting_runs",
        help="finished runs (resumed from) and the runs' own folders",
    )
    parser.add_argument("overrides", nargs="*", help="section.key=value config overrides")
    args = parser.parse_args()
    torch.set_num_threads(1)  # shared CPU: one thread, whatever the config says
    runs_dir, out = Path(args.runs_dir), Path(args.out)
    runs_dir.mkdir(parents=True, exist_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    common = [*QUIET_RUN, *args.overrides]
    start = time.perf_counter()
    for seed in args.seeds:
        for method in args.methods:
            run_one(args.config, method, seed, common, runs_dir)
    # every seed finished under runs_dir (other processes' too), in seed order
    found = [{int(p.stem.split("-s")[-1]) for p in runs_dir.glob(f"{m}-s*.json")} for m in args.methods]
    seeds = sorted(set.intersection(*found))
    runs = {m: [json.loads((runs_dir / f"{m}-s{s}.json").read_text()) for s in seeds] for m in args.methods}
    config = load_config(args.config, common)
    summary = summarise(runs, config.curriculum.alpha, args.bootstrap)
    print_tables(runs, summary)
    record = {"command": vars(args), "config": config.to_dict(), "runs": runs, "summary": summary}
    (out / "targeting.json").write_text(json.dumps(record, separators=(",", ":")))
    plot(runs, out / "gen_success.png")
    seconds = time.perf_counter() - start
    print(f"seeds {seeds}; wrote {out}/targeting.json and gen_success.png ({seconds:.0f}s)")


if __name__ == "__main__":
    main()
