"""The official TravelPlanner tools over our ``Database``, answering with the official tools' text.

The official tools (OSU-NLP-Group/TravelPlanner ``tools/*/apis.py``) return a pandas DataFrame or a
message string, and the tool agent shows a DataFrame as ``to_string(index=False)``. ``frame_text``
re-derives that layout with the stdlib (right-justified columns, one space apart, a leading space on
numeric headers, floats printed with 6 decimals then trailing zeros trimmed column-wide), so no pandas is
needed. Tables are the official ``dropna()`` views of the database (``sandbox.Sandbox``), rows in file
order; column types are the ones pandas infers for the official CSVs (``*_COLUMNS``).

``reference_information`` assembles a trip's reference information in the layout of the official
``train_ref_info.jsonl`` / the HF ``reference_information`` column.
"""

from __future__ import annotations

import math
import os
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from genenv_gym.datasets.data_dir import MissingDataError, benchmark_file
from genenv_gym.envs.travelplanner.database import BENCHMARK, Database, PerDatabase
from genenv_gym.envs.travelplanner.plan_parsing import before_parenthesis
from genenv_gym.envs.travelplanner.sandbox import is_missing, sandbox_for

ColumnKind = Literal["str", "int", "float"]
Columns = tuple[tuple[str, ColumnKind], ...]

#: The columns each official tool selects, with the dtype pandas infers for the official CSV.
FLIGHT_COLUMNS: Columns = (
    ("Flight Number", "str"), ("Price", "int"), ("DepTime", "str"), ("ArrTime", "str"),
    ("ActualElapsedTime", "str"), ("FlightDate", "str"), ("OriginCityName", "str"),
    ("DestCityName", "str"), ("Distance", "float"),
)  # fmt: skip
ACCOMMODATION_COLUMNS: Columns = (
    ("NAME", "str"), ("price", "float"), ("room type", "str"), ("house_rules", "str"),
    ("minimum nights", "float"), ("maximum occupancy", "int"), ("review rate number", "float"),
    ("city", "str"),
)  # fmt: skip
RESTAURANT_COLUMNS: Columns = (
    ("Name", "str"), ("Average Cost", "int"), ("Cuisines", "str"), ("Aggregate Rating", "float"),
    ("City", "str"),
)  # fmt: skip
ATTRACTION_COLUMNS: Columns = (
    ("Name", "str"), ("Latitude", "float"), ("Longitude", "float"), ("Address", "str"), ("Phone", "str"),
    ("Website", "str"), ("City", "str"),
)  # fmt: skip

#: pandas' default ``display.precision``: digits after the point before trimming.
FLOAT_DIGITS = 6
NO_VALID_INFORMATION = "No valid information."
NO_ATTRACTION = "There is no attraction in this city."
NO_RESTAURANT = "There is no restaurant in this city."
#: The official AccommodationSearch says "attraction" when a city has no accommodation (kept).
NO_ACCOMMODATION = NO_ATTRACTION
INVALID_STATE = "Invalid State"
_ESCAPES = str.maketrans({"\t": r"\t", "\n": r"\n", "\r": r"\r"})


@dataclass(frozen=True)
class Table:
    """A tool's DataFrame result: rows with the tool's columns, printed as the official code prints it.

    ``positions`` are the rows' pandas index (their 0-based line in the CSV), shown by ``text(index=True)``.
    """

    rows: tuple[Mapping, ...]
    columns: Columns
    positions: tuple[int, ...] = ()

    def text(self, index: bool = False) -> str:
        """``DataFrame.to_string(index=index)`` of the rows."""
        return frame_text(self.rows, self.columns, self.positions if index else None)


ToolData = Table | str | list[str] | None


def data_text(data: ToolData) -> str:
    """A tool result as the official agent's ``to_string`` shows it: a table with ``to_string(index=False)``,
    anything else with ``str``."""
    return data.text() if isinstance(data, Table) else str(data)


def _trim_zeros(values: list[str]) -> list[str]:
    """pandas' ``_trim_zeros_float``: drop trailing zeros column-wide, keeping one digit after the point."""

    def numeric(text: str) -> bool:
        body = text.strip().lstrip("+-")
        head, dot, tail = body.partition(".")
        return bool(dot) and head.isdigit() and (not tail or tail.isdigit())

    while True:
        numbers = [v for v in values if numeric(v)]
        if not numbers or not all(v.endswith("0") for v in numbers):
            break
        values = [v[:-1] if numeric(v) else v for v in values]
    return [v + "0" if numeric(v) and v.endswith(".") else v for v in values]


def _float_cells(values: list[float], leading: bool) -> list[str]:
    sign = " " if leading else ""
    cells = _trim_zeros([f"{v:{sign}.{FLOAT_DIGITS}f}" for v in values])
    magnitudes = [abs(v) for v in values]
    too_long = max(len(c) for c in cells) > FLOAT_DIGITS + 6
    large = any(m > 1e6 for m in magnitudes)
    small = any(0 < m < 10**-FLOAT_DIGITS for m in magnitudes)
    if small or (too_long and large):
        cells = _trim_zeros([f"{v:{sign}.{FLOAT_DIGITS}e}" for v in values])
    return cells


def _column_cells(values: list[object], kind: ColumnKind, leading: bool) -> list[str]:
    if kind == "int":
        numbers = [float(v) for v in values]  # type: ignore[arg-type]
        if all(n.is_integer() for n in numbers):
            return [f"{int(n):{' ' if leading else ''}d}" for n in numbers]
        kind = "float"  # pandas reads a column with a fraction as float64
    if kind == "float":
        return _float_cells([float(v) for v in values], leading)  # type: ignore[arg-type]
    prefix = " " if leading else ""
    return [prefix + str(v).translate(_ESCAPES) for v in values]


def frame_text(rows: Sequence[Mapping], columns: Columns, index: Sequence[int] | None = None) -> str:
    """The text pandas' ``DataFrame.to_string`` gives for ``rows`` (with the index column when ``index``).

    Every cell is right-justified to its column's width (the widest of header and cells), columns one
    space apart; numeric headers get a leading space, and with an index every cell gets one too.
    """
    leading = index is not None
    strcols = []
    if index is not None:
        labels = [str(i) for i in index]
        width = max(len(label) for label in labels)
        strcols.append(["".ljust(width)] + [label.ljust(width) for label in labels])
    for name, kind in columns:
        cells = _column_cells([row[name] for row in rows], kind, leading)
        header = " " + name if kind != "str" else name
        width = max(len(header), *(len(c) for c in cells))
        strcols.append([header.rjust(width)] + [c.rjust(width) for c in cells])
    return "\n".join(" ".join(line) for line in zip(*strcols, strict=True))


def _complete(row: Mapping) -> bool:
    return not any(is_missing(value) for value in row.values())


def city_set(db: Database, data_dir: str | os.PathLike | None = None) -> list[str]:
    """The cities the official tool agent accepts as arguments, in its error message's order: the lines of
    ``<data dir>/travelplanner/database/background/citySet.txt``, else the database's cities."""
    try:
        path = benchmark_file(BENCHMARK, "database/background/citySet.txt", data_dir)
    except MissingDataError:
        return list(db.city_states)
    return path.read_text(encoding="utf-8").strip().split("\n")


class TravelTools:
    """The official search tools on one ``Database`` (build with ``tools_for``; indexes are built once).

    Each search returns the official result: a ``Table`` where pandas returned a DataFrame, else the
    official message string. ``city_set`` is the official ``citySet.txt`` list the tool agent validates
    city arguments against (default: the database's cities).
    """

    def __init__(self, db: Database, city_set: Sequence[str] | None = None) -> None:
        self.db = db
        self.sandbox = sandbox_for(db)
        self.city_set = list(city_set) if city_set is not None else list(db.city_states)
        self._flights: dict[tuple[str, str, str], list[dict]] = defaultdict(list)
        for row in db.flights:
            if _complete(row):
                key = (str(row["OriginCityName"]), str(row["DestCityName"]), str(row["FlightDate"]))
                self._flights[key].append(row)
        self._positions = {id(row): i for i, row in enumerate(db.restaurants)}
        self._states: dict[str, list[str]] = {}
        for city, state in db.city_states.items():
            self._states.setdefault(state, []).append(city)

    def flights(self, origin: str, destination: str, date: str) -> Table | str:
        """FlightSearch: flights from ``origin`` to ``destination`` on ``date`` (exact names)."""
        rows = self._flights.get((origin, destination, date))
        if not rows:
            return f"There is no flight from {origin} to {destination} on {date}."
        return Table(tuple(rows), FLIGHT_COLUMNS)

    def distance(self, origin: str, destination: str, mode: str = "driving") -> str:
        """GoogleDistanceMatrix: the official one-line answer for a road route and mode.

        Raises ValueError where the official code crashes (a distance that is not a number).
        """
        origin, destination = before_parenthesis(origin), before_parenthesis(destination)
        row = self.db.distances.get((origin, destination))
        if row is None:
            return f"{mode}, from {origin} to {destination}, no valid information."
        duration, distance = row.get("duration"), row.get("distance")
        if is_missing(duration) or is_missing(distance):
            return NO_VALID_INFORMATION
        cost: int | None = None
        if "driving" in mode or mode == "taxi":
            km = float(str(distance).replace("km", "").replace(",", ""))
            if not math.isfinite(km):
                raise ValueError(f"distance {distance!r} is not a finite number")
            cost = int(km * 0.05) if "driving" in mode else int(km)
        if "day" in str(duration):
            return NO_VALID_INFORMATION
        route = f"{mode}, from {origin} to {destination}"
        return f"{route}, duration: {duration}, distance: {distance}, cost: {cost}"

    def accommodations(self, city: str) -> Table | str:
        """AccommodationSearch: the accommodations of ``city``."""
        rows = self.sandbox.accommodations.get(city)
        return Table(tuple(rows), ACCOMMODATION_COLUMNS) if rows else NO_ACCOMMODATION

    def restaurants(self, city: str) -> Table | str:
        """RestaurantSearch: the restaurants of ``city`` (positions kept for the reference layout)."""
        rows = self.sandbox.restaurants.get(city)
        if not rows:
            return NO_RESTAURANT
        return Table(tuple(rows), RESTAURANT_COLUMNS, tuple(self._positions[id(r)] for r in rows))

    def attractions(self, city: str) -> Table | str:
        """AttractionSearch: the attractions of ``city``."""
        rows = self.sandbox.attractions.get(city)
        return Table(tuple(rows), ATTRACTION_COLUMNS) if rows else NO_ATTRACTION

    def cities(self, state: str) -> list[str] | str:
        """CitySearch: the cities of ``state`` in file order, or the official ``Invalid State``."""
        cities = self._states.get(state)
        return list(cities) if cities is not None else INVALID_STATE


#: The ``TravelTools`` of a database, built once per ``Database`` object.
tools_for: PerDatabase[TravelTools] = PerDatabase(TravelTools)


def leg_days(days: int, stops: int) -> list[int]:
    """The 0-based day of each of the ``stops + 1`` legs of a trip of ``days`` days: the first day, the
    last day, and in between ``round(j * (days - 1) / stops)`` (days 0, 2, 4, 6 for 7 days, 3 cities)."""
    if stops < 1 or days < 1:
        raise ValueError(f"a trip needs at least one city and one day, got {stops} cities, {days} days")
    return [round(j * (days - 1) / stops) for j in range(stops + 1)]


def reference_information(
    db: Database, org: str, cities: Sequence[str], dates: Sequence[str]
) -> list[dict[str, str]]:
    """The reference information of a trip in the official ``train_ref_info`` / HF layout.

    The trip starts at ``org``, visits ``cities`` in order and returns to ``org`` on the last of
    ``dates`` (one date per day). Entries, as the official annotation lists them: for each city
    ``Attractions in C``, ``Restaurants in C`` and ``Accommodations in C``; then for each leg A -> B (on
    the dates ``leg_days`` gives) ``Flight from A to B on DATE``, ``Self-driving from A to B`` and
    ``Taxi from A to B``. Each ``Content`` is the official tool's text: tables as pandas prints them
    (restaurants with their CSV row index, the others without), or the official message strings
    ("There is no flight from A to B on DATE.", "No valid information.", ...). Raises ValueError
    without cities or dates.
    """
    tools = tools_for(db)
    entries: list[dict[str, str]] = []
    for city in cities:
        restaurants = tools.restaurants(city)
        entries.append(
            {"Description": f"Attractions in {city}", "Content": data_text(tools.attractions(city))}
        )
        entries.append(
            {
                "Description": f"Restaurants in {city}",
                "Content": restaurants.text(index=True) if isinstance(restaurants, Table) else restaurants,
            }
        )
        entries.append(
            {"Description": f"Accommodations in {city}", "Content": data_text(tools.accommodations(city))}
        )
    route = [org, *cities, org]
    for j, day in enumerate(leg_days(len(dates), len(cities))):
        origin, destination, date = route[j], route[j + 1], dates[day]
        entries.append(
            {
                "Description": f"Flight from {origin} to {destination} on {date}",
                "Content": data_text(tools.flights(origin, destination, date)),
            }
        )
        for label, mode in (("Self-driving", "self-driving"), ("Taxi", "taxi")):
            try:
                content = tools.distance(origin, destination, mode)
            except ValueError:
                content = NO_VALID_INFORMATION
            entries.append({"Description": f"{label} from {origin} to {destination}", "Content": content})
    return entries
