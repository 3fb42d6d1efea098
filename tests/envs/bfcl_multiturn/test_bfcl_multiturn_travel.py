"""TravelAPI backend of BFCL multi-turn: tokens, cards, bookings, seeded ids, safety."""

from __future__ import annotations

from genenv_gym.envs.bfcl_multiturn.executor import execute_call
from genenv_gym.envs.bfcl_multiturn.long_context import filler
from genenv_gym.envs.bfcl_multiturn.travel_api import BASE_COSTS, TravelAPI

CARD = {"card_number": "4111", "expiration_date": "12/30", "cardholder_name": "Ann Lee", "balance": 1000.0}


def _api(long_context: bool = False, **config: object) -> TravelAPI:
    api = TravelAPI()
    api._load_scenario(dict(config), long_context=long_context)
    return api


def _logged_in(**config: object) -> tuple[TravelAPI, str]:
    api = _api(credit_card_list={"c1": dict(CARD)}, **config)
    token = api.authenticate_travel("id", "secret", "refresh", "read_write", "Ann", "Lee")["access_token"]
    return api, token


def test_login_tokens_and_cards() -> None:
    api = _api()
    assert api.travel_get_login_status() == {"status": False}
    assert api.register_credit_card("x", "1", "1/30", "A", 1) == {"error": "Token not initialized"}
    api, token = _logged_in()
    assert len(token) == 6 and api.travel_get_login_status() == {"status": True}
    assert _logged_in()[1] == token  # seeded
    assert api.get_credit_card_balance("bad", "c1") == {"error": "Invalid access token"}
    assert api.get_credit_card_balance(token, "zz") == {
        "error": "Card not registered. Here are a list of card_id's: ['c1']"
    }
    card_id = api.register_credit_card(token, "5555", "01/31", "Ann Lee", 321)["card_id"]
    assert len(card_id) == 12 and 10000 <= api.credit_card_list[card_id]["balance"] <= 99999


def test_flight_costs_and_booking() -> None:
    api, token = _logged_in()
    assert api.get_flight_cost("SFO", "LAX", "2024-12-25", "business") == {"travel_cost_list": [800.0]}
    assert api.get_flight_cost("SFO", "LAX", "2024-12-24", "first") == {"travel_cost_list": [1000.0]}
    instances = {"TravelAPI": api}
    assert execute_call(
        instances,
        "get_flight_cost",
        {"travel_from": "LAX", "travel_to": "CDG", "travel_date": "2024-01-01", "travel_class": "economy"},
    ) == ("Error during execution: No available route for the given airports.")
    booked = api.book_flight(token, "c1", "2024-12-25", "SFO", "JFK", "economy")
    assert booked["booking_status"] is True and booked["booking_history"] == {}
    assert api.credit_card_list["c1"]["balance"] == 0.0
    assert (
        api.book_flight(token, "c1", "2024-12-25", "SFO", "JFK", "economy")["error"] == "Insufficient funds"
    )
    assert api.book_flight(token, "c1", "25/12/2024", "SFO", "JFK", "economy")["error"].startswith(
        "Invalid date"
    )
    assert api.book_flight(token, "c1", "2024-12-25", "SFO", "JFK", "coach")["error"] == (
        "Invalid travel class. Must be one of {'business', 'economy', 'first'}"
    )
    invoice = api.retrieve_invoice(token, booked["booking_id"])["invoice"]
    assert invoice["travel_cost"] == 1000.0 and invoice["transaction_id"] == booked["transaction_id"]
    assert api.purchase_insurance(token, "full", booked["booking_id"], 100, "c1")["insurance_status"] is True
    assert api.cancel_booking(token, booked["booking_id"]) == {"cancel_status": True}
    assert api.credit_card_list["c1"]["balance"] == 900.0
    assert api.contact_customer_support(booked["booking_id"], "hi") == {"error": "Booking not found"}


def test_other_methods() -> None:
    api, token = _logged_in(budget_limit=2000.0)
    assert api.book_flight(token, "c1", "2024-12-25", "SFO", "LAX", "economy")["error"] == (
        "Balance is less than budget limit"
    )
    assert api.compute_exchange_rate("USD", "EUR", 100) == {"exchanged_value": 80.0}
    assert api.compute_exchange_rate("JPY", "USD", 1000) == {"exchanged_value": 9.09}
    assert api.get_nearest_airport_by_city("Rome") == {"nearest_airport": "CIA"}
    assert api.verify_traveler_information("Ann", "Lee", "1990-01-01", "US1") == {"verification_status": True}
    assert api.verify_traveler_information("Ann", "Lee", "2006-09-02", "US1")["verification_failure"] == (
        "Traveler must be at least 18 years old."
    )
    assert api.verify_traveler_information("Bo", "Lee", "1990-01-01", "US1")["verification_failure"].endswith(
        "Expected Ann Lee, got Bo Lee"
    )
    assert api.set_budget_limit(token, "150") == {"budget_limit": 150.0}
    assert api.get_budget_fiscal_year() == {"budget_fiscal_year": "2018"}


def test_long_context_and_config_isolation() -> None:
    config = {"credit_card_list": {"c1": dict(CARD)}}
    api = _api(long_context=True, **config)
    extra = filler("CREDIT_CARD_EXTENSION")
    assert len(api.credit_card_list) == 1 + len([c for c in extra if c != "c1"])
    first_card = next(iter(extra))
    api.credit_card_list[first_card]["balance"] = -1
    assert extra[first_card]["balance"] != -1  # the filler is copied, not shared
    token = api.authenticate_travel("i", "s", "r", "read", "Ann", "Lee")["access_token"]
    assert len(api.get_flight_cost("SFO", "LAX", "2024-12-25", "economy")["travel_cost_list"]) == len(
        BASE_COSTS
    )
    booked = api.book_flight(token, "c1", "2024-12-25", "SFO", "LAX", "economy")
    assert booked["booking_history"][booked["booking_id"]]["travel_cost"] == 400.0
    assert config["credit_card_list"]["c1"]["balance"] == 1000.0
    assert set(TravelAPI.STATE_ATTRIBUTES) == {k for k in vars(api) if not k.startswith("_")}


def test_hostile_inputs_are_outcomes() -> None:
    api, token = _logged_in()
    instances = {"TravelAPI": api}
    for name, kwargs in [
        (
            "get_flight_cost",
            {"travel_from": ["SFO"], "travel_to": "LAX", "travel_date": "x", "travel_class": "first"},
        ),
        (
            "book_flight",
            {
                "access_token": token,
                "card_id": "c1",
                "travel_date": 20241225,
                "travel_from": "SFO",
                "travel_to": "LAX",
                "travel_class": "economy",
            },
        ),
        ("compute_exchange_rate", {"base_currency": "EUR", "target_currency": "JPY", "value": 1}),
        (
            "verify_traveler_information",
            {"first_name": "Ann", "last_name": "Lee", "date_of_birth": "1990-01-01", "passport_number": 7},
        ),
        ("set_budget_limit", {"access_token": token, "budget_limit": "lots"}),
        ("_token_error", {"access_token": token}),
    ]:
        assert execute_call(instances, name, kwargs).startswith("Error during execution: ")
    out = execute_call(instances, "get_nearest_airport_by_city", {"location": "x" * 100_000})
    assert out == '{"nearest_airport": "Unknown"}'
