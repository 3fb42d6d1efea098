"""TravelPlanner official evaluator: real gold plans, targeted mutations, hostile plans, aggregate rates."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from genenv_gym.envs.travelplanner.database import Database
from genenv_gym.envs.travelplanner.evaluate import (
    COMMONSENSE_KEYS,
    ConstraintResult,
    PlanVerdict,
    aggregate,
    evaluate_plan,
)
from genenv_gym.envs.travelplanner.plan_parsing import (
    before_parenthesis,
    from_to,
    gold_plan,
    name_and_city,
    parse_query,
)
from genenv_gym.fixtures import FIXTURES_DIR

FIXTURE_ROW = json.loads((FIXTURES_DIR / "travelplanner" / "train.jsonl").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def fixture_db() -> Database:
    return Database.load(FIXTURES_DIR)


@pytest.fixture(scope="module")
def real(shared_data_dir: Path) -> tuple[Database, list[dict]]:
    rows = (shared_data_dir / "travelplanner" / "train.jsonl").read_text(encoding="utf-8").splitlines()
    return Database.load(shared_data_dir), [json.loads(line) for line in rows]


def failed(verdict: PlanVerdict) -> set[str]:
    """Keys of the constraints that failed."""
    boxes = [verdict.commonsense or {}, verdict.hard or {}]
    return {key for box in boxes for key, result in box.items() if result.passed is False}


def with_constraint(row: dict, **changes) -> dict:
    """A copy of a query row with local constraints (``room_type=`` for ``room type``) or fields changed."""
    query = dict(row, local_constraint=dict(parse_query(row)["local_constraint"]))
    for key, value in changes.items():
        name = key.replace("_", " ")
        if name in query["local_constraint"]:
            query["local_constraint"][name] = value
        else:
            query[key] = value
    return query


# --- parsing ------------------------------------------------------------------------------------------
def test_entity_and_route_parsing_follow_the_official_rules() -> None:
    assert name_and_city("Coco Bambu, Rockford") == ("Coco Bambu", "Rockford")
    assert name_and_city("Hotel, Spa, Rockford(Illinois)") == ("Hotel, Spa", "Rockford")
    assert name_and_city("no comma") == ("-", "-") and name_and_city("Name,") == ("-", "-")
    assert name_and_city("first line\n Park, Austin") == ("Park", "Austin")
    assert before_parenthesis("Rockford(Illinois)") == "Rockford" and before_parenthesis("A (b") == "A (b"
    assert from_to("Flight Number: F1, from St. Petersburg to Rockford, Departure") == (
        "St. Petersburg",
        "Rockford",
    )
    assert from_to("Self-driving to Rockford") == (None, None)


# --- fixture plan (fictional cities) ------------------------------------------------------------------
def test_fixture_plan_passes_with_hand_computed_cost(fixture_db: Database) -> None:
    verdict = evaluate_plan(FIXTURE_ROW, gold_plan(FIXTURE_ROW), fixture_db)
    assert verdict.passed and verdict.error is None and verdict.hard_applicable == 5
    # flight 150 + meals 22 + 25 + 18 + 30 + two nights 120 * ceil(1/3) + taxi int(1210 km)
    assert verdict.total_cost == 150 + 22 + 25 + 18 + 30 + 2 * 120 + 1210
    assert evaluate_plan(with_constraint(FIXTURE_ROW, budget=1694), gold_plan(FIXTURE_ROW), fixture_db).hard[
        "valid_cost"
    ] == ConstraintResult(False, "Total cost 1695.0 exceeds 1694.0.")
    # 3 people: flight and meals x3, the 3-person loft once, taxi x ceil(3/4)
    three = evaluate_plan(with_constraint(FIXTURE_ROW, people_number=3), gold_plan(FIXTURE_ROW), fixture_db)
    assert three.total_cost == 3 * (150 + 22 + 25 + 18 + 30) + 2 * 120 + 1210


def test_fixture_mutations_fail_the_expected_constraint(fixture_db: Database) -> None:
    plan = gold_plan(FIXTURE_ROW)

    def grade(new_plan: list, **changes) -> PlanVerdict:
        return evaluate_plan(with_constraint(FIXTURE_ROW, **changes), new_plan, fixture_db)

    mixed = copy.deepcopy(plan)
    mixed[2]["transportation"] = "Self-driving, from Millbrook to Harborview"
    assert failed(grade(mixed)) == {"is_valid_transportation", "valid_transportation"}
    assert failed(grade(plan, transportation="no flight")) == {"valid_transportation"}
    assert failed(grade(plan, room_type="private room")) == {"valid_room_type"}
    assert failed(grade(plan, house_rule="parties")) == {"valid_room_rule"}
    assert failed(grade(plan, cuisine=["Mexican"])) == {"valid_cuisine"}
    assert grade(plan, cuisine=None, house_rule=None).hard["valid_cuisine"].passed is None
    no_semicolon = copy.deepcopy(plan)
    no_semicolon[1]["attraction"] = "Millbrook Clock Tower, Millbrook;Nowhere, Millbrook"
    assert grade(no_semicolon).passed  # the official split(';')[:-1] never sees the last attraction
    repeated = copy.deepcopy(plan)
    repeated[1]["breakfast"] = plan[0]["dinner"]
    assert failed(grade(repeated)) == {"is_valid_restaurants"}
    short = grade(plan[:2])
    assert failed(short) >= {"is_not_absent"} and short.hard is None and not short.passed


def test_not_delivered_and_hostile_plans_are_failed_verdicts(fixture_db: Database) -> None:
    for empty in (None, [], ""):
        verdict = evaluate_plan(FIXTURE_ROW, empty, fixture_db)
        assert not verdict.delivered and verdict.commonsense is None and not verdict.passed
    plan = gold_plan(FIXTURE_ROW)
    hostile = [
        "a plan",
        [1, 2, 3],
        [dict(plan[0], current_city=None), *plan[1:]],
        [dict(plan[0], breakfast=7), *plan[1:]],
        [dict(plan[0], accommodation=None), *plan[1:]],  # the official code raises on None accommodations
        [dict(plan[0], dinner="x" * 1000000), *plan[1:]],
        [dict(plan[0], current_city="from " + "from " * 200000), *plan[1:]],
    ]
    for bad in hostile:
        verdict = evaluate_plan(FIXTURE_ROW, bad, fixture_db)
        assert verdict.delivered and verdict.error and not verdict.passed and verdict.hard is None


_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.text(max_size=30)
    | st.sampled_from(["-", "", "from A to B"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=12,
)
_field_value = st.one_of(
    _json,
    st.sampled_from(["-", "Cafe Orchard, Millbrook", "Millbrook", "from Harborview to Millbrook", "Taxi"]),
)
_day = st.dictionaries(
    st.sampled_from(["days", "current_city", "transportation", "breakfast", "attraction", "lunch", "dinner",
                     "accommodation", "note"]),
    _field_value,
    max_size=9,
)  # fmt: skip


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(plan=st.one_of(_json, st.lists(st.one_of(_day, _json), max_size=5)))
def test_arbitrary_plans_never_crash(fixture_db: Database, plan: object) -> None:
    verdict = evaluate_plan(FIXTURE_ROW, plan, fixture_db)
    assert isinstance(verdict, PlanVerdict)
    if verdict.error:
        assert (not verdict.passed and verdict.hard is None) or any(r.raised for r in verdict.hard.values())


# --- aggregate ----------------------------------------------------------------------------------------
def _verdict(
    commonsense_fails: int, hard: list | None, applicable: int, delivered: bool = True
) -> PlanVerdict:
    box = None
    if delivered:
        box = {
            key: ConstraintResult(index >= commonsense_fails) for index, key in enumerate(COMMONSENSE_KEYS)
        }
    hard_box = None if hard is None else {f"h{i}": ConstraintResult(value) for i, value in enumerate(hard)}
    return PlanVerdict(delivered=delivered, commonsense=box, hard=hard_box, hard_applicable=applicable)


def test_aggregate_uses_the_official_denominators() -> None:
    verdicts = [
        _verdict(0, [True, None, None, None, None], 1),  # passes everything
        _verdict(1, [True, True, None, False, None], 3),  # one commonsense and one hard failure
        _verdict(2, None, 2),  # gated out: counts for no macro rate
        _verdict(0, None, 4, delivered=False),
    ]
    rates = aggregate(verdicts)
    assert rates == {
        "Delivery Rate": 3 / 4,
        "Commonsense Constraint Micro Pass Rate": (8 + 7 + 6) / 32,
        "Commonsense Constraint Macro Pass Rate": 1 / 4,
        "Hard Constraint Micro Pass Rate": (1 + 2) / (1 + 3 + 2 + 4),
        "Hard Constraint Macro Pass Rate": 1 / 4,
        "Final Pass Rate": 1 / 4,
    }
    assert aggregate([])["Final Pass Rate"] == 0.0
    with pytest.raises(ValueError, match="scoring"):
        evaluate_plan(FIXTURE_ROW, [], Database(), scoring="lenient")


# --- real data ----------------------------------------------------------------------------------------
def test_official_rates_on_the_45_train_gold_plans(real) -> None:
    db, rows = real
    verdicts = [evaluate_plan(row, gold_plan(row), db) for row in rows]
    assert sum(v.hard_applicable for v in verdicts) == 105
    assert aggregate(verdicts) == {
        "Delivery Rate": 1.0,
        "Commonsense Constraint Micro Pass Rate": 1.0,
        "Commonsense Constraint Macro Pass Rate": 1.0,
        "Hard Constraint Micro Pass Rate": 1.0,
        "Hard Constraint Macro Pass Rate": 1.0,
        "Final Pass Rate": 1.0,
    }
    assert aggregate(evaluate_plan(row, None, db) for row in rows)["Delivery Rate"] == 0.0


def test_real_plan_mutations_give_the_official_verdicts(real) -> None:
    db, rows = real
    row = rows[0]  # St. Petersburg -> Rockford, 3 days, flights both ways
    plan = gold_plan(row)

    def grade(new_plan: list, **changes) -> PlanVerdict:
        return evaluate_plan(with_constraint(row, **changes), new_plan, db)

    gold = grade(plan)
    assert gold.passed and gold.total_cost == 1608.0
    assert failed(grade(plan, budget=1607)) == {"valid_cost"}
    assert grade(plan, budget=1608).passed
    wrong_city = copy.deepcopy(plan)
    wrong_city[1]["current_city"] = "Austin"
    assert {"is_reasonable_visiting_city", "is_not_absent"} <= failed(grade(wrong_city))
    fake_hotel = copy.deepcopy(plan)
    fake_hotel[0]["accommodation"] = "Ghost Inn 42, Rockford"
    ghost = grade(fake_hotel)
    assert "is_valid_information_in_sandbox" in failed(ghost) and ghost.hard is None
    taxi = copy.deepcopy(plan)
    taxi[2]["transportation"] = "Self-driving, from Rockford to St. Petersburg"
    assert "is_valid_transportation" in failed(grade(taxi))
    assert failed(grade(plan, room_type="shared room")) == {"valid_room_type"}
    no_day = plan[:1] + plan[2:3]
    assert "is_not_absent" in failed(grade(no_day))
