"""BFCL's leaderboard summaries of per-category accuracies (eval_runner_helper's definitions)."""

from __future__ import annotations

from collections.abc import Mapping


def summary_scores(accuracy: Mapping[str, float], counts: Mapping[str, int]) -> dict[str, float]:
    """Non-live AST, live AST and irrelevance summaries, for whichever of their parts were evaluated.

    Non-live AST is the unweighted mean of simple (itself the mean of the Python, Java and JavaScript
    simple categories), multiple, parallel and parallel_multiple; live AST is the mean of the four live
    AST categories weighted by record count; irrelevance is the unweighted mean of irrelevance and
    live_irrelevance. A summary is reported only when all of its parts were evaluated.
    """
    summaries: dict[str, float] = {}
    simple = ("simple_python", "simple_java", "simple_javascript")
    non_live = ("multiple", "parallel", "parallel_multiple")
    if all(c in accuracy for c in simple + non_live):
        simple_mean = sum(accuracy[c] for c in simple) / len(simple)
        summaries["non_live_ast"] = (simple_mean + sum(accuracy[c] for c in non_live)) / 4
    live = ("live_simple", "live_multiple", "live_parallel", "live_parallel_multiple")
    if all(c in accuracy for c in live):
        total = sum(counts[c] for c in live)
        summaries["live_ast"] = sum(accuracy[c] * counts[c] for c in live) / total
    if all(c in accuracy for c in ("irrelevance", "live_irrelevance")):
        summaries["irrelevance"] = (accuracy["irrelevance"] + accuracy["live_irrelevance"]) / 2
    return summaries
