"""The generator's vocabulary: 32 API families of two to four sibling functions each.

``FUNCS`` lists every function (with the common optional parameters of ``_EXTRA_OPTIONAL`` appended where
they fit); ``FAMILIES`` groups them by family (the part of the name before the dot), in order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from genenv_gym.envs.bfcl.vocabulary.pools import (
    AIRLINES,
    AIRPORTS,
    ARTISTS,
    AUTHORS,
    BODIES,
    CABINS,
    CINEMAS,
    CITIES,
    COUNTRIES,
    CUISINES,
    CURRENCIES,
    CURRENCY_CODES,
    DISHES,
    EMAILS,
    EVENT_TITLES,
    FILTERS,
    FOREIGN,
    FORMULAS,
    GENRES,
    HOTELS,
    INGREDIENTS,
    INTERESTS,
    LANGUAGES,
    LEAGUES,
    LENGTH_UNITS,
    MASS_UNITS,
    MOVIES,
    PEOPLE,
    PLACE_TYPES,
    PLATFORMS,
    PLAYERS,
    POSTCODES,
    PRODUCTS,
    RESTAURANTS,
    ROOMS,
    SENTENCES,
    SKUS,
    SONG_TITLES,
    SONGS,
    SUBJECTS,
    TABLES,
    TEAMS,
    TEMP_SCALES,
    TICKERS,
    TIMEZONES,
    USERNAMES,
    VOLUME_UNITS,
    WORDS,
)
from genenv_gym.envs.bfcl.vocabulary.spec import (
    Func,
    Param,
    Sampler,
    clock_time,
    code,
    differ,
    distinct_list,
    float_range,
    fmt_num,
    int_range,
    iso_date,
    join_words,
    ordered,
    pick,
    pick_int,
    quote,
    record_of,
    records_of,
)

# ---- parameter helpers --------------------------------------------------------------------------------


def _s(name: str, description: str, pool: Sequence[str], **kw: Any) -> Param:
    return Param(name, "string", description, pick(pool), **kw)


def _e(name: str, description: str, pool: Sequence[str], **kw: Any) -> Param:
    """A string parameter restricted to an enum."""
    say = kw.pop("say", lambda v: str(v).replace("_", " "))
    return Param(name, "string", description, pick(pool), enum=tuple(pool), say=say, **kw)


def _i(name: str, description: str, low: int, high: int, **kw: Any) -> Param:
    return Param(name, "integer", description, int_range(low, high), **kw)


def _f(name: str, description: str, low: float, high: float, decimals: int = 1, **kw: Any) -> Param:
    return Param(name, "float", description, float_range(low, high, decimals), **kw)


def _b(name: str, description: str, phrase: tuple[str, str], default: bool = False, **kw: Any) -> Param:
    return Param(
        name, "boolean", description, lambda rng: bool(rng.integers(2)), phrase=phrase, default=default, **kw
    )


def _currency(name: str, description: str) -> Param:
    return Param(
        name,
        "string",
        description + " Three-letter ISO 4217 code, e.g. 'EUR'.",
        pick(CURRENCY_CODES),
        say=lambda iso_code: CURRENCIES[iso_code],
        aliases=lambda iso_code: [CURRENCIES[iso_code]],
    )


def _date_param(name: str, description: str) -> Param:
    return Param(name, "string", description + " Format YYYY-MM-DD.", iso_date())


_CITY = _s("city", "Name of the city.", CITIES)
_UNIT_TEMP = _e(
    "unit", "Temperature unit of the result.", ("celsius", "fahrenheit"), phrase="in {v}", default="celsius"
)
_SAY_LIST_Q = lambda values: join_words([quote(v) for v in values])  # noqa: E731


def _say_songs(songs: list[dict[str, str]]) -> str:
    return join_words([f"'{s['title']}' by {s['artist']}" for s in songs])


def _say_items(items: list[dict[str, Any]]) -> str:
    return join_words(
        [f"{i['quantity']} {'unit' if i['quantity'] == 1 else 'units'} of {i['product_id']}" for i in items]
    )


def _say_conditions(conditions: list[dict[str, str]]) -> str:
    return " and ".join(f"{c['field']} {c['operator']} {c['value']}" for c in conditions)


def _filter_sample(rng: np.random.Generator) -> dict[str, str]:
    field_name = tuple(FILTERS)[int(rng.integers(len(FILTERS)))]
    pool = FILTERS[field_name]
    return {
        "field": field_name,
        "operator": ("=", "!=")[int(rng.integers(2))],
        "value": pool[int(rng.integers(len(pool)))],
    }


_CONDITION_FIELDS = (
    Param("field", "string", "Column to filter on.", pick(tuple(FILTERS))),
    Param("operator", "string", "Comparison operator.", pick(("=", "!=")), enum=("=", "!=")),
    Param("value", "string", "Value to compare the column with.", pick(FILTERS["city"])),
)
_SONG_FIELDS = (
    _s("title", "Title of the song.", SONG_TITLES),
    _s("artist", "Performing artist.", ARTISTS),
)
_ORDER_FIELDS = (
    _s("product_id", "Product SKU.", SKUS),
    _i("quantity", "Number of units.", 1, 5),
)
_GUEST_FIELDS = (
    _s("full_name", "Guest's full name.", PEOPLE),
    _s("email", "Guest's email address.", EMAILS),
)
_PACKAGE_FIELDS = (
    _f("weight_kg", "Weight in kilograms.", 0.5, 20.0),
    _i("length_cm", "Length in centimeters.", 10, 80),
    _i("width_cm", "Width in centimeters.", 10, 60),
    _i("height_cm", "Height in centimeters.", 5, 50),
)
_USER_UPDATE_FIELDS = (
    _s("email", "New email address.", EMAILS),
    _s("display_name", "New display name.", PEOPLE),
)


def _guest_sample(rng: np.random.Generator) -> dict[str, str]:
    i = int(rng.integers(len(PEOPLE)))
    return {"full_name": PEOPLE[i], "email": EMAILS[i]}


def _songs_sample(rng: np.random.Generator) -> list[dict[str, str]]:
    order = rng.permutation(len(SONGS))[: int(rng.integers(2, 4))]
    return [{"title": SONGS[int(i)][0], "artist": SONGS[int(i)][1]} for i in order]


def _conditions_sample(rng: np.random.Generator) -> list[dict[str, str]]:
    fields = rng.permutation(len(FILTERS))[: int(rng.integers(1, 3))]
    names = tuple(FILTERS)
    out = []
    for i in fields:
        condition = _filter_sample(rng)
        condition["field"] = names[int(i)]
        pool = FILTERS[condition["field"]]
        condition["value"] = pool[int(rng.integers(len(pool)))]
        out.append(condition)
    return out


def _numbers(low: float, high: float, size_low: int = 3, size_high: int = 7) -> Sampler:
    return distinct_list(float_range(low, high, 1, fractional=True), size_low, size_high)


def _say_numbers(values: list[float]) -> str:
    return join_words([repr(v) for v in values])


def _say_point(values: list[float]) -> str:
    return "(" + ", ".join(repr(v) for v in values) + ")"


def _song_artist(values: dict[str, Any]) -> None:
    """Fixup: the artist is the one who performs the sampled song."""
    values["artist"] = dict(SONGS)[values["song_title"]]


# ---- the vocabulary -------------------------------------------------------------------------------------

_BASE_FUNCS: tuple[Func, ...] = (
    # weather
    Func(
        "weather.get_current",
        "Get the current weather conditions (temperature, sky, wind) for a city.",
        ("get the current weather in {city}", "tell me what the weather is like right now in {city}"),
        (_CITY,),
        (
            _UNIT_TEMP,
            _b("include_humidity", "Whether to include relative humidity.", ("including the humidity", "")),
        ),
        near_miss_ok=False,
    ),
    Func(
        "weather.get_forecast",
        "Get a multi-day weather forecast for a city.",
        ("get the {days}-day weather forecast for {city}", "fetch a {days}-day forecast for {city}"),
        (_CITY, _i("days", "Number of days to forecast.", 2, 10)),
        (
            _UNIT_TEMP,
            _b("include_hourly", "Whether to include hour-by-hour detail.", ("with hourly detail", "")),
        ),
    ),
    Func(
        "weather.get_air_quality",
        "Get the air quality index and pollutant levels for a city.",
        ("get the air quality index for {city}", "check the air quality in {city}"),
        (_CITY,),
        (
            _e(
                "pollutant",
                "Pollutant to report.",
                ("pm25", "pm10", "ozone", "no2"),
                phrase="reporting {v}",
                default="pm25",
            ),
        ),
        near_miss_ok=False,
    ),
    Func(
        "weather.get_historical",
        "Get the weather recorded in a city on a past date.",
        ("get the weather recorded in {city} on {date}", "look up what the weather was in {city} on {date}"),
        (_CITY, _date_param("date", "The past date.")),
        (_UNIT_TEMP,),
    ),
    # currency
    Func(
        "currency.convert",
        "Convert an amount of money from one currency to another at the current exchange rate.",
        (
            "convert {amount} {from_currency} to {to_currency}",
            "change {amount} {from_currency} into {to_currency}",
        ),
        (
            _f("amount", "Amount of money to convert.", 5, 5000, 0),
            _currency("from_currency", "Currency of the amount."),
            _currency("to_currency", "Currency to convert to."),
        ),
        fixup=differ("from_currency", "to_currency"),
        near_miss_ok=False,
    ),
    Func(
        "currency.get_exchange_rate",
        "Get the exchange rate between two currencies.",
        ("get the exchange rate from {base_currency} to {quote_currency}",),
        (
            _currency("base_currency", "Currency to convert from."),
            _currency("quote_currency", "Currency to quote in."),
        ),
        (
            Param(
                "date",
                "string",
                "Date of the rate, format YYYY-MM-DD; today if omitted.",
                iso_date(2024),
                phrase="as of {v}",
            ),
        ),
        fixup=differ("base_currency", "quote_currency"),
        near_miss_ok=False,
    ),
    Func(
        "currency.get_symbol",
        "Look up the printed symbol of a currency.",
        ("look up the symbol used for {currency_code}", "find the currency symbol of {currency_code}"),
        (_currency("currency_code", "The currency."),),
    ),
    Func(
        "currency.list_countries",
        "List the countries that use a currency as legal tender.",
        ("list the countries that use {currency_code} as legal tender",),
        (_currency("currency_code", "The currency."),),
    ),
    # flights
    Func(
        "flights.search",
        "Search for flights between two airports on a date.",
        (
            "search for flights from {origin} to {destination} on {departure_date}",
            "find flights leaving {origin} for {destination} on {departure_date}",
        ),
        (
            _s("origin", "IATA code of the departure airport.", AIRPORTS),
            _s("destination", "IATA code of the arrival airport.", AIRPORTS),
            _date_param("departure_date", "Day of departure."),
        ),
        (
            _i("passengers", "Number of passengers.", 2, 6, phrase="for {v} passengers", default=1),
            _e("cabin_class", "Cabin class.", CABINS, phrase="in {v} class", default="economy"),
            _b("nonstop_only", "Only return nonstop flights.", ("nonstop only", "")),
        ),
        fixup=differ("origin", "destination"),
    ),
    Func(
        "flights.get_status",
        "Get the live status (on time, delayed, cancelled) of a flight.",
        ("check the status of flight {flight_number} on {date}",),
        (
            Param(
                "flight_number",
                "string",
                "Airline code and flight number, e.g. 'LH456'.",
                lambda rng: (
                    ("LH", "DL", "QF", "EK", "AC", "KL")[int(rng.integers(6))]
                    + str(int(rng.integers(10, 999)))
                ),
            ),
            _date_param("date", "Day of the flight."),
        ),
    ),
    Func(
        "flights.get_baggage_allowance",
        "Look up the checked baggage allowance of an airline for a cabin class.",
        ("look up the checked baggage allowance on {airline} in {cabin_class} class",),
        (_s("airline", "Name of the airline.", AIRLINES), _e("cabin_class", "Cabin class.", CABINS)),
    ),
    # unit conversion
    Func(
        "units.convert_length",
        "Convert a length from one unit to another.",
        ("convert {value} {from_unit} to {to_unit}", "express {value} {from_unit} in {to_unit}"),
        (
            _f("value", "The length to convert.", 1, 500),
            _e("from_unit", "Unit of the value.", LENGTH_UNITS),
            _e("to_unit", "Unit to convert to.", LENGTH_UNITS),
        ),
        fixup=differ("from_unit", "to_unit"),
    ),
    Func(
        "units.convert_mass",
        "Convert a mass (weight) from one unit to another.",
        ("convert {value} {from_unit} to {to_unit}", "express {value} {from_unit} in {to_unit}"),
        (
            _f("value", "The mass to convert.", 1, 500),
            _e("from_unit", "Unit of the value.", MASS_UNITS),
            _e("to_unit", "Unit to convert to.", MASS_UNITS),
        ),
        fixup=differ("from_unit", "to_unit"),
    ),
    Func(
        "units.convert_temperature",
        "Convert a temperature from one scale to another.",
        ("convert {value} degrees {from_scale} to {to_scale}",),
        (
            _f("value", "The temperature to convert.", -40, 200),
            _e("from_scale", "Scale of the value.", TEMP_SCALES),
            _e("to_scale", "Scale to convert to.", TEMP_SCALES),
        ),
        fixup=differ("from_scale", "to_scale"),
    ),
    Func(
        "units.convert_volume",
        "Convert a volume from one unit to another.",
        ("convert {value} {from_unit} to {to_unit}",),
        (
            _f("value", "The volume to convert.", 1, 100),
            _e("from_unit", "Unit of the value.", VOLUME_UNITS),
            _e("to_unit", "Unit to convert to.", VOLUME_UNITS),
        ),
        fixup=differ("from_unit", "to_unit"),
    ),
    # geometry
    Func(
        "geometry.circle_area",
        "Calculate the area of a circle from its radius.",
        ("calculate the area of a circle with a radius of {radius}",),
        (_f("radius", "Radius of the circle.", 1, 50),),
        (
            _e(
                "unit",
                "Length unit of the radius.",
                ("meters", "centimeters", "inches", "feet"),
                phrase="with the radius measured in {v}",
                default="meters",
            ),
        ),
    ),
    Func(
        "geometry.rectangle_area",
        "Calculate the area of a rectangle from its length and width.",
        ("calculate the area of a rectangle that is {length} long and {width} wide",),
        (_f("length", "Length of the rectangle.", 1, 100), _f("width", "Width of the rectangle.", 1, 100)),
    ),
    Func(
        "geometry.triangle_area",
        "Calculate the area of a triangle from its base and height.",
        ("calculate the area of a triangle with a base of {base} and a height of {height}",),
        (_f("base", "Base of the triangle.", 1, 100), _f("height", "Height of the triangle.", 1, 100)),
    ),
    Func(
        "geometry.polygon_perimeter",
        "Calculate the perimeter of a polygon from the lengths of its sides.",
        ("calculate the perimeter of a polygon whose sides measure {side_lengths}",),
        (
            Param(
                "side_lengths",
                "array",
                "Lengths of the sides, in order.",
                _numbers(1, 30, 3, 6),
                say=_say_numbers,
                items="float",
            ),
        ),
    ),
    Func(
        "geometry.distance_2d",
        "Compute the Euclidean distance between two points in the plane.",
        ("compute the distance between the points {point_a} and {point_b}",),
        (
            Param(
                "point_a",
                "array",
                "First point as [x, y].",
                distinct_list(float_range(-20, 20, 1, True), 2, 2),
                say=_say_point,
                items="float",
            ),
            Param(
                "point_b",
                "array",
                "Second point as [x, y].",
                distinct_list(float_range(-20, 20, 1, True), 2, 2),
                say=_say_point,
                items="float",
            ),
        ),
    ),
    # stocks
    Func(
        "stocks.get_quote",
        "Get the latest trading price of a stock.",
        ("get the latest stock quote for {ticker}", "look up the current share price of {ticker}"),
        (_s("ticker", "Stock ticker symbol.", TICKERS),),
        (
            _e(
                "exchange",
                "Exchange to quote from.",
                ("NASDAQ", "NYSE", "LSE"),
                phrase="on the {v}",
                default="NASDAQ",
            ),
        ),
        near_miss_ok=False,
    ),
    Func(
        "stocks.get_price_history",
        "Get the historical prices of a stock between two dates.",
        ("get the price history of {ticker} from {start_date} to {end_date}",),
        (
            _s("ticker", "Stock ticker symbol.", TICKERS),
            _date_param("start_date", "First day."),
            _date_param("end_date", "Last day."),
        ),
        (
            _e(
                "interval",
                "Sampling interval.",
                ("daily", "weekly", "monthly"),
                phrase="at {v} intervals",
                default="daily",
            ),
        ),
        fixup=ordered("start_date", "end_date"),
    ),
    Func(
        "stocks.compare_returns",
        "Compare the percentage returns of several stocks over a period.",
        ("compare the returns of {tickers} over the last {period_days} days",),
        (
            Param(
                "tickers",
                "array",
                "Ticker symbols to compare.",
                distinct_list(pick(TICKERS), 2, 4),
                items="string",
            ),
            _i("period_days", "Length of the period in days.", 7, 365),
        ),
    ),
    Func(
        "stocks.get_dividends",
        "Get the dividends a company paid in a year.",
        ("get the dividends paid by {ticker} in {year}",),
        (_s("ticker", "Stock ticker symbol.", TICKERS), _i("year", "Calendar year.", 2010, 2024)),
    ),
    # calendar
    Func(
        "calendar.create_event",
        "Create an event in the user's calendar.",
        (
            "create a calendar event titled '{title}' on {date} at {start_time} "
            "lasting {duration_minutes} minutes",
            "schedule '{title}' on {date} at {start_time} for {duration_minutes} minutes",
        ),
        (
            _s("title", "Title of the event.", EVENT_TITLES),
            _date_param("date", "Day of the event."),
            Param("start_time", "string", "Start time, 24-hour HH:MM.", clock_time()),
            Param("duration_minutes", "integer", "Length in minutes.", pick_int((15, 30, 45, 60, 90, 120))),
        ),
        (
            Param(
                "attendees",
                "array",
                "Email addresses of the people to invite.",
                distinct_list(pick(EMAILS), 1, 3),
                say=join_words,
                phrase="inviting {v}",
                items="string",
            ),
            Param(
                "reminder_minutes",
                "integer",
                "Minutes before the start to send a reminder.",
                pick_int((5, 10, 30, 60)),
                phrase="with a reminder {v} minutes before",
                default=15,
            ),
        ),
    ),
    Func(
        "calendar.list_events",
        "List the events in the user's calendar on a day.",
        ("list my calendar events on {date}", "show what is on my calendar on {date}"),
        (_date_param("date", "The day."),),
        (
            _e(
                "calendar_name",
                "Which calendar.",
                ("primary", "work", "family"),
                phrase="from the {v} calendar",
                default="primary",
            ),
        ),
    ),
    Func(
        "calendar.find_free_slot",
        "Find the first free slot of a given length in the user's calendar on a day.",
        ("find a free {duration_minutes}-minute slot in my calendar on {date}",),
        (
            _date_param("date", "The day."),
            Param(
                "duration_minutes",
                "integer",
                "Length of the slot in minutes.",
                pick_int((15, 30, 45, 60, 90)),
            ),
        ),
        near_miss_ok=False,
    ),
    # recipes
    Func(
        "recipes.search",
        "Search for recipes that use an ingredient.",
        ("find recipes that use {ingredient}", "search for recipes with {ingredient}"),
        (_s("ingredient", "Main ingredient.", INGREDIENTS),),
        (
            _s("cuisine", "Cuisine style.", CUISINES, phrase="from {v} cuisine"),
            _i(
                "max_prep_minutes",
                "Longest preparation time in minutes.",
                15,
                90,
                phrase="ready in under {v} minutes",
            ),
            _b("vegetarian", "Only vegetarian recipes.", ("that are vegetarian", "")),
        ),
    ),
    Func(
        "recipes.get_nutrition",
        "Get the nutrition facts of a dish for a number of servings.",
        ("get the nutrition facts for {servings} servings of {dish_name}",),
        (_s("dish_name", "Name of the dish.", DISHES), _i("servings", "Number of servings.", 1, 8)),
    ),
    Func(
        "recipes.scale",
        "Rescale a recipe's ingredient quantities to a different number of servings.",
        ("scale the {dish_name} recipe from {original_servings} to {target_servings} servings",),
        (
            _s("dish_name", "Name of the dish.", DISHES),
            _i("original_servings", "Servings the recipe makes.", 2, 6),
            _i("target_servings", "Servings wanted.", 1, 12),
        ),
        fixup=differ("original_servings", "target_servings"),
    ),
    # hotels
    Func(
        "hotels.search",
        "Search for available hotels in a city for a stay.",
        ("search for hotels in {city} from {check_in} to {check_out}",),
        (_CITY, _date_param("check_in", "Arrival day."), _date_param("check_out", "Departure day.")),
        (
            _i("guests", "Number of guests.", 2, 5, phrase="for {v} guests", default=1),
            _f(
                "max_price_per_night",
                "Highest nightly price in US dollars.",
                60,
                400,
                0,
                phrase="under {v} dollars per night",
            ),
        ),
        fixup=ordered("check_in", "check_out"),
    ),
    Func(
        "hotels.book_room",
        "Book a room at a hotel for a guest.",
        ("book a {room_type} room at {hotel_name} for {nights} nights for {guest}",),
        (
            _s("hotel_name", "Name of the hotel.", HOTELS),
            _e("room_type", "Kind of room.", ("single", "double", "suite")),
            _i("nights", "Number of nights.", 1, 14),
            Param(
                "guest",
                "dict",
                "The guest the booking is for.",
                _guest_sample,
                fields=_GUEST_FIELDS,
                say=lambda g: f"{g['full_name']} (email {g['email']})",
            ),
        ),
    ),
    Func(
        "hotels.cancel_booking",
        "Cancel a hotel booking.",
        ("cancel the hotel booking with confirmation code {confirmation_code}",),
        (Param("confirmation_code", "string", "The booking's confirmation code.", code("HX")),),
    ),
    # restaurants
    Func(
        "restaurants.find",
        "Find restaurants of a cuisine in a city.",
        ("find {cuisine} restaurants in {city}", "look for {cuisine} places to eat in {city}"),
        (_CITY, _s("cuisine", "Cuisine.", CUISINES)),
        (
            _i(
                "price_level",
                "Price level from 1 (cheap) to 4 (expensive).",
                1,
                4,
                phrase="at price level {v}",
            ),
            _b("open_now", "Only restaurants open now.", ("that are open now", "")),
        ),
    ),
    Func(
        "restaurants.reserve_table",
        "Reserve a table at a restaurant.",
        ("reserve a table for {party_size} at {restaurant_name} on {date} at {time}",),
        (
            _s("restaurant_name", "Name of the restaurant.", RESTAURANTS),
            _date_param("date", "Day of the booking."),
            Param("time", "string", "Time, 24-hour HH:MM.", clock_time()),
            _i("party_size", "Number of diners.", 2, 10),
        ),
    ),
    # statistics
    Func(
        "stats.mean",
        "Calculate the arithmetic mean of a list of numbers.",
        ("calculate the mean of the numbers {numbers}", "average the values {numbers}"),
        (Param("numbers", "array", "The numbers.", _numbers(1, 100), say=_say_numbers, items="float"),),
    ),
    Func(
        "stats.median",
        "Calculate the median of a list of numbers.",
        ("calculate the median of the numbers {numbers}",),
        (Param("numbers", "array", "The numbers.", _numbers(1, 100), say=_say_numbers, items="float"),),
        near_miss_ok=False,
    ),
    Func(
        "stats.standard_deviation",
        "Calculate the standard deviation of a list of numbers.",
        ("calculate the standard deviation of the numbers {numbers}",),
        (Param("numbers", "array", "The numbers.", _numbers(1, 100), say=_say_numbers, items="float"),),
        (
            _b(
                "sample",
                "Use the sample (n - 1) formula rather than the population one.",
                ("", "using the population formula"),
                default=True,
            ),
        ),
    ),
    Func(
        "stats.percentile",
        "Compute a percentile of a list of numbers.",
        ("find percentile {percentile} of the numbers {numbers}",),
        (
            Param("numbers", "array", "The numbers.", _numbers(1, 100), say=_say_numbers, items="float"),
            _i("percentile", "Percentile to compute, 1-99.", 5, 95),
        ),
    ),
    # finance
    Func(
        "finance.compound_interest",
        "Calculate the interest earned on a principal with compound interest.",
        (
            "calculate the compound interest on {principal} dollars at an annual rate of "
            "{annual_rate_percent} "
            "percent over {years} years",
        ),
        (
            _f("principal", "Initial amount in dollars.", 500, 50000, 0),
            _f("annual_rate_percent", "Annual interest rate in percent, e.g. 4.5 for 4.5%.", 0.5, 12, 1),
            _i("years", "Number of years.", 1, 30),
        ),
        (
            _i(
                "compounds_per_year",
                "How many times a year interest is compounded.",
                1,
                4,
                phrase="compounded {v} times per year",
                default=12,
            ),
        ),
    ),
    Func(
        "finance.loan_payment",
        "Calculate the monthly payment of an amortised loan.",
        (
            "calculate the monthly payment on a loan of {principal} dollars at {annual_rate_percent} "
            "percent annual "
            "interest over {term_months} months",
        ),
        (
            _f("principal", "Loan amount in dollars.", 1000, 500000, 0),
            _f("annual_rate_percent", "Annual interest rate in percent.", 1, 15, 1),
            Param(
                "term_months",
                "integer",
                "Length of the loan in months.",
                pick_int((12, 24, 36, 48, 60, 120, 360)),
            ),
        ),
    ),
    Func(
        "finance.return_on_investment",
        "Calculate the return on investment as a percentage.",
        ("calculate the return on an investment that grew from {initial_value} to {final_value} dollars",),
        (
            _f("initial_value", "Amount invested.", 100, 10000, 0),
            _f("final_value", "Value now.", 100, 20000, 0),
        ),
        fixup=differ("initial_value", "final_value"),
    ),
    # translation
    Func(
        "translate.text",
        "Translate text into another language.",
        ("translate the sentence '{text}' into {target_language}",),
        (
            _s("text", "Text to translate.", SENTENCES),
            _s("target_language", "Language to translate into.", LANGUAGES),
        ),
        (_s("source_language", "Language of the text.", ("English",), phrase="from {v}"),),
    ),
    Func(
        "translate.detect_language",
        "Detect which language a text is written in.",
        ("detect the language of the text '{text}'", "figure out which language '{text}' is written in"),
        (_s("text", "The text.", FOREIGN),),
    ),
    Func(
        "translate.define_word",
        "Look up the dictionary definition of a word.",
        ("look up the definition of the word '{word}'",),
        (_s("word", "The word.", WORDS),),
        (
            _s(
                "dictionary_language",
                "Language the definition is written in.",
                LANGUAGES,
                phrase="with the definition written in {v}",
                default="English",
            ),
        ),
    ),
    # email
    Func(
        "email.send",
        "Send an email.",
        ("send an email to {recipient} with the subject '{subject}' and the body '{body}'",),
        (
            _s("recipient", "Email address of the recipient.", EMAILS),
            _s("subject", "Subject line.", SUBJECTS),
            _s("body", "Body text.", BODIES),
        ),
        (
            Param(
                "cc",
                "array",
                "Addresses to copy.",
                distinct_list(pick(EMAILS), 1, 2),
                say=join_words,
                phrase="copying {v}",
                items="string",
            ),
        ),
    ),
    Func(
        "email.search_inbox",
        "Search the user's inbox for messages matching a query.",
        ("search my inbox for messages about '{query}'",),
        (_s("query", "Search words.", SUBJECTS),),
        (
            _i(
                "max_results",
                "Most messages to return.",
                1,
                50,
                phrase="returning at most {v} results",
                default=10,
            ),
            _b("unread_only", "Only unread messages.", ("only unread ones", "")),
        ),
    ),
    # maps
    Func(
        "maps.get_directions",
        "Get step-by-step directions between two places.",
        ("get directions from {origin} to {destination}",),
        (_s("origin", "Start place.", CITIES), _s("destination", "End place.", CITIES)),
        (
            _e(
                "mode",
                "Travel mode.",
                ("driving", "walking", "cycling", "transit"),
                phrase="with the travel mode set to {v}",
                default="driving",
            ),
        ),
        fixup=differ("origin", "destination"),
    ),
    Func(
        "maps.find_nearby",
        "Find places of a given type near a location.",
        ("find a {place_type} near {location}",),
        (
            _s("location", "Where to search around.", CITIES),
            _e("place_type", "Kind of place.", PLACE_TYPES),
        ),
        (_f("radius_km", "Search radius in kilometers.", 1, 20, 0, phrase="within {v} km", default=5.0),),
    ),
    Func(
        "maps.distance_between",
        "Get the straight-line distance between two places.",
        ("get the straight-line distance between {origin} and {destination}",),
        (_s("origin", "First place.", CITIES), _s("destination", "Second place.", CITIES)),
        (_e("unit", "Distance unit.", ("km", "miles"), phrase="in {v}", default="km"),),
        fixup=differ("origin", "destination"),
        near_miss_ok=False,
    ),
    # movies
    Func(
        "movies.get_showtimes",
        "Get the showtimes of a movie in a city on a day.",
        ("get the showtimes for '{movie_title}' in {city} on {date}",),
        (_s("movie_title", "Title of the movie.", MOVIES), _CITY, _date_param("date", "The day.")),
    ),
    Func(
        "movies.get_details",
        "Get the cast, director, runtime and synopsis of a movie.",
        ("get details about the movie '{movie_title}'",),
        (_s("movie_title", "Title of the movie.", MOVIES),),
        (_i("year", "Release year, to tell remakes apart.", 1980, 2024, phrase="released in {v}"),),
    ),
    Func(
        "movies.book_tickets",
        "Book cinema tickets for a showing.",
        ("book {seats} tickets for '{movie_title}' at {cinema} for the {showtime} showing",),
        (
            _s("movie_title", "Title of the movie.", MOVIES),
            _s("cinema", "Name of the cinema.", CINEMAS),
            Param("showtime", "string", "Showing time, 24-hour HH:MM.", clock_time()),
            _i("seats", "Number of seats.", 1, 6),
        ),
    ),
    # music
    Func(
        "music.play_song",
        "Play a song by an artist on the user's speaker.",
        ("play '{song_title}' by {artist}",),
        (_s("song_title", "Title of the song.", SONG_TITLES), _s("artist", "Performing artist.", ARTISTS)),
        (_i("volume", "Volume from 0 to 100.", 10, 90, phrase="at volume {v}", default=50),),
        fixup=_song_artist,
    ),
    Func(
        "music.create_playlist",
        "Create a playlist from a list of songs.",
        ("create a playlist named '{playlist_name}' with {songs}",),
        (
            _s(
                "playlist_name",
                "Name of the playlist.",
                ("Road Trip", "Focus", "Sunday Morning", "Workout", "Rainy Day"),
            ),
            Param(
                "songs",
                "array",
                "Songs in play order.",
                _songs_sample,
                say=_say_songs,
                items="dict",
                fields=_SONG_FIELDS,
            ),
        ),
    ),
    Func(
        "music.get_lyrics",
        "Get the lyrics of a song.",
        ("get the lyrics of '{song_title}' by {artist}",),
        (_s("song_title", "Title of the song.", SONG_TITLES), _s("artist", "Performing artist.", ARTISTS)),
        fixup=_song_artist,
    ),
    # sports
    Func(
        "sports.get_match_score",
        "Get the final score of a match between two teams on a date.",
        (
            "get the score of the match between {home_team} and {away_team} on {date}, "
            "with {home_team} at home",
        ),
        (
            _s("home_team", "Home team.", TEAMS),
            _s("away_team", "Away team.", TEAMS),
            _date_param("date", "Match day."),
        ),
        fixup=differ("home_team", "away_team"),
    ),
    Func(
        "sports.get_standings",
        "Get a league table for a season.",
        ("get the {league} standings for the {season} season",),
        (_s("league", "Name of the league.", LEAGUES), _i("season", "Year the season started.", 2000, 2024)),
    ),
    Func(
        "sports.get_player_stats",
        "Get a player's statistics for a season.",
        ("get the statistics of {player_name} for the {season} season",),
        (
            _s("player_name", "Full name of the player.", PLAYERS),
            _i("season", "Year the season started.", 2010, 2024),
        ),
    ),
    # shopping
    Func(
        "shop.search_products",
        "Search the online store's catalogue.",
        ("search the store for {query}",),
        (_s("query", "What to look for.", PRODUCTS),),
        (
            _f("max_price", "Highest price in US dollars.", 20, 300, 0, phrase="priced under {v} dollars"),
            _e(
                "sort_by",
                "Result order.",
                ("relevance", "price", "rating"),
                phrase="sorted by {v}",
                default="relevance",
            ),
        ),
    ),
    Func(
        "shop.create_order",
        "Place an order for a customer.",
        ("place an order for customer {customer_id} containing {items}",),
        (
            _i("customer_id", "Numeric customer ID.", 1000, 99999),
            Param(
                "items",
                "array",
                "Order lines.",
                records_of(_ORDER_FIELDS, 1, 3, "product_id"),
                say=_say_items,
                items="dict",
                fields=_ORDER_FIELDS,
            ),
        ),
        (_b("express_shipping", "Ship with express delivery.", ("with express shipping", "")),),
    ),
    Func(
        "shop.get_product_reviews",
        "Get customer reviews of a product.",
        ("get the customer reviews of product {product_id}",),
        (_s("product_id", "Product SKU.", SKUS),),
        (
            _i(
                "min_stars",
                "Only reviews with at least this many stars.",
                2,
                5,
                phrase="with at least {v} stars",
            ),
        ),
    ),
    # health
    Func(
        "health.bmi",
        "Calculate the body mass index from weight and height.",
        ("calculate the body mass index of someone who weighs {weight_kg} kg and is {height_m} m tall",),
        (_f("weight_kg", "Weight in kilograms.", 45, 120), _f("height_m", "Height in meters.", 1.5, 2.0, 2)),
    ),
    Func(
        "health.daily_calories",
        "Estimate daily calorie needs.",
        (
            "estimate the daily calorie needs of a {age}-year-old {sex} weighing {weight_kg} kg "
            "and {height_cm} cm tall",
        ),
        (
            _i("age", "Age in years.", 18, 80),
            _e("sex", "Biological sex.", ("male", "female")),
            _f("weight_kg", "Weight in kilograms.", 45, 120),
            _i("height_cm", "Height in centimeters.", 150, 200),
        ),
        (
            _e(
                "activity_level",
                "Activity level.",
                ("sedentary", "light", "moderate", "active"),
                phrase="with a {v} activity level",
                default="moderate",
            ),
        ),
    ),
    Func(
        "health.target_heart_rate",
        "Compute the target heart rate for exercise.",
        ("compute the target heart rate for a {age}-year-old",),
        (_i("age", "Age in years.", 18, 80),),
        (
            _i(
                "intensity_percent",
                "Exercise intensity in percent of maximum.",
                50,
                90,
                phrase="at {v} percent intensity",
                default=70,
            ),
        ),
    ),
    # physics
    Func(
        "physics.kinetic_energy",
        "Calculate the kinetic energy of a moving body.",
        ("calculate the kinetic energy of a {mass_kg} kg object moving at {velocity_mps} m/s",),
        (
            _f("mass_kg", "Mass in kilograms.", 0.5, 100),
            _f("velocity_mps", "Speed in meters per second.", 1, 50),
        ),
    ),
    Func(
        "physics.free_fall_time",
        "Calculate how long an object takes to fall from a height.",
        ("calculate how long an object takes to fall from a height of {height_m} meters",),
        (_f("height_m", "Drop height in meters.", 1, 300),),
        (
            _f(
                "gravity",
                "Gravitational acceleration in m/s^2.",
                1.6,
                24.8,
                1,
                phrase="with gravity of {v} m/s^2",
                default=9.81,
            ),
        ),
    ),
    Func(
        "physics.ohms_law_current",
        "Calculate the current through a resistor from voltage and resistance.",
        ("calculate the current through a {resistance_ohms} ohm resistor at {voltage} volts",),
        (
            _f("voltage", "Voltage in volts.", 1, 240),
            _f("resistance_ohms", "Resistance in ohms.", 1, 1000, 0),
        ),
    ),
    # chemistry
    Func(
        "chem.molar_mass",
        "Compute the molar mass of a chemical formula.",
        ("compute the molar mass of {formula}",),
        (_s("formula", "Chemical formula, e.g. 'H2O'.", FORMULAS),),
    ),
    Func(
        "chem.dilution_volume",
        "Compute the final volume after diluting a solution (C1V1 = C2V2).",
        (
            "compute the final volume when {initial_volume_ml} ml of a {initial_concentration} M "
            "solution is diluted "
            "to {final_concentration} M",
        ),
        (
            _f("initial_concentration", "Starting molarity.", 1, 5, 1),
            _f("initial_volume_ml", "Starting volume in ml.", 10, 500, 0),
            _f("final_concentration", "Target molarity.", 0.1, 0.9, 1),
        ),
    ),
    Func(
        "chem.ph_from_concentration",
        "Compute the pH of a solution from its hydrogen-ion molarity.",
        ("compute the pH of a solution with a hydrogen-ion concentration of {hydrogen_ion_molarity} M",),
        (
            Param(
                "hydrogen_ion_molarity",
                "float",
                "Hydrogen-ion concentration in mol/L.",
                pick((0.01, 0.001, 0.0001, 0.0005, 0.002, 0.05)),
            ),
        ),
    ),
    # time
    Func(
        "time.get_current_time",
        "Get the current local time in a time zone.",
        ("get the current time in the {timezone} time zone",),
        (_s("timezone", "IANA time zone name.", TIMEZONES),),
    ),
    Func(
        "time.convert_time",
        "Convert a clock time from one time zone to another.",
        ("convert {time} from {from_timezone} time to {to_timezone} time",),
        (
            Param("time", "string", "Clock time, 24-hour HH:MM.", clock_time()),
            _s("from_timezone", "IANA time zone of the time.", TIMEZONES),
            _s("to_timezone", "IANA time zone to convert to.", TIMEZONES),
        ),
        fixup=differ("from_timezone", "to_timezone"),
    ),
    Func(
        "time.days_between",
        "Count the days between two dates.",
        ("count the days between {start_date} and {end_date}",),
        (_date_param("start_date", "First date."), _date_param("end_date", "Second date.")),
        fixup=ordered("start_date", "end_date"),
    ),
    # news
    Func(
        "news.get_headlines",
        "Get today's top news headlines for a country.",
        ("get the top news headlines in {country}",),
        (_s("country", "Country name.", COUNTRIES),),
        (
            _e(
                "category",
                "News category.",
                ("business", "technology", "sports", "health", "science"),
                phrase="in the {v} category",
            ),
            _i("limit", "Most headlines to return.", 3, 30, phrase="limited to {v} articles", default=10),
        ),
        near_miss_ok=False,
    ),
    Func(
        "news.search_articles",
        "Search news articles by keyword within a date range.",
        ("search news articles about '{keyword}' published between {from_date} and {to_date}",),
        (
            _s(
                "keyword",
                "Search keyword.",
                ("solar power", "elections", "space launch", "inflation", "vaccines"),
            ),
            _date_param("from_date", "Earliest publication day."),
            _date_param("to_date", "Latest publication day."),
        ),
        fixup=ordered("from_date", "to_date"),
    ),
    # database
    Func(
        "db.query_records",
        "Query rows of a database table that match conditions.",
        ("query the {table} table for rows where {conditions}",),
        (
            _s("table", "Table name.", TABLES),
            Param(
                "conditions",
                "array",
                "Conditions that must all hold.",
                _conditions_sample,
                say=_say_conditions,
                items="dict",
                fields=_CONDITION_FIELDS,
            ),
        ),
        (_i("limit", "Most rows to return.", 5, 500, phrase="returning at most {v} rows", default=100),),
    ),
    Func(
        "db.update_user",
        "Update a user's profile fields.",
        ("update user {user_id} so that {updates}",),
        (
            _i("user_id", "Numeric user ID.", 100, 99999),
            Param(
                "updates",
                "dict",
                "New values of the profile fields.",
                record_of(_USER_UPDATE_FIELDS),
                fields=_USER_UPDATE_FIELDS,
                say=lambda u: f"the email is {u['email']} and the display name is {u['display_name']}",
            ),
        ),
    ),
    Func(
        "db.delete_record",
        "Delete a row of a database table by its ID.",
        ("delete record {record_id} from the {table} table",),
        (_s("table", "Table name.", TABLES), _i("record_id", "Numeric row ID.", 1, 99999)),
    ),
    # smart home
    Func(
        "home.set_thermostat",
        "Set the thermostat of a room to a temperature.",
        ("set the thermostat in the {room} to {temperature_c} degrees Celsius",),
        (_s("room", "Room name.", ROOMS), _f("temperature_c", "Target temperature in Celsius.", 16, 26, 1)),
        (_e("mode", "Thermostat mode.", ("heat", "cool", "auto"), phrase="in {v} mode", default="auto"),),
    ),
    Func(
        "home.set_lights",
        "Switch the lights of a room on or off.",
        ("turn {turn_on} the lights in the {room}",),
        (
            _s("room", "Room name.", ROOMS),
            Param(
                "turn_on",
                "boolean",
                "True to switch on, False to switch off.",
                lambda rng: bool(rng.integers(2)),
                say=lambda v: "on" if v else "off",
            ),
        ),
        (
            _i(
                "brightness_percent",
                "Brightness from 1 to 100.",
                10,
                90,
                phrase="at {v} percent brightness",
                default=100,
            ),
        ),
    ),
    Func(
        "home.lock_door",
        "Lock one of the house's doors.",
        ("lock the {door_name} door",),
        (_e("door_name", "Which door.", ("front", "back", "garage", "side")),),
    ),
    # library
    Func(
        "library.search_books",
        "Search the library catalogue for books by an author.",
        ("search the library for books by {author}",),
        (_s("author", "Author's name.", AUTHORS),),
        (
            _s("genre", "Genre.", GENRES, phrase="in the {v} genre"),
            _i(
                "published_after",
                "Only books published after this year.",
                1900,
                2020,
                phrase="published after {v}",
            ),
        ),
    ),
    Func(
        "library.reserve_book",
        "Reserve a book for a library member.",
        ("reserve the book with ISBN {isbn} for member {member_id}",),
        (
            Param("isbn", "string", "ISBN-13 of the book.", code("978", 10)),
            _i("member_id", "Member number.", 1000, 9999),
        ),
    ),
    Func(
        "library.renew_loan",
        "Extend the due date of a library loan.",
        ("renew library loan {loan_id} for {extra_days} more days",),
        (
            Param("loan_id", "string", "ID of the loan.", code("LN")),
            _i("extra_days", "Days to add.", 7, 28),
        ),
    ),
    # social media
    Func(
        "social.post_update",
        "Post a status update on a social network.",
        ("post '{message}' on {platform}",),
        (
            _s("platform", "Social network.", PLATFORMS),
            _s(
                "message",
                "Text of the post.",
                (
                    "Launch day is here",
                    "Thanks for a great conference",
                    "New blog post is live",
                    "We are hiring",
                ),
            ),
        ),
        (
            Param(
                "hashtags",
                "array",
                "Hashtags without the leading '#'.",
                distinct_list(pick(("launch", "teamwork", "ai", "travel", "news")), 1, 3),
                say=join_words,
                phrase="with the hashtags {v}",
                items="string",
            ),
        ),
    ),
    Func(
        "social.get_follower_count",
        "Get how many followers an account has.",
        ("get the follower count of {username} on {platform}",),
        (_s("platform", "Social network.", PLATFORMS), _s("username", "Account name.", USERNAMES)),
    ),
    # real estate
    Func(
        "realestate.search_listings",
        "Search homes for sale in a city.",
        (
            "search for homes for sale in {city} with at least {min_bedrooms} bedrooms "
            "under {max_price} dollars",
        ),
        (
            _CITY,
            _i("min_bedrooms", "Fewest bedrooms.", 1, 5),
            _f("max_price", "Highest price in dollars.", 100000, 2000000, -3),
        ),
        (
            _e(
                "property_type",
                "Kind of home.",
                ("house", "apartment", "condo", "townhouse"),
                phrase="of type {v}",
            ),
        ),
    ),
    Func(
        "realestate.property_tax",
        "Estimate the yearly property tax of a home.",
        (
            "estimate the yearly property tax on a home assessed at {assessed_value} dollars "
            "with a tax rate of "
            "{tax_rate_percent} percent",
        ),
        (
            _f("assessed_value", "Assessed value in dollars.", 100000, 2000000, -3),
            _f("tax_rate_percent", "Tax rate in percent.", 0.3, 3.0, 2),
        ),
    ),
    # travel
    Func(
        "travel.visa_requirements",
        "Check whether a citizen of one country needs a visa to visit another.",
        ("check whether a citizen of {citizenship} needs a visa to visit {destination_country}",),
        (
            _s("citizenship", "Traveller's country of citizenship.", COUNTRIES),
            _s("destination_country", "Country to visit.", COUNTRIES),
        ),
        fixup=differ("citizenship", "destination_country"),
    ),
    Func(
        "travel.plan_itinerary",
        "Plan a day-by-day sightseeing itinerary for a city.",
        ("plan a {days}-day itinerary for {city} focused on {interests}",),
        (
            _CITY,
            _i("days", "Length of the trip in days.", 1, 7),
            Param(
                "interests",
                "array",
                "Interests to plan around, in order of priority.",
                distinct_list(pick(INTERESTS), 1, 3),
                items="string",
            ),
        ),
    ),
    # car rental
    Func(
        "car_rental.search",
        "Search rental cars at a location for a period.",
        ("search for rental cars in {pickup_location} from {pickup_date} to {return_date}",),
        (
            _s("pickup_location", "City to pick the car up in.", CITIES),
            _date_param("pickup_date", "Pick-up day."),
            _date_param("return_date", "Return day."),
        ),
        (_e("car_type", "Kind of car.", ("compact", "suv", "minivan", "convertible"), phrase="for a {v}"),),
        fixup=ordered("pickup_date", "return_date"),
    ),
    Func(
        "car_rental.extend_booking",
        "Extend a car rental booking by some days.",
        ("extend car rental booking {booking_id} by {extra_days} days",),
        (
            Param("booking_id", "string", "ID of the rental booking.", code("CR", 5)),
            _i("extra_days", "Days to add.", 1, 10),
        ),
    ),
    # geography
    Func(
        "geo.get_capital",
        "Get the capital city of a country.",
        ("find the capital of {country}",),
        (_s("country", "Country name.", COUNTRIES),),
    ),
    Func(
        "geo.get_population",
        "Get the population of a country.",
        ("get the population of {country}",),
        (_s("country", "Country name.", COUNTRIES),),
        (_i("year", "Year of the estimate.", 1990, 2023, phrase="as of {v}"),),
    ),
    Func(
        "geo.get_area",
        "Get the land area of a country in square kilometers.",
        ("get the land area of {country}",),
        (_s("country", "Country name.", COUNTRIES),),
    ),
    # shipping
    Func(
        "shipping.estimate_cost",
        "Estimate the cost of shipping a package between two postal codes.",
        (
            "estimate the cost of shipping {package} from postal code {origin_postal_code} to postal code "
            "{destination_postal_code}",
        ),
        (
            _s("origin_postal_code", "Sender's postal code.", POSTCODES),
            _s("destination_postal_code", "Recipient's postal code.", POSTCODES),
            Param(
                "package",
                "dict",
                "The package's weight and size.",
                record_of(_PACKAGE_FIELDS),
                fields=_PACKAGE_FIELDS,
                say=lambda p: (
                    f"a package weighing {fmt_num(p['weight_kg'])} kg that is {p['length_cm']} cm long, "
                    f"{p['width_cm']} cm wide and {p['height_cm']} cm high"
                ),
            ),
        ),
        fixup=differ("origin_postal_code", "destination_postal_code"),
    ),
    Func(
        "shipping.track_package",
        "Track a parcel by its carrier tracking number.",
        ("track the {carrier} parcel with tracking number {tracking_number}",),
        (
            Param("tracking_number", "string", "Carrier tracking number.", code("1Z", 8)),
            _e("carrier", "Carrier.", ("UPS", "FedEx", "DHL", "USPS")),
        ),
    ),
)

# Common optional parameters, appended to the functions they fit (so schemas can grow to n_params).
_EXTRA_OPTIONAL: tuple[tuple[Param, tuple[str, ...]], ...] = (
    (
        Param(
            "decimal_places",
            "integer",
            "Decimal places to round the result to.",
            pick_int((0, 3, 4)),
            phrase="rounding the result to {v} decimal places",
            default=2,
        ),
        (
            "currency.convert", "units.convert_length", "units.convert_mass", "units.convert_temperature",
            "units.convert_volume", "geometry.circle_area", "geometry.rectangle_area",
            "geometry.triangle_area", "geometry.polygon_perimeter", "geometry.distance_2d", "stats.mean",
            "stats.median", "stats.standard_deviation", "stats.percentile", "finance.compound_interest",
            "finance.loan_payment", "finance.return_on_investment", "health.bmi", "physics.kinetic_energy",
            "physics.free_fall_time", "physics.ohms_law_current", "chem.molar_mass", "chem.dilution_volume",
            "chem.ph_from_concentration", "maps.distance_between", "realestate.property_tax",
        ),
    ),
    (
        _b("detailed", "Return extended details.", ("with extended details", "")),
        (
            "weather.get_current", "weather.get_air_quality", "weather.get_historical",
            "currency.get_symbol", "currency.list_countries", "flights.get_status",
            "flights.get_baggage_allowance", "stocks.get_quote", "stocks.get_dividends",
            "recipes.get_nutrition", "movies.get_details", "music.get_lyrics", "sports.get_match_score",
            "sports.get_standings", "sports.get_player_stats", "translate.define_word", "geo.get_capital",
            "geo.get_population", "geo.get_area", "travel.visa_requirements", "time.get_current_time",
            "shop.get_product_reviews", "shipping.track_package", "shipping.estimate_cost",
            "social.get_follower_count", "translate.detect_language", "health.daily_calories",
            "health.target_heart_rate",
        ),
    ),
    (
        _e(
            "response_language",
            "Language of the response text.",
            ("English", "French", "German", "Spanish"),
            phrase="with the response in {v}",
            default="English",
        ),
        (
            "weather.get_current", "weather.get_forecast", "currency.list_countries", "flights.get_status",
            "movies.get_details", "sports.get_match_score", "sports.get_player_stats", "geo.get_capital",
            "travel.visa_requirements", "travel.plan_itinerary", "news.get_headlines",
            "recipes.get_nutrition", "recipes.scale", "maps.get_directions", "shop.get_product_reviews",
            "library.search_books",
        ),
    ),
    (
        _i("max_results", "Most results to return.", 2, 20, phrase="returning at most {v} results",
           default=10),
        (
            "flights.search", "hotels.search", "restaurants.find", "recipes.search", "shop.search_products",
            "realestate.search_listings", "car_rental.search", "news.search_articles",
            "library.search_books", "maps.find_nearby", "calendar.list_events", "stocks.get_price_history",
            "movies.get_showtimes",
        ),
    ),
    (
        _b(
            "send_confirmation",
            "Email a confirmation to the user.",
            ("", "without sending a confirmation email"),
            default=True,
        ),
        (
            "hotels.book_room", "hotels.cancel_booking", "restaurants.reserve_table", "movies.book_tickets",
            "library.reserve_book", "library.renew_loan", "car_rental.extend_booking", "shop.create_order",
            "calendar.create_event", "db.update_user", "db.delete_record", "email.send",
        ),
    ),
    (
        _b("announce", "Announce the change on the house speakers.", ("announcing it on the speakers", "")),
        ("home.set_thermostat", "home.set_lights", "home.lock_door", "music.play_song"),
    ),
)  # fmt: skip


def _with_extras(func: Func) -> Func:
    taken = {p.name for p in (*func.required, *func.optional)}
    extras = [p for p, names in _EXTRA_OPTIONAL if func.name in names and p.name not in taken]
    return replace(func, optional=(*func.optional, *extras)) if extras else func


#: Every function of the vocabulary, in a fixed order (the generator's draws index into it).
FUNCS: tuple[Func, ...] = tuple(_with_extras(f) for f in _BASE_FUNCS)

#: The functions of each family, families in order of first appearance.
FAMILIES: dict[str, tuple[Func, ...]] = {
    family: tuple(f for f in FUNCS if f.family == family) for family in dict.fromkeys(f.family for f in FUNCS)
}
