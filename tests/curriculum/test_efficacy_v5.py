"""The fifth efficacy design's script path: its methods (one sampler under two settings), a seed run with the
per-token probes, the pilot gate G2 over the pilot seeds' files, forgetting, and the power rule's seed
count."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from tiny_runs import TINY_RUN, efficacy_script  # noqa: E402

CONFIG = "configs/efficacy_v5.yaml"


def gates_module():
    efficacy_script()  # puts benchmarks/ on sys.path and registers curriculum_efficacy
    import curriculum_gates

    return curriculum_gates


def test_the_design_runs_the_control_with_a_uniform_mix_and_the_paper_rule_at_two_step_sizes() -> None:
    design = efficacy_script().DESIGNS["efficacy_v5"]
    assert design.control == ("learnability-mix", "uniform") and design.primary == (
        "alpha-curriculum",
        "uniform",
    )
    assert "as-released" not in design.methods  # its scoring rollouts fall outside the sample budget
    assert design.method_samplers["learnability-mix"] == "learnability"
    assert "sampler.uniform_mix=0.2" in design.method_overrides["learnability-mix"]
    small = design.method_overrides["alpha-curriculum-0.3"]
    assert set(small) == {"simulator.step_size=0.3", "simulator.max_kl=0.2", "simulator.min_prob=0.01"}
    assert "alpha-curriculum" not in design.method_overrides  # design 4's whole step, from the config
    gates = gates_module().GATES["efficacy_v5"]
    assert (gates.g0_chance_band, gates.g1_epochs, gates.g1_within) == (0.05, 15, True)
    assert (gates.g2_seeds, gates.g2_min_mean, gates.min_seeds) == (4, 0.04, 14)


def test_a_pilot_seed_runs_each_method_with_its_sampler_and_probes_the_final_agent(tmp_path: Path) -> None:
    script, gates = efficacy_script(), gates_module()
    design = script.DESIGNS["efficacy_v5"]
    runs = tmp_path / "runs"
    job = script.seed_job(
        CONFIG,
        [*script.QUIET_RUN, *TINY_RUN, "run.epochs=1"],
        ["uniform", "learnability-mix"],
        str(runs),
        tmp_path / "out",
        design,
        str(runs),
    )
    record = json.loads(script.run_seed(job, 5).read_text())
    mixed = json.loads((runs / "learnability-mix-s5" / "run.json").read_text())["config"]
    assert mixed["run"]["sampler"] == "learnability" and mixed["sampler"]["uniform_mix"] == 0.2
    assert mixed["run"]["domain"] == "ladder-disjoint" and mixed["run"]["domain_seed"] == 5
    probes = record["runs"]["uniform"][0]["probes"]
    assert len(probes["chains"]) == 8 and all(len(c["conditionals"]) == 8 for c in probes["chains"])
    assert probes["chance"] == 1 / 8 and probes["end_preferred_of"] == 56  # every reference of 2+ steps
    figures = gates.seed_figures(record, design)
    auc = figures["gold_auc"]
    assert figures["control_diff"] == pytest.approx(auc["learnability-mix"] - auc["uniform"])
    assert set(figures["diagnostics"]) == {"uniform", "learnability-mix"}
    assert figures["diagnostics"]["uniform"]["forgetting"]["tasks_ever_solved"] >= 0


def test_forgetting_counts_tasks_and_levels_solved_once_and_lost_at_the_end() -> None:
    from efficacy_probes import forgetting

    gold = np.log([[0.1, 0.9, 0.9, 0.5], [0.9, 0.85, 0.95, 0.2], [0.95, 0.1, 0.2, 0.1]])
    lost = forgetting({"eval_gold": gold.tolist()}, [0, 0, 1, 1])
    assert lost == {"tasks_lost": 2, "tasks_ever_solved": 3, "levels_lost": []}
    assert forgetting({"eval_gold": gold.tolist()}, [0, 1, 1, 0])["levels_lost"] == [1]


def write_seed(out: Path, seed: int, diff: float) -> None:
    g0, g1 = {"passed": True}, {"passed": True}
    record = {"seed": seed, "G0": g0, "G1": g1, "G2": {"control_diff": diff}}
    (out / f"gates-seed-{seed}.json").write_text(json.dumps(record))


def test_g2_needs_four_pilot_seeds_all_ahead_and_a_mean_lead_of_four_hundredths(tmp_path: Path) -> None:
    gates = gates_module()
    fixed = gates.GATES["efficacy_v5"]
    for seed, diff in zip((100, 101, 102), (0.05, 0.06, 0.07), strict=True):
        write_seed(tmp_path, seed, diff)
    assert gates.pilot_summary(tmp_path, fixed)["G2"]["complete"] is False  # three seeds are not four
    write_seed(tmp_path, 103, 0.02)
    summary = gates.pilot_summary(tmp_path, fixed)
    assert summary["G2"]["passed"] and summary["G2"]["mean"] == pytest.approx(0.05)
    assert summary["power"]["sd_used"] == 0.05  # the pilots' sd (0.021) is floored at 0.05
    write_seed(tmp_path, 103, -0.001)
    assert not gates.pilot_summary(tmp_path, fixed)["G2"]["passed"]  # one seed behind


def test_the_seed_count_is_the_fewest_with_power_090_and_at_least_fourteen() -> None:
    gates = gates_module()
    from efficacy_stats import paired_t_power

    fixed = gates.GATES["efficacy_v5"]
    assert gates.seeds_for_power(0.1, 0.05, fixed) == 14  # a large effect: the floor of 14
    n = gates.seeds_for_power(0.04, 0.01, fixed)  # sd 0.01 counts as 0.05
    assert n > 14 and paired_t_power(0.04, 0.05, n) >= 0.9 > paired_t_power(0.04, 0.05, n - 1)
    assert gates.seeds_for_power(0.001, 0.05, fixed, most=16) is None
