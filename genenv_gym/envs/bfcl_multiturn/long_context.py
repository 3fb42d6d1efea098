"""Filler data for BFCL multi-turn's ``long_context`` mode, generated here (seeded).

In long-context mode the official backends pad their answers and their state with bulky
distractor data (extra files and file text, extra tickers and transactions, car metadata,
parking-brake instructions, intermediary cities, extra credit cards and bookings). We do not
ship the official filler values: :func:`filler` builds values of the same shapes and sizes
from a fixed seed, so a long-context episode is as long and as deterministic as the official
one, and the state/response verdicts (which compare our model run with our ground-truth
run) are unaffected. :func:`load_official_filler` swaps in the official values read from an
unpacked bfcl-eval ``long_context.py`` (parsed with ``ast``, never executed) for runs that
must reproduce the official text byte for byte, as the cross-check scripts do.

``FILES_TAIL_USED`` is not filler but behaviour: the official loader does not extend the
contents of files with these names.
"""

from __future__ import annotations

import ast
import datetime
import json
import random
import string
from collections.abc import KeysView
from pathlib import Path
from typing import Any

FILES_TAIL_USED: tuple[str, ...] = (
    "log.txt",
    "report.txt",
    "report.csv",
    "DataSet1.csv",
    "file1.txt",
    "finance_report.txt",
    "config.py",
    "Q4_summary.doc",
    "file3.txt",
)

_SEED = 20240917
_START = datetime.datetime(2023, 9, 14)
_NAMES = (
    "WATCH_LIST_EXTENSION",
    "TRANSACTION_HISTORY_EXTENSION",
    "MA_5_EXTENSION",
    "MA_20_EXTENSION",
    "TECHNOLOGY_EXTENSION",
    "AUTOMOBILE_EXTENSION",
    "ORDER_DETAIL_EXTENSION",
    "FILE_CONTENT_EXTENSION",
    "POPULATE_FILE_EXTENSION",
    "CAR_STATUS_METADATA_EXTENSION",
    "LONG_WEATHER_EXTENSION",
    "PARKING_BRAKE_INSTRUCTION",
    "INTERMEDIARY_CITIES",
    "CREDIT_CARD_EXTENSION",
    "BOOKING_RECORD_EXTENSION",
)
_cache: dict[str, Any] = {}
#: id -> (filler value, its JSON text or None when not serialisable), for ``filler_json``.
_json: dict[int, tuple[Any, str | None]] = {}
#: Where the filler in use comes from: "generated", or the path of the official file loaded.
_source: list[str] = ["generated"]

_WORDS = {
    "finance": [
        "revenue",
        "growth",
        "margin",
        "quarter",
        "fiscal",
        "earnings",
        "cost",
        "operating",
        "cash",
        "flow",
        "balance",
        "investment",
        "capital",
        "expenditure",
        "dividend",
        "segment",
        "demand",
        "market",
        "share",
        "guidance",
        "outlook",
        "profitability",
        "liquidity",
        "debt",
        "equity",
        "expansion",
        "performance",
        "forecast",
    ],
    "car": [
        "engine",
        "transmission",
        "sensor",
        "module",
        "firmware",
        "calibration",
        "torque",
        "chassis",
        "suspension",
        "battery",
        "inverter",
        "coolant",
        "airbag",
        "seatbelt",
        "camera",
        "radar",
        "lane",
        "assist",
        "steering",
        "climate",
        "infotainment",
        "warranty",
        "service",
        "interval",
        "odometer",
        "tire",
        "alignment",
    ],
    "brake": [
        "parking",
        "brake",
        "lever",
        "pedal",
        "cable",
        "caliper",
        "drum",
        "incline",
        "slope",
        "release",
        "engage",
        "vehicle",
        "wheel",
        "hold",
        "safety",
        "mechanic",
        "inspection",
        "tension",
        "lubricate",
        "weather",
        "emergency",
        "stop",
        "gear",
        "transmission",
        "rolling",
        "hill",
    ],
}


def _sentences(rng: random.Random, topic: str, length: int) -> str:
    """Pseudo-English text of about ``length`` characters on a topic."""
    words = _WORDS[topic]
    out: list[str] = []
    size = 0
    while size < length:
        sentence = " ".join(rng.choice(words) for _ in range(rng.randint(8, 18)))
        sentence = sentence[0].upper() + sentence[1:] + "."
        out.append(sentence)
        size += len(sentence) + 1
    return " ".join(out)[:length]


def _ticker(rng: random.Random) -> str:
    return "".join(rng.choice(string.ascii_uppercase) for _ in range(rng.randint(1, 5)))


def _card_number(rng: random.Random) -> str:
    return "9" + "".join(rng.choice(string.digits) for _ in range(15))


def _generate() -> dict[str, Any]:
    """Our filler values, same shapes and sizes as the official ones."""
    rng = random.Random(_SEED)
    data: dict[str, Any] = {}
    data["WATCH_LIST_EXTENSION"] = [_ticker(rng) for _ in range(1001)]
    history = []
    for _ in range(1000):
        moment = _START + datetime.timedelta(seconds=rng.randint(0, 366 * 86400 - 1))
        stamp = f"{moment:%Y-%m-%d %H:%M:%S}.{rng.randint(0, 999999):06d}"
        kind = rng.choice(["deposit", "withdrawal"])
        history.append({"type": kind, "amount": round(rng.uniform(100, 10000), 2), "timestamp": stamp})
    data["TRANSACTION_HISTORY_EXTENSION"] = history
    data["MA_5_EXTENSION"] = [round(rng.uniform(200, 250), 2) for _ in range(2000)]
    data["MA_20_EXTENSION"] = [round(rng.uniform(200, 250), 2) for _ in range(2000)]
    data["TECHNOLOGY_EXTENSION"] = ["AAPL", "GOOG", "MSFT", "NVDA"] + [_ticker(rng) for _ in range(996)]
    data["AUTOMOBILE_EXTENSION"] = ["TSLA", "F", "GM"] + [_ticker(rng) for _ in range(997)]
    sections = (
        "company_overview",
        "market_analysis",
        "technical_analysis",
        "financial_highlights",
        "risks",
        "future_outlook",
        "historical_performance",
        "sustainability_initiatives",
    )
    data["ORDER_DETAIL_EXTENSION"] = {
        key: "\n    {symbol} " + _sentences(rng, "finance", 880) + "\n    " for key in sections
    }
    data["FILE_CONTENT_EXTENSION"] = _sentences(rng, "finance", 3251)
    data["POPULATE_FILE_EXTENSION"] = [f"image_{rng.getrandbits(63)}.jpg" for _ in range(30)]
    data["CAR_STATUS_METADATA_EXTENSION"] = _sentences(rng, "car", 6503)
    weather = {}
    for day in range(1, 16):
        weather[f"-{day}_day"] = {
            "windSpeed": float(rng.randint(8, 22)),
            "humidity": float(rng.randint(60, 90)),
            "precipitation": rng.randint(0, 12) / 2,
            "uvIndex": rng.randint(4, 8),
            "visibility": rng.randint(14, 20) / 2,
            "airPressure": float(rng.randint(1000, 1025)),
            "dewPoint": rng.randint(12, 26) / 2,
        }
    data["LONG_WEATHER_EXTENSION"] = weather
    data["PARKING_BRAKE_INSTRUCTION"] = _sentences(rng, "brake", 9710)
    stems = [
        "Oak",
        "Pine",
        "Maple",
        "Cedar",
        "Birch",
        "Willow",
        "Elm",
        "Ash",
        "River",
        "Stone",
        "Silver",
        "Gold",
        "Crystal",
        "Shadow",
        "Sun",
        "Moon",
        "Star",
        "Fox",
        "Eagle",
        "Meadow",
    ]
    tails = [
        "ville",
        "burg",
        "ton",
        "field",
        "dale",
        "wood",
        "port",
        "haven",
        "ridge",
        "crest",
        "brook",
        "side",
        "view",
        "mont",
    ]
    data["INTERMEDIARY_CITIES"] = [rng.choice(stems) + rng.choice(tails) for _ in range(826)]
    first = ["Ava", "Ben", "Cleo", "Dan", "Eli", "Fay", "Gus", "Hana", "Ivo", "Jill", "Kai", "Lea"]
    last = ["Stone", "Reed", "Vale", "Moss", "Park", "Lane", "Hart", "Cole"]
    cards: dict[str, dict[str, Any]] = {}
    while len(cards) < 22:
        number = _card_number(rng)
        cards[number] = {
            "card_number": number,
            "expiration_date": f"{rng.randint(1, 12):02d}/{rng.randint(24, 30)}",
            "cardholder_name": f"{rng.choice(first)} {rng.choice(last)}",
            "card_verification_number": rng.randint(100, 999),
            "balance": float(rng.randrange(1000, 20000, 500)),
        }
    data["CREDIT_CARD_EXTENSION"] = cards
    airports = ["SFO", "LAX", "JFK", "ORD", "SEA", "BOS", "ATL", "DFW", "MIA", "DEN"]
    bookings = {}
    numbers = list(cards)
    for i in range(16):
        origin, dest = rng.sample(airports, 2)
        bookings[f"booking_{700 + i}"] = {
            "card_id": rng.choice(numbers),
            "travel_date": f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
            "travel_from": origin,
            "travel_to": dest,
            "travel_class": rng.choice(["economy", "business", "first"]),
            "travel_cost": float(rng.randrange(200, 3000, 50)),
            "transaction_id": f"trans_{700 + i:03d}",
        }
    data["BOOKING_RECORD_EXTENSION"] = bookings
    return data


def filler(name: str) -> Any:
    """The long-context filler value ``name`` (ours unless official values were loaded).

    Callers must not mutate the value; the backends copy what they put into their state.
    """
    if not _cache:
        _cache.update(_generate())
    value = _cache[name]
    if id(value) not in _json:
        try:
            _json[id(value)] = (value, json.dumps(value))
        except (TypeError, ValueError):
            _json[id(value)] = (value, None)
    return value


def filler_ids() -> KeysView[int]:
    """The ids of the filler values handed out by ``filler`` so far (see ``filler_json``)."""
    return _json.keys()


def filler_json(value: Any) -> str | None:
    """``json.dumps(value)``, encoded once, when ``value`` is a filler value handed out by ``filler``
    (the very object, never mutated); None for any other value."""
    known = _json.get(id(value))
    return known[1] if known is not None and known[0] is value else None


#: The largest ``long_context.py`` read (the official one is about 0.2 MB).
MAX_FILLER_BYTES = 16 * 1024 * 1024


def load_official_filler(path: str | Path) -> None:
    """Use the filler values of an official bfcl-eval ``long_context.py`` from now on, in this process.

    The file is parsed with ``ast``; only top-level ``NAME = <literal>`` assignments of the
    known names are read (``ast.literal_eval``), nothing is executed. It must be a regular file of at
    most ``MAX_FILLER_BYTES``. The filler is process-wide: every env of the process shows it, so loading
    a different file while one is in use raises (``reset_filler`` first); loading the same one again
    does nothing.
    """
    path = Path(path)
    if not path.is_file() or path.stat().st_size > MAX_FILLER_BYTES:
        raise ValueError(f"{path}: not a regular file of at most {MAX_FILLER_BYTES} bytes")
    resolved = str(path.resolve())
    if _source[0] == resolved:
        return
    if _source[0] != "generated":
        raise ValueError(
            f"the official filler {_source[0]} is in use in this process (every env of it shows it); "
            "call long_context.reset_filler() before loading another"
        )
    tree = ast.parse(path.read_text(encoding="utf-8"))
    values: dict[str, Any] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and target.id in _NAMES:
                values[target.id] = ast.literal_eval(node.value)
    missing = [n for n in _NAMES if n not in values]
    if missing:
        raise ValueError(f"{path}: no literal value for {', '.join(missing)}")
    _cache.clear()
    _json.clear()
    _cache.update(values)
    _source[0] = resolved


def reset_filler() -> None:
    """Go back to our own generated filler."""
    _cache.clear()
    _json.clear()
    _source[0] = "generated"


def filler_source() -> str:
    """``"generated"`` (our filler) or the resolved path of the official ``long_context.py`` in use."""
    return _source[0]
