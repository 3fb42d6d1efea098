"""The meaning screen of LLM-written tasks (issue 24): each domain's ``semantic_problems`` rejects tasks whose
words contradict their structure (the ``semantic`` adversarial fixtures) and accepts valid ones.

TravelPlanner's writer reads a database: these tests give it the shipped fixture database, and the tests
marked ``shared_data`` repeat its cases on the real one (whose cities the fixture replies name)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from genenv_gym.fixtures import FIXTURES_DIR
from genenv_gym.llm_simulator.writer import Target, TaskRejected, get_task_writer
from genenv_gym.registry.registration import make_domain

FIXTURES = Path(__file__).parents[1] / "fixtures" / "adversarial_tasks"
#: Lines per part of each fixture file (development first, then held out): ``build_semantic.PER_PART``.
PER_PART = {"apibank": 200, "bfcl": 200, "bamboogle_sim": 200, "travelplanner_sim": 150}
#: TravelPlanner levels the fixture database can plan (two cities: short trips only).
FIXTURE_TRAVEL_LEVELS = 3
_WRITERS: dict = {}


def writer(name: str, data_dir: str | Path | None = None):
    """The domain's task writer; TravelPlanner's on ``data_dir`` (default: the shipped fixture database)."""
    key = (name, str(data_dir))
    if key not in _WRITERS:
        kwargs = {"scoring": "corrected"} if name == "apibank" else {}
        if name == "travelplanner_sim":
            kwargs["data_dir"] = str(data_dir or FIXTURES_DIR)
        _WRITERS[key] = get_task_writer(make_domain(name, **kwargs))
    return _WRITERS[key]


def lines(name: str, part: str) -> list[dict]:
    text = (FIXTURES / name / "semantic.jsonl").read_text(encoding="utf-8")
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    return rows[: PER_PART[name]] if part == "dev" else rows[PER_PART[name] :]


def problems_of(name: str, reply: str, data_dir: str | Path | None = None) -> list[str]:
    """The meaning problems of a reply (TravelPlanner's read from its fields, without the solver)."""
    w = writer(name, data_dir)
    if name == "travelplanner_sim":
        from genenv_gym.envs.travelplanner.task_semantics import query_problems

        db = w.domain.database()
        return query_problems(json.loads(reply), [*db.city_states, *set(db.city_states.values())])
    target = Target(0, w.domain.num_levels, 0.5, 0.0, 0.0, 0.0)
    return w.semantic_problems(w.parse(reply, target, "llm:test"))


#: One example of each mutation class (the first in the development part) and the reason it gets.
EXPECTED = {
    "apibank": {
        "time_value": "does not state the value of",
        "time_text": "does not state the value of",
        "token_value": "does not state the value of token",
        "free_text_value": "does not state the value of",
        "formula_value": "does not state the value of formula",
        "stock_date_text": "does not state the value of date",
        "action_text": "the user asks to delete, not to add",
        "api_noun_text": "the user asks for",
    },
    "bfcl": {
        "num_value": "the question does not state the value of",
        "str_value": "the question does not state the value of",
        "question_number": "the question does not state the value of",
        "question_swap": "the question does not state the value of",
        "enum_contradiction": "the question does not state the value of",
        "wrong_function": "the question asks for what",
    },
    "bamboogle_sim": {
        "other_start": "does not name its start entity",
        "start_text": "does not name its start entity",
        "question_other_chain": "the question",
        "reveal_hop": "which is not its start entity",
        "other_relation": "the question",
        "yesno_form": "the question asks yes or no",
    },
    "travelplanner_sim": {
        "people_field": "people, the fields of",
        "people_text": "people, the fields of",
        "days_text": "-day trip, the fields of",
        "dates_field": "outside the dates",
        "dates_text": "outside the dates",
        "budget_field": "the budget field is",
        "budget_text": "the budget field is",
        "budget_words": "the budget field is",
        "house_rule_text": "the house rule field is None",
        "house_rule_field": "does not ask for accommodations that allow smoking",
        "room_text": "the room type field is None",
        "room_field": "does not ask for entire room",
        "transport_text": "the transportation field is None",
        "transport_field": "does not state the transportation constraint 'no self-driving'",
        "transport_flip": "does not state the transportation constraint",
        "cuisine_text": "asks for Mexican cuisine, absent from the fields",
        "cuisine_field": "does not ask for Chinese cuisine",
        "dest_text": "does not name its destination",
        "swap_org_dest": "origin and destination look swapped",
    },
}


def _first_of_each_class(name: str) -> list[tuple[str, dict]]:
    firsts: dict[str, dict] = {}
    for line in lines(name, "dev"):
        firsts.setdefault(line["note"].split("]")[0][1:], line)
    return sorted(firsts.items())


@pytest.mark.parametrize(
    ("name", "kind", "line"),
    [(name, kind, line) for name in EXPECTED for kind, line in _first_of_each_class(name)],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_each_mutation_class_is_rejected_with_its_reason(name, kind, line):
    problems = problems_of(name, line["reply"])
    assert any(EXPECTED[name][kind] in p for p in problems), (line["note"], problems)


@pytest.mark.parametrize("name", list(EXPECTED))
def test_every_mutation_class_has_an_expected_reason(name):
    assert {kind for kind, _ in _first_of_each_class(name)} == set(EXPECTED[name])


def _held_out_passing(name: str, data_dir: str | Path | None = None) -> tuple[list[str], int]:
    held_out = lines(name, "heldout")
    passed = [line["note"] for line in held_out if not problems_of(name, line["reply"], data_dir)]
    return passed, len(held_out)


@pytest.mark.parametrize("name", list(EXPECTED))
def test_held_out_semantic_fixtures_rarely_pass(name):
    passed, total = _held_out_passing(name)
    # measured (benchmarks/semantic_screen.py): 0 of 200 API-Bank, 4 of 200 BFCL, 0 of 200 Bamboogle,
    # 0 of 150 TravelPlanner
    assert len(passed) <= 0.02 * total, passed


def _assert_valid_tasks_accepted(name: str, levels: int, n: int, data_dir: str | Path | None = None) -> None:
    w = writer(name, data_dir)
    content_of = __import__(type(w).__module__, fromlist=["task_content"]).task_content
    rng = np.random.default_rng(31)
    checked = 0
    for i in range(n):
        task = w.domain.generate(i % levels, rng)
        if w.domain.validate(task):
            continue
        checked += 1
        assert w.semantic_problems(task) == [], json.dumps(content_of(task))[:800]
    assert checked >= n // 2


@pytest.mark.parametrize("name", list(EXPECTED))
def test_valid_procedural_tasks_are_accepted(name):
    fixed = {"apibank": 4, "travelplanner_sim": FIXTURE_TRAVEL_LEVELS}
    levels = fixed.get(name) or writer(name).domain.num_levels
    _assert_valid_tasks_accepted(name, levels, 12 if name == "travelplanner_sim" else 60)


@pytest.mark.shared_data
def test_travelplanner_cases_hold_on_the_real_database(shared_data_dir):
    """Every level the real database plans, and the mutation fixtures against its cities."""
    name = "travelplanner_sim"
    _assert_valid_tasks_accepted(name, writer(name, shared_data_dir).domain.num_levels, 12, shared_data_dir)
    for kind, line in _first_of_each_class(name):
        problems = problems_of(name, line["reply"], shared_data_dir)
        assert any(EXPECTED[name][kind] in p for p in problems), (line["note"], problems)
    passed, total = _held_out_passing(name, shared_data_dir)
    assert len(passed) <= 0.02 * total, passed


def test_api_bank_values_written_in_words_are_stated():
    """The false positives an outside test found: a formula in words, a paraphrased topic, a list."""
    from genenv_gym.envs.apibank.task_semantics import value_said

    said = (
        "please work out (151 + 190) times eight. review the tax forms with ada, ben, dev "
        "at 7 am on may 2nd 2023"
    )
    assert value_said("formula", "(151+190)*8", said)
    assert value_said("meeting_topic", "Review of the tax forms", said)
    assert value_said("attendees", "['Ada', 'Ben', 'Dev']", said)
    assert value_said("time", "2023-05-02 07:00:00", said)
    assert not value_said("time", "2023-05-02 08:00:00", said)
    assert not value_said("formula", "(151+190)*9", said)


def test_travelplanner_reads_spelled_out_numbers_and_official_phrasings():
    from genenv_gym.envs.travelplanner.task_semantics import query_problems

    query = {
        "org": "Houston",
        "dest": "Fayetteville",
        "days": 3,
        "visiting_city_number": 1,
        "date": ["2022-03-20", "2022-03-21", "2022-03-22"],
        "people_number": 2,
        "budget": 3000,
        "local_constraint": {"house rule": None, "cuisine": None, "room type": None, "transportation": None},
        "query": "Could you devise a three-day plan for two people departing Houston and heading to "
        "Fayetteville from the 20th to the 22nd of March, 2022, with three thousand dollars?",
    }
    assert query_problems(query) == []
    assert query_problems({**query, "people_number": 3}) == ["the query speaks of 2 people, the fields of 3"]
    assert query_problems({**query, "budget": 2000}) == ["the query states $3,000, the budget field is 2000"]


@pytest.mark.shared_data
def test_real_benchmark_records_are_rarely_rejected(shared_data_dir):
    """False positives on the official records a domain's task can express (measured, with the command, in
    tests/fixtures/adversarial_tasks/SEMANTIC.md)."""
    import csv
    from ast import literal_eval

    from genenv_gym.envs.bfcl.task_writer import WRITABLE_CATEGORIES
    from genenv_gym.envs.travelplanner.task_semantics import query_problems

    bfcl = writer("bfcl")
    tasks = bfcl.domain.load_tasks(list(WRITABLE_CATEGORIES), data_dir=str(shared_data_dir))
    rejected = [t.id for t in tasks if bfcl.semantic_problems(t)]
    assert len(rejected) <= 0.02 * len(tasks), len(rejected)

    root = shared_data_dir / "travelplanner"
    rows = [json.loads(x) for x in (root / "train.jsonl").read_text().splitlines() if x.strip()]
    with (root / "validation_selected_3rows.csv").open(encoding="utf-8") as handle:
        rows += list(csv.DictReader(handle))
    for row in rows:
        query = dict(row)
        for key in ("date", "local_constraint"):
            query[key] = literal_eval(query[key]) if isinstance(query[key], str) else query[key]
        for key in ("days", "visiting_city_number", "people_number", "budget"):
            query[key] = int(query[key])
        assert query_problems(query) == [], query["query"]


_HOSTILE = st.text(
    alphabet=st.sampled_from(list("0123456789$,.-: aeiouAEIOUxyzkKmM/()[]{}'\"\n\t\u00a0\u200bé中ß")),
    max_size=3000,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=_HOSTILE)
def test_the_checks_never_raise_and_stay_fast_on_hostile_text(text):
    from genenv_gym.envs.apibank.task_semantics import dialogue_problems
    from genenv_gym.envs.bamboogle.task_semantics import question_problems
    from genenv_gym.envs.bfcl.task_semantics import task_problems
    from genenv_gym.envs.travelplanner.task_semantics import query_problems
    from genenv_gym.text.number_words import numbers_in

    start = time.perf_counter()
    numbers_in(text)
    query_problems(
        {
            "org": text[:20],
            "dest": "Texas",
            "days": 5,
            "visiting_city_number": 2,
            "date": ["2022-03-01"] * 5,
            "people_number": 2,
            "budget": 1000,
            "local_constraint": {"house rule": None, "cuisine": ["Chinese"], "room type": None},
            "query": text,
        },
        ["Austin", text[:10]],
    )
    task_problems(
        "simple_python",
        text,
        [
            {
                "name": "f.g",
                "description": text[:100],
                "parameters": {"properties": {"a": {"enum": [text[:5]]}}},
            }
        ],
        [{"f.g": {"a": [text[:30]], "b": [1.5, ""], "c": [[3, text[:4]]]}}],
    )
    question_problems(
        text, {"start": text[:8], "steps": ["founder", "birth_year"], "answer_type": "date"}, "1915"
    )
    dialogue_problems(
        [
            {"role": "User", "text": text},
            {"role": "API", "api_name": "AddAlarm", "param_dict": {"time": text[:19]}},
        ],
        {"api_name": "AddAlarm", "param_dict": {"token": text[:10], "time": text[:19], "formula": text[:40]}},
    )
    assert time.perf_counter() - start < 2.0


def test_a_malformed_reply_is_still_a_parse_rejection_not_a_semantic_one():
    with pytest.raises(TaskRejected):
        writer("bfcl").parse("{}", Target(0, 5, 0.5, 0.0, 0.0, 0.0), "llm:test")
