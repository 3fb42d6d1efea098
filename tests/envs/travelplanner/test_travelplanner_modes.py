"""TravelPlanner reward modes (dense / final pass), level x days categories, and the corrected scoring.

Each corrected-scoring deviation has a plan on the fixture database whose verdicts differ between the
official and the corrected evaluator on exactly that rule.
"""

from __future__ import annotations

import copy
import json

import gymnasium as gym
import pytest

import genenv_gym  # noqa: F401  (registers the ids)
from genenv_gym.envs.travelplanner.action import render_plan_text
from genenv_gym.envs.travelplanner.database import Database
from genenv_gym.envs.travelplanner.domain import CATEGORIES, TravelPlannerDomain
from genenv_gym.envs.travelplanner.evaluate import DEVIATIONS, PlanVerdict, evaluate_plan
from genenv_gym.envs.travelplanner.plan_parsing import gold_plan, parse_query
from genenv_gym.fixtures import FIXTURES_DIR

ENV_ID = "GenEnv-TravelPlanner-v0"
FIXTURE_ROW = json.loads((FIXTURES_DIR / "travelplanner" / "train.jsonl").read_text(encoding="utf-8"))
GOLD = [day for day in gold_plan(FIXTURE_ROW) if day]


@pytest.fixture(scope="module")
def fixture_db() -> Database:
    return Database.load(FIXTURES_DIR)


def make(**kwargs) -> gym.Env:
    kwargs.setdefault("data_dir", str(FIXTURES_DIR))
    return gym.make(ENV_ID, **kwargs)


def play(env: gym.Env, plan: object) -> tuple[float, dict]:
    env.reset(options={"task_id": "train/1"})
    action = plan if isinstance(plan, str) else render_plan_text(plan)
    _, reward, terminated, _, info = env.step(action)
    assert terminated
    return reward, info


def failed(verdict: PlanVerdict) -> set[str]:
    """Keys of the constraints that failed."""
    boxes = [verdict.commonsense or {}, verdict.hard or {}]
    return {key for box in boxes for key, result in box.items() if result.passed is False}


def mutated(**days: dict) -> list[dict]:
    """The fixture gold plan with fields of some days replaced (``day2={"lunch": ...}``)."""
    plan = copy.deepcopy(GOLD)
    for name, fields in days.items():
        plan[int(name[3:]) - 1].update(fields)
    return plan


# --- reward modes ----------------------------------------------------------------------------------------
def test_dense_reward_is_the_fraction_of_applicable_constraints_passed() -> None:
    dense, sparse = make(), make(reward_mode="final_pass")
    assert play(dense, GOLD)[0] == 1.0 and play(sparse, GOLD)[0] == 1.0
    repeated = mutated(day2={"breakfast": GOLD[0]["dinner"]})  # one commonsense failure, gate passed
    reward, info = play(dense, repeated)
    assert info["constraints_applicable"] == 8 + 5 and info["constraints_passed"] == 12
    assert reward == pytest.approx(12 / 13) and not info["success"] and info["final_pass"] is False
    assert info["reward_mode"] == "dense" and info["scoring"] == "official"
    assert info["metrics"]["constraints_passed"] == 12 and info["metrics"]["final_pass"] is False
    reward, info = play(sparse, repeated)
    assert reward == 0.0 and info["reward_mode"] == "final_pass" and info["constraints_passed"] == 12
    # gated: the hard constraints are not evaluated and count as not passed (denominator stays 13)
    reward, info = play(dense, GOLD[:2])
    passed = sum(v is True for v in info["metrics"]["commonsense"].values())
    assert info["hard"] == {} and reward == pytest.approx(passed / 13) and 0 < passed < 8
    for hostile in ("no plan at all", "Day 1:\nCurrent City: from Harborview\n"):
        reward, info = play(dense, hostile)
        assert reward == 0.0 and info["constraints_passed"] == 0 and not info["success"]
    with pytest.raises(ValueError, match="reward_mode"):
        make(reward_mode="shaped")


def test_categories_are_level_by_days_and_levels_still_select() -> None:
    assert CATEGORIES[0] == "easy-3day" and CATEGORIES[-1] == "hard-7day" and len(CATEGORIES) == 9
    env = make()
    assert env.reset(options={"task_id": "train/1"})[1]["category"] == "hard-3day"
    assert env.unwrapped.domain.categories() == CATEGORIES
    assert [t.id for t in make(levels=["hard-3day"]).unwrapped.tasks] == ["train/1"]
    assert [t.id for t in make(split="validation", levels=["easy"]).unwrapped.tasks] == ["validation/2"]
    with pytest.raises(ValueError, match="unknown TravelPlanner levels"):
        make(levels=["hard-4day"])


# --- corrected scoring: one plan per deviation -----------------------------------------------------------
def grade(db: Database, plan: list, query: dict | None = None, **kwargs) -> set[str]:
    return failed(evaluate_plan(query or FIXTURE_ROW, plan, db, **kwargs))


def differs_only_by(db: Database, deviation: str, plan: list, query: dict | None = None) -> tuple[set, set]:
    """Failures under official and under corrected scoring; the other deviations alone change nothing."""
    official = grade(db, plan, query)
    others = [name for name in DEVIATIONS if name != deviation]
    assert grade(db, plan, query, scoring="corrected", deviations=others) == official
    alone = grade(db, plan, query, scoring="corrected", deviations=[deviation])
    assert grade(db, plan, query, scoring="corrected") == alone
    return official, alone


def with_local(**changes: object) -> dict:
    local = dict(parse_query(FIXTURE_ROW)["local_constraint"])
    local.update({key.replace("_", " "): value for key, value in changes.items()})
    return dict(FIXTURE_ROW, local_constraint=local)


def test_corrected_scoring_passes_the_gold_plan_and_rejects_unknown_names(fixture_db: Database) -> None:
    assert grade(fixture_db, GOLD, scoring="corrected") == set()
    with pytest.raises(ValueError, match="unknown scoring"):
        evaluate_plan(FIXTURE_ROW, GOLD, fixture_db, scoring="lenient")
    with pytest.raises(ValueError, match="unknown deviations"):
        evaluate_plan(FIXTURE_ROW, GOLD, fixture_db, scoring="corrected", deviations=["typo"])
    with pytest.raises(ValueError, match="only to scoring='corrected'"):
        evaluate_plan(FIXTURE_ROW, GOLD, fixture_db, deviations=["cuisine_all_meals"])


def test_attraction_last_entry(fixture_db: Database) -> None:
    plan = mutated(day2={"attraction": GOLD[1]["attraction"] + "Ghost Park, Millbrook"})  # no trailing ';'
    assert differs_only_by(fixture_db, "attraction_last_entry", plan) == (
        set(),
        {"is_valid_information_in_sandbox"},
    )


def test_stay_day_city_name(fixture_db: Database) -> None:
    # A Harborview attraction on a Millbrook day: officially letters of "Millbrook" occur in it.
    plan = mutated(day2={"attraction": "Old Mill Park, Millbrook;Seal Point Pier, Harborview;"})
    assert differs_only_by(fixture_db, "stay_day_city_name", plan) == (
        set(),
        {"is_valid_information_in_current_city"},
    )


def test_transportation_case_insensitive(fixture_db: Database) -> None:
    plan = mutated(day3={"transportation": "self-driving, from Millbrook to Harborview"})
    assert differs_only_by(fixture_db, "transportation_case_insensitive", plan) == (
        {"is_valid_transportation"},
        {"is_valid_transportation", "valid_transportation"},
    )


def test_cuisine_all_meals(fixture_db: Database) -> None:
    # Day 1 starts with a meal in the origin; the only Chinese meal comes after it the same day.
    day1 = {"breakfast": "Dockside Bagels, Harborview", "lunch": "The Lantern Noodle Bar, Millbrook"}
    plan = mutated(day1={**day1, "dinner": "-"}, day2={"lunch": "The Copper Kettle, Millbrook"})
    assert differs_only_by(fixture_db, "cuisine_all_meals", plan) == ({"valid_cuisine"}, set())


def test_absent_ratio_plan_fields(fixture_db: Database) -> None:
    # 8 of 18 plan fields filled: officially 14 of 18 with 'days' and 'current_city' counted.
    plan = mutated(day1={"dinner": "-"})
    assert differs_only_by(fixture_db, "absent_ratio_plan_fields", plan) == (set(), {"is_not_absent"})


def test_minimum_nights_first_row() -> None:
    db = Database.load(FIXTURES_DIR)  # a private copy: one more row matching the gold accommodation
    annex = dict(db.accommodations[0], NAME="Quiet Loft by the Mill (annex)", **{"minimum nights": 5.0})
    db.accommodations.insert(0, annex)
    assert differs_only_by(db, "minimum_nights_first_row", GOLD) == (set(), {"is_valid_accommodation"})


def test_env_corrected_scoring_and_reference_failures(fixture_db: Database) -> None:
    env = make(scoring="corrected", reward_mode="final_pass")
    plan = mutated(day2={"attraction": "Old Mill Park, Millbrook;Seal Point Pier, Harborview;"})
    reward, info = play(env, plan)
    assert reward == 0.0 and info["scoring"] == "corrected"
    assert info["error_type"] == "commonsense:is_valid_information_in_current_city"
    assert play(make(reward_mode="final_pass"), plan)[0] == 1.0
    assert env.unwrapped.domain.reference_failures() == {}
    with pytest.raises(ValueError, match="unknown scoring"):
        TravelPlannerDomain(scoring="strict")


def test_corrected_scoring_rejects_one_real_gold_plan(shared_data_dir) -> None:
    env = gym.make(ENV_ID, data_dir=str(shared_data_dir), scoring="corrected")
    failures = env.unwrapped.domain.reference_failures()
    assert list(failures) == ["train/42"] and "Within Current City" in failures["train/42"]
