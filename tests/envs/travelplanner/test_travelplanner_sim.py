"""Sim-TravelPlanner: the solver, the query generator and its knobs, the LLM task writer, the env."""

import json
import statistics

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import genenv_gym  # noqa: F401  (registers the ids)
from genenv_gym.agents.backends import Completion, ScriptedBackend
from genenv_gym.agents.scripted import OracleAgent, RandomAgent
from genenv_gym.envs.travelplanner.database import Database
from genenv_gym.envs.travelplanner.domain import load_rows, split_file
from genenv_gym.envs.travelplanner.evaluate import evaluate_plan
from genenv_gym.envs.travelplanner.generator import LEVELS, QueryGenerator
from genenv_gym.envs.travelplanner.plan_parsing import gold_plan
from genenv_gym.envs.travelplanner.sim_domain import TravelPlannerSimDomain
from genenv_gym.envs.travelplanner.solver import INFEASIBLE_KINDS, solve
from genenv_gym.envs.travelplanner.task_writer import TravelPlannerTaskWriter, task_content
from genenv_gym.fixtures import FIXTURES_DIR
from genenv_gym.llm_simulator import LLMSimulator, Target, TaskRejected

FIXTURE_DB = Database.load(FIXTURES_DIR)
FIXTURE_QUERY = load_rows(split_file("train", FIXTURES_DIR))[0]


@pytest.fixture(scope="module")
def real_db(shared_data_dir):
    return Database.load(shared_data_dir)


@pytest.fixture(scope="module")
def real_domain(shared_data_dir):
    return TravelPlannerSimDomain(data_dir=str(shared_data_dir))


def test_solver_plans_every_train_query_within_budget_and_no_dearer_than_the_annotation(
    real_db, shared_data_dir
):
    rows = load_rows(split_file("train", shared_data_dir))
    assert len(rows) == 45
    for index, row in enumerate(rows, start=1):
        result = solve(row, real_db)
        assert result.feasible, (index, result.reason)
        assert result.passes_corrected and result.passes_official, index
        for scoring in ("corrected", "official"):
            verdict = evaluate_plan(row, result.plan, real_db, scoring=scoring)
            assert verdict.passed, (index, scoring, verdict.reasons())
        assert result.cost == verdict.total_cost <= row["budget"]
        assert result.cost <= evaluate_plan(row, gold_plan(row), real_db).total_cost, index
        assert len(result.cities) == row["visiting_city_number"] and result.complete


def test_solver_on_the_fixture_finds_a_cheaper_plan_than_the_annotated_one():
    result = solve(FIXTURE_QUERY, FIXTURE_DB)
    assert result.feasible and result.reason is None and result.cities == ("Millbrook",)
    assert result.cost == 1670 < 1695  # the annotated plan costs 1,695
    days = [day["current_city"] for day in result.plan]
    assert days == ["from Harborview to Millbrook", "Millbrook", "from Millbrook to Harborview"]
    assert all("Self-driving" not in day["transportation"] for day in result.plan)  # no self-driving


@pytest.mark.parametrize(
    ("change", "kind", "message"),
    [
        ({"budget": 1000}, "budget", "the cheapest plan costs 1670, over the budget of 1000"),
        ({"org": "Atlantis"}, "query", "origin 'Atlantis' is not a city"),
        ({"days": 4}, "query", "4 days with 1 cities is not a supported trip shape"),
        ({"date": "['2022-03-16']"}, "query", "1 dates for 3 days"),
        ({"dest": "Maine", "days": 5, "visiting_city_number": 2}, "query", "dates for 5 days"),
        ({"people_number": "many"}, "query", "malformed TravelPlanner query"),
        ({"local_constraint": {"room type": "shared room"}}, "stay", "room type shared room"),
        ({"local_constraint": {"cuisine": ["Mexican"]}}, "cuisine", "serves every requested cuisine"),
        ({"local_constraint": {"cuisine": ["Chinese", "Chinese"]}}, "query", "cuisine is repeated"),
    ],
)
def test_infeasible_queries_say_why(change, kind, message):
    result = solve({**FIXTURE_QUERY, **change}, FIXTURE_DB)
    assert not result.feasible and result.plan is None
    assert result.kind == kind and kind in INFEASIBLE_KINDS
    assert result.reason.startswith("infeasible: ") and message in result.reason


def test_a_state_with_too_few_cities_and_a_missing_road_are_infeasible():
    dates = "['2022-03-16', '2022-03-17', '2022-03-18', '2022-03-19', '2022-03-20']"
    query = {**FIXTURE_QUERY, "dest": "Ohio", "days": 5, "visiting_city_number": 2, "date": dates}
    result = solve(query, FIXTURE_DB)
    assert result.kind == "cities" and "the state Ohio has 1 usable cities, 2 needed" in result.reason
    db = Database.load(FIXTURES_DIR)
    db.distances = {}
    result = solve({**FIXTURE_QUERY, "local_constraint": {"transportation": "no flight"}}, db)
    assert result.kind == "route" and "no transportation connects" in result.reason


def test_generator_is_deterministic_per_seed_and_varies_across_seeds(real_db):
    def queries(seed):
        generator, rng = QueryGenerator(real_db), np.random.default_rng(seed)
        return [generator.generate(level, rng) for level in (0, 4, 9)]

    first, again, other = queries(7), queries(7), queries(8)
    assert [(q.query, q.solution.plan) for q in first] == [(q.query, q.solution.plan) for q in again]
    assert [q.query for q in first] != [q.query for q in other]


def test_every_level_gives_solved_tasks_that_follow_its_knobs(real_domain, real_db):
    rng = np.random.default_rng(3)
    generator = real_domain.generator()
    for level, knobs in enumerate(LEVELS):
        for _ in range(2):
            task = real_domain.generate(level, rng)
            assert real_domain.validate(task) == [], (level, task.evaluation.get("infeasible"))
            query, plan = task.evaluation["query"], task.evaluation["gold_plan"]
            verdict = evaluate_plan(query, plan, real_db, scoring="corrected")
            assert verdict.passed and verdict.total_cost == task.evaluation["reference_cost"]
            assert real_domain.verify(task, real_domain.oracle_action(task)).reward == 1.0
            difficulty = task.difficulty
            assert (difficulty["level"], task.category) == (level, f"level_{level}")
            assert (difficulty["days"], difficulty["cities"]) == (knobs.days, knobs.cities)
            assert knobs.people[0] <= difficulty["people"] <= knobs.people[1]
            assert difficulty["hard_constraints"] == knobs.constraints
            if query["local_constraint"]["cuisine"]:
                assert knobs.cuisines[0] <= difficulty["cuisines"] <= knobs.cuisines[1]
            # the budget is the knob's ratio of the cheapest plan, rounded up to $10
            assert knobs.budget_ratio <= difficulty["budget_ratio"]
            assert query["budget"] - knobs.budget_ratio * verdict.total_cost < 10
            if knobs.sparse:
                pool = generator.sparse_cities if knobs.days == 3 else generator.sparse_states
                assert query["dest"] in pool
            assert (
                query["query"].startswith(("Please", "Could", "I'm", "Can"))
                and query["org"] in query["query"]
            )
            prompt = task.messages[0]["content"]
            assert "Given information: [{'Description': 'Attractions in " in prompt
            assert prompt.endswith(f"Query: {query['query']}\nTravel Plan:")


def test_knobs_make_levels_harder():
    assert [k.days for k in LEVELS] == sorted(k.days for k in LEVELS)
    ratios = [k.budget_ratio for k in LEVELS]
    assert ratios[0] == 2.0 and ratios[-1] == 1.05 and min(ratios[6:]) < min(ratios[:6])
    for days in (3, 5, 7):
        same = [k for k in LEVELS if k.days == days]
        assert [k.constraints for k in same] == sorted(k.constraints for k in same)
        assert [k.budget_ratio for k in same] == sorted((k.budget_ratio for k in same), reverse=True)
    assert [k.sparse for k in LEVELS].index(True) == 8


def test_budget_tightness_decides_how_much_dearer_than_the_cheapest_plan_a_plan_may_be(real_domain, real_db):
    rng = np.random.default_rng(5)
    for level in (0, 9):
        task = real_domain.generate(level, rng)
        query, plan = dict(task.evaluation["query"]), task.evaluation["gold_plan"]
        cost = task.evaluation["reference_cost"]
        # level 0: a plan 50 % dearer than the cheapest still fits; level 9: one 10 % dearer does not
        assert (1.5 * cost <= query["budget"]) if level == 0 else (1.1 * cost > query["budget"])
        assert evaluate_plan(query, plan, real_db).passed
        assert not evaluate_plan({**query, "budget": cost - 1}, plan, real_db).passed


def test_fixture_database_generates_short_trips_and_counts_the_rest_as_unsolved():
    domain = TravelPlannerSimDomain(data_dir=str(FIXTURES_DIR), max_proposals=5)
    rng = np.random.default_rng(0)
    task = domain.generate(0, rng)
    assert domain.validate(task) == []
    assert task.evaluation["reference_cities"] in (("Millbrook",), ("Harborview",))
    unsolved = domain.generate(5, rng)
    problems = domain.validate(unsolved)
    assert problems and "5 proposals at level 5 were all infeasible" in problems[0]
    assert domain.rejected["no_destination"] >= 5


def test_validate_rejects_a_broken_reference(real_domain):
    task = real_domain.generate(2, np.random.default_rng(1))
    plan = [dict(day) for day in task.evaluation["gold_plan"]]
    plan[1]["breakfast"] = plan[1]["lunch"]
    broken = type(task)(**{**task.to_dict(), "evaluation": {**task.evaluation, "gold_plan": plan}})
    problems = real_domain.validate(broken)
    assert problems and "Diverse Restaurants" in problems[0]


# -- the LLM task writer ---------------------------------------------------------------------------------
FIXTURE_DOMAIN = TravelPlannerSimDomain(data_dir=str(FIXTURES_DIR))
FIXTURE_WRITER = TravelPlannerTaskWriter(FIXTURE_DOMAIN)
TARGET = Target(1, FIXTURE_DOMAIN.num_levels, 0.5, 0.5, 0.0, 0.0)
GOOD = {
    "org": "Harborview",
    "dest": "Millbrook",
    "days": 3,
    "visiting_city_number": 1,
    "date": ["2022-03-16", "2022-03-17", "2022-03-18"],
    "people_number": 1,
    "local_constraint": {
        "house rule": None,
        "cuisine": ["Chinese"],
        "room type": None,
        "transportation": None,
    },
    "budget": 2400,
    "query": "Please plan a 3-day trip for one person from Harborview to Millbrook, March 16th to 18th, "
    "2022, with a budget of $2,400. We'd like Chinese food.",
}


def test_a_good_reply_becomes_a_valid_task_with_the_solvers_plan():
    task = FIXTURE_WRITER.parse(json.dumps(GOOD), TARGET, "llm:test")
    assert FIXTURE_DOMAIN.validate(task) == [] and FIXTURE_WRITER.semantic_problems(task) == []
    assert task.provenance == "llm:test" and task.difficulty["target_level"] == 1
    assert task.difficulty["level"] in (0, 1, 2) and task_content(task) == GOOD
    oracle = FIXTURE_DOMAIN.oracle_action(task)
    assert FIXTURE_DOMAIN.verify(task, oracle).success


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"org": "Atlantis"}, "org must be a city"),
        ({"dest": "Harborview"}, "dest must differ"),
        ({"days": 4}, "days must be 3, 5 or 7"),
        ({"days": True}, "days must be 3, 5 or 7"),
        ({"visiting_city_number": 2}, "visiting_city_number"),
        ({"date": ["2022-03-16", "2022-03-18", "2022-03-19"]}, "consecutive"),
        ({"date": ["2022-02-30", "2022-03-01", "2022-03-02"]}, "valid 'YYYY-MM-DD'"),
        ({"people_number": 0}, "people_number"),
        ({"budget": -5}, "budget must be a number"),
        ({"budget": "lots"}, "budget must be a number"),
        ({"query": "hi"}, "query must be a string"),
        ({"local_constraint": {"house rule": "dogs"}}, "missing key"),
        ({"local_constraint": {**GOOD["local_constraint"], "house rule": "dogs"}}, "house rule must be null"),
        ({"local_constraint": {**GOOD["local_constraint"], "cuisine": ["Thai"]}}, "cuisine must be null"),
        ({"local_constraint": {**GOOD["local_constraint"], "cuisine": [["x"]]}}, "cuisine must be null"),
        ({"extra": 1}, "unknown key"),
    ],
)
def test_bad_replies_are_rejected_naming_the_field(change, message):
    with pytest.raises(TaskRejected, match=message) as caught:
        FIXTURE_WRITER.parse(json.dumps({**GOOD, **change}), TARGET, "llm:test")
    assert caught.value.kind == "parse"


def test_infeasible_proposals_are_dropped_and_counted_with_their_reason():
    sim = LLMSimulator(FIXTURE_DOMAIN, ScriptedBackend(["unused"]), writer=FIXTURE_WRITER, seeds=[], seed=0)
    over_budget = {**GOOD, "budget": 300, "query": GOOD["query"].replace("2,400", "300")}
    no_cuisine = {**GOOD, "local_constraint": {**GOOD["local_constraint"], "cuisine": ["Mexican"]}}
    unstated = {**GOOD, "query": "Please plan a nice trip for me somewhere warm, thank you."}
    assert sim.screen(Completion(json.dumps(over_budget)), TARGET, {}) is None
    assert sim.screen(Completion(json.dumps(no_cuisine)), TARGET, {}) is None
    assert sim.screen(Completion(json.dumps(unstated)), TARGET, {}) is None
    assert sim.screen(Completion(json.dumps(GOOD)), TARGET, {}) is not None
    assert sim.screen(Completion(json.dumps(GOOD)), TARGET, {}) is None  # a duplicate
    assert sim.stats.rejected == {"infeasible": 2, "semantic": 1, "duplicate": 1}
    reasons = " | ".join(sim.stats.reasons)
    assert "infeasible: budget: the cheapest plan costs" in reasons
    assert "infeasible: cuisine: no choice of restaurants serves every requested cuisine" in reasons
    assert "does not name its origin 'Harborview'" in reasons


def test_prompt_states_the_schema_the_target_and_real_cities():
    from genenv_gym.skill import SkillTracker

    skill = SkillTracker(FIXTURE_DOMAIN.num_levels, 0.5).estimate()
    messages = FIXTURE_WRITER.prompt([], skill, Target(9, 10, 0.5, 0.5, 0.0, 0.0))
    assert '"local_constraint"' in messages[0]["content"] and "Mediterranean" in messages[0]["content"]
    assert "7-day query" in messages[1]["content"] and "4 local constraint(s)" in messages[1]["content"]
    assert "Harborview (Maine)" in messages[1]["content"]


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(field=st.sampled_from(sorted(GOOD)), value=_JSON)
def test_any_field_value_parses_or_is_rejected_cleanly(field, value):
    try:
        task = FIXTURE_WRITER.parse(json.dumps({**GOOD, field: value}), TARGET, "llm:test")
    except TaskRejected as rejection:
        assert rejection.kind in ("parse", "infeasible")
    else:
        assert FIXTURE_DOMAIN.validate(task) == []


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=400) | st.binary(max_size=200).map(lambda b: b.decode("latin-1")))
def test_hostile_text_is_rejected_never_raised(reply):
    with pytest.raises(TaskRejected):
        FIXTURE_WRITER.parse(reply, TARGET, "llm:test")


# -- the env ---------------------------------------------------------------------------------------------
def test_gymnasium_make_plays_with_the_oracle_and_random_plans(shared_data_dir):
    env = gym.make(
        "GenEnv-Sim-TravelPlanner-v0", batch_size=4, domain_kwargs={"data_dir": str(shared_data_dir)}
    )
    oracle, random_agent = OracleAgent(env), RandomAgent(env, seed=0)
    obs, info = env.reset(seed=0)
    rewards = {"oracle": [], "random": []}
    for step in range(16):
        name, agent = ("oracle", oracle) if step % 2 == 0 else ("random", random_agent)
        obs, reward, terminated, truncated, _ = env.step(agent.act(obs, info))
        assert terminated and not truncated and info["category"].startswith("level_")
        rewards[name].append(reward)
        obs, info = env.reset()
    assert rewards["oracle"] == [1.0] * 8
    assert statistics.mean(rewards["random"]) < 0.8 and not any(r == 1.0 for r in rewards["random"])
    assert env.unwrapped.curriculum_state()["stats"]["proposed"] >= 4
    env.close()


def test_seeded_env_resets_repeat_on_the_fixture():
    def observations(seed):
        env = gym.make(
            "GenEnv-Sim-TravelPlanner-v0", batch_size=2, domain_kwargs={"data_dir": str(FIXTURES_DIR)}
        )
        first = env.reset(seed=seed)[0]
        return [first, *(env.reset()[0] for _ in range(3))]

    assert observations(2) == observations(2)
