"""Curriculum efficacy in the CPU miniature: the alpha-curriculum against uniform, base and control methods.

Every method starts from the same warm-started agent (one warm start per seed, so the comparison is paired),
spends the same number of agent samples per epoch, and is evaluated on the same held-out tasks. Per seed and
method the script keeps the trainer's per-epoch metrics, among them the mechanism the alpha-curriculum
targets: ``signal_share`` (the share of GRPO groups with a non-zero advantage), ``train_success`` (the
agent's success on the tasks it trained on) and ``train_level_counts`` (the levels of those tasks).

Each seed runs as its own job (``--jobs N``: N seeds at once, each in its own process) and writes
``<out>/seeds/seed-<n>.json`` after every method it finishes; at the end, or with ``--merge`` at any later
time (seeds measured over several sittings), the complete seeds are merged into ``<out>``:

- ``efficacy.json``: the config, every run's curves and mechanism metrics, the held-out outcome of every task
  at every evaluation, the paired differences vs the alpha-curriculum per seed with 95% bootstrap confidence
  intervals (over seeds, and over seeds and held-out tasks), and the samples-to-reach ratios; for a design
  with a frontier (``DESIGNS``: ``configs/efficacy_v3.yaml``) also ``frontier``: its pre-registered primary
  metric, secondaries and guardrail (docs/experiments/design3.md);
- ``heldout_vs_samples.png``, ``signal_share.png``, ``levels.png``: held-out accuracy against agent samples
  (with the paired difference), the mechanism per epoch, the level distribution of the trained tasks;
- with a frontier: ``frontier_vs_samples.png`` and ``level_heatmap.png`` (mean greedy accuracy per whole
  level at each evaluation, per method), and their data as ``frontier_curves.csv`` and ``level_heatmap.csv``.

    python benchmarks/curriculum_efficacy.py --config configs/efficacy_v3.yaml --seeds 0 1 2 --jobs 3
    python benchmarks/curriculum_efficacy.py --config configs/efficacy_v3.yaml --merge   # every seed file
    python benchmarks/curriculum_efficacy.py --config configs/efficacy.yaml --seeds 0 1 2 3 4
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import itertools
import json
import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
from efficacy_exact import (
    eval_rows,
    exact_summary,
    plot_level_heatmaps,
    print_exact_report,
    write_exact_outputs,
)
from efficacy_probes import reference_probes
from efficacy_stats import (
    band,
    bootstrap_mean_ci,
    paired_t,
    signed_rank_p,
    two_level_bootstrap_ci,
)

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
    "sim_kept",
    "seconds",
    # the fourth design's exact metric and learning-signal diagnostics
    "heldout_gold_prob",
    "too_easy_share",
    "too_hard_share",
    "level_p",
    "sim_updated",
    "scoring_samples",
)
#: Per-level metrics kept in the JSON: greedy accuracy and the exact metric per held-out level.
KEPT_PREFIXES = ("heldout_level_", "heldout_gold_prob_level_")
#: The methods of the first two designs (``--methods`` default when the config has no ``DESIGNS`` entry).
CLASSIC_METHODS = ("alpha-curriculum", "static", "random-simulator", "base-only")


@dataclass(frozen=True)
class Design:
    """A pre-registered design with a frontier (docs/experiments/design3.md): its methods and what its
    metrics read.

    Levels are the domain's level indices. ``frontier_levels``: the whole levels the primary metric averages
    (never in the warm start); ``guardrail_levels``: the warm-start levels that must stay at or above
    ``guardrail``; ``reach_level`` / ``reach_target``: the secondary "samples to reach" target;
    ``comparator``: the method the primary difference subtracts; ``control``: the positive control that must
    beat the comparator for the test to count.
    """

    methods: tuple[str, ...]
    comparator: str
    control: str
    frontier_levels: tuple[int, ...]
    guardrail_levels: tuple[int, ...]
    guardrail: float
    reach_level: int
    reach_target: float
    out: str


@dataclass(frozen=True)
class ExactDesign:
    """A pre-registered design whose primary metric is exact (docs/experiments/design4.md and design5.md).

    The primary metric of a run is ``heldout_gold_prob`` (the teacher-forced probability of every held-out
    task's reference answer, averaged over the held-out set) averaged over the evaluations after training
    starts: an area under the learning curve. ``primary`` is the difference the design tests (minuend,
    subtrahend), ``control`` the positive control's difference that must be positive at p < 0.05 for the
    test to count, ``secondary`` further differences reported with the same statistics. ``method_overrides``
    are config overrides of one method (its settings); with ``per_run_domain`` every seed's runs use the
    domain built from that seed (``run.domain_seed``). A method is a sampler name (``run.sampler``) or a
    label of ``method_samplers``: one sampler under its own settings (``learnability-mix``: ``learnability``
    with ``sampler.uniform_mix=0.2``). With ``probes`` every run's final agent is probed on the held-out
    references (``efficacy_probes.reference_probes``: the first unlearned step, the end token).
    """

    methods: tuple[str, ...]
    primary: tuple[str, str]
    control: tuple[str, str]
    secondary: tuple[tuple[str, str], ...]
    method_overrides: dict[str, tuple[str, ...]]
    per_run_domain: bool
    out: str
    method_samplers: dict[str, str] = field(default_factory=dict)
    probes: bool = False


#: Designs by config name (the file stem of ``--config``).
DESIGNS: dict[str, Design | ExactDesign] = {
    "efficacy_v3": Design(
        methods=("alpha-curriculum", "random-simulator", "base-only", "learnability"),
        comparator="random-simulator",
        control="learnability",
        frontier_levels=(6, 8, 10),  # 4-, 5- and 6-digit operands
        guardrail_levels=(0, 2, 4),  # 1-, 2- and 3-digit operands
        guardrail=0.85,
        reach_level=8,
        reach_target=0.8,
        out="benchmarks/results/curriculum_efficacy_v3",
    ),
    "efficacy_v4": ExactDesign(
        methods=("uniform", "learnability", "alpha-curriculum", "soft-alpha-rwr", "as-released"),
        primary=("alpha-curriculum", "uniform"),
        control=("learnability", "uniform"),
        secondary=(
            ("soft-alpha-rwr", "uniform"),
            ("as-released", "uniform"),
            ("soft-alpha-rwr", "alpha-curriculum"),
            ("learnability", "alpha-curriculum"),
        ),
        method_overrides={"soft-alpha-rwr": ("simulator.step_size=0.5", "simulator.min_prob=0.01")},
        per_run_domain=True,
        out="benchmarks/results/curriculum_efficacy_v4",
    ),
    # docs/experiments/design5.md. as-released is left out: its scoring rollouts are spent outside the
    # agent-sample budget (scoring_samples), so it is not a same-compute comparison.
    "efficacy_v5": ExactDesign(
        methods=("uniform", "learnability-mix", "alpha-curriculum", "alpha-curriculum-0.3", "soft-alpha-rwr"),
        primary=("alpha-curriculum", "uniform"),
        control=("learnability-mix", "uniform"),
        secondary=(
            ("alpha-curriculum-0.3", "uniform"),
            ("soft-alpha-rwr", "uniform"),
            ("alpha-curriculum-0.3", "alpha-curriculum"),
            ("soft-alpha-rwr", "alpha-curriculum"),
            ("learnability-mix", "alpha-curriculum"),
        ),
        method_overrides={
            "learnability-mix": ("sampler.uniform_mix=0.2",),
            "alpha-curriculum-0.3": (
                "simulator.step_size=0.3",
                "simulator.max_kl=0.2",
                "simulator.min_prob=0.01",
            ),
            "soft-alpha-rwr": ("simulator.step_size=0.5", "simulator.min_prob=0.01"),
        },
        per_run_domain=True,
        out="benchmarks/results/curriculum_efficacy_v5",
        method_samplers={"learnability-mix": "learnability", "alpha-curriculum-0.3": "alpha-curriculum"},
        probes=True,
    ),
}


#: Overrides of every run these benchmarks make: no plots, progress bars or TensorBoard, one torch thread,
#: one checkpoint (at the last epoch).
QUIET_RUN = (
    "run.plots=false",
    "run.progress=false",
    "run.tensorboard=false",
    "run.threads=1",
    "run.checkpoint_every=1000000",
)


def warm_started_weights(
    cfg: TrainConfig, cache: str | None = None
) -> tuple[dict[str, torch.Tensor], Trainer]:
    """The agent's weights after the warm start of ``cfg``, and the Trainer that made them (its loss and
    steps). With ``cache`` (a folder) the weights are read from there when an earlier run made the same warm
    start (``warm_cache_path``), and written there otherwise."""
    warm = Trainer(cfg)
    path = None if cache is None else warm_cache_path(cache, cfg)
    if path is not None and path.exists():
        saved = torch.load(path, weights_only=False)
        warm.model.load_state_dict(saved["model"])
        warm.warmstart_step, warm.warmstart_loss = saved["steps"], saved["loss"]
    else:
        warm.warm_start()
        if path is not None:
            saved = {
                "model": warm.model.state_dict(),
                "steps": warm.warmstart_step,
                "loss": warm.warmstart_loss,
            }
            torch.save(saved, path)
    return {k: v.clone() for k, v in warm.model.state_dict().items()}, warm


def warm_cache_path(folder: str, cfg: TrainConfig) -> Path:
    """A warm start's file in ``folder``, named by everything the warm start depends on: the seed, the domain
    and its seed, the model and the warm-start settings."""
    run = cfg.run
    key = json.dumps(
        [run.seed, run.domain, run.domain_seed, asdict(cfg.model), asdict(cfg.warmstart)], sort_keys=True
    )
    path = Path(folder) / f"warm-s{run.seed}-{hashlib.sha256(key.encode()).hexdigest()[:12]}.pt"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


class RecordingTrainer(Trainer):
    """A Trainer that also keeps the per-task held-out outcomes of every evaluation (``eval_outcomes``, as
    strings of 0/1 in held-out order), of the latest one (``last_outcomes``) and, with
    ``run.eval_gold_prob``, each task's gold log-probability at every evaluation (``eval_gold``)."""

    last_outcomes: list[int]
    eval_outcomes: list[str]
    eval_gold: list[list[float]]

    def evaluate(self) -> dict[str, float]:
        """``Trainer.evaluate``'s figures; the per-task successes (held-out order) go to ``last_outcomes``."""
        from genenv_gym.agents.backends.base import SamplingParams

        params = SamplingParams(temperature=0.0, max_new_tokens=self.cfg.agent.max_new_tokens)
        self.eval_engine.config = replace(self.eval_engine.config, params=params, seed=0)
        trajectories = self._run_sharded(self.eval_engine, self.heldout)
        index = {task.id: i for i, task in enumerate(self.heldout)}
        outcomes = [0] * len(self.heldout)
        for t in trajectories:
            outcomes[index[t.task.id]] = int(t.success)
        self.last_outcomes = outcomes
        self.eval_outcomes = [*getattr(self, "eval_outcomes", []), "".join(map(str, outcomes))]
        result = {"heldout_acc": float(np.mean(outcomes))}
        for level in range(self.domain.num_levels):
            hits = [t.success for t in trajectories if t.task.level == level]
            if hits:
                result[f"heldout_level_{level}"] = float(np.mean(hits))
        result.update(self.exact_metrics())
        if self.cfg.run.eval_gold_prob:  # per task, for the task-level bootstrap of the exact metric
            self.eval_gold = [*getattr(self, "eval_gold", []), [round(x, 6) for x in self.last_gold_logprobs]]
        return result


def samples_to_reach(curve: list[tuple[float, float]], target: float) -> float | None:
    """The first sample count at which ``curve`` reaches ``target`` (linear interpolation), or None."""
    for (x0, y0), (x1, y1) in itertools.pairwise(curve):
        if y0 >= target:
            return x0
        if y1 >= target:
            return x0 + (target - y0) / (y1 - y0) * (x1 - x0)
    return curve[0][0] if curve and curve[0][1] >= target else None


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


def level_curve(record: dict[str, Any], level: int) -> list[tuple[int, float]]:
    """``(agent samples, greedy held-out accuracy at level)`` at every evaluation of a run."""
    return [(row["agent_samples"], row[f"heldout_level_{level}"]) for row in eval_rows(record)]


def frontier_curve(record: dict[str, Any], design: Design) -> list[tuple[int, float]]:
    """``(agent samples, mean accuracy over the frontier levels)`` at every evaluation of a run."""
    return [
        (row["agent_samples"], float(np.mean([row[f"heldout_level_{lv}"] for lv in design.frontier_levels])))
        for row in eval_rows(record)
    ]


def frontier_auc(record: dict[str, Any], design: Design) -> float:
    """The primary metric of one run: the frontier accuracy averaged over the evaluations after training
    started (epoch 0 is the shared warm start)."""
    return float(np.mean([y for x, y in frontier_curve(record, design) if x > 0]))


def frontier_outcomes(record: dict[str, Any], chosen: np.ndarray) -> np.ndarray:
    """Per frontier task: its held-out outcome averaged over the evaluations after training started."""
    rows = eval_rows(record)
    kept = [i for i, row in enumerate(rows) if row["agent_samples"] > 0]
    outcomes = np.array([[int(c) for c in record["eval_outcomes"][i]] for i in kept], dtype=float)
    return outcomes[:, chosen].mean(axis=0)


def frontier_summary(
    runs: dict[str, list[dict[str, Any]]], heldout_levels: list[int], design: Design, resamples: int
) -> dict[str, Any]:
    """The pre-registered figures of a frontier design (docs/experiments/design3.md).

    Primary: frontier AUC per method and seed; the paired difference alpha-curriculum minus the comparator
    with a paired t-test and 95% bootstrap CIs over seeds and over seeds and frontier tasks. The positive
    control (control minus comparator) decides whether the test counts. Secondary: samples to reach
    ``reach_target`` at ``reach_level`` (censored at budget + 1, exact signed-rank test vs the reference),
    final accuracy per whole level, mean signal share, the share of epochs whose simulator RWR update kept a
    batch; guardrail: final accuracy on ``guardrail_levels`` >= ``guardrail``.
    """
    rng = np.random.default_rng(0)
    chosen = np.array([lv in design.frontier_levels for lv in heldout_levels])
    whole = sorted(set(heldout_levels))
    out: dict[str, Any] = {"design": design.__dict__ | {"methods": list(design.methods)}, "methods": {}}
    auc = {m: np.array([frontier_auc(r, design) for r in records]) for m, records in runs.items()}
    tasks = {m: np.array([frontier_outcomes(r, chosen) for r in records]) for m, records in runs.items()}
    for method, records in runs.items():
        budget = max(row["agent_samples"] for row in records[0]["rows"])
        reach = []
        for r in records:
            n = samples_to_reach(level_curve(r, design.reach_level), design.reach_target)
            reach.append(float(budget + 1) if n is None else float(n))
        final = {lv: [eval_rows(r)[-1][f"heldout_level_{lv}"] for r in records] for lv in whole}
        guard = [min(final[lv][i] for lv in design.guardrail_levels) for i in range(len(records))]
        kept = [[row.get("sim_kept", 0.0) > 0 for row in r["rows"][1:]] for r in records]
        out["methods"][method] = {
            "frontier_auc_per_seed": auc[method].tolist(),
            "frontier_auc_mean": float(auc[method].mean()),
            "frontier_auc_sd": float(auc[method].std(ddof=1)) if len(records) > 1 else 0.0,
            "frontier_curve_samples": [x for x, _ in frontier_curve(records[0], design)],
            "frontier_curve_mean": np.mean(
                [[y for _, y in frontier_curve(r, design)] for r in records], axis=0
            ).tolist(),
            "samples_to_reach_per_seed": reach,
            "final_level_mean": {str(lv): float(np.mean(v)) for lv, v in final.items()},
            "signal_share_mean": float(
                np.mean([row["signal_share"] for r in records for row in r["rows"][1:]])
            ),
            "rwr_update_share": float(np.mean([np.mean(k) for k in kept])) if kept and kept[0] else 0.0,
            "guardrail_min_per_seed": guard,
            "guardrail_held": bool(all(g >= design.guardrail for g in guard)),
        }
    for name, (a, b) in {
        "primary": (REFERENCE, design.comparator),
        "control": (design.control, design.comparator),
        **{f"{REFERENCE}_vs_{m}": (REFERENCE, m) for m in runs if m not in (REFERENCE, design.comparator)},
    }.items():
        if a not in runs or b not in runs:
            continue
        diff = auc[a] - auc[b]
        test = paired_t(diff)
        entry: dict[str, Any] = {
            "minuend": a,
            "subtrahend": b,
            "per_seed": diff.tolist(),
            "mean": float(diff.mean()),
            "sd": float(diff.std(ddof=1)) if len(diff) > 1 else 0.0,
            "paired_t": test,
            "ci95_seeds": list(bootstrap_mean_ci(diff, rng, resamples)),
            "ci95_seeds_and_tasks": list(
                two_level_bootstrap_ci(tasks[a], tasks[b], rng, min(resamples, 2_000))
            ),
            "seeds_ahead": int((diff > 0).sum()),
            "significant": bool(test["p"] < 0.05),
        }
        reach_a = np.array(out["methods"][a]["samples_to_reach_per_seed"])
        reach_b = np.array(out["methods"][b]["samples_to_reach_per_seed"])
        entry["samples_to_reach_diff"] = (reach_a - reach_b).tolist()
        entry["samples_to_reach_signed_rank"] = signed_rank_p(reach_a - reach_b)
        out[name] = entry
    control = out.get("control")
    out["control_beats_comparator"] = bool(control and control["mean"] > 0 and control["significant"])
    out["verdict"] = (
        "void: the positive control did not beat the comparator"
        if not out["control_beats_comparator"]
        else "significant"
        if out["primary"]["significant"]
        else "not significant"
    )
    return out


def write_frontier_data(runs: dict[str, list[dict[str, Any]]], design: Design, out: Path) -> None:
    """The plots' data: ``frontier_curves.csv`` (method, seed, samples, frontier accuracy) and
    ``level_heatmap.csv`` (method, level, samples, mean accuracy over seeds)."""
    with (out / "frontier_curves.csv").open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["method", "seed", "agent_samples", "frontier_acc"])
        for method, records in runs.items():
            for r in records:
                for x, y in frontier_curve(r, design):
                    writer.writerow([method, r["seed"], x, f"{y:.4f}"])
    with (out / "level_heatmap.csv").open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["method", "level", "agent_samples", "mean_acc"])
        for method, records in runs.items():
            levels = sorted(
                int(k.rsplit("_", 1)[1]) for k in eval_rows(records[0])[0] if k.startswith("heldout_level_")
            )
            for lv in levels:
                curves = np.array([[y for _, y in level_curve(r, lv)] for r in records])
                for x, y in zip([x for x, _ in level_curve(records[0], lv)], curves.mean(0), strict=True):
                    writer.writerow([method, lv, x, f"{y:.4f}"])


def plot_frontier(runs: dict[str, list[dict[str, Any]]], design: Design, out: Path, title: str) -> None:
    """``frontier_vs_samples.png`` (mean over seeds, 95% bootstrap band) and ``level_heatmap.png``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rng = np.random.default_rng(2)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for method, records in runs.items():
        xs = [x for x, _ in frontier_curve(records[0], design)]
        ys = np.array([[y for _, y in frontier_curve(r, design)] for r in records])
        lo, hi = band(ys, rng)
        ax.plot(xs, ys.mean(0), marker="o", markersize=3, label=method)
        ax.fill_between(xs, lo, hi, alpha=0.15)
    ax.set_xlabel("agent samples")
    ax.set_ylabel(f"greedy accuracy, levels {list(design.frontier_levels)}")
    ax.set_title(f"{title}: frontier accuracy, mean and 95% bootstrap band", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "frontier_vs_samples.png", dpi=90)
    plt.close(fig)

    plot_level_heatmaps(
        runs, "heldout_level_", out / "level_heatmap.png", "greedy held-out accuracy (mean over seeds)"
    )


def print_frontier_report(frontier: dict[str, Any]) -> None:
    """The pre-registered table of a frontier design, as text."""
    print(f"\n{'method':<18} {'frontier AUC':>14} {'to reach (per seed)':>22} {'guardrail':>10}")
    for method, s in frontier["methods"].items():
        reach = ",".join(f"{x:.0f}" for x in s["samples_to_reach_per_seed"])
        print(
            f"{method:<18} {s['frontier_auc_mean']:>7.3f} +- {s['frontier_auc_sd']:.3f} {reach:>22}"
            f" {'held' if s['guardrail_held'] else 'broken':>10}"
        )
    for name in ("primary", "control"):
        if name in frontier:
            d = frontier[name]
            ci, ci2 = d["ci95_seeds"], d["ci95_seeds_and_tasks"]
            print(
                f"{name}: {d['minuend']} - {d['subtrahend']} = {d['mean']:+.3f} (sd {d['sd']:.3f}), paired t "
                f"{d['paired_t']['t']:.2f} p={d['paired_t']['p']:.3f}, CI seeds [{ci[0]:+.3f}, {ci[1]:+.3f}],"
                f" seeds+tasks [{ci2[0]:+.3f}, {ci2[1]:+.3f}], {d['seeds_ahead']} seeds ahead"
            )
    print(f"verdict: {frontier['verdict']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="configs/efficacy.yaml")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    parser.add_argument("--jobs", type=int, default=1, help="seeds run at once, each in its own process")
    parser.add_argument("--epochs", type=int, default=None, help="default: the config's run.epochs")
    parser.add_argument(
        "--heldout-per-length",
        type=int,
        default=None,
        help="held-out tasks per length (default: the domain's)",
    )
    parser.add_argument(
        "--methods", nargs="+", default=None, help="default: the design's (DESIGNS), else the first designs'"
    )
    parser.add_argument("--bootstrap", type=int, default=10_000, help="bootstrap resamples")
    parser.add_argument("--out", default=None, help="default: the design's folder, else curriculum_efficacy")
    parser.add_argument(
        "--runs-dir", default="/tmp/genenv_efficacy_runs", help="the runs' own folders (metrics, checkpoints)"
    )
    parser.add_argument(
        "--warm-cache",
        default=None,
        metavar="DIR",
        help="reuse the warm starts kept in DIR (an earlier run's, same settings); keep new ones there",
    )
    parser.add_argument(
        "--merge",
        nargs="*",
        default=None,
        metavar="JSON",
        help="no training: summarise and plot the complete seeds of these efficacy.json or seed files "
        "(none named: every <out>/seeds/seed-*.json)",
    )
    parser.add_argument("overrides", nargs="*", help="section.key=value config overrides")
    args = parser.parse_args()
    design = DESIGNS.get(Path(args.config).stem)
    out = Path(args.out or (design.out if design else "benchmarks/results/curriculum_efficacy"))
    if args.merge is not None:
        paths = args.merge or [str(p) for p in sorted((out / "seeds").glob("seed-*.json"))]
        if not paths:
            parser.error(f"nothing to merge: no {out}/seeds/seed-*.json")
        merge(paths, out, args.bootstrap, design)
        return
    methods = args.methods or list(design.methods if design else CLASSIC_METHODS)
    exact = design if isinstance(design, ExactDesign) else None
    named = [*BASELINES, *(exact.method_samplers if exact else {})]
    if not set(methods) <= set(named):
        parser.error(f"--methods must name only {named} (overrides go first)")
    if REFERENCE not in methods and not isinstance(design, ExactDesign):
        parser.error(f"--methods must include {REFERENCE} (the earlier designs compare every method with it)")
    common = list(QUIET_RUN)
    if args.epochs is not None:
        common.append(f"run.epochs={args.epochs}")
    load_config(args.config, [*common, *args.overrides])  # a bad config or override fails before any job
    job = seed_job(
        args.config, [*common, *args.overrides], methods, args.runs_dir, out, exact, args.warm_cache
    )
    job = replace(job, heldout_per_length=args.heldout_per_length)
    start = time.perf_counter()
    if args.jobs <= 1:
        paths = [run_seed(job, seed) for seed in args.seeds]
    else:  # one process per seed ("spawn": a fresh interpreter, torch not shared with the parent)
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(args.jobs, mp_context=context, max_tasks_per_child=1) as pool:
            paths = list(pool.map(run_seed, [job] * len(args.seeds), args.seeds))
    print(f"{len(paths)} seeds in {time.perf_counter() - start:.0f}s", flush=True)
    merge([str(p) for p in paths], out, args.bootstrap, design)


@dataclass(frozen=True)
class SeedJob:
    """What every seed of one invocation shares: the config and its overrides, the methods, the folders."""

    config: str
    overrides: list[str]
    methods: list[str]
    runs_dir: str
    heldout_per_length: int | None
    out: Path
    #: per method, overrides of its own settings (``ExactDesign.method_overrides``)
    method_overrides: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: every run of a seed uses the domain built from that seed (``run.domain_seed``)
    per_run_domain: bool = False
    #: a folder of warm-started weights to reuse and fill (``warm_started_weights``)
    warm_cache: str | None = None
    #: per method label, the sampler it runs (``ExactDesign.method_samplers``; default: the label itself)
    method_samplers: dict[str, str] = field(default_factory=dict)
    #: probe every run's final agent on the held-out references (``efficacy_probes.reference_probes``)
    probes: bool = False


def seed_job(
    config: str,
    overrides: list[str],
    methods: list[str],
    runs_dir: str,
    out: Path,
    design: ExactDesign | None,
    warm_cache: str | None,
) -> SeedJob:
    """The job of one invocation: ``design``'s per-method settings, samplers, per-run domain and probes."""
    return SeedJob(
        config,
        overrides,
        methods,
        runs_dir,
        None,
        out,
        dict(design.method_overrides) if design else {},
        bool(design and design.per_run_domain),
        warm_cache,
        dict(design.method_samplers) if design else {},
        bool(design and design.probes),
    )


def run_seed(job: SeedJob, seed: int) -> Path:
    """The warm start of ``seed`` and every method from it; writes ``<out>/seeds/seed-<seed>.json`` after
    each method (the shape of ``efficacy.json`` without the summary) and returns its path."""
    torch.set_num_threads(1)  # shared CPU: one thread, whatever the config says
    path = job.out / "seeds" / f"seed-{seed}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    base = [*job.overrides, f"run.seed={seed}"]
    if job.per_run_domain:
        base.append(f"run.domain_seed={seed}")
    runs_dir = Path(job.runs_dir)
    clock = time.perf_counter()
    warm_cfg = load_config(job.config, [*base, f"run.out_dir={runs_dir}/warm-s{seed}"])
    state, warm = warm_started_weights(warm_cfg, job.warm_cache)
    record: dict[str, Any] = {
        "command": {
            "config": job.config,
            "overrides": job.overrides,
            "seed": seed,
            "methods": job.methods,
            "method_overrides": {m: list(o) for m, o in job.method_overrides.items() if m in job.methods},
            "method_samplers": {m: s for m, s in job.method_samplers.items() if m in job.methods},
            "per_run_domain": job.per_run_domain,
        },
        "config": load_config(job.config, job.overrides).to_dict(),
        "warm_starts": {
            str(seed): {
                "loss": warm.warmstart_loss,
                "steps": warm.warmstart_step,
                "seconds": time.perf_counter() - clock,
            }
        },
        "runs": {},
    }
    print(
        f"seed {seed}: warm start loss {warm.warmstart_loss:.4f} after {warm.warmstart_step} steps"
        f" in {time.perf_counter() - clock:.0f}s",
        flush=True,
    )
    del warm
    for method in job.methods:
        cfg = load_config(
            job.config,
            [
                *base,
                *job.method_overrides.get(method, ()),
                f"run.sampler={job.method_samplers.get(method, method)}",
                "warmstart.steps=0",
                f"run.out_dir={runs_dir}/{method}-s{seed}",
            ],
        )
        trainer = RecordingTrainer(cfg)
        if job.heldout_per_length is not None:
            trainer.domain.heldout_per_level = job.heldout_per_length
        trainer.model.load_state_dict(state)
        clock = time.perf_counter()
        rows = trainer.run()
        if "heldout_acc" not in rows[-1]:  # the last epoch was not an evaluation epoch
            rows[-1].update(trainer.evaluate())
        seconds = time.perf_counter() - clock
        record["heldout_levels"] = [t.level for t in trainer.heldout]
        record["runs"][method] = [
            {
                "seed": seed,
                "rows": [
                    {k: v for k, v in r.items() if k in KEPT or k.startswith(KEPT_PREFIXES)} for r in rows
                ],
                "heldout_levels": {k: v for k, v in rows[-1].items() if k.startswith("heldout_level_")},
                "final_outcomes": trainer.last_outcomes,
                "eval_outcomes": trainer.eval_outcomes,
                "eval_gold": getattr(trainer, "eval_gold", []),
                "seconds": seconds,
                **({"probes": reference_probes(trainer, trainer.last_outcomes)} if job.probes else {}),
            }
        ]
        last = rows[-1]
        signal = np.mean([r["signal_share"] for r in rows[1:]]) if len(rows) > 1 else float("nan")
        gold = (
            f"  gold prob {rows[0]['heldout_gold_prob']:.3f} -> {last['heldout_gold_prob']:.3f}"
            if "heldout_gold_prob" in last
            else ""
        )
        greedy = f"held-out {rows[0]['heldout_acc']:.3f} -> {last['heldout_acc']:.3f}"
        print(
            f"seed {seed} {method:<17} {greedy}{gold}  mean signal share {signal:.3f}  ({seconds:.0f}s)",
            flush=True,
        )
        record["seconds"] = sum(r[0]["seconds"] for r in record["runs"].values())
        write_json(path, record)
    return path


def write_json(path: Path, record: dict[str, Any]) -> None:
    """``record`` as compact JSON at ``path``, replaced whole (a reader never sees half a file)."""
    partial = path.with_suffix(".json.partial")
    partial.write_text(json.dumps(record, separators=(",", ":")))
    partial.replace(path)


def merge(paths: list[str], out: Path, resamples: int, design: Design | ExactDesign | None = None) -> None:
    """Summarise, plot and write the seeds of several ``efficacy.json`` or seed files as one measurement.

    A seed counts once (from the first file that has it for every method); seeds with a method missing (a
    process stopped midway) are left out. The files must come from the same config. An exact design
    (``ExactDesign``) is summarised by ``efficacy_exact.py`` (section ``exact``), the others as before.
    """
    records = [json.loads(Path(p).read_text()) for p in paths]
    config = records[0]["config"]
    for path, record in zip(paths, records, strict=True):
        if "runs" not in record:
            raise SystemExit(f"{path} holds a summary, not runs: merge the seed files it names (merged_from)")
        if record["config"] | {"run": None} != config | {"run": None}:
            raise SystemExit(f"{path} was run with another config than {paths[0]}")
    methods = list(design.methods if design else records[0]["runs"])
    methods = [m for m in methods if any(m in r["runs"] for r in records)]
    runs: dict[str, list[dict[str, Any]]] = {m: [] for m in methods}
    seeds: list[int] = []
    for record in records:
        by_seed = {m: {r["seed"]: r for r in record["runs"].get(m, [])} for m in methods}
        for seed in by_seed[methods[0]]:
            if seed not in seeds and all(seed in by_seed[m] for m in methods):
                seeds.append(seed)
                for m in methods:
                    runs[m].append(by_seed[m][seed])
    if not seeds:
        raise SystemExit(f"no seed of {paths} has every method ({methods})")
    order = np.argsort(seeds)
    runs = {m: [records_[i] for i in order] for m, records_ in runs.items()}
    out.mkdir(parents=True, exist_ok=True)
    if isinstance(design, ExactDesign):
        merge_exact(paths, records, runs, seeds, out, resamples, design)
        return
    summary = summarise(runs, resamples)
    merged = {
        "command": records[0]["command"],
        "merged_from": [
            {"path": str(p), "command": r["command"]} for p, r in zip(paths, records, strict=True)
        ],
        "config": config,
        "seeds": sorted(seeds),
        "warm_starts": {k: v for r in records for k, v in r.get("warm_starts", {}).items()},
        "runs": runs,
        "summary": summary,
        "heldout_tasks": len(runs[REFERENCE][0]["final_outcomes"]),
        "seconds": sum(r.get("seconds", 0.0) for r in records),
    }
    title = f"{config['run']['domain']}, {len(seeds)} seeds"
    if design is not None:
        merged["frontier"] = frontier_summary(runs, records[0]["heldout_levels"], design, resamples)
        write_frontier_data(runs, design, out)
    write_json(out / "efficacy.json", merged)
    plot_all(runs, summary, out, title)
    if design is not None:
        plot_frontier(runs, design, out, title)
    print_report(summary)
    if design is not None:
        print_frontier_report(merged["frontier"])
    print(f"seeds {sorted(seeds)}; wrote {out}/efficacy.json and the figures")


def merge_exact(
    paths: list[str],
    records: list[dict[str, Any]],
    runs: dict[str, list[dict[str, Any]]],
    seeds: list[int],
    out: Path,
    resamples: int,
    design: ExactDesign,
) -> None:
    """``efficacy.json`` (section ``exact``; the runs stay in the seed files it names), the CSV data and the
    figures of an exact design."""
    exact = exact_summary(runs, design, resamples)
    merged = {
        "command": records[0]["command"],
        "merged_from": [
            {"path": str(p), "command": r["command"]} for p, r in zip(paths, records, strict=True)
        ],
        "config": records[0]["config"],
        "seeds": sorted(seeds),
        "warm_starts": {k: v for r in records for k, v in r.get("warm_starts", {}).items()},
        "exact": exact,
        "heldout_tasks": len(next(iter(runs.values()))[0]["final_outcomes"]),
        "seconds": sum(r.get("seconds", 0.0) for r in records),
    }
    write_json(out / "efficacy.json", merged)
    write_exact_outputs(runs, exact, out)
    print_exact_report(exact)
    print(f"seeds {sorted(seeds)}; wrote {out}/efficacy.json and the figures")


def print_report(summary: dict[str, Any]) -> None:
    """The tables of docs/experiments/design1.md and design2.md, as text."""
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
