"""The 5 hard constraints of TravelPlanner (budget, house rule, cuisine, room type, transportation).

Computed as the official ``evaluation/hard_constraint.py`` does, on plans that passed the commonsense
gate (delivered, ``is_not_absent`` and ``is_valid_information_in_sandbox`` true), so every day has all
keys. Each check takes ``fixes``, the corrected-scoring deviations in force (``cuisine_all_meals`` and
``transportation_case_insensitive`` act here), and returns ``(passed, reason)``; ``(None, None)`` when
the query does not set the constraint. Where a name matches several rows the first row (file order) is used.

Cost of a plan (``total_cost``), summed day by day in the official order:
- flight: the first flight row with that number (cities not checked), ``Price * people``;
- self-driving: ``int(km * 0.05) * ceil(people / 5)``; taxi: ``int(km) * ceil(people / 4)``;
- each meal (in the origin city too): ``Average Cost * people``;
- each night: ``price * ceil(people / maximum occupancy)``.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from genenv_gym.envs.travelplanner.plan_parsing import (
    MEALS,
    NO_FIXES,
    Fixes,
    OfficialCrash,
    filled,
    from_to,
    name_and_city,
)
from genenv_gym.envs.travelplanner.sandbox import Sandbox

Result = tuple[bool | None, str | None]
UNSET: Result = (None, None)

#: house-rule constraint -> the text in ``house_rules`` that violates it.
HOUSE_RULE_TEXT = {
    "smoking": "No smoking",
    "parties": "No parties",
    "children under 10": "No children under 10",
    "visitors": "No visitors",
    "pets": "No pets",
}


def _days(query: dict, plan: list) -> range:
    return range(min(query["days"], len(plan)))


def total_cost(query: dict, plan: list, sandbox: Sandbox) -> float:
    """The plan's cost by the official formula (entities missing from the sandbox add nothing)."""
    people = query["people_number"]
    total: float = 0
    for i in _days(query, plan):
        day = plan[i]
        transportation = day["transportation"]
        if filled(transportation):
            origin, destination = from_to(transportation)
            if origin is None or destination is None:
                origin, destination = from_to(day["current_city"])
            lowered = transportation.lower()
            if origin is None or destination is None:
                pass
            elif "flight number" in lowered:
                parts = transportation.split("Flight Number: ")
                if len(parts) < 2:
                    raise OfficialCrash(f"day {i + 1}: 'flight number' without 'Flight Number: '")
                price = sandbox.flight_price(parts[1].split(",")[0])
                if price is not None:
                    total += price * people
            elif "self-driving" in lowered or "taxi" in lowered:
                mode = "self-driving" if "self-driving" in lowered else "taxi"
                cost = sandbox.road_cost(origin, destination, mode)
                if cost is None:
                    raise OfficialCrash(f"day {i + 1}: no {mode} cost from {origin} to {destination}")
                total += cost * math.ceil(people / (5 if mode == "self-driving" else 4))
        for meal in MEALS:
            if filled(day[meal]):
                rows = sandbox.restaurants_named(*name_and_city(day[meal]))
                if rows:
                    total += rows[0]["Average Cost"] * people
        if filled(day["accommodation"]):
            rows = sandbox.accommodations_named(*name_and_city(day["accommodation"]))
            if rows:
                occupancy = rows[0]["maximum occupancy"]
                if not occupancy or occupancy <= 0:
                    raise OfficialCrash(f"day {i + 1}: accommodation with maximum occupancy {occupancy}")
                total += rows[0]["price"] * math.ceil(people / occupancy)
    return total


def budget(query: dict, plan: list, sandbox: Sandbox, fixes: Fixes = NO_FIXES) -> Result:
    """[Budget] ``total_cost <= budget``."""
    cost = total_cost(query, plan, sandbox)
    return (
        (True, None) if cost <= query["budget"] else (False, f"Total cost {cost} exceeds {query['budget']}.")
    )


def _first_accommodations(query: dict, plan: list, sandbox: Sandbox):
    for i in _days(query, plan):
        value = plan[i]["accommodation"]
        if filled(value):
            rows = sandbox.accommodations_named(*name_and_city(value))
            if rows:
                yield i, rows[0]


def house_rule(query: dict, plan: list, sandbox: Sandbox, fixes: Fixes = NO_FIXES) -> Result:
    """[Room Rule] No accommodation's house rules forbid the requested thing."""
    rule = query["local_constraint"]["house rule"]
    if rule is None:
        return UNSET
    forbidden = HOUSE_RULE_TEXT.get(rule) if isinstance(rule, str) else None
    for _, row in _first_accommodations(query, plan, sandbox):
        if forbidden is not None and forbidden in str(row["house_rules"]):
            return False, f"The house rule should be {rule}."
    return True, None


def cuisine(query: dict, plan: list, sandbox: Sandbox, fixes: Fixes = NO_FIXES) -> Result:
    """[Cuisine] Every requested cuisine is served by a meal outside ``org``.

    Official quirk: a meal in ``org`` ends that day's scan, so the day's later meals are not counted;
    the ``cuisine_all_meals`` fix skips that meal and scans the rest of the day.
    """
    wanted = query["local_constraint"]["cuisine"]
    if not wanted:
        return UNSET
    if not all(isinstance(item, str) for item in wanted):
        raise OfficialCrash("a cuisine that is not a string")
    served: set[str] = set()
    for i in _days(query, plan):
        for meal in MEALS:
            value = plan[i][meal]
            if not filled(value):
                continue
            name, city = name_and_city(value)
            if city == query["org"]:
                if "cuisine_all_meals" in fixes:
                    continue
                break
            rows = sandbox.restaurants_named(name, city)
            if rows:
                served.update(item for item in wanted if item in rows[0]["Cuisines"])
    if len(served) == len(wanted):
        return True, None
    for item in wanted:
        if item not in served:
            return False, f"The cuisine {item} is not satisfied."
    raise OfficialCrash("a repeated cuisine in the query (the official check returns no verdict)")


_ROOM_TYPE_RULES = {
    "not shared room": lambda room: room != "Shared room",
    "shared room": lambda room: room == "Shared room",
    "private room": lambda room: room == "Private room",
    "entire room": lambda room: room == "Entire home/apt",
}


def room_type(query: dict, plan: list, sandbox: Sandbox, fixes: Fixes = NO_FIXES) -> Result:
    """[Room Type] Every accommodation has the requested room type."""
    wanted = query["local_constraint"]["room type"]
    if wanted is None:
        return UNSET
    accepts = _ROOM_TYPE_RULES.get(wanted) if isinstance(wanted, str) else None
    for _, row in _first_accommodations(query, plan, sandbox):
        if accepts is not None and not accepts(row["room type"]):
            return False, f"The room type should be {wanted}."
    return True, None


def transportation(query: dict, plan: list, sandbox: Sandbox, fixes: Fixes = NO_FIXES) -> Result:
    """[Transportation] ``no flight``: no "Flight" text; ``no self-driving``: no "Self-driving" text.

    Official: case-sensitive; the ``transportation_case_insensitive`` fix ignores case.
    """
    rule = query["local_constraint"]["transportation"]
    if rule is None:
        return UNSET
    banned = (
        {"no flight": "Flight", "no self-driving": "Self-driving"}.get(rule)
        if isinstance(rule, str)
        else None
    )
    for i in _days(query, plan):
        value = plan[i]["transportation"]
        if banned is not None and filled(value):
            hit = (
                banned.lower() in value.lower()
                if "transportation_case_insensitive" in fixes
                else banned in value
            )
            if not hit:
                continue
            return False, f"The transportation should not be {rule}."
    return True, None


#: Official key -> check.
CHECKS: dict[str, Callable[[dict, list, Sandbox, Fixes], Result]] = {
    "valid_cost": budget,
    "valid_room_rule": house_rule,
    "valid_cuisine": cuisine,
    "valid_room_type": room_type,
    "valid_transportation": transportation,
}
