"""Compare our TravelAPI with the official bfcl-eval class on random call sequences.

Usage: python benchmarks/bfcl_multiturn_travel_crosscheck.py \
           PATH/TO/func_source_code/travel_booking.py [BFCL_DATA_DIR]

Both backends load the same real ``initial_config`` (or the defaults, or a custom seed),
half of the sequences in long-context mode (ours then uses the official filler; the
official module's filler dicts are restored before every sequence because the official
class mutates them), and get the same seeded calls; after every call the rendered results
and all state attributes must be equal. Two official behaviours are normalised: the order
of the set printed by ``book_flight`` for an invalid class (hash-seed dependent), and the
age check, which uses the real current date officially (dates of birth are drawn far from
the 18-year boundary).
"""

from __future__ import annotations

import random
import re

from bfcl_multiturn_official import SequenceCheck

from genenv_gym.envs.bfcl_multiturn.travel_api import TravelAPI

AIRPORTS = ["SFO", "LAX", "JFK", "RMS", "CRH", "LHR", "CDG", "PVG", "XXX", "HKG"]
DATES = ["2024-12-25", "2024-11-10", "2025-01-01", "12/25/2024", "2024-02-30"]
CURRENCIES = ["USD", "EUR", "RMB", "JPY", "GBP", "XYZ"]
_SET = re.compile(r"\{('[a-z]+'(?:, '[a-z]+')*)\}")


def _random_call(rng: random.Random, api: TravelAPI, names: list[str]) -> tuple[str, dict]:
    """One random call; tokens, cards and bookings come mostly from the current state."""
    token = rng.choice([api.access_token, api.access_token, "bad", None])
    card = rng.choice([*list(api.credit_card_list)[:5], "0000"])
    booking = rng.choice([*list(api.booking_record)[-4:], "nope"])
    first, last = rng.choice(names)
    calls = [
        (
            "authenticate_travel",
            {
                "client_id": "c",
                "client_secret": "s",
                "refresh_token": "r",
                "grant_type": rng.choice(["read_write", "read"]),
                "user_first_name": first,
                "user_last_name": last,
            },
        ),
        ("travel_get_login_status", {}),
        ("get_budget_fiscal_year", {}),
        (
            "register_credit_card",
            {
                "access_token": token,
                "card_number": rng.choice([card, "4111222233334444"]),
                "expiration_date": "12/2030",
                "cardholder_name": f"{first} {last}",
                "card_verification_number": 123,
            },
        ),
        (
            "get_flight_cost",
            {
                "travel_from": rng.choice(AIRPORTS),
                "travel_to": rng.choice(AIRPORTS),
                "travel_date": rng.choice(DATES),
                "travel_class": rng.choice(["economy", "first", "x"]),
            },
        ),
        ("get_credit_card_balance", {"access_token": token, "card_id": card}),
        (
            "book_flight",
            {
                "access_token": token,
                "card_id": card,
                "travel_date": rng.choice(DATES),
                "travel_from": rng.choice(AIRPORTS),
                "travel_to": rng.choice(AIRPORTS),
                "travel_class": rng.choice(["economy", "business", "first", "coach"]),
            },
        ),
        (
            "book_flight",
            {
                "access_token": api.access_token,
                "card_id": card,
                "travel_date": "2024-12-25",
                "travel_from": "SFO",
                "travel_to": rng.choice(["LAX", "JFK"]),
                "travel_class": "economy",
            },
        ),
        ("retrieve_invoice", {"access_token": token, "booking_id": booking}),
        ("get_booking_history", {"access_token": token}),
        ("list_all_airports", {}),
        ("cancel_booking", {"access_token": token, "booking_id": booking}),
        (
            "compute_exchange_rate",
            {
                "base_currency": rng.choice(CURRENCIES),
                "target_currency": rng.choice(CURRENCIES),
                "value": rng.choice([100, 12.5, 0]),
            },
        ),
        (
            "verify_traveler_information",
            {
                "first_name": first,
                "last_name": last,
                "date_of_birth": rng.choice(["1985-03-15", "2015-01-01", "03/15/1985"]),
                "passport_number": rng.choice(["US123", "UK999"]),
            },
        ),
        ("set_budget_limit", {"access_token": token, "budget_limit": rng.choice([100, 1000.5, "5000"])}),
        ("get_nearest_airport_by_city", {"location": rng.choice(["Rivermist", "Tokyo", "Atlantis"])}),
        (
            "purchase_insurance",
            {
                "access_token": token,
                "insurance_type": "comprehensive",
                "booking_id": booking,
                "insurance_cost": rng.choice([50, 500, 5000]),
                "card_id": card,
            },
        ),
        ("contact_customer_support", {"booking_id": booking, "message": "help"}),
        ("get_all_credit_cards", {}),
    ]
    return rng.choice(calls)


def _normalise(text: str) -> str:
    """Sort the elements of a printed set of class names (hash-seed dependent officially)."""
    return _SET.sub(lambda m: "{" + ", ".join(sorted(m.group(1).split(", "))) + "}", text)


def _call_maker(config: dict):
    names = [
        (config.get("user_first_name") or "Ann", config.get("user_last_name") or "Lee"),
        ("Bo", "Kim"),
    ]
    return lambda rng, ours: _random_call(rng, ours, names)


CHECK = SequenceCheck(
    TravelAPI,
    _call_maker,
    configs=[{}, {"random_seed": 9, "budget_limit": 300.0}],
    real_configs=True,
    long_context=True,
    public_attributes=True,
    normalise=_normalise,
    pristine_globals=("CREDIT_CARD_EXTENSION", "BOOKING_RECORD_EXTENSION"),
)

if __name__ == "__main__":
    CHECK.cli()
