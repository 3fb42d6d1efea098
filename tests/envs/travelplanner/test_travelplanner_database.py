"""TravelPlanner sandbox database: stdlib CSV loading and flights rebuilt from reference information."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from genenv_gym.datasets.data_dir import MissingDataError
from genenv_gym.envs.travelplanner.database import Database, rebuild_flights

FIXTURES = Path(__file__).resolve().parents[3] / "genenv_gym" / "fixtures"


def test_fixture_database_loads_with_typed_fields() -> None:
    db = Database.load(FIXTURES)
    assert [a["NAME"] for a in db.accommodations] == ["Quiet Loft by the Mill", "Sunny Room near Harbor"]
    assert db.accommodations[1]["minimum nights"] == 2.0
    assert db.restaurants[0]["Average Cost"] == 22.0
    assert db.distances[("Harborview", "Millbrook")]["cost"] is None
    assert db.city_states == {"Millbrook": "Ohio", "Harborview": "Maine"}
    assert "" not in db.accommodations[0]


def test_flights_rebuilt_deduplicated_and_no_flight_strings_skipped() -> None:
    flights = rebuild_flights(FIXTURES / "travelplanner" / "database" / "train_ref_info.jsonl")
    assert len(flights) == 1
    assert flights[0]["Flight Number"] == "F0000001" and flights[0]["Price"] == 150


def test_missing_flight_sources_name_both_files(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "travelplanner", tmp_path / "travelplanner")
    (tmp_path / "travelplanner" / "database" / "train_ref_info.jsonl").unlink()
    with pytest.raises(MissingDataError, match=r"clean_Flights_2022\.csv.*train_ref_info\.jsonl"):
        Database.load(tmp_path)


def test_real_database_rebuilds_313_train_flights(shared_data_dir: Path) -> None:
    db = Database.load(shared_data_dir)
    assert len(db.flights) == 313
    assert len(db.accommodations) == 5047 and len(db.restaurants) == 9551
    assert "rebuilt from" in db.flights_source


def test_a_route_listed_twice_keeps_its_first_row_as_the_official_lookup_does(shared_data_dir: Path) -> None:
    import csv

    path = shared_data_dir / "travelplanner" / "database" / "googleDistanceMatrix" / "distance.csv"
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    first: dict[tuple[str, str], dict] = {}
    for row in rows:
        first.setdefault((row["origin"], row["destination"]), row)
    assert len(first) < len(rows), "the real matrix lists some routes twice"
    db = Database.load(shared_data_dir)
    for route, row in first.items():
        assert db.distances[route]["distance"] == row["distance"]
