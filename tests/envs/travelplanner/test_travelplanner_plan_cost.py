"""TravelPlanner's plan reading and grading: the official verdicts, at a cost linear in the plan and task.

A client's task may ask for up to the declared days and cities (``TASK_BOUNDS`` of the manifest); a reply
may hold fields of up to ``MAX_FIELD_CHARS``. The official ``from A to B`` pattern rescans the rest of a
line from every ``from`` (a plan of such fields took seconds); ``from_to`` now finds the same match in one
pass.
"""

from __future__ import annotations

import json
import re
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from genenv_gym.envs.travelplanner.domain import TravelPlannerDomain
from genenv_gym.envs.travelplanner.manifest import TASK_BOUNDS
from genenv_gym.envs.travelplanner.plan_parsing import MAX_FIELD_CHARS, from_to
from genenv_gym.fixtures import FIXTURES_DIR
from genenv_gym.task import Task

_OFFICIAL = re.compile(r"from\s+(.+?)\s+to\s+([^,]+)")


def official_from_to(text: str) -> tuple[str | None, str | None]:
    match = _OFFICIAL.search(text)
    return (match.group(1), match.group(2)) if match else (None, None)


pieces = st.sampled_from(["from", "to", " ", "  ", "\n", "\t", ",", "a", "B", "fro", "o", "t"])


@settings(max_examples=400, deadline=None)
@given(st.lists(pieces, max_size=16).map("".join))
def test_from_to_gives_the_official_match(text):
    assert from_to(text) == official_from_to(text)


def field_seconds(piece: str, chars: int) -> float:
    text = (piece * chars)[:chars]
    best = float("inf")
    for _ in range(3):
        begin = time.perf_counter()
        from_to(text)
        best = min(best, time.perf_counter() - begin)
    return best


def test_from_to_costs_linear_time():
    """4x the field costs about 4x the time, never 16x."""
    for piece in ("from  ", "from a t", "from a\n"):
        small, large = field_seconds(piece, 1024), field_seconds(piece, 4096)
        assert large < 8 * small + 0.005, (piece, small, large)


def task_at_the_bound() -> Task:
    """A fixture task asking for the declared number of days."""
    domain = TravelPlannerDomain()
    task = domain.load_tasks(data_dir=str(FIXTURES_DIR))[0].to_dict()
    days = {bound.what: bound.limit for bound in TASK_BOUNDS}["days"]
    task["evaluation"]["query"]["days"] = days
    task["evaluation"].pop("gold_plan", None)
    return Task.from_dict(task)


def test_a_hostile_plan_at_the_declared_days_is_graded_in_time():
    """As many days as a client's task may ask for, each field as long as a field may be (the reply at the
    env's action limit): graded well within a second."""
    domain = TravelPlannerDomain()
    task = task_at_the_bound()
    field = ("from  " * MAX_FIELD_CHARS)[: MAX_FIELD_CHARS - 10]
    plan = [
        {"days": day + 1, "current_city": field, "transportation": field, "breakfast": "-", "attraction": "-",
         "lunch": "-", "dinner": "-", "accommodation": "-"}
        for day in range(12)
    ]  # fmt: skip
    text = json.dumps(plan)
    assert len(text) <= 100_000
    begin = time.perf_counter()
    domain.verify(task, text)
    assert time.perf_counter() - begin < 1.0
