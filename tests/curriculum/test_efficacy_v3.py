"""The third efficacy design's parts: the learnability sampler (the positive control), the trainer's
evaluation schedule, the script's statistics, and a tiny end-to-end run of the script (per-seed file, merge,
frontier summary, plots and their data)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from tiny_runs import QUIET, TINY_RUN, efficacy_script  # noqa: E402

from genenv_gym.curriculum import CurriculumConfig  # noqa: E402
from genenv_gym.envs.addition import PaddedAdditionDomain  # noqa: E402
from genenv_gym.samplers.learnability import LearnabilitySampler  # noqa: E402
from genenv_gym.skill import SkillTracker  # noqa: E402
from genenv_gym.train.config import load_config  # noqa: E402
from genenv_gym.train.loop import Trainer  # noqa: E402

TINY = [*TINY_RUN, "run.eval_every=2", "run.eval_epochs=1", "run.eval_tasks=60", *QUIET]


def test_the_learnability_sampler_weights_levels_by_r_env_of_running_success() -> None:
    domain = PaddedAdditionDomain(heldout_per_level=1)
    curriculum = CurriculumConfig(alpha=0.5, beta=20.0)
    tracker = SkillTracker(domain.num_levels)
    for level, hits in ((0, 40), (1, 20), (2, 0)):  # solved, at alpha, hopeless (40 attempts each)
        for i in range(40):
            tracker.update(level, i < hits)
    sampler = LearnabilitySampler(domain, curriculum)
    probs = sampler.probs(tracker.estimate())
    assert probs.sum() == pytest.approx(1.0)
    success = np.array(tracker.estimate().success)
    expected = np.exp(-20 * (success - 0.5) ** 2)
    assert probs == pytest.approx(expected / expected.sum())
    assert probs[1] > 10 * probs[0] and probs[1] > 10 * probs[2]  # the level at alpha beats solved/hopeless
    assert probs[5] == probs.max()  # unseen levels sit at the prior 0.5: tried first
    tasks = sampler.propose(2000, tracker.estimate(), np.random.default_rng(0))
    counts = np.bincount([t.level for t in tasks], minlength=domain.num_levels) / len(tasks)
    assert np.abs(counts - probs).max() < 0.03
    assert sampler.update([]) == {}


def test_the_trainer_samples_learnability_levels_and_evaluates_on_its_schedule(tmp_path: Path) -> None:
    cfg = load_config(
        "configs/efficacy_v3.yaml", [*TINY, "run.baseline=learnability", f"run.out_dir={tmp_path}"]
    )
    trainer = Trainer(cfg)
    for _ in range(30):  # level 3 at alpha, every other level solved
        for level in range(trainer.domain.num_levels):
            trainer.skill.update(level, level != 3 or bool(trainer.rng.integers(2)))
    levels = [t.level for t in trainer.propose_tasks(200)]
    assert levels.count(3) > 100
    rows = trainer.run()
    assert ["heldout_acc" in row for row in rows] == [True, True, True]  # epochs 0, 1 (eval_epochs), 2
    with pytest.raises(ValueError, match="eval_epochs"):
        load_config("configs/efficacy_v3.yaml", ["run.eval_epochs=0,2"])
    assert load_config("configs/efficacy_v3.yaml").run.eval_epochs == [2, 4, 8, 16]


def test_the_statistics_match_their_closed_forms() -> None:
    script = efficacy_script()
    from efficacy_stats import student_t_two_sided_p

    # Student's t, two-sided (values of scipy.stats.t.sf * 2)
    assert student_t_two_sided_p(2.5, 9) == pytest.approx(0.033861827682985735, abs=1e-12)
    assert student_t_two_sided_p(1.0, 4) == pytest.approx(0.37390096630005887, abs=1e-12)
    assert student_t_two_sided_p(0.5, 1) == pytest.approx(0.7048327646991335, abs=1e-12)
    assert script.paired_t(np.array([0.1, 0.1, 0.1]))["p"] == 0.0
    # exact signed rank: 3 positive differences -> W+ = 6, two of 8 sign patterns as extreme
    assert script.signed_rank_p(np.array([1.0, 2.0, 3.0])) == {"w_plus": 6.0, "n": 3, "p": 0.25}
    assert script.signed_rank_p(np.array([0.0, 0.0]))["p"] == 1.0


def test_the_script_runs_a_seed_writes_its_file_and_merges_the_frontier_figures(tmp_path: Path) -> None:
    script = efficacy_script()
    design = script.DESIGNS["efficacy_v3"]
    out = tmp_path / "out"
    overrides = [*script.QUIET_RUN, *TINY]
    job = script.SeedJob(
        "configs/efficacy_v3.yaml", overrides, list(design.methods), str(tmp_path), None, out
    )
    path = script.run_seed(job, 5)
    assert path == out / "seeds" / "seed-5.json"
    record = json.loads(path.read_text())
    assert set(record["runs"]) == set(design.methods) and record["warm_starts"]["5"]["steps"] == 2
    run = record["runs"]["alpha-curriculum"][0]
    assert len(run["eval_outcomes"]) == 3 and len(run["eval_outcomes"][0]) == 60
    script.merge([str(path)], out, 200, design)
    merged = json.loads((out / "efficacy.json").read_text())
    frontier = merged["frontier"]
    assert set(frontier["methods"]) == set(design.methods)
    assert frontier["primary"]["minuend"] == "alpha-curriculum"
    assert frontier["primary"]["subtrahend"] == "random-simulator"
    assert frontier["verdict"].startswith("void")  # one seed: the control cannot be significant
    auc = frontier["methods"]["alpha-curriculum"]["frontier_auc_per_seed"][0]
    rows = [r for r in run["rows"] if "heldout_acc" in r and r["agent_samples"] > 0]
    assert auc == pytest.approx(np.mean([[r[f"heldout_level_{lv}"] for lv in (6, 8, 10)] for r in rows]))
    for name in ("frontier_vs_samples.png", "level_heatmap.png", "heldout_vs_samples.png"):
        assert (out / name).stat().st_size > 0
    with (out / "frontier_curves.csv").open() as f:
        assert len(list(csv.DictReader(f))) == len(design.methods) * 3
