"""Does a TravelPlanner query's text say what its fields say? The meaning check on LLM-written queries.

The text is read back into fields: the origin and destination named (the origin first), the people
count (``a group of 4``, ``for two``, ``solo``), the trip length (``5-day``, ``a week``), the number of
cities, the dates (``March 16th to March 18th, 2022``, ``the 8th to the 10th of March``), every dollar
amount (``$1,700``, ``3.1k dollars``, ``three thousand dollars``), and each local constraint the text
states (house rule, cuisines, room type, transportation; ``party of 5`` is a group, not a house rule).
A stated value that differs from its field, a field the text leaves out (origin, destination, budget,
dates, a constraint, more than one person), or a constraint the text states but the fields lack is a
problem. The official queries phrase these the same ways (measured: ``benchmarks/semantic_screen.py``).
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterable, Mapping

from genenv_gym.text.months import MONTH_NUMBERS, MONTHS
from genenv_gym.text.number_words import NUMBER_WORDS, numerals, word_numbers
from genenv_gym.text.polarity import asserted_text

_MONTH = "(" + "|".join(MONTHS) + ")"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_ORD = r"(\d{1,2})(?:st|nd|rd|th)"
_NUM = r"(\d+|" + "|".join(NUMBER_WORDS) + r")"
_DATE_PATTERNS = (
    re.compile(rf"\b{_MONTH}\s+{_DAY}\b(?!\s*(?:people|persons|days|cities|travel))"),
    re.compile(rf"\b(?:the\s+)?{_ORD}\s+of\s+{_MONTH}\b"),
    re.compile(r"\b(2\d{3})-(\d{2})-(\d{2})\b"),
)
#: A bare ordinal closing a range whose month was named before it ("March 9th and 13th").
_RANGE_END = re.compile(rf"\b(?:to|and|through|until|till|-|–)\s+(?:the\s+)?{_ORD}\b(?!\s+of\s+{_MONTH})")
#: A bare ordinal opening a range whose month is named after it ("the 8th to the 10th of March").
_RANGE_START = re.compile(
    rf"\b{_ORD}\s+(?:to|and|through|until|till|-|–)\s+(?:the\s+)?{_ORD}\s+(?:of\s+)?{_MONTH}\b"
)
_YEAR = re.compile(r"\b(20\d{2}|19\d{2})\b")

_PEOPLE_PATTERNS = (
    re.compile(rf"\b(?:group|party|family|team|crew) of {_NUM}\b"),
    re.compile(
        rf"\b{_NUM}(?:\s+|-)(?:people|persons|person|travell?ers|individuals|adults|guests|friends|"
        r"of us|members|passengers|pax)\b"
    ),
    re.compile(
        rf"\bfor {_NUM}\b(?![-\s]+(?:days?|nights?|weeks?|cities|city|different|distinct|separate|"
        r"unique|more|hours?|dollars|usd|percent|of|[a-z]+ cities))"
    ),
    re.compile(rf"\b{_NUM}-(?:person|people|traveller|traveler)\b"),
)
_SOLO = re.compile(
    r"\b(?:solo|alone|single[- ]person|single traveller|single traveler|one person|an individual|by myself|"
    r"just me|only me|for myself|a single person|one traveller|one traveler)\b"
)
_PAIR = re.compile(
    r"\b(?:a pair|a couple|the two of us|both of us|my partner and i|my wife and i|"
    r"my husband and i)\b"
)

_DAYS = (
    re.compile(rf"\b{_NUM}(?:-|\s+)days?\b"),
    re.compile(rf"\b{_NUM}(?:-|\s+)nights?\b"),
)
_WEEK = re.compile(r"\b(?:a|one|1)(?:-|\s+)week\b|\bweek-long\b|\bweeklong\b|\bweek long\b")
_CITY_COUNT = re.compile(
    rf"\b{_NUM}\s+(?:different\s+|distinct\s+|separate\s+|unique\s+|other\s+|more\s+)?cities\b"
)
_MONEY = (
    re.compile(r"\$\s?((?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:\s?[kK]\b)?)"),
    re.compile(
        r"((?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:\s?[kK]\b)?)\s*(?:us\s+)?(?:dollars|usd|bucks)\b",
        re.IGNORECASE,
    ),
    re.compile(r"\busd\s?((?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)", re.IGNORECASE),
)
_MONEY_WORDS = re.compile(r"\b((?:[a-z]+[\s-]+){1,8}?)(?:us\s+)?dollars\b")
_NEGATION = re.compile(
    r"\b(?:no|not|non|never|without|avoid\w*|nor|none|neither|free of|rather not|instead of|"
    r"refrain\w*|exclud\w*|forbid\w*|prohibit\w*|disallow\w*|ban\w*)\b|n't\b|\bnon-"
)

#: house rule -> the words that state it (the text must not negate them: there is no "no pets" field).
_HOUSE_RULE_WORDS = {
    "smoking": r"smok\w*|cigarettes?",
    "parties": r"part(?:y|ies)(?! of)|host\w* (?:a )?part\w*|celebrations?",
    "children under 10": r"children|child|kids?|toddlers?|young ones|under(?: the age of)? 10|infants?|"
    r"babies|baby",
    "visitors": r"visitors?|guests? (?:over|to visit)|have guests|host guests|receive guests",
    "pets": r"pets?|pet-friendly|dogs?|cats?|animals?",
}
_ROOM_WORDS = {
    "entire room": r"entire (?:room|home|apartment|place|house|unit|flat)s?|"
    r"whole (?:room|home|apartment|place|house|unit|flat)s?|rooms? to (?:ourselves|myself|themselves)",
    "private room": r"private rooms?",
    "shared room": r"shared rooms?|share a room|sharing a room|room-shar\w*|dormitor\w*|dorms?",
}
_FLIGHT = re.compile(
    r"\b(?:flights?|fly|flying|flown|flew|planes?|airplanes?|air travel|airlines?|airports?|"
    r"by air|aviation)\b"
)
_DRIVE = re.compile(
    r"\b(?:self[- ]?driv\w*|self[- ]?drive|driv\w* ourselves|driv\w* myself|drive\w*|"
    r"driving|car rentals?|rent(?:al|ing)? a car|road trip)\b"
)
_TAXI = re.compile(r"\b(?:taxis?|cabs?)\b")
_CUISINES = ("American", "Chinese", "French", "Indian", "Italian", "Mediterranean", "Mexican")
_OTHER_CUISINES = (
    "Japanese",
    "Thai",
    "Korean",
    "Vietnamese",
    "Greek",
    "Spanish",
    "German",
    "Turkish",
    "Ethiopian",
    "Caribbean",
    "Cajun",
    "Lebanese",
    "Moroccan",
    "Brazilian",
    "Peruvian",
    "Vegan",
    "Vegetarian",
    "Seafood",
    "Sushi",
    "Pizza",
    "Barbecue",
    "BBQ",
    "Tex-Mex",
    "Fast Food",
    "Cafe",
    "Bakery",
    "Desserts",
)
#: The window (characters) before a word in which a negation turns it around.
_NEG_WINDOW = 60


def _number(token: str) -> int | None:
    if token.isdigit():
        return int(token)
    return NUMBER_WORDS.get(token)


def _clauses_before(text: str, start: int) -> str:
    """The text of the current clause before ``start`` (bounded by ``_NEG_WINDOW``)."""
    window = text[max(0, start - _NEG_WINDOW) : start]
    cut = max(window.rfind("."), window.rfind(";"), window.rfind("?"), window.rfind("!"), window.rfind(","))
    return window[cut + 1 :]


def _negated(text: str, match: re.Match) -> bool:
    before = _clauses_before(text, match.start())
    return bool(_NEGATION.search(before)) or text[max(0, match.start() - 4) : match.start()].endswith("non-")


def _mask(text: str, names: Iterable[str]) -> str:
    """``text`` with each of ``names`` (longest first, whole words) blanked out."""
    for name in sorted({n for n in names if n}, key=len, reverse=True):
        text = re.sub(rf"(?<!\w){re.escape(name.lower())}(?!\w)", " " * len(name), text)
    return text


def _mentions(text: str, name: str) -> list[int]:
    return [m.start() for m in re.finditer(rf"(?<!\w){re.escape(name.lower())}(?!\w)", text)]


def stated_people(text: str) -> set[int]:
    """The people counts ``text`` states (empty when it states none)."""
    counts: set[int] = set()
    for pattern in _PEOPLE_PATTERNS:
        for match in pattern.finditer(text):
            value = _number(match.group(1))
            if value is not None and value < 1000:
                counts.add(value)
    if _SOLO.search(text):
        counts.add(1)
    if _PAIR.search(text) or re.search(
        r"\bfor (?:the )?two\b(?![-\s]+(?:days?|nights?|weeks?|cities))", text
    ):
        counts.add(2)
    return counts


def stated_days(text: str) -> set[int]:
    """The trip lengths (days) ``text`` states; ``N nights`` counts as ``N + 1`` days."""
    days: set[int] = set()
    for kind, pattern in enumerate(_DAYS):
        for match in pattern.finditer(text):
            value = _number(match.group(1))
            if value is not None and value < 400:
                days.add(value + kind)
    for match in re.finditer(rf"\b{_NUM}(?:-|\s+)weeks?\b", text):
        value = _number(match.group(1))
        if value is not None and value < 50:
            days.add(7 * value)
    if _WEEK.search(text):
        days.add(7)
    return days


def stated_dates(text: str, year: int) -> list[datetime.date | None]:
    """The calendar dates ``text`` names, in order of appearance (None for an impossible date)."""
    found: list[tuple[int, datetime.date | None]] = []
    last_month: int | None = None
    spans: list[tuple[int, int]] = []
    for index, pattern in enumerate(_DATE_PATTERNS):
        for match in pattern.finditer(text):
            if index == 0:
                month, day, y = MONTH_NUMBERS[match.group(1)], int(match.group(2)), year
            elif index == 1:
                month, day, y = MONTH_NUMBERS[match.group(2)], int(match.group(1)), year
            else:
                y, month, day = int(match.group(1)), int(match.group(2)), int(match.group(3))
            found.append((match.start(), _date(y, month, day)))
            spans.append(match.span())
    for match in _RANGE_START.finditer(text):
        if not any(a <= match.start(1) < b for a, b in spans):
            found.append((match.start(1), _date(year, MONTH_NUMBERS[match.group(3)], int(match.group(1)))))
            spans.append(match.span(1))
    found.sort(key=lambda item: item[0])
    for match in _RANGE_END.finditer(text):
        if any(a <= match.start(1) < b for a, b in spans):
            continue
        earlier = [d for pos, d in found if pos < match.start() and d is not None]
        if earlier:
            last_month = earlier[-1].month
            found.append((match.start(1), _date(year, last_month, int(match.group(1)))))
    found.sort(key=lambda item: item[0])
    return [d for _, d in found]


def _date(year: int, month: int, day: int) -> datetime.date | None:
    try:
        return datetime.date(year, month, day)
    except ValueError:
        return None


def stated_amounts(text: str) -> list[float]:
    """The dollar amounts ``text`` states (``$1,700``, ``1.7k dollars``, ``one thousand dollars``)."""
    amounts: list[float] = []
    for pattern in _MONEY:
        for match in pattern.finditer(text):
            raw = match.group(1).replace(" ", "")
            scale = 1000.0 if raw[-1:].lower() == "k" else 1.0
            values = numerals(raw.rstrip("kK"))
            if values:
                amounts.append(values[0] * scale)
    for match in _MONEY_WORDS.finditer(text):
        words = word_numbers(match.group(1))
        if words and not re.search(r"\d", match.group(1)):
            amounts.append(words[-1])
    return amounts


def stated_house_rules(text: str) -> tuple[set[str], set[str]]:
    """The house rules ``text`` asks for, and those it states against (``no pets``)."""
    wanted: set[str] = set()
    against: set[str] = set()
    for rule, words in _HOUSE_RULE_WORDS.items():
        for match in re.finditer(rf"\b(?:{words})\b", text):
            if (
                rule == "children under 10"
                and re.match(r"\bunder 10\b", text[match.start() :]) is None
                and re.search(r"\b(?:children|child|kids?)\b", match.group(0)) is None
                and not re.search(r"toddler|infant|bab|young", match.group(0))
            ):
                continue
            (against if _negated(text, match) else wanted).add(rule)
    return wanted, against


def stated_room_types(text: str) -> set[str]:
    """The room types ``text`` asks for (``not shared room`` when it turns shared rooms down)."""
    rooms: set[str] = set()
    for room, words in _ROOM_WORDS.items():
        for match in re.finditer(rf"\b(?:{words})\b", text):
            if room == "shared room" and _negated(text, match):
                rooms.add("not shared room")
            elif room != "shared room" and _negated(text, match):
                rooms.add(f"not {room}")
            else:
                rooms.add(room)
    if re.search(r"\bnot shared rooms?\b|\bnon-shared rooms?\b|\bunshared rooms?\b", text):
        rooms.discard("shared room")
        rooms.add("not shared room")
    return rooms


def stated_transportation(text: str) -> set[str]:
    """The transportation constraints ``text`` states: ``no flight``, ``no self-driving``, or a wish for a
    mode (``flight``, ``self-driving``, ``taxi``) the fields cannot hold."""
    modes: set[str] = set()
    for pattern, name in ((_FLIGHT, "flight"), (_DRIVE, "self-driving"), (_TAXI, "taxi")):
        for match in pattern.finditer(text):
            modes.add(f"no {name}" if _negated(text, match) else name)
    return modes


def stated_cuisines(text: str) -> set[str]:
    """The cuisines of the official list ``text`` names, and any other cuisine it asks for."""
    found = {c for c in _CUISINES if re.search(rf"\b{c.lower()}\b", text)}
    found |= {c for c in _OTHER_CUISINES if re.search(rf"\b{re.escape(c.lower())}\b", text)}
    return found


def query_problems(query: Mapping, places: Iterable[str] = ()) -> list[str]:
    """Where a query's text disagrees with its fields (see the module docstring); ``places`` are the city
    and state names of the database (a named place other than the origin and destination is a problem)."""
    raw = asserted_text(str(query.get("query", "")))
    text = " ".join(raw.lower().split())
    org, dest = str(query.get("org", "")), str(query.get("dest", ""))
    problems: list[str] = []
    # where from, where to
    org_at = _mentions(_mask(text, [dest] if org.lower() in dest.lower() and org != dest else []), org)
    dest_at = _mentions(_mask(text, [org] if dest.lower() in org.lower() else []), dest)
    if not org_at:
        problems.append(f"the query does not name its origin {org!r}")
    if not dest_at:
        problems.append(f"the query does not name its destination {dest!r}")
    if org_at and dest_at and min(dest_at) < min(org_at) and not _origin_cue_first(text, org, dest):
        problems.append(f"the query names {dest!r} before {org!r}: origin and destination look swapped")
    unnamed = _mask(text, [org, dest, f"{dest} state", f"{org} state"])
    others = sorted(
        {
            p
            for p in places
            if len(p) > 3
            and p not in (org, dest)
            and re.search(rf"(?<!\w){re.escape(p)}(?!\w)", raw)
            and re.search(rf"(?<!\w){re.escape(p.lower())}(?!\w)", unnamed)
        }
    )
    if others:
        problems.append(f"the query names {others[:3]} besides its origin {org!r} and destination {dest!r}")
    masked = _mask(text, [p for p in (org, dest) if p])
    # people
    people = int(query.get("people_number", 0) or 0)
    counts = stated_people(masked)
    wrong = sorted(c for c in counts if c != people)
    if wrong:
        problems.append(f"the query speaks of {wrong[0]} people, the fields of {people}")
    elif not counts and people > 1:
        problems.append(f"the query does not say the trip is for {people} people")
    # days and cities
    days = int(query.get("days", 0) or 0)
    wrong = sorted(d for d in stated_days(masked) if d != days)
    if wrong:
        problems.append(f"the query speaks of a {wrong[0]}-day trip, the fields of {days} days")
    cities = int(query.get("visiting_city_number", 0) or 0)
    wrong_cities = sorted(
        v for m in _CITY_COUNT.finditer(masked) if (v := _number(m.group(1))) is not None and v != cities
    )
    if wrong_cities:
        problems.append(f"the query visits {wrong_cities[0]} cities, the fields {cities}")
    # dates
    problems += _date_problems(masked, list(query.get("date") or ()))
    # budget
    budget = float(query.get("budget", 0) or 0)
    amounts = stated_amounts(masked)
    if not amounts:
        problems.append(f"the query does not state the budget {budget:g}")
    elif any(abs(a - budget) > 0.5 for a in amounts):
        other = next(a for a in amounts if abs(a - budget) > 0.5)
        problems.append(f"the query states ${other:,.0f}, the budget field is {budget:g}")
    # local constraints
    local = query.get("local_constraint") or {}
    problems += _constraint_problems(masked, local)
    return problems


def _origin_cue_first(text: str, org: str, dest: str) -> bool:
    """Whether the origin is named with a departure word even though the destination is named first."""
    cue = r"(?:from|departing|leaving|starting (?:in|from|at)|setting off from|originating from|out of)"
    return bool(re.search(rf"{cue}\s+{re.escape(org.lower())}\b", text))


def _date_problems(text: str, dates: list[str]) -> list[str]:
    if not dates:
        return []
    try:
        first, last = datetime.date.fromisoformat(dates[0]), datetime.date.fromisoformat(dates[-1])
    except ValueError:
        return []
    years = {int(y) for y in _YEAR.findall(text)}
    problems = []
    if years - {first.year, last.year}:
        problems.append(
            f"the query names the year {sorted(years - {first.year})[0]}, the dates are in {first.year}"
        )
    stated = stated_dates(text, first.year)
    if not stated:
        return [*problems, f"the query does not state the dates {dates[0]} to {dates[-1]}"]
    if any(d is None for d in stated):
        return [*problems, "the query names a date that does not exist"]
    outside = [d for d in stated if d is not None and not first <= d <= last]
    if outside:
        problems.append(
            f"the query names {outside[0].isoformat()}, outside the dates {dates[0]} to {dates[-1]}"
        )
    elif stated[0] != first:
        problems.append(f"the query starts the trip on {stated[0].isoformat()}, the dates on {dates[0]}")
    elif len(stated) > 1 and stated[-1] != last:
        problems.append(f"the query ends the trip on {stated[-1].isoformat()}, the dates on {dates[-1]}")
    return problems


def _constraint_problems(text: str, local: Mapping) -> list[str]:
    problems = []
    rule = local.get("house rule")
    wanted, against = stated_house_rules(text)
    if against:
        problems.append(
            f"the query asks for accommodations without {sorted(against)[0]} (no such constraint exists)"
        )
    if rule is not None and rule not in wanted:
        problems.append(f"the query does not ask for accommodations that allow {rule}")
    extra = sorted(wanted - {rule})
    if extra:
        problems.append(f"the query asks for {extra[0]} allowed, the house rule field is {rule!r}")
    room = local.get("room type")
    rooms = stated_room_types(text)
    if room is not None and room not in rooms:
        problems.append(f"the query does not ask for {room}")
    if rooms - {room}:
        problems.append(f"the query asks for {sorted(rooms - {room})[0]}, the room type field is {room!r}")
    transport = local.get("transportation")
    modes = stated_transportation(text)
    if transport is not None and transport not in modes:
        problems.append(f"the query does not state the transportation constraint {transport!r}")
    if modes - {transport}:
        problems.append(
            f"the query states {sorted(modes - {transport})[0]!r}, the transportation field is {transport!r}"
        )
    cuisines = set(local.get("cuisine") or ())
    named = stated_cuisines(text)
    if cuisines - named:
        problems.append(f"the query does not ask for {sorted(cuisines - named)[0]} cuisine")
    if named - cuisines:
        problems.append(f"the query asks for {sorted(named - cuisines)[0]} cuisine, absent from the fields")
    return problems
