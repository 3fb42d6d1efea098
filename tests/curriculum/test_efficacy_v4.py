"""The fourth efficacy design's script path: a seed run with per-method settings and a per-seed ladder, the
warm-start cache, and the merge into the exact summary, its data and figures."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from tiny_runs import TINY_RUN, efficacy_script  # noqa: E402

TINY = TINY_RUN


def test_a_seed_runs_each_method_with_its_settings_and_merges_into_the_exact_summary(tmp_path: Path) -> None:
    script = efficacy_script()
    design = script.DESIGNS["efficacy_v4"]
    assert design.primary == ("alpha-curriculum", "uniform") and design.control == ("learnability", "uniform")
    methods = ["uniform", "soft-alpha-rwr"]
    out, runs, cache = tmp_path / "out", tmp_path / "runs", tmp_path / "warm"
    job = script.SeedJob(
        "configs/efficacy_v4.yaml",
        [*script.QUIET_RUN, *TINY],
        methods,
        str(runs),
        None,
        out,
        dict(design.method_overrides),
        design.per_run_domain,
        str(cache),
    )
    path = script.run_seed(job, 3)
    record = json.loads(path.read_text())
    assert record["command"]["method_overrides"] == {
        "soft-alpha-rwr": ["simulator.step_size=0.5", "simulator.min_prob=0.01"]
    }
    soft = json.loads((runs / "soft-alpha-rwr-s3" / "run.json").read_text())["config"]
    plain = json.loads((runs / "uniform-s3" / "run.json").read_text())["config"]
    assert soft["simulator"]["step_size"] == 0.5 and plain["simulator"]["step_size"] == 1.0
    assert soft["run"]["domain_seed"] == 3 == plain["run"]["domain_seed"]  # the seed's own ladder
    run = record["runs"]["uniform"][0]
    assert len(run["eval_gold"]) == 3 and len(run["eval_gold"][0]) == 32  # epochs 0-2, every held-out task
    assert list(cache.glob("warm-s3-*.pt"))  # kept for the next run of this seed
    script.merge([str(path)], out, 200, design)
    exact = json.loads((out / "efficacy.json").read_text())["exact"]
    rows = [r for r in run["rows"] if "heldout_gold_prob" in r and r["agent_samples"] > 0]
    assert exact["methods"]["uniform"]["gold_auc_per_seed"][0] == pytest.approx(
        np.mean([r["heldout_gold_prob"] for r in rows])
    )
    assert exact["methods"]["soft-alpha-rwr"]["sim_updated_mean"] is not None
    assert exact["methods"]["uniform"]["sim_updated_mean"] is None
    assert "soft-alpha-rwr_vs_uniform" in exact and "primary" not in exact  # alpha-curriculum was not run
    assert exact["verdict"].startswith("void")  # no control was run
    for name in ("gold_vs_samples.png", "level_gold_heatmap.png", "diagnostics.png"):
        assert (out / name).stat().st_size > 0
    with (out / "gold_curves.csv").open() as f:
        assert len(list(csv.DictReader(f))) == len(methods) * 3
    # a second run of the seed reads the same warm start from the cache
    again = script.warm_started_weights(
        script.load_config(
            "configs/efficacy_v4.yaml", [*script.QUIET_RUN, *TINY, "run.seed=3", "run.domain_seed=3"]
        ),
        str(cache),
    )[0]
    first = torch.load(next(cache.glob("warm-s3-*.pt")), weights_only=False)["model"]
    assert all(torch.equal(again[k], first[k]) for k in first)


def test_the_power_of_the_paired_t_test_is_its_rejection_rate() -> None:
    efficacy_script()
    from efficacy_stats import paired_t_power

    assert paired_t_power(0.0, 0.05, 8) == pytest.approx(0.05, abs=0.01)  # no effect: the test's level
    assert paired_t_power(0.05, 0.05, 10) == pytest.approx(0.80, abs=0.02)  # design 3's planning figure
    assert paired_t_power(0.1, 0.05, 8) > 0.99
