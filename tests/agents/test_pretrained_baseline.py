"""The pretrained-model baseline (``benchmarks/pretrained_baseline.py``) and the context-window rule of the hf
backend that the real model exposed: a prompt the model's context window cannot take is answered with an
error completion (graded as a wrong answer and counted), not generated past the model's trained positions.

Runs on the tiny random-weight model (no download); the same rule on SmolLM2 is in
``tests/agents/test_pretrained_smollm2.py``.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from genenv_gym.agents.backends import Completion, SamplingParams, make_backend

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def script():
    spec = importlib.util.spec_from_file_location(
        "pretrained_baseline", ROOT / "benchmarks" / "pretrained_baseline.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def tiny():
    return make_backend("tiny:qwen2")


def test_wilson_interval_matches_known_values(script):
    low, high = script.wilson_interval(0, 10)
    assert low == 0.0 and high == pytest.approx(0.2775, abs=1e-4)
    low, high = script.wilson_interval(5, 10)
    assert (low, high) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert script.wilson_interval(0, 0) == (0.0, 1.0)


def test_requests_are_grouped_into_episodes_by_their_growing_prompts(script):
    stats = script.CallStats(context_window=10)
    done = Completion("x", token_ids=(9,))
    stats.record([1, 2, 3], done)  # episode A, turn 1
    stats.record([4, 5], done)  # episode B
    stats.record([1, 2, 3, 9, 7], done)  # A, turn 2: extends A's prompt
    stats.record([1, 2, 3], done)  # the same opening again is a new episode, not A
    stats.record(
        [4, 5, 9, 6, 6, 6, 6, 6, 6, 6, 6],
        Completion("", finish_reason="error", error="prompt ... context window"),
    )
    assert stats.episode_max == [5, 11, 3]
    assert stats.episodes_over_window == 1
    row = stats.to_dict()
    assert (
        row["model_calls"] == 5 and row["max_prompt_tokens"] == 11 and row["request_errors"] == {"context": 1}
    )


def test_a_prompt_past_the_context_window_is_an_error_completion_not_a_generation(tiny):
    window = tiny.context_window
    assert window == tiny.model.config.max_position_embeddings
    long_prompt, short_prompt = [5] * window, [5] * 8
    params = SamplingParams(temperature=0.0, max_new_tokens=3, seed=0)
    (over,), (fine,) = tiny.generate([long_prompt, short_prompt], params)
    assert over.finish_reason == "error" and f"context window of {window} tokens" in over.error
    assert list(over.prompt_token_ids) == long_prompt and not over.token_ids
    assert fine.ok and len(fine.token_ids) == 3
    (just_fits,) = tiny.generate([[5] * (window - 1)], params.with_(max_new_tokens=1))
    assert just_fits[0].ok


def test_the_baseline_plays_an_env_through_evaluate_and_counts_what_it_sent(script, tiny, tmp_path):
    backend = script.RecordingBackend(tiny)
    row = script.play(
        "GenEnv-Digits-v0", script.EnvPlan(limit=1, max_new_tokens=4), backend, tmp_path, seed=0
    )
    assert row["episodes"] == 8 and row["model_calls"] == 8  # one held-out task per length, one call each
    assert row["success"] == sum(row["passed"].values())
    low, high = row["success_ci95"]
    assert 0.0 <= low <= row["success_rate"] <= high <= 1.0
    assert 0 < row["mean_prompt_tokens"] <= row["max_prompt_tokens"]
    assert row["episodes_over_context_window"] == 0
    records = [json.loads(line) for line in (tmp_path / "GenEnv-Digits-v0.jsonl").read_text().splitlines()]
    assert len(records) == 8
    # Same seed, same model: the same row (the timing aside).
    again = script.play(
        "GenEnv-Digits-v0", script.EnvPlan(limit=1, max_new_tokens=4), backend, tmp_path, seed=0
    )
    timing = ("seconds", "seconds_per_episode")
    assert {k: v for k, v in again.items() if k not in timing} == {
        k: v for k, v in row.items() if k not in timing
    }


def test_episodes_past_the_context_window_are_counted_and_graded_wrong(script, tiny, tmp_path):
    tiny.model.config.max_position_embeddings = 4  # every Digits prompt is longer than that
    backend = script.RecordingBackend(tiny)
    row = script.play(
        "GenEnv-Digits-v0", script.EnvPlan(limit=1, max_new_tokens=4), backend, tmp_path, seed=0
    )
    assert row["episodes"] == 8 and row["episodes_over_context_window"] == 8
    assert row["success"] == 0 and row["request_errors"] == {"context": 8} and row["generated_tokens"] == 0


def test_merge_lays_the_rows_parallel_runs_played_over_the_baseline(script, tmp_path):
    played = {"episodes": 1, "success": 0, "success_rate": 0.0, "success_ci95": [0.0, 0.79]}
    played |= {"mean_prompt_tokens": 10.0, "max_prompt_tokens": 12, "episodes_over_context_window": 0}
    played |= {"seconds_per_episode": 1.0}
    old = {**played, "seconds_per_episode": 9.0}
    base = {"GenEnv-Digits-v0": {"skipped": "why"}, "GenEnv-Bamboogle-v0": old, "GenEnv-APIBank-v0": old}
    out = tmp_path / "baseline.json"
    out.write_text(json.dumps({"model_load_s": 3.0, "envs": base}))
    first = tmp_path / "a.json"  # played Digits and Bamboogle anew, kept API-Bank's row
    new_rows = {"GenEnv-Digits-v0": played, "GenEnv-Bamboogle-v0": played}
    first.write_text(json.dumps({"envs": {**base, **new_rows}}))
    second = tmp_path / "b.json"  # played API-Bank anew, kept the others as they were
    second.write_text(json.dumps({"envs": {**base, "GenEnv-APIBank-v0": {**played, "episodes": 2}}}))
    script.main(["--merge", str(first), str(second), "--out", str(out)])
    merged = json.loads(out.read_text())
    assert merged["model_load_s"] == 3.0
    assert merged["envs"]["GenEnv-Digits-v0"] == played  # a played row replaces a skipped one
    assert merged["envs"]["GenEnv-Bamboogle-v0"] == played  # b.json's kept old row does not undo it
    assert merged["envs"]["GenEnv-APIBank-v0"]["episodes"] == 2
