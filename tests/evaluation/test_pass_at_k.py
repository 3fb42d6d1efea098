"""pass@k and pass^k: the unbiased estimators agree with counting over every k-subset of the samples;
``genenv eval --samples k`` reports them per category and overall in the table, the JSON and the CSV."""

from __future__ import annotations

import csv
import itertools
import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from genenv_gym.cli.main import main
from genenv_gym.evaluation import evaluate
from genenv_gym.evaluation.pass_at_k import pass_at_k, pass_hat_k, sample_stats


@given(st.integers(1, 8).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n), st.integers(1, n))))
def test_the_estimators_count_every_subset_of_k_samples(n_c_k):
    n, c, k = n_c_k
    outcomes = [1] * c + [0] * (n - c)
    subsets = list(itertools.combinations(range(n), k))
    any_pass = sum(any(outcomes[i] for i in s) for s in subsets) / len(subsets)
    all_pass = sum(all(outcomes[i] for i in s) for s in subsets) / len(subsets)
    assert math.isclose(pass_at_k(n, c, k), any_pass) and math.isclose(pass_hat_k(n, c, k), all_pass)


def test_stats_per_category_and_overall():
    records = [{"task_id": "a", "category": "x", "success": s} for s in (True, False, True, True)] + [
        {"task_id": "b", "category": "y", "success": False} for _ in range(4)
    ]
    stats = sample_stats(records, 2)
    assert stats["categories"]["x"]["pass@k"] == 1.0 and math.isclose(stats["categories"]["x"]["pass^k"], 0.5)
    overall = stats["overall"]
    assert overall["tasks"] == 2 and math.isclose(overall["task_success_mean"], 0.375)
    assert math.isclose(overall["task_success_std"], math.sqrt(2 * 0.375**2))


def test_a_noisy_agent_has_pass_at_k_above_and_pass_hat_k_below_its_mean(monkeypatch):
    from noisy_agent import register_noisy_agent

    name = register_noisy_agent(monkeypatch)
    report = evaluate("GenEnv-Digits-v0", name, limit=4, samples=4, show_progress=False)
    overall = report.samples["overall"]
    assert overall["tasks"] == 32 and report.episodes == 128
    assert overall["pass^k"] < overall["task_success_mean"] < overall["pass@k"]
    assert math.isclose(overall["task_success_mean"], report.overall)
    assert overall["task_success_std"] > 0


def test_eval_samples_in_the_table_json_and_csv(tmp_path, capsys):
    play = ["eval", "--env", "GenEnv-Digits-v0", "--agent", "random", "--limit", "2", "--no-progress"]
    code = main([*play, "--samples", "3", "--out", str(tmp_path)])
    assert code == 0
    out = capsys.readouterr().out
    assert "3 samples per task" in out and "pass@3" in out and "pass^3" in out
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))[0]
    assert report["samples"]["k"] == 3 and report["pins"]["samples"] == 3
    records = [json.loads(x) for x in (tmp_path / "episodes.jsonl").read_text(encoding="utf-8").splitlines()]
    assert sorted({r["pins"]["sample"] for r in records}) == [0, 1, 2]
    rows = list(csv.DictReader((tmp_path / "report.csv").open(encoding="utf-8")))
    groups = {row["group"] for row in rows}
    assert {"pass@3", "pass^3", "task_success_mean", "task_success_std"} <= groups


def test_samples_are_refused_on_a_simulator_env():
    with pytest.raises(ValueError, match="--samples applies to benchmark envs"):
        evaluate("GenEnv-Sim-Digits-v0", "random", episodes=2, samples=2, show_progress=False)


@pytest.mark.parametrize("batch_size", [1, 3])
def test_an_llm_agent_samples_each_try_with_its_own_seed(batch_size, tmp_path):
    from genenv_gym.agents.backends import SamplingParams, ScriptedBackend

    seeds: list[int] = []

    class SeedRecorder(ScriptedBackend):
        def chat(self, conversations, params, tools=None):
            seeds.extend([params.seed] * len(conversations))
            return super().chat(conversations, params, tools)

        def generate(self, prompts, params):
            seeds.extend([params.seed] * len(prompts))
            return super().generate(prompts, params)

    results = tmp_path / "episodes.jsonl"
    params = SamplingParams(temperature=1.0, max_new_tokens=16, seed=7)
    evaluate(
        "GenEnv-Digits-v0",
        "openai:m@http://127.0.0.1:9",
        limit=1,
        samples=3,
        show_progress=False,
        backend=SeedRecorder(["1 2"]),
        llm_kwargs={"params": params},
        batch_size=batch_size,
        results_path=results,
    )
    records = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]
    assert sorted(seeds) == sorted(7 + r["pins"]["sample"] for r in records)
    assert {r["pins"]["sample"]: r["pins"]["sampling"]["seed"] for r in records} == {0: 7, 1: 8, 2: 9}


def test_greedy_samples_of_an_llm_agent_are_warned_about():
    from genenv_gym.evaluation.pass_at_k import greedy_samples_warning

    assert "--temperature above 0" in greedy_samples_warning(4, True, 0.0)
    assert greedy_samples_warning(4, True, 0.7) is None and greedy_samples_warning(4, False, 0.0) is None
    assert greedy_samples_warning(1, True, 0.0) is None
