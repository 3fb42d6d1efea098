"""Near-duplicates are the same task in other words (same reference structure, reworded text, look-alike
letters, other casing, stop words or number formatting); tasks on the same function with other argument
values are not duplicates."""

from __future__ import annotations

import json

import pytest

from genenv_gym.llm_simulator.duplicates import Deduplicator, normal_form, structure_of


def bfcl_key(question: str, city: str, days: int = 3) -> str:
    truth = [{"weather.get_forecast": {"city": [city], "days": [days]}}]
    return json.dumps(["simple_python", " ".join(question.lower().split()), truth], sort_keys=True)


ORIGINAL = "Fetch a 3-day weather forecast for Lisbon, please."
REWORDED = [
    "Get the 3 day weather forecast for Lisbon.",
    "Please retrieve a weather forecast of 3 days for Lisbon",
    "FETCH A 3-DAY WEATHER FORECAST FOR LISBON, PLEASE.",
    "fetch   a 3-day   weather forecast for lisbon please",
    "For Lisbon, fetch a 3-day weather forecast.",
    "Fеtch а 3-dаy wеаthеr fоrеcаst fоr Lisbоn, plеаsе.",  # Cyrillic look-alikes
]


@pytest.mark.parametrize("copy", REWORDED)
def test_reworded_copies_of_the_same_task_are_near_duplicates(copy: str) -> None:
    dedup = Deduplicator()
    dedup.add(bfcl_key(ORIGINAL, "Lisbon"), ORIGINAL)
    repeat = dedup.check(bfcl_key(copy, "Lisbon"), copy)
    assert repeat is not None and repeat[0] in ("near_duplicate", "duplicate"), copy


@pytest.mark.parametrize(
    ("question", "city", "days"),
    [
        ("Fetch a 3-day weather forecast for Porto, please.", "Porto", 3),
        ("Fetch a 5-day weather forecast for Lisbon, please.", "Lisbon", 5),
    ],
)
def test_the_same_function_with_other_argument_values_is_not_a_duplicate(question, city, days) -> None:
    dedup = Deduplicator()
    dedup.add(bfcl_key(ORIGINAL, "Lisbon"), ORIGINAL)
    assert dedup.check(bfcl_key(question, city, days), question) is None


def test_structure_is_the_key_without_its_text_and_opaque_keys_have_none() -> None:
    assert structure_of(bfcl_key(ORIGINAL, "Lisbon"), ORIGINAL) == structure_of(
        bfcl_key(REWORDED[2], "Lisbon"), REWORDED[2]
    )
    assert structure_of("digits:3 1 4", "314") is None
    assert structure_of('"just text"', "just text") is None


def test_number_formatting_is_normalised() -> None:
    assert normal_form("Pay $1,000.00 now") == normal_form("pay 1000 now")
    assert normal_form("2.50 kg") == normal_form("2.5 kg")
    assert normal_form("2.5 kg") != normal_form("25 kg")
