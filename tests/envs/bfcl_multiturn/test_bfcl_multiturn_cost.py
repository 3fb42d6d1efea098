"""BFCL multi-turn's checker: the official verdicts, at a cost near-linear in the task and the replies.

A client's task may hold up to the declared turns and expected calls (``TASK_BOUNDS`` of the manifest), and a
model's turn as many calls as its replies can write. The response check matches each turn's ground-truth
results among all the model's results so far; the official list scan costs expected x produced per turn (a
turn of 16 expected calls against 64,000 model results: 32 turns took seconds), the counted match costs their
sum and gives the same missing results.
"""

from __future__ import annotations

import time

from hypothesis import given, settings
from hypothesis import strategies as st

from genenv_gym.envs.bfcl_multiturn.checker import GroundTruthRun, TurnChecker, check_entry, unordered_missing
from genenv_gym.envs.bfcl_multiturn.manifest import TASK_BOUNDS


def scan_reference(expected: list[str], produced: list[str]) -> list[str]:
    """The official matcher as written: each expected result removed from a list of the model's."""
    pool = list(produced)
    missing = []
    for item in expected:
        if item in pool:
            pool.remove(item)
        else:
            missing.append(item)
    return missing


results = st.lists(st.sampled_from(["a", "b", "c", '{"x": 1}', ""]), max_size=12)


@settings(max_examples=200, deadline=None)
@given(results, results)
def test_the_counted_match_gives_the_official_missing_results(expected, produced):
    assert unordered_missing(expected, produced) == scan_reference(expected, produced)


BOUNDS = {bound.what: bound.limit for bound in TASK_BOUNDS}


def entry(turns: int, calls_per_turn: int) -> dict:
    """A file-system entry whose every turn makes ``calls_per_turn`` distinct calls."""
    files = {f"f{k}.txt": {"type": "file", "content": f"line {k}"} for k in range(calls_per_turn)}
    config = {"GorillaFileSystem": {"root": {"home": {"type": "directory", "contents": files}}}}
    truth = [[f"cat(file_name='f{k}.txt')" for k in range(calls_per_turn)] for _ in range(turns)]
    return {
        "id": "cost",
        "involved_classes": ["GorillaFileSystem"],
        "initial_config": config,
        "ground_truth": truth,
    }


def seconds(turns: int, noise: int) -> float:
    """Turns at the declared expected calls, each answered by ``noise`` distinct results that match nothing
    and then the right ones (last: the worst place for a scan), min of 3. The model's backends are the
    ground truth's, so the state check passes and the response check is what is timed."""
    task = entry(turns, BOUNDS["expected calls"] // BOUNDS["turns"])
    best = float("inf")
    for _ in range(3):
        checker = TurnChecker(task, long_context=False)
        truth = GroundTruthRun(task, long_context=False)
        begin = time.perf_counter()
        for turn in range(turns):
            steps = [[f"noise {turn} {k}" for k in range(noise)], truth.run_turn(turn)]
            assert checker.check_turn(turn, checker.truth.instances, steps).valid
        best = min(best, time.perf_counter() - begin)
    return best


def test_many_model_results_cost_near_linear_time():
    """4x the model's results costs about 4x the time, never 16x; at the declared turns and expected calls,
    with 4,000 results in every turn (128,000 in all), the response checks take well under a second."""
    small, large = seconds(8, 500), seconds(8, 2000)
    assert large < 8 * small + 0.05, (small, large)
    assert seconds(BOUNDS["turns"], 4000) < 1.0


def test_a_whole_entry_at_the_declared_bounds_is_checked_in_time():
    """Every turn's expected calls, in reverse order, after 250 calls that match nothing: executed and
    checked (the state check included) within a second."""
    task = entry(BOUNDS["turns"], BOUNDS["expected calls"] // BOUNDS["turns"])
    model_turns = [[["pwd()"] * 250, list(reversed(turn))] for turn in task["ground_truth"]]
    begin = time.perf_counter()
    assert check_entry(task, model_turns).valid
    assert time.perf_counter() - begin < 1.5
