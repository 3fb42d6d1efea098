"""The TravelPlanner sandbox database read with the stdlib ``csv`` module; flights rebuilt offline.

Layout (as in the official repo, under ``<data dir>/travelplanner/database/``):
``accommodations/clean_accommodations_2022.csv``, ``attractions/attractions.csv``,
``restaurants/clean_restaurant_2022.csv``, ``googleDistanceMatrix/distance.csv``,
``background/citySet_with_states.txt`` and, when the user has the full database zip,
``flights/clean_Flights_2022.csv``. Without that file, flights are rebuilt from ``train_ref_info.jsonl``:
every ``"Flight from A to B on DATE"`` entry whose value is a list of flight dicts contributes those rows
(deduplicated on ``Flight Number`` + ``FlightDate``); entries whose value is the official "There is no
flight ..." string contribute nothing.
"""

from __future__ import annotations

import csv
import json
import os
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, TypeVar

from genenv_gym.datasets.data_dir import MissingDataError, benchmark_file

BENCHMARK = "travelplanner"
FLIGHT_FIELDS = (
    "Flight Number", "Price", "DepTime", "ArrTime", "ActualElapsedTime",
    "FlightDate", "OriginCityName", "DestCityName", "Distance",
)  # fmt: skip


def _read_csv(path: Path) -> list[dict[str, str]]:
    """Rows of a CSV as dicts of strings; the unnamed pandas index column is dropped."""
    with open(path, newline="", encoding="utf-8") as handle:
        return [{k: v for k, v in row.items() if k} for row in csv.DictReader(handle)]


def _num(text: object) -> float | None:
    """A float from a CSV cell, or None for an empty or non-numeric cell."""
    try:
        return float(str(text).replace(",", ""))
    except ValueError:
        return None


def rebuild_flights(ref_info_path: str | os.PathLike) -> list[dict]:
    """Flight rows collected from every ``Flight from ...`` list in a reference-information JSONL file."""
    seen: set[tuple[str, str]] = set()
    rows: list[dict] = []
    with open(ref_info_path, encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            for key, value in json.loads(line).items():
                if not key.startswith("Flight from ") or not isinstance(value, list):
                    continue
                for flight in value:
                    ident = (str(flight["Flight Number"]), str(flight["FlightDate"]))
                    if ident not in seen:
                        seen.add(ident)
                        rows.append({name: flight.get(name) for name in FLIGHT_FIELDS})
    return rows


@dataclass
class Database:
    """The sandbox tables: rows as dicts, numeric fields as floats (None where the cell is empty)."""

    accommodations: list[dict] = field(default_factory=list)
    attractions: list[dict] = field(default_factory=list)
    restaurants: list[dict] = field(default_factory=list)
    distances: dict[tuple[str, str], dict] = field(default_factory=dict)
    city_states: dict[str, str] = field(default_factory=dict)
    flights: list[dict] = field(default_factory=list)
    flights_source: str = ""

    @classmethod
    def load(cls, data_dir: str | os.PathLike | None = None) -> Database:
        """Read every table of ``<data dir>/travelplanner/database``; raises MissingDataError if absent."""

        def path(relative: str) -> Path:
            return benchmark_file(BENCHMARK, f"database/{relative}", data_dir)

        db = cls()
        for row in _read_csv(path("accommodations/clean_accommodations_2022.csv")):
            for key in ("price", "minimum nights", "review rate number", "maximum occupancy"):
                row[key] = _num(row.get(key))
            db.accommodations.append(row)
        db.attractions = _read_csv(path("attractions/attractions.csv"))
        for row in _read_csv(path("restaurants/clean_restaurant_2022.csv")):
            row["Average Cost"] = _num(row.get("Average Cost"))
            row["Aggregate Rating"] = _num(row.get("Aggregate Rating"))
            db.restaurants.append(row)
        for row in _read_csv(path("googleDistanceMatrix/distance.csv")):
            row["cost"] = _num(row.get("cost"))
            # The first row of a route wins, as the official look-up (the first matching row) reads it.
            db.distances.setdefault((row["origin"], row["destination"]), row)
        for line in path("background/citySet_with_states.txt").read_text(encoding="utf-8").splitlines():
            if "\t" in line:
                city, state = line.split("\t", 1)
                db.city_states[city.strip()] = state.strip()
        try:
            full = path("flights/clean_Flights_2022.csv")
        except MissingDataError:
            try:
                ref = path("train_ref_info.jsonl")
            except MissingDataError as exc:
                raise MissingDataError(
                    "travelplanner needs database/flights/clean_Flights_2022.csv (the full database zip) or "
                    "database/train_ref_info.jsonl to rebuild the flights from: " + str(exc),
                    BENCHMARK,
                ) from exc
            db.flights, db.flights_source = rebuild_flights(ref), f"rebuilt from {ref}"
        else:
            db.flights = _read_csv(full)
            for row in db.flights:
                row["Price"], row["Distance"] = _num(row.get("Price")), _num(row.get("Distance"))
            db.flights_source = str(full)
        return db


Built = TypeVar("Built")


class PerDatabase(Generic[Built]):
    """``build(db)`` once per ``Database`` object (by identity), dropped with the database.

    The built object is reused for every later call with the same database, so do not mutate a
    database after its first use.
    """

    def __init__(self, build: Callable[[Database], Built]) -> None:
        self.build = build
        self._cache: dict[int, tuple[weakref.ref, Built]] = {}

    def __call__(self, db: Database) -> Built:
        key = id(db)
        cached = self._cache.get(key)
        if cached is not None and cached[0]() is db:
            return cached[1]
        built = self.build(db)
        self._cache[key] = (weakref.ref(db, lambda _ref, key=key: self._cache.pop(key, None)), built)
        return built
