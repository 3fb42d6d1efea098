"""``genenv compare RUN_A RUN_B``: the paired tests and the bootstrap interval, and the refusal of runs whose
verdicts are not comparable."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from genenv_gym.cli.main import main
from genenv_gym.evaluation import pins as pins_module
from genenv_gym.evaluation.compare import bootstrap_interval, difference, mcnemar_exact, paired_t


def test_exact_mcnemar_is_the_binomial_test_of_the_discordant_tasks():
    a = np.array([1, 1, 1, 1, 1, 0, 0, 1, 0, 0])
    b = np.array([0, 0, 0, 0, 0, 1, 0, 1, 0, 0])  # 5 tasks only A passes, 1 only B passes
    assert math.isclose(mcnemar_exact(a, b), 2 * (1 + 6) / 64)
    assert mcnemar_exact(a, a) == 1.0


def test_paired_t_matches_the_t_distribution():
    a = np.array([0.2, 0.4, 0.6, 0.5, 0.3, 0.8])
    b = np.array([0.4, 0.5, 0.9, 0.5, 0.6, 0.9])
    stats = pytest.importorskip("scipy.stats")
    assert math.isclose(paired_t(a, b), stats.ttest_rel(b, a).pvalue, rel_tol=1e-9)
    assert paired_t(a, a) == 1.0


def test_the_bootstrap_is_seeded_and_covers_the_difference():
    rng = np.random.default_rng(0)
    a, b = rng.random(50), rng.random(50)
    assert bootstrap_interval(a, b, seed=1) == bootstrap_interval(a, b, seed=1)
    low, high = bootstrap_interval(a, b, seed=1)
    assert low < float(np.mean(b - a)) < high
    row = difference("overall", (a > 0.5).astype(float), (b > 0.5).astype(float), seed=1)
    assert row.test == "McNemar exact" and row.tasks == 50


def _eval(out, agent: str, *extra: str) -> None:
    play = ["eval", "--env", "GenEnv-Digits-v0", "--agent", agent, "--limit", "3", "--no-progress"]
    assert main([*play, "--out", str(out), *extra]) == 0


def test_two_runs_are_compared_per_category_and_overall(tmp_path, capsys):
    _eval(tmp_path / "a", "random")
    _eval(tmp_path / "b", "oracle")
    capsys.readouterr()
    assert (
        main(["compare", str(tmp_path / "a"), str(tmp_path / "b"), "--json", str(tmp_path / "c.json")]) == 0
    )
    out = capsys.readouterr().out
    assert "GenEnv-Digits-v0: B (oracle) - A (random)" in out
    (comparison,) = json.loads((tmp_path / "c.json").read_text(encoding="utf-8"))
    overall = comparison["rows"][-1]
    assert overall["name"] == "overall" and overall["tasks"] == 24 and overall["difference"] == 1.0
    assert overall["test"] == "McNemar exact" and overall["p_value"] == 2 / 2**24


def test_runs_judged_by_different_checkers_are_refused_unless_forced(tmp_path, capsys, monkeypatch):
    _eval(tmp_path / "a", "random")
    source = pins_module._module_source
    monkeypatch.setattr(pins_module, "_module_source", lambda module: source(module) + b"# edited")
    pins_module.evaluator_code.cache_clear()
    try:
        _eval(tmp_path / "b", "oracle", "--samples", "2")
    finally:
        pins_module.evaluator_code.cache_clear()
    capsys.readouterr()
    assert main(["compare", str(tmp_path / "a"), str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err
    assert "not comparable: GenEnv-Digits-v0: checker code" in err and "genenv rescore" in err
    assert main(["compare", str(tmp_path / "a"), str(tmp_path / "b"), "--force"]) == 0
    captured = capsys.readouterr()
    assert "warning: GenEnv-Digits-v0: checker code" in captured.err
    assert "McNemar exact" in captured.out  # the oracle's two samples agree: every rate is 0 or 1
