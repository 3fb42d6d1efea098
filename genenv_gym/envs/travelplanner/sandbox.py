"""Database look-ups exactly as the official TravelPlanner evaluator does them, on our ``Database``.

The official tools read each CSV with pandas and ``dropna()`` (a row with any missing cell is dropped;
missing means an empty cell or one of pandas' NA strings), except the distance matrix. A name matches a
row when it is a case-sensitive substring of the row's name and the city is equal; where the official
code uses one row it takes the first in file order. Indexes here are per city, in file order.
"""

from __future__ import annotations

import math
from collections import defaultdict

from genenv_gym.envs.travelplanner.database import Database, PerDatabase
from genenv_gym.envs.travelplanner.plan_parsing import OfficialCrash, before_parenthesis

#: Cells pandas ``read_csv`` reads as NaN by default.
NA_STRINGS = frozenset(
    ("", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>",
     "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null")
)  # fmt: skip


def is_missing(value: object) -> bool:
    """True for a cell pandas would read as missing (None, NaN, or an NA string)."""
    if value is None:
        return True
    if isinstance(value, float):
        return math.isnan(value)
    return isinstance(value, str) and value in NA_STRINGS


def _complete(row: dict) -> bool:
    return not any(is_missing(value) for value in row.values())


def _by_city(rows: list[dict], city_key: str) -> dict[str, list[dict]]:
    index: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        if _complete(row):
            index[str(row[city_key])].append(row)
    return dict(index)


class Sandbox:
    """The official evaluator's view of a ``Database``: dropna'd tables indexed by city, flights by number."""

    def __init__(self, db: Database) -> None:
        self.restaurants = _by_city(db.restaurants, "City")
        self.accommodations = _by_city(db.accommodations, "city")
        self.attractions = _by_city(db.attractions, "City")
        self.flights: dict[str, list[dict]] = defaultdict(list)
        for row in db.flights:
            if _complete(row):
                self.flights[str(row["Flight Number"])].append(row)
        self.distances = db.distances
        self.city_states = db.city_states

    @staticmethod
    def _matches(index: dict[str, list[dict]], name_key: str, name: str, city: str) -> list[dict]:
        return [row for row in index.get(city, ()) if name in str(row[name_key])]

    def restaurants_named(self, name: str, city: str) -> list[dict]:
        """Restaurant rows in ``city`` whose name contains ``name``, in file order."""
        return self._matches(self.restaurants, "Name", name, city)

    def accommodations_named(self, name: str, city: str) -> list[dict]:
        """Accommodation rows in ``city`` whose name contains ``name``, in file order."""
        return self._matches(self.accommodations, "NAME", name, city)

    def attractions_named(self, name: str, city: str) -> list[dict]:
        """Attraction rows in ``city`` whose name contains ``name``, in file order."""
        return self._matches(self.attractions, "Name", name, city)

    def flight_exists(self, number: str, origin: str, destination: str) -> bool:
        """Whether a flight row has this number, origin city and destination city."""
        return any(
            row["OriginCityName"] == origin and row["DestCityName"] == destination
            for row in self.flights.get(number, ())
        )

    def flight_price(self, number: str) -> float | None:
        """Price of the first flight row with this number (cities are not checked), or None."""
        rows = self.flights.get(number)
        return float(rows[0]["Price"]) if rows else None

    def road_cost(self, origin: str, destination: str, mode: str) -> int | None:
        """Self-driving (``int(km * 0.05)``) or taxi (``int(km)``) cost; None without a usable route.

        A route is unusable when it is absent, has no duration or distance, or its duration says ``day``.
        """
        row = self.distances.get((before_parenthesis(origin), before_parenthesis(destination)))
        if row is None:
            return None
        duration, distance = row.get("duration"), row.get("distance")
        if is_missing(duration) or is_missing(distance) or "day" in str(duration):
            return None
        text = str(distance).replace("km", "").replace(",", "")
        try:
            km = float(text)
        except ValueError as exc:
            raise OfficialCrash(f"distance {distance!r} is not a number") from exc
        if "driving" in mode:
            return int(km * 0.05)
        if mode == "taxi":
            return int(km)
        return None


#: The ``Sandbox`` of a database, built once per ``Database`` object.
sandbox_for: PerDatabase[Sandbox] = PerDatabase(Sandbox)
