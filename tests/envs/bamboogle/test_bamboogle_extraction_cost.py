"""Bamboogle's reply parsing and grading: the reference's verdicts, at a cost linear in reply and task.

The reference's non-greedy tag patterns rescan the rest of the reply from every unclosed opening (a reply
of 20,000 ``<answer>`` openings took 38 s); the parser now finds the same matches in one scan. A client's
task may hold up to the declared number of golden answers (``TASK_BOUNDS`` of the manifest).
"""

from __future__ import annotations

import re
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from genenv_gym.envs.bamboogle.extraction import extract_answer, parse_action
from genenv_gym.envs.bamboogle.manifest import TASK_BOUNDS
from genenv_gym.envs.bamboogle.metrics import answer_metrics

_ACTION = re.compile(r"<(search|answer)>(.*?)</\1>", re.DOTALL)
_ANSWER = re.compile(r"<answer>(.*?)</answer>", re.DOTALL)


def reference_action(text: str) -> tuple[str | None, str]:
    match = _ACTION.search(text)
    return (None, "") if match is None else (match.group(1), match.group(2).strip())


def reference_answer(text: str, mode: str) -> str | None:
    matches = list(_ANSWER.finditer(text))
    if not matches or (mode == "reference" and len(matches) <= 1):
        return None
    return matches[-1].group(1).strip()


pieces = st.sampled_from(
    ["<search>", "</search>", "<answer>", "</answer>", "<answer", "</", ">", "<", " ", "\n", "x", "Paris"]
)


@settings(max_examples=200, deadline=None)
@given(st.lists(pieces, max_size=14).map("".join))
def test_the_parser_gives_the_reference_matches(text):
    assert parse_action(text) == reference_action(text)
    for mode in ("response", "reference"):
        assert extract_answer(text, mode) == reference_answer(text, mode)


def seconds(piece: str, n: int) -> float:
    text = piece * n
    best = float("inf")
    for _ in range(3):
        begin = time.perf_counter()
        parse_action(text)
        extract_answer(text)
        best = min(best, time.perf_counter() - begin)
    return best


def test_unclosed_openings_cost_linear_time():
    """A reply of openings that never close: 4x the openings costs about 4x the time, never 16x, and a
    reply at the server's action limit (1,000,000 characters) stays far below a second."""
    for piece in ("<search>", "<answer>", "<search><answer>x</search>"):
        small, large = seconds(piece, 10_000), seconds(piece, 40_000)
        assert large < 8 * small + 0.05, (piece, small, large)
    assert seconds("<answer>", 125_000) < 0.5


def test_grading_at_the_declared_bound_is_cheap():
    """As many golden answers as a client's task may hold, each long, against a long reply."""
    golden = [f"answer number {k} " * 200 for k in range(TASK_BOUNDS[0].limit)]
    reply = "the answer number 7 is " * 40_000
    begin = time.perf_counter()
    answer_metrics(reply, golden)
    assert time.perf_counter() - begin < 1.0
