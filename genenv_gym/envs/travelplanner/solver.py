"""A search over the sandbox database for the cheapest plan that passes every TravelPlanner constraint.

``solve(query, db)`` takes a query in the HF column layout and returns a ``SolverResult``: the plan (the
official list of day dicts), its total cost by the official formula, and whether the plan passes the
evaluator under ``scoring="corrected"`` (the check) and under ``"official"``; or ``reason``
``"infeasible: <why>"``.

The plans searched have the benchmark's shape: ``days = 2 k + 1`` for ``k = visiting_city_number``
cities (3 days / 1 city, 5 / 2, 7 / 3). Day 1 travels from ``org`` to the first city, each city is then
stayed in for one day, day ``2 i + 1`` travels on to the next city and the last day returns to ``org``;
every city gets two nights. For a 3-day trip the city is ``dest``; for longer trips the cities are
distinct cities of the state ``dest`` (not ``org``). Within that shape the search is exact:

- **lodging**: per city the cheapest two nights that obey the house rule, the room type and the minimum
  nights (one place for two nights, or two places for one night each);
- **meals**: three distinct restaurants of the city on its stay day (travel-day meals are optional and are
  bought only to cover a requested cuisine or the corrected 50 % completeness rule), chosen by a dynamic
  programme over the requested cuisines; meals are never taken in ``org``;
- **attractions** (free): one on each stay day and, where the city has more, one on each travel day;
- **transportation**: flights (of the leg's date, at the price the evaluator reads), taxi or self-driving
  from the distance matrix, obeying the transportation rule and never mixing self-driving with the others;
- **route**: every set of ``k`` cities (lodging and meals do not depend on the order) and every order of
  it (transportation does), pruned by a lower bound.

Entities are used only where the evaluator's name look-up finds that very row first (a name that is a
substring of an earlier row's name would be costed and rule-checked on the other row). The search stops at
``time_limit_s``; ``SolverResult.complete`` says whether it finished (the plan is then the cheapest of the
shape). Flights exist only where the flights table has them: without the full table, the 313 rows rebuilt
from ``train_ref_info.jsonl`` (``Database.flights_source``).
"""

from __future__ import annotations

import ast
import itertools
import math
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from genenv_gym.envs.travelplanner.database import Database
from genenv_gym.envs.travelplanner.evaluate import evaluate_plan
from genenv_gym.envs.travelplanner.hard import HOUSE_RULE_TEXT
from genenv_gym.envs.travelplanner.plan_parsing import MEALS, PLAN_FIELDS, name_and_city, parse_query
from genenv_gym.envs.travelplanner.sandbox import Sandbox, sandbox_for

#: Default wall-clock limit of one search (seconds).
DEFAULT_TIME_LIMIT_S = 5.0
#: Meals a city's stay day needs, and the optional ones of its arrival day.
STAY_MEALS = 3
ARRIVAL_MEALS = 3
#: Transportation modes, as the plan writes them.
FLIGHT, TAXI, SELF_DRIVING = "Flight", "Taxi", "Self-driving"
#: Room-type constraint -> the accommodation ``room type`` values it accepts.
ROOM_TYPES = {
    "not shared room": ("Entire home/apt", "Private room"),
    "shared room": ("Shared room",),
    "private room": ("Private room",),
    "entire room": ("Entire home/apt",),
}
#: ``SolverResult.kind`` of an infeasible query: a malformed or unsupported query, too few cities in the
#: destination, no city that can be stayed in (lodging under the rules, an attraction, three restaurants),
#: no transportation, no cuisine cover, over the budget, out of time, the plan failing the evaluator.
INFEASIBLE_KINDS = ("query", "cities", "stay", "route", "cuisine", "budget", "timeout", "evaluator")
#: Characters that a city name must not contain for the evaluator's "from A to B" parsing to read it back.
_UNSAFE_CITY = ("from", "to ", ",", "(", ";", "\n")


@dataclass(frozen=True)
class SolverResult:
    """The outcome of one search.

    ``plan`` is the cheapest plan found (None when infeasible) and ``cost`` its total cost;
    ``reason`` is None for a plan and ``"infeasible: <why>"`` otherwise, and ``kind`` then groups the why
    (one of ``INFEASIBLE_KINDS``). ``passes_corrected`` /
    ``passes_official`` are the evaluator's final pass under each scoring (the plan is only returned when
    it passes the corrected one). ``cities`` is the visiting order, ``complete`` whether the search ended
    before its time limit, ``routes`` how many city orders were costed.
    """

    plan: list[dict] | None
    cost: float | None
    reason: str | None
    kind: str | None = None
    passes_corrected: bool = False
    passes_official: bool = False
    cities: tuple[str, ...] = ()
    complete: bool = True
    routes: int = 0
    elapsed_s: float = 0.0

    @property
    def feasible(self) -> bool:
        """Whether a plan passing every constraint was found."""
        return self.plan is not None


@dataclass(frozen=True)
class _Leg:
    mode: str
    cost: float
    text: str


@dataclass
class _CityOptions:
    """What one city offers: lodging, attractions, and meal choices per (cuisine mask, extra meals)."""

    city: str
    nights: tuple[str, str]
    nights_cost: float
    attractions: list[str]
    meals: dict[tuple[int, int], tuple[float, tuple[str, ...]]] = field(default_factory=dict)

    @property
    def floor(self) -> float:
        """The least this city can cost: lodging plus its cheapest meal choice."""
        return self.nights_cost + min(cost for cost, _ in self.meals.values())


_FLIGHT_INDEX: weakref.WeakKeyDictionary[Sandbox, dict[tuple[str, str, str], list[dict]]] = (
    weakref.WeakKeyDictionary()
)


def flights_on(sandbox: Sandbox) -> dict[tuple[str, str, str], list[dict]]:
    """The sandbox's complete flight rows by ``(origin city, destination city, date)`` (built once)."""
    index = _FLIGHT_INDEX.get(sandbox)
    if index is None:
        index = {}
        for rows in sandbox.flights.values():
            for row in rows:
                key = (str(row["OriginCityName"]), str(row["DestCityName"]), str(row["FlightDate"]))
                index.setdefault(key, []).append(row)
        _FLIGHT_INDEX[sandbox] = index
    return index


def query_dates(query: Mapping) -> list[str]:
    """The query's dates as strings (``date`` may be a list or its Python-literal text)."""
    dates = query.get("date")
    if isinstance(dates, str):
        try:
            dates = ast.literal_eval(dates)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            dates = [dates]
    if not isinstance(dates, (list, tuple)):
        return []
    return [str(d) for d in dates]


def _own_row(row: dict, name: str, city: str, lookup: Callable[[str, str], list[dict]]) -> bool:
    """Whether the evaluator, reading ``"name, city"``, finds this very row first."""
    found = lookup(*name_and_city(f"{name}, {city}"))
    return bool(found) and found[0] is row


def _city_ok(city: str) -> bool:
    return bool(city) and city == city.strip() and not any(bad in city for bad in _UNSAFE_CITY)


def _entity_ok(name: object) -> bool:
    return isinstance(name, str) and bool(name.strip()) and not any(c in name for c in ";\n") and name != "-"


class _Search:
    """The state of one ``solve`` call."""

    def __init__(self, query: dict, dates: list[str], sandbox: Sandbox, deadline: float) -> None:
        self.q = query
        self.dates = dates
        self.sandbox = sandbox
        self.deadline = deadline
        self.people = query["people_number"]
        local = query["local_constraint"]
        self.cuisines: list[str] = list(local["cuisine"] or [])
        self.full_mask = (1 << len(self.cuisines)) - 1
        self.rejections: dict[str, str] = {}
        self._legs: dict[tuple[str, str, str], list[_Leg]] = {}

    # -- per city ---------------------------------------------------------------------------------------
    def city_options(self, city: str) -> _CityOptions | None:
        """The city's lodging, attractions and meal table, or None (the reason kept in ``rejections``)."""
        if not _city_ok(city):
            self.rejections[city] = f"{city!r} can not be written in a 'from A to B' field"
            return None
        lodging = self._lodging(city)
        if lodging is None:
            return None
        attractions = self._attractions(city)
        if not attractions:
            self.rejections[city] = f"no attraction in {city}"
            return None
        meals = self._meal_table(city)
        if not meals:
            self.rejections[city] = f"fewer than {STAY_MEALS} distinct restaurants in {city}"
            return None
        names, cost = lodging
        return _CityOptions(city, names, cost, attractions, meals)

    def _lodging(self, city: str) -> tuple[tuple[str, str], float] | None:
        local = self.q["local_constraint"]
        forbidden = HOUSE_RULE_TEXT.get(local["house rule"]) if local["house rule"] else None
        room_types = ROOM_TYPES.get(local["room type"]) if local["room type"] else None
        singles: list[tuple[float, str]] = []
        onenight: list[tuple[float, str]] = []
        seen: set[str] = set()
        for row in self.sandbox.accommodations.get(city, ()):
            name = row["NAME"]
            if not _entity_ok(name) or name in seen:
                continue
            seen.add(name)
            if not _own_row(row, name, city, self.sandbox.accommodations_named):
                continue
            if forbidden is not None and forbidden in str(row["house_rules"]):
                continue
            if room_types is not None and row["room type"] not in room_types:
                continue
            occupancy, price, minimum = row["maximum occupancy"], row["price"], row["minimum nights"]
            if not occupancy or occupancy <= 0 or price is None or minimum is None:
                continue
            nightly = price * math.ceil(self.people / occupancy)
            if minimum <= 2:
                singles.append((nightly, name))
            if minimum <= 1:
                onenight.append((nightly, name))
        options: list[tuple[float, tuple[str, str]]] = []
        if singles:
            cost, name = min(singles)
            options.append((2 * cost, (name, name)))
        if len(onenight) >= 2:
            (cost_a, a), (cost_b, b) = sorted(onenight)[:2]
            options.append((cost_a + cost_b, (a, b)))
        if not options:
            rules = ", ".join(
                text
                for text in (
                    f"house rule {local['house rule']}" if forbidden else "",
                    f"room type {local['room type']}" if room_types else "",
                )
                if text
            )
            self.rejections[city] = f"no accommodation in {city} for two nights" + (
                f" with {rules}" if rules else ""
            )
            return None
        cost, names = min(options)
        return names, cost

    def _attractions(self, city: str) -> list[str]:
        names: list[str] = []
        for row in self.sandbox.attractions.get(city, ()):
            name = row["Name"]
            if (
                _entity_ok(name)
                and name not in names
                and self.sandbox.attractions_named(*name_and_city(f"{name}, {city}"))
            ):
                names.append(name)
        return names

    def _meal_table(self, city: str) -> dict[tuple[int, int], tuple[float, tuple[str, ...]]]:
        """(cuisine mask covered, optional meals) -> the cheapest distinct restaurants, all Pareto-optimal."""
        most = STAY_MEALS + ARRIVAL_MEALS
        by_pattern: dict[int, list[tuple[float, str]]] = {}
        seen: set[str] = set()
        for row in self.sandbox.restaurants.get(city, ()):
            name = row["Name"]
            if not _entity_ok(name) or name in seen:
                continue
            seen.add(name)
            if row["Average Cost"] is None or not _own_row(row, name, city, self.sandbox.restaurants_named):
                continue
            served = str(row["Cuisines"])
            pattern = sum(1 << i for i, item in enumerate(self.cuisines) if item in served)
            by_pattern.setdefault(pattern, []).append((row["Average Cost"] * self.people, name))
        # An optimal choice takes, of each cuisine pattern, some of its cheapest restaurants.
        pool = sorted(item for group in by_pattern.values() for item in sorted(group)[:most])
        patterns = {name: p for p, group in by_pattern.items() for _, name in group}
        best: dict[tuple[int, int], tuple[float, tuple[str, ...]]] = {(0, 0): (0.0, ())}
        for cost, name in pool:
            bit = patterns[name]
            for (count, mask), (total, chosen) in list(best.items()):
                if count < most:
                    key = (count + 1, mask | bit)
                    if key not in best or total + cost < best[key][0]:
                        best[key] = (total + cost, (*chosen, name))
        table: dict[tuple[int, int], tuple[float, tuple[str, ...]]] = {}
        for (count, mask), value in best.items():
            if count >= STAY_MEALS:
                table[(mask, count - STAY_MEALS)] = value
        return _pareto(table)

    # -- transportation ---------------------------------------------------------------------------------
    def legs(self, origin: str, destination: str, date: str) -> list[_Leg]:
        """The allowed ways from ``origin`` to ``destination`` on ``date``, cheapest of each mode."""
        key = (origin, destination, date)
        if key in self._legs:
            return self._legs[key]
        rule = self.q["local_constraint"]["transportation"]
        out: list[_Leg] = []
        if rule != "no flight":
            flight = self._cheapest_flight(origin, destination, date)
            if flight is not None:
                out.append(flight)
        row = self.sandbox.distances.get((origin, destination))
        for mode, seats in ((TAXI, 4), (SELF_DRIVING, 5)):
            if mode == SELF_DRIVING and rule == "no self-driving":
                continue
            unit = self.sandbox.road_cost(origin, destination, mode.lower())
            if unit is None or row is None:
                continue
            text = (
                f"{mode}, from {origin} to {destination}, duration: {row['duration']}, "
                f"distance: {row['distance']}, cost: {unit}"
            )
            out.append(_Leg(mode, unit * math.ceil(self.people / seats), text))
        self._legs[key] = out
        return out

    def _cheapest_flight(self, origin: str, destination: str, date: str) -> _Leg | None:
        best: _Leg | None = None
        for row in flights_on(self.sandbox).get((origin, destination, date), ()):
            number = str(row["Flight Number"])
            price = self.sandbox.flight_price(number)  # the price the evaluator reads
            if price is None or "," in number:
                continue
            cost = price * self.people
            if best is None or cost < best.cost:
                text = (
                    f"Flight Number: {number}, from {origin} to {destination}, "
                    f"Departure Time: {row['DepTime']}, Arrival Time: {row['ArrTime']}"
                )
                best = _Leg(FLIGHT, cost, text)
        return best

    def route_legs(self, order: Sequence[str]) -> list[_Leg] | None:
        """The cheapest legs ``org -> order... -> org``, never mixing self-driving with flight or taxi."""
        stops = [self.q["org"], *order, self.q["org"]]
        days = [self.dates[min(2 * i, len(self.dates) - 1)] for i in range(len(stops) - 1)]
        options = [self.legs(a, b, d) for a, b, d in zip(stops, stops[1:], days, strict=False)]
        plans = []
        mixed = [
            min((leg for leg in legs if leg.mode != SELF_DRIVING), key=_cost, default=None)
            for legs in options
        ]
        if all(mixed):
            plans.append(mixed)
        driving = [next((leg for leg in legs if leg.mode == SELF_DRIVING), None) for legs in options]
        if all(driving):
            plans.append(driving)
        return min(plans, key=lambda legs: sum(leg.cost for leg in legs)) if plans else None


def _cost(leg: _Leg) -> float:
    return leg.cost


def _pareto(table: dict[tuple[int, int], tuple[float, tuple]]) -> dict[tuple[int, int], tuple[float, tuple]]:
    """Entries not dominated by one covering a superset of cuisines with as many meals at no more cost."""
    keep = {}
    for (mask, extra), value in table.items():
        dominated = any(
            (other_mask | mask) == other_mask and other_extra >= extra and other[0] <= value[0]
            and (other_mask, other_extra, other[0]) != (mask, extra, value[0])
            for (other_mask, other_extra), other in table.items()
        )  # fmt: skip
        if not dominated:
            keep[(mask, extra)] = value
    return keep


def _combine(
    tables: Sequence[Mapping[tuple[int, int], tuple[float, tuple]]], full_mask: int, min_extra: int
) -> tuple[float, list[tuple[str, ...]]] | None:
    """The cheapest meals over the cities covering ``full_mask`` with at least ``min_extra`` optional ones."""
    states: dict[tuple[int, int], tuple[float, list]] = {(0, 0): (0.0, [])}
    for table in tables:
        nxt: dict[tuple[int, int], tuple[float, list]] = {}
        for (mask, extra), (cost, picks) in states.items():
            for (city_mask, city_extra), (city_cost, names) in table.items():
                key = (mask | city_mask, min(extra + city_extra, min_extra))
                total = cost + city_cost
                if key not in nxt or total < nxt[key][0]:
                    nxt[key] = (total, [*picks, names])
        states = nxt
    found = states.get((full_mask, min_extra))
    return found


def _needed_extra_meals(cities: Sequence[_CityOptions], days: int) -> int:
    """Optional meals the corrected 50 % completeness rule still needs once free attractions are placed."""
    k = len(cities)
    filled = 5 * k + (k + 1) + k  # stay days; every travel day's transportation; travel-day lodging
    filled += sum(1 for c in cities if len(c.attractions) >= 2)  # arrival-day attraction
    if len(cities[-1].attractions) >= 3:
        filled += 1  # departure-day attraction
    return max(0, math.ceil(3 * days) - filled)


def _build_plan(search: _Search, cities: Sequence[_CityOptions], legs: Sequence[_Leg], meals) -> list[dict]:
    org = search.q["org"]
    plan: list[dict] = []
    day = 1
    previous = org
    for index, (city, chosen) in enumerate(zip(cities, meals, strict=True)):
        name = city.city
        stay, extra = chosen[:STAY_MEALS], list(chosen[STAY_MEALS:])
        arrival_meals = {meal: "-" for meal in MEALS}
        for meal in ("dinner", "lunch", "breakfast")[: len(extra)]:
            arrival_meals[meal] = f"{extra.pop(0)}, {name}"
        plan.append(
            {
                "days": day,
                "current_city": f"from {previous} to {name}",
                "transportation": legs[index].text,
                **arrival_meals,
                "attraction": f"{city.attractions[1]}, {name};" if len(city.attractions) >= 2 else "-",
                "accommodation": f"{city.nights[0]}, {name}",
            }
        )
        plan.append(
            {
                "days": day + 1,
                "current_city": name,
                "transportation": "-",
                **{meal: f"{restaurant}, {name}" for meal, restaurant in zip(MEALS, stay, strict=True)},
                "attraction": f"{city.attractions[0]}, {name};",
                "accommodation": f"{city.nights[1]}, {name}",
            }
        )
        day += 2
        previous = name
    last = cities[-1]
    plan.append(
        {
            "days": day,
            "current_city": f"from {previous} to {org}",
            "transportation": legs[-1].text,
            "breakfast": "-",
            "attraction": f"{last.attractions[2]}, {previous};" if len(last.attractions) >= 3 else "-",
            "lunch": "-",
            "dinner": "-",
            "accommodation": "-",
        }
    )
    # keys in the order of the official parsed plans
    return [{key: entry[key] for key in ("days", *PLAN_FIELDS)} for entry in plan]


def _infeasible(kind: str, reason: str, started: float, **extra) -> SolverResult:
    elapsed = time.perf_counter() - started
    return SolverResult(None, None, f"infeasible: {reason}", kind, elapsed_s=elapsed, **extra)


def candidate_cities(query: Mapping, db: Database) -> list[str]:
    """The cities a plan may visit: ``dest`` for a 3-day trip, else the cities of the state ``dest``."""
    q = parse_query(query)
    if q["days"] <= 3:
        return [q["dest"]] if q["dest"] in db.city_states else []
    return sorted(c for c, state in db.city_states.items() if state == q["dest"] and c != q["org"])


def solve(
    query: Mapping,
    db: Database,
    time_limit_s: float = DEFAULT_TIME_LIMIT_S,
    enforce_budget: bool = True,
) -> SolverResult:
    """The cheapest plan of the benchmark's shape passing every constraint of ``query`` (see the module).

    ``enforce_budget=False`` searches as if there were no budget (the generator prices a query this way
    before it sets the budget). Never raises on a query that ``parse_query`` accepts; a malformed query is
    an infeasible result that says why.
    """
    started = time.perf_counter()
    try:
        q = parse_query(query)
    except ValueError as exc:
        return _infeasible("query", str(exc), started)
    days, k = q["days"], q["visiting_city_number"]
    if days < 3 or days % 2 == 0 or k != (days - 1) // 2:
        return _infeasible(
            "query",
            f"{days} days with {k} cities is not a supported trip shape (3 days / 1 city, 5 / 2, 7 / 3)",
            started,
        )
    dates = query_dates(query)
    if len(dates) != days:
        return _infeasible("query", f"the query has {len(dates)} dates for {days} days", started)
    if q["org"] not in db.city_states:
        return _infeasible("query", f"origin {q['org']!r} is not a city of the database", started)
    if len(set(q["local_constraint"]["cuisine"] or [])) != len(q["local_constraint"]["cuisine"] or []):
        return _infeasible("query", "a cuisine is repeated in the query", started)
    pool = candidate_cities(query, db)
    if len(pool) < k:
        where = q["dest"] if days <= 3 else f"the state {q['dest']}"
        return _infeasible("cities", f"{where} has {len(pool)} usable cities, {k} needed", started)
    search = _Search(q, dates, sandbox_for(db), started + time_limit_s)
    options = {city: opt for city in pool if (opt := search.city_options(city)) is not None}
    if len(options) < k:
        reasons = "; ".join(sorted(set(search.rejections.values()))[:4])
        return _infeasible(
            "stay", f"only {len(options)} of the {k} cities needed can be stayed in ({reasons})", started
        )
    best: tuple[float, list[_CityOptions], list[_Leg], list] | None = None
    routes, complete = 0, True
    last_kind, last_problem = (
        "route",
        "no transportation connects the cities (no flight, taxi or self-driving)",
    )
    combos = sorted(
        itertools.combinations(sorted(options), k), key=lambda c: sum(options[x].floor for x in c)
    )
    for combo in combos:
        if time.perf_counter() > search.deadline:
            complete = False
            break
        floor = sum(options[c].floor for c in combo)
        if best is not None and floor >= best[0]:
            break  # combos are sorted by floor: no later one can be cheaper
        meal_choices: dict[int, tuple[float, dict[str, tuple[str, ...]]] | None] = {}
        for order in itertools.permutations([options[c] for c in combo]):
            routes += 1
            legs = search.route_legs([c.city for c in order])
            if legs is None:
                continue
            travel = sum(leg.cost for leg in legs)
            if best is not None and floor + travel >= best[0]:
                continue
            needed = _needed_extra_meals(order, days)
            if needed not in meal_choices:  # the meals depend on the cities, not on their order
                found = _combine([options[c].meals for c in combo], search.full_mask, needed)
                meal_choices[needed] = (
                    None if found is None else (found[0], dict(zip(combo, found[1], strict=True)))
                )
            meals = meal_choices[needed]
            if meals is None:
                last_kind, last_problem = "cuisine", "no choice of restaurants serves every requested cuisine"
                continue
            picks = [meals[1][c.city] for c in order]
            total = sum(c.nights_cost for c in order) + travel + meals[0]
            if best is None or total < best[0]:
                best = (total, list(order), legs, picks)
    if best is None:
        if not complete:
            return _infeasible(
                "timeout", f"no plan found within {time_limit_s} s", started, complete=False, routes=routes
            )
        return _infeasible(last_kind, last_problem, started, routes=routes)
    total, cities, legs, meals = best
    plan = _build_plan(search, cities, legs, meals)
    common = {
        "cities": tuple(c.city for c in cities),
        "complete": complete,
        "routes": routes,
    }
    if enforce_budget and total > q["budget"]:
        return _infeasible(
            "budget",
            f"the cheapest plan costs {total:g}, over the budget of {q['budget']:g}",
            started,
            **common,
        )
    checked = query if enforce_budget else dict(query, budget=max(q["budget"], total))
    corrected = evaluate_plan(checked, plan, db, scoring="corrected")
    official = evaluate_plan(checked, plan, db, scoring="official")
    elapsed = time.perf_counter() - started
    if not corrected.passed:
        reasons = "; ".join(corrected.reasons())
        return _infeasible(
            "evaluator", f"the solver's plan fails the evaluator: {reasons}", started, **common
        )
    return SolverResult(
        plan, corrected.total_cost, None, None, True, official.passed, elapsed_s=elapsed, **common
    )
