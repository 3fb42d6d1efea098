"""TravelAPI: BFCL multi-turn's travel-booking backend, with the official behaviour.

State: ``credit_card_list`` (card id -> card), ``booking_record`` (booking id -> booking),
the token (``access_token``, ``token_type``, ``token_expires_in``, ``token_scope``), the
user's name, ``budget_limit`` and ``long_context``; loaded (deep-copied) from an
``initial_config`` entry with the official defaults (other keys are ignored). Tokens, card
ids, card balances, booking, transaction and insurance ids are drawn from
``random.Random(random_seed)`` (official default 141053) in the official order, so they equal
the official ids. In long-context mode the filler cards and bookings are added to the state
(copies; scenario entries win) and flight costs/booking answers are padded as officially.
"""

from __future__ import annotations

import datetime
import random
from copy import deepcopy
from typing import Any

from genenv_gym.envs.bfcl_multiturn.long_context import filler
from genenv_gym.envs.bfcl_multiturn.state_copy import copy_state

DEFAULT_STATE: dict[str, Any] = {
    "credit_card_list": {},
    "booking_record": {},
    "access_token": None,
    "token_type": None,
    "token_expires_in": None,
    "token_scope": None,
    "user_first_name": None,
    "user_last_name": None,
    "budget_limit": None,
}
DEFAULT_SEED = 141053
# the age check's "today"; the official code uses the machine's current date (see docs)
REFERENCE_DATE = datetime.date(2024, 9, 1)

# origin -> destination:base cost (USD), in the official order (long-context answers list
# the cost of every route in this order)
_ROUTES = """
SFO LAX:200 JFK:500 ORD:400 BOS:450 RMS:300 SBK:350 MPC:370 SVP:320 SHD:330 SSV:340 OKD:360 WLB:310 CRH:380 ATV:390 PHV:420 GFD:430 CIA:700
LAX SFO:100 JFK:600 ORD:500 BOS:550 RMS:310 SBK:320 MPC:330 SVP:340 SHD:350 SSV:360 OKD:370 WLB:380 CRH:390 ATV:400 PHV:410 GFD:420 HND:430
JFK ORD:300 BOS:250 RMS:450 SBK:460 MPC:470 SVP:480 SHD:490 SSV:500 OKD:510 WLB:520 CRH:530 ATV:540 PHV:550 GFD:560 LAX:570 HND:800 PVG:950 PEK:1000
ORD LAX:180 BOS:200 RMS:350 SBK:360 MPC:370 SVP:380 SHD:390 SSV:400 OKD:410 WLB:420 CRH:430 ATV:440 PHV:450 GFD:460
BOS RMS:400 SBK:410 MPC:420 SVP:430 SHD:440 SSV:450 OKD:460 WLB:470 CRH:480 ATV:490 PHV:500 GFD:510
RMS BOS:200 JFK:210 SBK:220 MPC:230 SVP:240 SHD:250 SSV:260 OKD:270 WLB:280 CRH:290 ATV:300 PHV:310 GFD:320 LAX:330
SBK MPC:200 SVP:210 SHD:220 SSV:230 OKD:240 WLB:250 CRH:260 ATV:270 PHV:280 GFD:290
MPC SVP:210 SHD:220 SSV:230 OKD:240 WLB:250 CRH:260 ATV:270 PHV:280 GFD:290
SVP SHD:230 SSV:240 OKD:250 WLB:260 CRH:270 ATV:280 PHV:290 GFD:300
SHD SSV:220 OKD:230 WLB:240 CRH:250 ATV:260 PHV:270 GFD:280
SSV OKD:240 WLB:250 CRH:260 ATV:270 PHV:280 GFD:290
OKD WLB:230 CRH:240 ATV:250 PHV:260 GFD:270
WLB CRH:250 ATV:260 PHV:270 GFD:280
CRH ATV:240 PHV:250 GFD:260 SFO:270 RMS:280 HKG:290 JFK:300
ATV PHV:230 GFD:240
PHV GFD:220
LHR CDG:100
OKD LAX:220
"""  # noqa: E501
BASE_COSTS: dict[tuple[str, str], int] = {
    (line.split()[0], pair.split(":")[0]): int(pair.split(":")[1])
    for line in _ROUTES.strip().splitlines()
    for pair in line.split()[1:]
}
AIRPORTS = (
    "RMS SBK MPC SVP SHD CDG LHR SSV OKD WLB PEK HND HKG CIA CRH ATV PHV GFD SFO LAX JFK ORD BOS".split()  # noqa: SIM905
)
_CLASS_FACTOR = {"economy": 1, "business": 2, "first": 5}
_EXCHANGE_RATES = {
    ("USD", "RMB"): 7,
    ("USD", "EUR"): 0.8,
    ("USD", "JPY"): 110,
    ("USD", "GBP"): 0.7,
    ("USD", "CAD"): 1.3,
    ("USD", "AUD"): 1.4,
    ("USD", "INR"): 70,
    ("USD", "RUB"): 60,
    ("USD", "BRL"): 3.8,
    ("USD", "MXN"): 20,
}
_NEAREST_AIRPORT = {
    "Rivermist": "RMS",
    "Stonebrook": "SBK",
    "Maplecrest": "MPC",
    "Silverpine": "SVP",
    "Shadowridge": "SHD",
    "London": "LHR",
    "Paris": "CDG",
    "Sunset Valley": "SSV",
    "Oakendale": "OKD",
    "Willowbend": "WLB",
    "Crescent Hollow": "CRH",
    "Autumnville": "ATV",
    "Pinehaven": "PHV",
    "Greenfield": "GFD",
    "San Francisco": "SFO",
    "Los Angeles": "LAX",
    "New York": "JFK",
    "Chicago": "ORD",
    "Boston": "BOS",
    "Beijing": "PEK",
    "Hong Kong": "HKG",
    "Rome": "CIA",
    "Tokyo": "HND",
}
_SUPPORT_MESSAGE = (
    "Thank you for contacting customer support. Your message has been received and we will get back "
    "to you shortly."
)


class TravelAPI:
    """The travel backend: authentication, credit cards, flights, bookings, insurance, budget."""

    METHODS = (
        "authenticate_travel",
        "travel_get_login_status",
        "get_budget_fiscal_year",
        "register_credit_card",
        "get_flight_cost",
        "get_credit_card_balance",
        "book_flight",
        "retrieve_invoice",
        "get_booking_history",
        "list_all_airports",
        "cancel_booking",
        "compute_exchange_rate",
        "verify_traveler_information",
        "set_budget_limit",
        "get_nearest_airport_by_city",
        "purchase_insurance",
        "contact_customer_support",
        "get_all_credit_cards",
    )
    STATE_ATTRIBUTES = (*DEFAULT_STATE, "long_context")

    def __init__(self, scenario: dict | None = None, long_context: bool = False) -> None:
        """Create a backend in the official default state, or loaded from ``scenario`` (the same as
        ``_load_scenario(scenario, long_context)`` after construction)."""
        self._api_description = (
            "This tool belongs to the travel system, which allows users to book flights, manage "
            "credit cards, and view budget information."
        )
        self._flight_cost_lookup: dict[str, dict[str, float]] = {}
        self._load_scenario(scenario or {}, long_context=long_context)

    def _load_scenario(self, scenario: dict, long_context: bool = False) -> None:
        """Load state from an ``initial_config`` entry, defaulting missing keys."""
        self._random = random.Random(scenario.get("random_seed", DEFAULT_SEED))
        state = copy_state({**DEFAULT_STATE, **{k: v for k, v in scenario.items() if k in DEFAULT_STATE}})
        self.credit_card_list: dict[str, dict[str, Any]] = state["credit_card_list"]
        self.booking_record: dict[str, dict[str, Any]] = state["booking_record"]
        self.access_token: str | None = state["access_token"]
        self.token_type: str | None = state["token_type"]
        self.token_expires_in: int | None = state["token_expires_in"]
        self.token_scope: str | None = state["token_scope"]
        self.user_first_name: str | None = state["user_first_name"]
        self.user_last_name: str | None = state["user_last_name"]
        self.budget_limit: float | None = state["budget_limit"]
        self.long_context = long_context
        if long_context:
            cards, bookings = filler("CREDIT_CARD_EXTENSION"), filler("BOOKING_RECORD_EXTENSION")
            self.credit_card_list.update(
                copy_state({k: v for k, v in cards.items() if k not in self.credit_card_list})
            )
            self.booking_record.update(
                copy_state({k: v for k, v in bookings.items() if k not in self.booking_record})
            )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TravelAPI):
            return False
        return all(getattr(self, a) == getattr(other, a) for a in vars(self) if not a.startswith("_"))

    __hash__ = None  # type: ignore[assignment]

    def _token_error(self, access_token: str) -> str | None:
        """The official token check of the secured methods (an uninitialised token passes
        when ``access_token`` equals None, as officially)."""
        if self.token_expires_in == 0:
            return "Token expired"
        if access_token != self.access_token:
            return "Invalid access token"
        return None

    def authenticate_travel(
        self,
        client_id: str,
        client_secret: str,
        refresh_token: str,
        grant_type: str,
        user_first_name: str,
        user_last_name: str,
    ) -> dict:
        """Log in: a new 6-digit token valid for 2 uses, with ``grant_type`` as scope."""
        self.token_expires_in = 2
        self.access_token = str(self._random.randint(100000, 999999))
        self.token_type = "Bearer"
        self.token_scope = grant_type
        self.user_first_name = user_first_name
        self.user_last_name = user_last_name
        return {
            "expires_in": 2,
            "access_token": self.access_token,
            "token_type": "Bearer",
            "scope": grant_type,
        }

    def travel_get_login_status(self) -> dict:
        """Whether a token is set and not expired."""
        return {"status": not (self.token_expires_in is None or self.token_expires_in == 0)}

    def get_budget_fiscal_year(
        self, lastModifiedAfter: str | None = None, includeRemoved: str | None = None
    ) -> dict:
        """Always the official fiscal year ``"2018"``."""
        return {"budget_fiscal_year": "2018"}

    def register_credit_card(
        self,
        access_token: str,
        card_number: str,
        expiration_date: str,
        cardholder_name: str,
        card_verification_number: int,
    ) -> dict:
        """Register a card under a new 12-digit id with a random 5-digit balance."""
        if self.token_expires_in is None:
            return {"error": "Token not initialized"}
        if self.token_expires_in == 0:
            return {"error": "Token expired"}
        if access_token != self.access_token:
            return {"error": "Invalid access token"}
        if card_number in self.credit_card_list:  # compared with card ids, as officially
            return {"error": "Card already registered"}
        card_id = str(self._random.randint(100000000000, 999999999999))
        self.credit_card_list[card_id] = {
            "card_number": card_number,
            "expiration_date": expiration_date,
            "cardholder_name": cardholder_name,
            "card_verification_number": card_verification_number,
            "balance": self._random.randint(10000, 99999),
        }
        return {"card_id": card_id}

    def get_flight_cost(self, travel_from: str, travel_to: str, travel_date: str, travel_class: str) -> dict:
        """The cost of a route (x2 business, x5 first, x2 when the date's digit sum is
        even); long-context mode lists the cost of every route. Unknown routes/classes raise."""
        pair = (travel_from, travel_to)
        if pair not in BASE_COSTS:
            raise ValueError("No available route for the given airports.")
        if not isinstance(travel_class, str) or travel_class not in _CLASS_FACTOR:
            raise ValueError("Invalid travel class. Options are: economy, business, first.")
        factor = _CLASS_FACTOR[travel_class]
        date_factor = 2 if sum(int(c) for c in travel_date if c.isdigit()) % 2 == 0 else 1
        if self.long_context:
            costs = []
            self._flight_cost_lookup = {}
            for (origin, destination), base in BASE_COSTS.items():
                cost = float(base * factor * date_factor)
                key = f"{origin}|{destination}|{travel_class}|{travel_date}"
                self._flight_cost_lookup[key] = {"cost": cost}
                costs.append(cost)
            return {"travel_cost_list": costs}
        cost = float(BASE_COSTS[pair] * factor * date_factor)
        self._flight_cost_lookup = {f"{travel_from}|{travel_to}|{travel_class}|{travel_date}": {"cost": cost}}
        return {"travel_cost_list": [cost]}

    def get_credit_card_balance(self, access_token: str, card_id: str) -> dict:
        """The balance of a registered card."""
        error = self._token_error(access_token)
        if error:
            return {"error": error}
        if card_id not in self.credit_card_list:
            return {
                "error": "Card not registered. Here are a list of card_id's: "
                + str(list(self.credit_card_list.keys()))
            }
        return {"card_balance": self.credit_card_list[card_id]["balance"]}

    def book_flight(
        self,
        access_token: str,
        card_id: str,
        travel_date: str,
        travel_from: str,
        travel_to: str,
        travel_class: str,
    ) -> dict:
        """Book a flight paid with a card (checks token, card, airports, date, class, funds
        and budget); new 7-digit booking and 8-digit transaction ids."""
        error = self._token_error(access_token)
        if error:
            return {"booking_status": False, "error": error}
        if card_id not in self.credit_card_list:
            return {"booking_status": False, "error": "Card not registered"}
        card = self.credit_card_list[card_id]
        if "balance" not in card:
            return {"booking_status": False, "error": "Balance not found"}
        airports = self.list_all_airports()
        if travel_from not in airports:
            return {"booking_status": False, "error": f"Invalid departure airport code: {travel_from}"}
        if travel_to not in airports:
            return {"booking_status": False, "error": f"Invalid destination airport code: {travel_to}"}
        try:
            datetime.datetime.strptime(travel_date, "%Y-%m-%d")
        except ValueError:
            return {"booking_status": False, "error": "Invalid date format. Use YYYY-MM-DD."}
        if travel_class not in _CLASS_FACTOR:
            # the official prints a set, whose order depends on the hash seed; sorted here
            return {
                "booking_status": False,
                "error": "Invalid travel class. Must be one of {'business', 'economy', 'first'}",
            }
        try:
            self.get_flight_cost(travel_from, travel_to, travel_date, travel_class)
        except ValueError as e:
            return {"booking_status": False, "error": str(e)}
        entry = self._flight_cost_lookup.get(f"{travel_from}|{travel_to}|{travel_class}|{travel_date}")
        if entry is None:
            return {"booking_status": False, "error": "No available route for the given parameters"}
        travel_cost = entry["cost"]
        if card["balance"] < travel_cost:
            return {"booking_status": False, "error": "Insufficient funds"}
        if self.budget_limit is not None and card["balance"] < self.budget_limit:
            return {"booking_status": False, "error": "Balance is less than budget limit"}
        card["balance"] -= travel_cost
        booking_id = str(self._random.randint(1000000, 9999999))
        transaction_id = str(self._random.randint(10000000, 99999999))
        self.booking_record[booking_id] = {
            "card_id": card_id,
            "travel_date": travel_date,
            "travel_from": travel_from,
            "travel_to": travel_to,
            "travel_class": travel_class,
            "travel_cost": travel_cost,
            "transaction_id": transaction_id,
        }
        return {
            "booking_id": booking_id,
            "transaction_id": transaction_id,
            "booking_status": True,
            "booking_history": self.booking_record if self.long_context else {},
        }

    def retrieve_invoice(
        self, access_token: str, booking_id: str | None = None, insurance_id: str | None = None
    ) -> dict:
        """The invoice of a booking (``insurance_id`` is ignored, as officially)."""
        error = self._token_error(access_token)
        if error:
            return {"error": error}
        if booking_id not in self.booking_record:
            return {"error": "Booking not found"}
        booking = self.booking_record[booking_id]
        fields = ("travel_date", "travel_from", "travel_to", "travel_class", "travel_cost", "transaction_id")
        return {"invoice": {"booking_id": booking_id, **{f: booking[f] for f in fields}}}

    def get_booking_history(self, access_token: str) -> dict:
        """A copy of all bookings."""
        error = self._token_error(access_token)
        if error:
            return {"error": error}
        return {"booking_history": deepcopy(self.booking_record)}

    def list_all_airports(self) -> list[str]:
        """The known airport codes."""
        return list(AIRPORTS)

    def cancel_booking(self, access_token: str, booking_id: str) -> dict:
        """Cancel a booking and refund its card."""
        error = self._token_error(access_token)
        if error:
            return {"cancel_status": False, "error": error}
        if booking_id not in self.booking_record:
            return {"cancel_status": False, "error": "Booking not found"}
        booking = self.booking_record[booking_id]
        self.credit_card_list[booking["card_id"]]["balance"] += booking["travel_cost"]
        del self.booking_record[booking_id]
        return {"cancel_status": True}

    def compute_exchange_rate(self, base_currency: str, target_currency: str, value: float) -> dict:
        """Convert between USD and another currency (either way); other pairs raise."""
        for (usd, other), rate in _EXCHANGE_RATES.items():
            if base_currency == usd and target_currency == other:
                return {"exchanged_value": float(value * rate)}
            if base_currency == other and target_currency == usd:
                return {"exchanged_value": round(value / rate, 2)}
        raise ValueError("No available exchange rate for the given currencies.")

    def verify_traveler_information(
        self, first_name: str, last_name: str, date_of_birth: str, passport_number: str
    ) -> dict:
        """Check the traveller is the logged-in user, an adult, with a US passport."""
        if self.user_first_name != first_name or self.user_last_name != last_name:
            return {
                "verification_status": False,
                "verification_failure": "Cannot book flight information for another user."
                + f"Expected {self.user_first_name} {self.user_last_name}, got {first_name} {last_name}",
            }
        try:
            birth = datetime.datetime.strptime(date_of_birth, "%Y-%m-%d")
        except ValueError:
            return {
                "verification_status": False,
                "verification_failure": "Invalid date of birth format. Please use YYYY-MM-DD.",
            }
        today = REFERENCE_DATE
        age = today.year - birth.year - ((today.month, today.day) < (birth.month, birth.day))
        if age < 18:
            return {
                "verification_status": False,
                "verification_failure": "Traveler must be at least 18 years old.",
            }
        if not passport_number.startswith("US"):
            return {
                "verification_status": False,
                "verification_failure": "Passport must be issued by the United States.",
            }
        return {"verification_status": True}

    def set_budget_limit(self, access_token: str, budget_limit: float) -> dict:
        """Set the budget limit (USD)."""
        error = self._token_error(access_token)
        if error:
            return {"error": error}
        self.budget_limit = float(budget_limit)
        return {"budget_limit": self.budget_limit}

    def get_nearest_airport_by_city(self, location: str) -> dict:
        """The airport code of a known location, else ``"Unknown"``."""
        return {"nearest_airport": _NEAREST_AIRPORT.get(location, "Unknown")}

    def purchase_insurance(
        self,
        access_token: str,
        insurance_type: str,
        booking_id: str,
        insurance_cost: float,
        card_id: str,
    ) -> dict:
        """Buy insurance for a booking with a card; a new 9-digit insurance id."""
        error = self._token_error(access_token)
        if error:
            return {"insurance_status": False, "error": error}
        if self.budget_limit is not None and self.budget_limit < insurance_cost:
            return {"insurance_status": False, "error": "Exceeded budget limit"}
        if booking_id not in self.booking_record:
            return {"insurance_status": False, "error": "Booking not found"}
        if card_id not in self.credit_card_list:
            return {"insurance_status": False, "error": "Credit card not registered"}
        self.credit_card_list[card_id]["balance"] -= insurance_cost
        return {"insurance_id": str(self._random.randint(100000000, 999999999)), "insurance_status": True}

    def contact_customer_support(self, booking_id: str, message: str) -> dict:
        """The fixed support answer for an existing booking."""
        if booking_id not in self.booking_record:
            return {"error": "Booking not found"}
        return {"customer_support_message": _SUPPORT_MESSAGE}

    def get_all_credit_cards(self) -> dict:
        """All registered cards."""
        return {"credit_card_list": self.credit_card_list}
