"""How an environment LLM writes Sim-TravelPlanner queries: the prompt, the strict JSON schema, its parser.

The LLM writes the query fields in the HF column layout and the query's text, as one JSON object::

    {"org": "Memphis", "dest": "Texas", "days": 5, "visiting_city_number": 2,
     "date": ["2022-03-12", "2022-03-13", "2022-03-14", "2022-03-15", "2022-03-16"],
     "people_number": 2,
     "local_constraint": {"house rule": "pets", "cuisine": ["Chinese", "Indian"], "room type": null,
                          "transportation": "no flight"},
     "budget": 3100,
     "query": "Please help me plan a trip from Memphis to 2 cities in Texas ..."}

Every field is checked strictly (known cities and states, 3 / 5 / 7 days with 1 / 2 / 3 cities,
consecutive dates, 1 to 8 people, the official constraint values, a positive budget). The solver then
decides feasibility under the stated budget: an infeasible query is rejected (kind ``infeasible``, the
reason starting with ``SolverResult.kind``: stay, route, cuisine, budget, ...), and a feasible one gets
the solver's plan as its reference. ``semantic_problems``: the text, read back into fields, must agree
with the fields (``task_semantics``). The task id, prompt, level and provenance are written by the
domain, never by the LLM.
"""

from __future__ import annotations

import datetime
import itertools
import json
import math
from collections.abc import Mapping, Sequence

from genenv_gym.envs.travelplanner.generator import (
    CONSTRAINT_KINDS,
    CUISINES,
    HOUSE_RULES,
    LEVELS,
    ROOM_TYPE_VALUES,
    TRANSPORTATION_RULES,
    level_label,
)
from genenv_gym.envs.travelplanner.sim_domain import TravelPlannerSimDomain
from genenv_gym.envs.travelplanner.solver import solve
from genenv_gym.envs.travelplanner.task_semantics import query_problems
from genenv_gym.llm_simulator.writer import (
    Target,
    TaskRejected,
    TaskWriterBase,
    describe_skill,
    require_keys,
    strict_json_object,
)
from genenv_gym.skill import SkillEstimate
from genenv_gym.task import Task, thaw

#: Longest query text accepted (official queries are under 700 characters).
MAX_QUERY_CHARS = 1500
MAX_PEOPLE = 8
MAX_BUDGET = 1_000_000
#: Cities of the database shown in one prompt.
CITY_EXCERPT = 40
FIELDS = (
    "org",
    "dest",
    "days",
    "visiting_city_number",
    "date",
    "people_number",
    "local_constraint",
    "budget",
    "query",
)
_ALLOWED = {
    "house rule": HOUSE_RULES,
    "room type": ROOM_TYPE_VALUES,
    "transportation": TRANSPORTATION_RULES,
}

SYSTEM_PROMPT = """You write new travel-planning queries in the style of the TravelPlanner benchmark. \
Reply with exactly one JSON object and nothing else. Its keys:
- "org": the departure city; "dest": for a 3-day trip a city, for 5 or 7 days a state (the trip visits \
2 or 3 of its cities). Use only cities and states of the list you are shown.
- "days": 3, 5 or 7; "visiting_city_number": 1, 2 or 3 accordingly.
- "date": the trip's consecutive dates in 2022, one per day, as "YYYY-MM-DD".
- "people_number": 1 to {max_people}; "budget": the total budget in dollars (a number).
- "local_constraint": an object with exactly the keys "house rule" (null or one of {house_rules}), \
"cuisine" (null or a list of 1 to 4 of {cuisines}), "room type" (null or one of {room_types}) and \
"transportation" (null or one of {transportation}).
- "query": the traveller's request in natural language, stating the origin, the destination, the \
dates, the number of people, the budget and every constraint.
A solver checks that a plan meeting every constraint exists within the budget; queries without one are \
discarded."""


def task_content(task: Task) -> dict[str, object]:
    """A Sim-TravelPlanner task in the writer's JSON schema."""
    query = thaw(task.evaluation["query"])
    content = {key: query[key] for key in FIELDS}
    content["date"] = list(content["date"])
    return content


def nearest_level(days: int, constraints: int, budget_ratio: float) -> int:
    """The knob-table level closest to a query: same trip length, then nearest constraint count and budget
    tightness (one constraint weighs as much as 0.25 of budget ratio)."""
    scored = [
        (abs(k.constraints - constraints) + 4 * abs(k.budget_ratio - budget_ratio), level)
        for level, k in enumerate(LEVELS)
        if k.days == days
    ]
    return min(scored)[1] if scored else 0


class TravelPlannerTaskWriter(TaskWriterBase):
    """The TaskWriter of the ``travelplanner_sim`` domain (see the module docstring)."""

    domain: TravelPlannerSimDomain

    def prompt(self, seeds: Sequence[Task], skill: SkillEstimate, target: Target) -> list[dict[str, str]]:
        knobs = LEVELS[min(max(target.level, 0), len(LEVELS) - 1)]
        generator = self.domain.generator()
        picked = self.rng.choice(
            len(generator.cities), size=min(CITY_EXCERPT, len(generator.cities)), replace=False
        )
        cities = ", ".join(
            f"{generator.cities[int(i)]} ({self.domain.database().city_states[generator.cities[int(i)]]})"
            for i in sorted(picked)
        )
        examples = "\n".join(json.dumps(task_content(s), ensure_ascii=False) for s in seeds[:3])
        parts = [
            "The agent's record:\n" + describe_skill(skill),
            f"Write a {knobs.days}-day query for {knobs.people[0]} to {knobs.people[1]} people with "
            f"{knobs.constraints} local constraint(s) and a budget about {knobs.budget_ratio:g} times the "
            f"cheapest possible trip; aim for one the agent plans correctly about {target.alpha:.0%} of the "
            "time.",
            "Cities (state) of the database:\n" + cities,
        ]
        if examples:
            parts.append("Examples of the format (do not copy them):\n" + examples)
        parts.append("Write one new query as a single JSON object.")
        system = SYSTEM_PROMPT.format(
            max_people=MAX_PEOPLE,
            house_rules=", ".join(HOUSE_RULES),
            cuisines=", ".join(CUISINES),
            room_types=", ".join(ROOM_TYPE_VALUES),
            transportation=", ".join(TRANSPORTATION_RULES),
        )
        return [{"role": "system", "content": system}, {"role": "user", "content": "\n\n".join(parts)}]

    def parse(self, reply: str, target: Target, provenance: str) -> Task:
        data = strict_json_object(reply)
        require_keys(data, FIELDS)
        query = self._fields(data)
        solution = solve(query, self.domain.database(), self.domain.time_limit_s)
        if not solution.feasible:
            raise TaskRejected(
                "infeasible", f"{solution.kind}: {solution.reason.removeprefix('infeasible: ')}"
            )
        constraints = sum(v is not None for v in query["local_constraint"].values())
        level = nearest_level(query["days"], constraints, query["budget"] / float(solution.cost or 1.0))
        return self.domain.make_task(query, solution, level, provenance, {"target_level": int(target.level)})

    def _fields(self, data: Mapping) -> dict:
        """The query row, every field checked (TaskRejected of kind ``parse`` naming the field)."""
        db = self.domain.database()
        org, dest, days, cities = data["org"], data["dest"], data["days"], data["visiting_city_number"]
        if not isinstance(org, str) or org not in db.city_states:
            raise TaskRejected("parse", "org must be a city of the database")
        if not _is_int(days) or days not in (3, 5, 7):
            raise TaskRejected("parse", "days must be 3, 5 or 7")
        if not _is_int(cities) or cities != (days - 1) // 2:
            raise TaskRejected("parse", "visiting_city_number must be 1, 2 or 3 for 3, 5 or 7 days")
        states = set(db.city_states.values())
        if not isinstance(dest, str) or (dest not in db.city_states if days == 3 else dest not in states):
            raise TaskRejected(
                "parse", "dest must be a city of the database (3 days) or a state (5 or 7 days)"
            )
        if dest == org:
            raise TaskRejected("parse", "dest must differ from org")
        dates = _dates(data["date"], days)
        people = data["people_number"]
        if not _is_int(people) or not 1 <= people <= MAX_PEOPLE:
            raise TaskRejected("parse", f"people_number must be an integer from 1 to {MAX_PEOPLE}")
        budget = data["budget"]
        if isinstance(budget, bool) or not isinstance(budget, (int, float)) or not 0 < budget <= MAX_BUDGET:
            raise TaskRejected("parse", f"budget must be a number in (0, {MAX_BUDGET}]")
        if not math.isfinite(budget):
            raise TaskRejected("parse", "budget must be finite")
        text = data["query"]
        if not isinstance(text, str) or not 20 <= len(text.strip()) <= MAX_QUERY_CHARS:
            raise TaskRejected("parse", f"query must be a string of 20 to {MAX_QUERY_CHARS} characters")
        local = _local_constraint(data["local_constraint"])
        return {
            "org": org,
            "dest": dest,
            "days": int(days),
            "visiting_city_number": int(cities),
            "date": dates,
            "people_number": int(people),
            "local_constraint": local,
            "budget": budget,
            "query": text.strip(),
            "level": level_label(sum(v is not None for v in local.values())),
        }

    def semantic_problems(self, task: Task) -> list[str]:
        """Where the query's text disagrees with its fields (``task_semantics.query_problems``)."""
        db = self.domain.database()
        places = [*db.city_states, *set(db.city_states.values())]
        return query_problems(thaw(task.evaluation["query"]), places)

    def fingerprint(self, task: Task) -> tuple[str, str]:
        query = thaw(task.evaluation["query"])
        key = json.dumps([query[k] for k in FIELDS[:-1]], sort_keys=True, default=str)
        return key, str(query["query"])


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _dates(value: object, days: int) -> list[str]:
    if not isinstance(value, list) or len(value) != days or not all(isinstance(d, str) for d in value):
        raise TaskRejected("parse", f"date must be a list of {days} 'YYYY-MM-DD' strings")
    try:
        parsed = [datetime.date.fromisoformat(d) for d in value]
    except ValueError:
        raise TaskRejected("parse", "date must hold valid 'YYYY-MM-DD' dates") from None
    if any(len(d) != 10 for d in value) or any(d.year != 2022 for d in parsed):
        raise TaskRejected("parse", "dates must be 'YYYY-MM-DD' in 2022")
    if any((b - a).days != 1 for a, b in itertools.pairwise(parsed)):
        raise TaskRejected("parse", "dates must be consecutive days")
    return list(value)


def _local_constraint(value: object) -> dict:
    if not isinstance(value, dict):
        raise TaskRejected("parse", "local_constraint must be an object")
    require_keys(value, CONSTRAINT_KINDS)
    local: dict = {}
    for kind in CONSTRAINT_KINDS:
        item = value[kind]
        if kind == "cuisine":
            if item is not None and (
                not isinstance(item, list)
                or not 1 <= len(item) <= 4
                or any(c not in CUISINES for c in item)
                or len(set(item)) != len(item)
            ):
                raise TaskRejected("parse", f"cuisine must be null or 1 to 4 distinct of {list(CUISINES)}")
            local[kind] = list(item) if item is not None else None
        else:
            if item is not None and item not in _ALLOWED[kind]:
                raise TaskRejected("parse", f"{kind} must be null or one of {list(_ALLOWED[kind])}")
            local[kind] = item
    return local
