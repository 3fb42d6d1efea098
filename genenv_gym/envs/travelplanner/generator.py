"""New TravelPlanner queries over the sandbox database, each proved feasible by ``solver.solve``.

A proposal draws the query fields for a difficulty level (``LEVELS``), then the solver prices it without
a budget; a proposal the solver finds infeasible is dropped and its reason counted
(``GeneratedQuery.rejected``, keyed by ``SolverResult.kind``). The budget is then set to the knob's
ratio times the cheapest plan's cost, rounded up to $10, so the solver's plan (the task's reference)
passes every constraint. The query text is written in the style of the official queries. Besides the
solver's kinds, ``rejected`` counts ``no_destination`` (no city or state fits the knobs, e.g. no state with
enough cities in a small database) and ``no_origin`` (no city has a road both ways to the destination).

Difficulty levels (the knob table; ``LEVELS[i]``):

| level | days / cities | people | local constraints | cuisines | budget / cheapest plan | cities |
|---|---|---|---|---|---|---|
| 0 | 3 / 1 | 1 | 0 | - | 2.0 | any |
| 1 | 3 / 1 | 1-2 | 0 | - | 1.5 | any |
| 2 | 3 / 1 | 1-4 | 1 | 1-2 | 1.3 | any |
| 3 | 5 / 2 | 1-2 | 0 | - | 1.5 | any |
| 4 | 5 / 2 | 1-4 | 1 | 2 | 1.3 | any |
| 5 | 5 / 2 | 2-6 | 2 | 2-3 | 1.2 | any |
| 6 | 7 / 3 | 1-4 | 2 | 2-3 | 1.3 | any |
| 7 | 7 / 3 | 2-6 | 3 | 3-4 | 1.15 | any |
| 8 | 7 / 3 | 2-8 | 3 | 3-4 | 1.1 | sparse |
| 9 | 7 / 3 | 2-8 | 4 | 4 | 1.05 | sparse |

Local constraints are drawn without repetition from house rule, cuisine, room type and transportation
(values as the official queries use them). "Sparse" draws the destination among the cities (3 days) or
states (5 and 7 days, by the median over their cities) in the lowest third by number of accommodations,
so the agent has fewer options to find a plan in. The official level label of a query is ``easy`` (no
local constraint), ``medium`` (1 or 2) or ``hard`` (3 or 4).
"""

from __future__ import annotations

import datetime
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from statistics import median

import numpy as np

from genenv_gym.envs.travelplanner.database import Database
from genenv_gym.envs.travelplanner.hard import HOUSE_RULE_TEXT
from genenv_gym.envs.travelplanner.sandbox import sandbox_for
from genenv_gym.envs.travelplanner.solver import DEFAULT_TIME_LIMIT_S, ROOM_TYPES, SolverResult, solve

#: The cuisines the official queries ask for.
CUISINES = ("American", "Chinese", "French", "Indian", "Italian", "Mediterranean", "Mexican")
HOUSE_RULES = tuple(HOUSE_RULE_TEXT)
ROOM_TYPE_VALUES = tuple(ROOM_TYPES)
TRANSPORTATION_RULES = ("no flight", "no self-driving")
CONSTRAINT_KINDS = ("house rule", "cuisine", "room type", "transportation")
#: Proposals tried for one query before ``generate_query`` gives up.
MAX_PROPOSALS = 40
#: Share of proposals that start from a route and date of the flights table (so some plans fly).
FLIGHT_SEEDED = 0.5
#: Cities in the lowest third by accommodations count as sparse.
SPARSE_QUANTILE = 1 / 3
_MONTH_START = datetime.date(2022, 3, 1)


@dataclass(frozen=True)
class Knobs:
    """One difficulty level: trip length, party size, local constraints, budget tightness, sparsity."""

    days: int
    people: tuple[int, int]
    constraints: int
    cuisines: tuple[int, int]
    budget_ratio: float
    sparse: bool = False

    @property
    def cities(self) -> int:
        """Cities visited: 1, 2 or 3 for 3, 5 or 7 days."""
        return (self.days - 1) // 2


LEVELS: tuple[Knobs, ...] = (
    Knobs(3, (1, 1), 0, (0, 0), 2.0),
    Knobs(3, (1, 2), 0, (0, 0), 1.5),
    Knobs(3, (1, 4), 1, (1, 2), 1.3),
    Knobs(5, (1, 2), 0, (0, 0), 1.5),
    Knobs(5, (1, 4), 1, (2, 2), 1.3),
    Knobs(5, (2, 6), 2, (2, 3), 1.2),
    Knobs(7, (1, 4), 2, (2, 3), 1.3),
    Knobs(7, (2, 6), 3, (3, 4), 1.15),
    Knobs(7, (2, 8), 3, (3, 4), 1.1, sparse=True),
    Knobs(7, (2, 8), 4, (4, 4), 1.05, sparse=True),
)


@dataclass
class GeneratedQuery:
    """A solved query: the HF-layout row, the solver's plan (the reference) and what was dropped."""

    query: dict
    solution: SolverResult
    knobs: Knobs
    proposals: int
    rejected: Counter = field(default_factory=Counter)

    @property
    def budget_ratio(self) -> float:
        """The budget over the cheapest plan's cost."""
        return float(self.query["budget"]) / float(self.solution.cost or 1.0)


class NoFeasibleQuery(RuntimeError):
    """Every proposal for a level was infeasible; ``rejected`` counts them by reason."""

    def __init__(self, message: str, rejected: Counter) -> None:
        super().__init__(message)
        self.rejected = rejected


def level_label(constraints: int) -> str:
    """The official level name for a number of local constraints (easy / medium / hard)."""
    return "easy" if constraints == 0 else "medium" if constraints <= 2 else "hard"


class QueryGenerator:
    """Proposes queries for a level and keeps the ones the solver proves feasible (see the module)."""

    def __init__(self, db: Database, time_limit_s: float = DEFAULT_TIME_LIMIT_S) -> None:
        self.db = db
        self.time_limit_s = time_limit_s
        sandbox = sandbox_for(db)
        self.cities = sorted(c for c in db.city_states if sandbox.attractions.get(c))
        size = {c: len(sandbox.accommodations.get(c, ())) for c in self.cities}
        cut = float(np.quantile(sorted(size.values()), SPARSE_QUANTILE))
        self.sparse_cities = [c for c in self.cities if size[c] <= cut]
        by_state: dict[str, list[str]] = {}
        for city in self.cities:
            by_state.setdefault(db.city_states[city], []).append(city)
        self.states = {state: sorted(cities) for state, cities in by_state.items()}
        state_size = {state: median(size[c] for c in cities) for state, cities in self.states.items()}
        state_cut = float(np.quantile(sorted(state_size.values()), SPARSE_QUANTILE))
        self.sparse_states = sorted(s for s, v in state_size.items() if v <= state_cut)
        self.roads = {
            pair for pair, row in db.distances.items() if sandbox.road_cost(*pair, "taxi") is not None
        }
        self.flight_rows = sorted(
            (str(r["OriginCityName"]), str(r["DestCityName"]), str(r["FlightDate"]))
            for r in db.flights
            if r.get("OriginCityName") in db.city_states and r.get("DestCityName") in db.city_states
        )

    def generate(
        self, level: int, rng: np.random.Generator, max_proposals: int = MAX_PROPOSALS
    ) -> GeneratedQuery:
        """A feasible query at ``level`` (clipped to the table); NoFeasibleQuery (counting the reasons) if
        ``max_proposals`` proposals in a row are infeasible."""
        knobs = LEVELS[int(np.clip(level, 0, len(LEVELS) - 1))]
        rejected: Counter = Counter()
        for attempt in range(1, max_proposals + 1):
            query = self.propose(knobs, rng)
            if isinstance(query, str):
                rejected[query] += 1
                continue
            solution = solve(query, self.db, self.time_limit_s, enforce_budget=False)
            if not solution.feasible:
                rejected[solution.kind] += 1
                continue
            query["budget"] = int(math.ceil(knobs.budget_ratio * float(solution.cost) / 10.0) * 10)
            query["query"] = query_text(query, rng)
            return GeneratedQuery(query, solution, knobs, attempt, rejected)
        raise NoFeasibleQuery(
            f"travelplanner generator: {max_proposals} proposals at level {level} were all infeasible: "
            f"{dict(rejected)}",
            rejected,
        )

    def propose(self, knobs: Knobs, rng: np.random.Generator) -> dict | str:
        """Unsolved query fields for ``knobs`` (budget 0, no text), or why none could be drawn:
        ``no_destination`` (no city or state fits the knobs) or ``no_origin`` (no city has a road both ways
        to the destination)."""
        start = _MONTH_START + datetime.timedelta(days=int(rng.integers(0, 31 - knobs.days + 1)))
        org = dest = None
        if not knobs.sparse and self.flight_rows and rng.random() < FLIGHT_SEEDED:
            origin, arrival, day = self.flight_rows[int(rng.integers(len(self.flight_rows)))]
            state = self.db.city_states[arrival]
            if knobs.days == 3 or (
                len(self.states.get(state, ())) > knobs.cities and origin not in self.states[state]
            ):
                org, dest = origin, arrival if knobs.days == 3 else state
                start = datetime.date.fromisoformat(day)
        if dest is None:
            dest = self._destination(knobs, rng)
            if dest is None:
                return "no_destination"
            org = self._origin(knobs, dest, rng)
            if org is None:
                return "no_origin"
        dates = [str(start + datetime.timedelta(days=i)) for i in range(knobs.days)]
        people = int(rng.integers(knobs.people[0], knobs.people[1] + 1))
        return {
            "org": org,
            "dest": dest,
            "days": knobs.days,
            "visiting_city_number": knobs.cities,
            "date": dates,
            "people_number": people,
            "local_constraint": self._constraints(knobs, rng),
            "budget": 0,
            "query": "",
            "level": level_label(knobs.constraints),
        }

    def _destination(self, knobs: Knobs, rng: np.random.Generator) -> str | None:
        if knobs.days == 3:
            pool = self.sparse_cities if knobs.sparse else self.cities
        else:
            states = self.sparse_states if knobs.sparse else sorted(self.states)
            pool = [s for s in states if len(self.states[s]) >= knobs.cities]
        return str(pool[int(rng.integers(len(pool)))]) if pool else None

    def _origin(self, knobs: Knobs, dest: str, rng: np.random.Generator) -> str | None:
        """An origin with a road both ways to the destination city (or to a city of the state)."""
        targets = [dest] if knobs.days == 3 else self.states[dest]
        pool = [
            c
            for c in self.cities
            if c not in targets and any((c, t) in self.roads and (t, c) in self.roads for t in targets)
        ]
        return str(pool[int(rng.integers(len(pool)))]) if pool else None

    @staticmethod
    def _constraints(knobs: Knobs, rng: np.random.Generator) -> dict:
        local: dict = {kind: None for kind in CONSTRAINT_KINDS}
        kinds = list(CONSTRAINT_KINDS)
        chosen = [kinds[i] for i in rng.choice(len(kinds), size=knobs.constraints, replace=False)]
        for kind in chosen:
            if kind == "house rule":
                local[kind] = str(rng.choice(HOUSE_RULES))
            elif kind == "room type":
                local[kind] = str(rng.choice(ROOM_TYPE_VALUES))
            elif kind == "transportation":
                local[kind] = str(rng.choice(TRANSPORTATION_RULES))
            else:
                count = int(rng.integers(knobs.cuisines[0], knobs.cuisines[1] + 1)) or 1
                local[kind] = [str(c) for c in rng.choice(CUISINES, size=count, replace=False)]
        return local


# -- the query text ------------------------------------------------------------------------------------
_OPENINGS = (
    "Please help me plan a trip from {org} to {where} spanning {days} days from {span}. {party} "
    "with a budget of ${budget}.",
    "Could you create a {days}-day travel plan for {people_words} departing from {org} and heading to "
    "{where}, from {span}? The budget for this trip is ${budget}.",
    "I'm planning a {days}-day trip for {people_words}, starting in {org} and visiting {where} from "
    "{span}. Our total budget is ${budget}.",
    "Can you help with generating a {days}-day travel plan for {people_words}? We're setting off from "
    "{org} and planning to explore {where} from {span}. We have a budget of ${budget} for this trip.",
)
_HOUSE_RULE_TEXT = {
    "smoking": "We need accommodations where smoking is allowed.",
    "parties": "Our accommodations should allow parties.",
    "children under 10": "We will be travelling with children under 10, so they must be welcome.",
    "visitors": "We'd like accommodations that allow visitors.",
    "pets": "We'll be bringing our pets, so pet-friendly accommodations are a must.",
}
_ROOM_TYPE_TEXT = {
    "entire room": "Entire rooms for accommodations would be ideal.",
    "private room": "We would prefer private rooms.",
    "shared room": "Shared rooms are what we are looking for.",
    "not shared room": "We'd rather not stay in shared rooms.",
}
_TRANSPORTATION_TEXT = {
    "no flight": "We would prefer not to take any flights.",
    "no self-driving": "We won't be self-driving on this trip.",
}


def _ordinal(day: int) -> str:
    suffix = "th" if 10 <= day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


def _date_text(date: str) -> str:
    value = datetime.date.fromisoformat(date)
    return f"{value.strftime('%B')} {_ordinal(value.day)}"


def _join(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f", and {items[-1]}"


def query_text(query: dict, rng: np.random.Generator) -> str:
    """The query in words, in the style of the official queries (every field and constraint stated)."""
    dates = list(query["date"])
    people = int(query["people_number"])
    k = int(query["visiting_city_number"])
    where = query["dest"] if int(query["days"]) <= 3 else f"{k} cities in {query['dest']}"
    words = "one person" if people == 1 else f"a group of {people}"
    values = {
        "org": query["org"],
        "where": where,
        "days": query["days"],
        "span": f"{_date_text(dates[0])} to {_date_text(dates[-1])}, {dates[-1][:4]}",
        "budget": f"{int(query['budget']):,}",
        "people": people,
        "people_words": words,
        "party": "The travel is for a single person" if people == 1 else f"The travel is for {people} people",
    }
    parts = [_OPENINGS[int(rng.integers(len(_OPENINGS)))].format(**values)]
    local = query["local_constraint"]
    if local.get("house rule"):
        parts.append(_HOUSE_RULE_TEXT[local["house rule"]])
    if local.get("cuisine"):
        parts.append(f"We're also hoping to find places that offer {_join(list(local['cuisine']))} cuisines.")
    if local.get("room type"):
        parts.append(_ROOM_TYPE_TEXT[local["room type"]])
    if local.get("transportation"):
        parts.append(_TRANSPORTATION_TEXT[local["transportation"]])
    return " ".join(parts)
