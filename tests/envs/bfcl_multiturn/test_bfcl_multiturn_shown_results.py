"""BFCL multi-turn: what the model is shown of its calls' results is bounded; the checker sees them in full.

One reply of thousands of ``cat`` calls on a 90,000-character file the model wrote made a 359 MB observation
(re-rendered at every later step); now each step shows at most ``MAX_SHOWN_STEP_CHARS`` of results plus a
one-line marker per call past it, and the verdict is the one the unbounded rendering gave.
"""

from __future__ import annotations

import time

import gymnasium as gym

import genenv_gym  # noqa: F401  (registers the ids)
from genenv_gym.envs.bfcl_multiturn import episode as episode_module
from genenv_gym.envs.bfcl_multiturn.shown_results import (
    MAX_SHOWN_RESULT_CHARS,
    MAX_SHOWN_STEP_CHARS,
    shown_result,
    shown_results,
)
from genenv_gym.fixtures import FIXTURES_DIR

BIG = 90_000
CATS = 300


def test_a_long_result_is_cut_with_a_marker_saying_how_much():
    result = "y" * (MAX_SHOWN_RESULT_CHARS + 1234)
    shown = shown_result(result)
    assert shown.startswith("y" * MAX_SHOWN_RESULT_CHARS)
    assert shown.endswith(f"... [truncated: 1,234 of {len(result):,} characters]")
    assert shown_result("short") == "short"


def test_results_past_the_step_cap_are_one_line_markers():
    results = ["z" * 90_000] * 5 + ["ok"]
    shown = shown_results(results)
    assert shown[:4] == results[:4] and shown[5] == "ok"
    assert shown[4] == (
        f"[not shown: 90,000 characters; this step's results passed {MAX_SHOWN_STEP_CHARS:,} characters]"
    )
    assert sum(len(s) for s in shown if not s.startswith("[not shown")) <= MAX_SHOWN_STEP_CHARS


def play_amplified() -> tuple[list, dict, object]:
    """multi_turn_base_0: the first turn's ground truth, then a 90,000-character file read ``CATS`` times in
    one reply and removed (the state stays the ground truth's), then the oracle to the end."""
    env = gym.make("GenEnv-BFCL-MultiTurn-v0", data_dir=str(FIXTURES_DIR)).unwrapped
    env.reset(options={"task_id": "multi_turn_base_0"})
    episode = env.episode
    steps = [
        episode.oracle_action(),
        "[touch(file_name='big.txt'), echo(content='" + "x" * BIG + "', file_name='big.txt')]",
    ]
    observations = [env.step(action)[0] for action in steps]
    began = time.perf_counter()
    observation, *_, info = env.step("[" + ",".join(["cat(file_name='big.txt')"] * CATS) + "]")
    observations.append((observation, info, time.perf_counter() - began))
    env.step("[rm(file_name='big.txt')]")
    terminated = False
    while not terminated:
        _, _, terminated, _, info = env.step(episode.oracle_action())
    return observations, info, episode


def test_a_reply_of_many_long_results_is_shown_bounded_in_bounded_time():
    observations, _, episode = play_amplified()
    before = len(observations[1])
    observation, info, seconds = observations[2]
    assert len(observation) - before < MAX_SHOWN_STEP_CHARS + CATS * 200  # the cap + one line per call
    assert len(observation) < CATS * BIG / 20
    assert sum(len(r) for r in info["execution_results"]) < MAX_SHOWN_STEP_CHARS + CATS * 100
    assert info["execution_results"][-1].startswith("[not shown: 90,0")
    assert seconds < 1.0
    full = [r for r in episode.checker.all_model_results if '"file_content"' in r and len(r) > BIG]
    assert len(full) == CATS  # the checker saw every result in full


def test_the_verdict_is_the_one_the_unbounded_rendering_gave(monkeypatch):
    _, bounded, _ = play_amplified()
    monkeypatch.setattr(episode_module, "shown_results", list)
    _, unbounded, _ = play_amplified()
    assert bounded["success"] == unbounded["success"]
    assert bounded["turn_verdicts"] == unbounded["turn_verdicts"]
    assert bounded["success"]  # the state is the ground truth's and its results are among the model's
