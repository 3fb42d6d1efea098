"""The 8 commonsense constraints of TravelPlanner, computed per plan as the official evaluator does.

Each check takes the parsed query (``plan_parsing.parse_query``), the plan (a list of day dicts that
passed ``plan_parsing.check_plan``) and the ``Sandbox``; it returns ``(passed, reason)`` and raises
``OfficialCrash`` where the official function raises. All checks read only the first ``days`` entries.

Each check also takes ``fixes``, the corrected-scoring deviations in force (``evaluate.DEVIATIONS``;
empty in official scoring): ``attraction_last_entry``, ``stay_day_city_name``,
``absent_ratio_plan_fields`` and ``minimum_nights_first_row`` change the quirks below.

Official quirks kept on purpose (they decide the official numbers):
- on a stay day (``current_city`` without ``from``) the current-city check iterates the *characters* of
  the city name: each must occur in the transportation text, any one in a meal or attraction, and the
  last one in the accommodation;
- attractions are ``split(';')[:-1]``, so an attraction without a trailing ``;`` is never checked;
- restaurant and attraction repeats compare the raw field strings;
- minimum nights are checked only when the name matches exactly one accommodation row;
- completeness tests ``'from '`` / ``'to '`` / ``' to '`` substrings and counts every filled key of a
  day (``days`` and ``current_city`` included) against ``6 * days``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from genenv_gym.envs.travelplanner.plan_parsing import (
    MEALS,
    NO_FIXES,
    PLAN_FIELDS,
    UNUSED_DAY,
    Fixes,
    OfficialCrash,
    attraction_entries,
    before_parenthesis,
    blank,
    filled,
    from_to,
    name_and_city,
    route_cities,
    transport_kind,
)
from genenv_gym.envs.travelplanner.sandbox import Sandbox

Result = tuple[bool, str | None]
OK: Result = (True, None)


def _days(query: dict, plan: list) -> range:
    return range(min(query["days"], len(plan)))


def _field(day: dict, key: str, index: int) -> object:
    """``day[key]`` where the official code indexes without checking (KeyError -> OfficialCrash)."""
    try:
        return day[key]
    except KeyError:
        raise OfficialCrash(f"day {index + 1} has no {key}") from None


def _route_sequence_ok(cities: list[str]) -> bool:
    """Every intermediate city visited in one consecutive run of at least two entries."""
    if len(cities) < 3:
        return False
    last = len(cities) - 1
    seen: set[str] = set()
    start = 0
    while start <= last:
        city, end = cities[start], start
        while end + 1 <= last and cities[end + 1] == city:
            end += 1
        if city in seen and start not in (0, last):
            return False
        if start == end and 0 < start < last:
            return False
        seen.add(city)
        start = end + 1
    return True


def reasonable_city_route(query: dict, plan: list, sandbox: Sandbox, fixes: Fixes = NO_FIXES) -> Result:
    """[Reasonable City Route] Starts at ``org``, returns to it, valid cities, each visited in one stretch."""
    cities = _visited_cities(query, plan)
    if cities is None:
        return False, f"The first day's city should be {query['org']}."
    if not cities:
        raise OfficialCrash("no day to read a city from")
    if cities[0] != cities[-1]:
        return False, "The trip should be a closed circle."
    if not _route_sequence_ok(cities):
        return False, "The city sequence is invalid."
    for index, city in enumerate(cities):
        if city not in sandbox.city_states:
            return False, f"{city} is not a valid city."
        inner = index not in (0, len(cities) - 1)
        if inner and query["days"] > 3 and sandbox.city_states[city] != query["dest"]:
            return False, f"{city} is not in {query['dest']}."
    return OK


def diverse_restaurants(query: dict, plan: list, sandbox: Sandbox, fixes: Fixes = NO_FIXES) -> Result:
    """[Diverse Restaurants] No meal entry (the raw text) appears twice."""
    seen: set = set()
    for i in _days(query, plan):
        for meal in MEALS:
            value = plan[i].get(meal)
            if filled(value):
                if value in seen:
                    return False, f"The restaurant in day {i + 1} {meal} is repeated."
                seen.add(value)
    return OK


def diverse_attractions(query: dict, plan: list, sandbox: Sandbox, fixes: Fixes = NO_FIXES) -> Result:
    """[Diverse Attractions] No ``;``-terminated attraction entry appears twice."""
    seen: set[str] = set()
    for i in _days(query, plan):
        value = plan[i].get("attraction")
        if filled(value):
            for attraction in attraction_entries(value, fixes):
                if attraction in seen:
                    return False, f"The attraction '{attraction}' in day {i + 1} is repeated."
                seen.add(attraction)
    return OK


def non_conflicting_transportation(
    query: dict, plan: list, sandbox: Sandbox, fixes: Fixes = NO_FIXES
) -> Result:
    """[Non-conf. Transportation] Day 1 has transportation; no self-driving together with flight or taxi."""
    if not filled(_field(plan[0], "transportation", 0)):
        return False, "The transportation in day 1 should not be empty."
    kinds = {transport_kind(plan[0]["transportation"])}
    for i in _days(query, plan):
        value = plan[i].get("transportation")
        if filled(value):
            kinds.add(transport_kind(value))
    if "Self-driving" in kinds and ("Flight" in kinds or "Taxi" in kinds):
        return False, "The transportation is conflicting."
    return OK


def within_current_city(query: dict, plan: list, sandbox: Sandbox, fixes: Fixes = NO_FIXES) -> Result:
    """[Within Current City] Transportation, meals, attractions and accommodation name the day's cities."""
    for i in _days(query, plan):
        day = plan[i]
        route = route_cities(day["current_city"], i + 1)
        # On a stay day the official code iterates the city name's characters (see module docstring);
        # the ``stay_day_city_name`` fix compares the whole name.
        if route is not None:
            places: Sequence[str] = list(route)
        elif "stay_day_city_name" in fixes:
            name = before_parenthesis(day["current_city"]).strip()
            places = [name] if name else []
        else:
            places = before_parenthesis(day["current_city"])
        transportation = day.get("transportation")
        if filled(transportation) and any(place not in transportation for place in places):
            return False, f"The transportation in day {i + 1} is invalid city choice."
        for meal in MEALS:
            value = day.get(meal)
            if filled(value) and not any(place in value for place in places):
                return False, f"The {meal} in day {i + 1} is invalid city choice."
        attraction = day.get("attraction")
        if filled(attraction):
            for entry in attraction_entries(attraction, fixes):
                if not any(place in entry for place in places):
                    return False, f"The attraction in day {i + 1} is invalid city choice."
        accommodation = day.get("accommodation")
        if filled(accommodation):
            if not places:
                raise OfficialCrash(f"day {i + 1}: empty current_city with an accommodation")
            if places[-1] not in accommodation:
                return False, f"The accommodation in day {i + 1} is invalid city choice."
    return OK


def within_sandbox(query: dict, plan: list, sandbox: Sandbox, fixes: Fixes = NO_FIXES) -> Result:
    """[Within Sandbox] Every flight, road trip, restaurant, attraction and accommodation exists."""
    for i in _days(query, plan):
        day = plan[i]
        transportation = _field(day, "transportation", i)
        if filled(transportation):
            origin, destination = from_to(transportation)
            if origin is None or destination is None:
                origin, destination = from_to(day["current_city"])
            lowered = transportation.lower()
            if "flight number" in lowered:
                if origin is None or destination is None:
                    raise OfficialCrash(
                        f"day {i + 1}: transportation {transportation[:80]!r} can not be parsed"
                    )
                parts = transportation.split("Flight Number: ")
                if len(parts) < 2:
                    raise OfficialCrash(f"day {i + 1}: 'flight number' without 'Flight Number: '")
                number = parts[1].split(",")[0]
                if not sandbox.flight_exists(
                    number, before_parenthesis(origin), before_parenthesis(destination)
                ):
                    return False, f"The flight number in day {i + 1} is invalid in the sandbox."
            elif "self-driving" in lowered or "taxi" in lowered:
                if origin is None or destination is None:
                    origin = destination = "-"
                else:
                    origin, destination = before_parenthesis(origin), before_parenthesis(destination)
                mode = "self-driving" if "self-driving" in lowered else "taxi"
                if sandbox.road_cost(origin, destination, mode) is None:
                    return False, f"The {mode} in day {i + 1} is invalid in the sandbox."
        for meal in MEALS:
            value = day.get(meal)
            if filled(value) and not sandbox.restaurants_named(*name_and_city(value)):
                return False, f"The {meal} in day {i + 1} is invalid in the sandbox."
        attraction = day.get("attraction")
        if filled(attraction):
            for entry in attraction_entries(attraction, fixes):
                if not sandbox.attractions_named(*name_and_city(entry)):
                    return False, f"The attraction {entry} in day {i + 1} is invalid in the sandbox."
        accommodation = day.get("accommodation")
        if filled(accommodation) and not sandbox.accommodations_named(*name_and_city(accommodation)):
            return False, f"The accommodation in day {i + 1} is invalid in the sandbox."
    return OK


def minimum_nights(query: dict, plan: list, sandbox: Sandbox, fixes: Fixes = NO_FIXES) -> Result:
    """[Minimum Nights Stay] Each run of equal accommodation entries lasts at least its minimum nights."""
    stays: list[list] = []
    for i in _days(query, plan):
        if "accommodation" not in plan[i]:
            return False, "No Accommodation Info."
        value = plan[i]["accommodation"]
        if stays and stays[-1][0] == value:
            stays[-1][1] += 1
        else:
            stays.append([value, 1])
    for value, nights in stays:
        if blank(value):
            continue
        rows = sandbox.accommodations_named(*name_and_city(value))
        checked = bool(rows) if "minimum_nights_first_row" in fixes else len(rows) == 1
        if checked and nights < rows[0]["minimum nights"]:
            return False, f"The accommodation {value} do not obey the minumum nights rule."
    return OK


def _valid_days(query: dict, plan: list) -> bool:
    used = sum(1 for i in _days(query, plan) if plan[i] != {} and plan[i]["current_city"] != UNUSED_DAY)
    return used == query["days"]


def _visited_cities(query: dict, plan: list) -> list[str] | None:
    """The cities of the plan's days in order (both ends of a travel day); None when day 1 leaves from
    somewhere other than ``org``."""
    cities: list[str] = []
    for i in _days(query, plan):
        text = plan[i]["current_city"]
        route = route_cities(text, i + 1)
        if route is None:
            cities.append(before_parenthesis(text))
            continue
        if i == 0 and route[0] != query["org"]:
            return None
        cities.extend(route)
    return cities


def _valid_city_number(query: dict, plan: list) -> bool:
    visited = _visited_cities(query, plan)
    if visited is None:
        return False
    cities = set(visited)
    cities.discard(query["org"])
    return len(cities) == query["visiting_city_number"]


def complete_information(query: dict, plan: list, sandbox: Sandbox, fixes: Fixes = NO_FIXES) -> Result:
    """[Complete Information] Right days and cities, all keys, required fields set, >= 50 % filled."""
    if not _valid_days(query, plan):
        return False, "Invalid Days"
    if not _valid_city_number(query, plan):
        return False, "Invalid City Number"
    filled_count = 0
    for i in _days(query, plan):
        day = plan[i]
        for key, label in (
            ("transportation", "Transportation"), ("breakfast", "Breakfast"), ("lunch", "Lunch"),
            ("dinner", "Dinner"), ("attraction", "Attraction"), ("accommodation", "Accommodation"),
        ):  # fmt: skip
            if key not in day:
                return False, f"No {label} Info."
        city = day["current_city"]
        if ("from " in city or "to " in city) and blank(day["transportation"]):
            return False, f"No transportation in day {i + 1} is not allowed."
        if "from " not in city and " to " not in city and blank(day["attraction"]):
            return False, f"No attaction in day {i + 1} is not allowed."
        if i != query["days"] - 1 and blank(day["accommodation"]):
            return False, f"No accommodation in day {i + 1} is not allowed."
        if any(blank(day[meal]) for meal in MEALS) and "from " not in city:
            return False, f"No meal in day {i + 1} is not allowed."
        if "absent_ratio_plan_fields" in fixes:
            filled_count += sum(1 for key in PLAN_FIELDS[1:] if filled(day[key]))
        else:
            filled_count += sum(1 for value in day.values() if filled(value))
    needed = 6 * query["days"]
    if needed == 0:
        raise OfficialCrash("a query with 0 days divides by zero")
    if filled_count / needed < 0.5:
        return False, "The absent information is more than 50%."
    return OK


#: Official key -> check, in the order the official ``evaluation`` calls them.
CHECKS: dict[str, Callable[[dict, list, Sandbox, Fixes], Result]] = {
    "is_reasonable_visiting_city": reasonable_city_route,
    "is_valid_restaurants": diverse_restaurants,
    "is_valid_attractions": diverse_attractions,
    "is_valid_accommodation": minimum_nights,
    "is_valid_transportation": non_conflicting_transportation,
    "is_valid_information_in_current_city": within_current_city,
    "is_valid_information_in_sandbox": within_sandbox,
    "is_not_absent": complete_information,
}
