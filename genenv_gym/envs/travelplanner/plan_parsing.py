"""Text parsing shared by the TravelPlanner constraints, with the official evaluator's exact semantics.

The official evaluator (OSU-NLP-Group/TravelPlanner ``evaluation/`` and ``utils/func.py``) reads plan
fields with a few regular expressions. Two of them can backtrack quadratically on long strings, so they
are re-derived here as linear scans with the same results on every string:

- ``before_parenthesis(s)``: the part of ``s`` before its first ``(`` when that ``(`` is closed by a later
  ``)`` and no newline precedes it; otherwise ``s`` unchanged.
- ``name_and_city(s)``: ``"Name, City"`` split at the *last* comma; the name starts after the last newline
  before that comma; both are stripped, the city also loses a ``(...)`` suffix. ``("-", "-")`` when there
  is no comma or nothing follows the last comma.
- ``from_to(s)``: the ``A`` and ``B`` of the first ``from A to B`` (``B`` ends at a comma).

``check_plan`` finds the plans on which the official evaluator always raises (a day that is not a dict,
a missing or non-string ``current_city``, a non-string truthy field, a non-string accommodation), plus
over-long fields, which we refuse to scan.
"""

from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Mapping, Sequence

#: The official placeholder for unused days.
UNUSED_DAY = "You don't need to fill in the information for this or later days."
#: The day fields a plan is made of (besides ``days``).
PLAN_FIELDS = (
    "current_city",
    "transportation",
    "breakfast",
    "attraction",
    "lunch",
    "dinner",
    "accommodation",
)
MEALS = ("breakfast", "lunch", "dinner")
#: Longest field we scan; real fields are a few hundred characters.
MAX_FIELD_CHARS = 4096
LOCAL_CONSTRAINT_KEYS = ("house rule", "cuisine", "room type", "transportation")

# "from A to B" with B running to the next comma or the end: the official pattern (its look-ahead is always
# satisfied after the greedy B, so it is left out) is ``from\s+(.+?)\s+to\s+([^,]+)``. Searched as written
# it rescans the rest of the line from every "from" (4,096 characters of "from  " took 0.09 s, a plan of such
# fields seconds); ``from_to`` finds the same match from the " to " that can end each A.
_SPACES = re.compile(r"\s*")
_TO = re.compile(r"(?<=\s)to(?=\s)")
_NEWLINE = re.compile("\n")


#: The set of corrected-scoring deviations in force (see ``evaluate.DEVIATIONS``); empty = official.
Fixes = frozenset[str]
NO_FIXES: Fixes = frozenset()


class OfficialCrash(Exception):
    """The official evaluator raises on this input; the message says where and why."""


def filled(value: object) -> bool:
    """True for a value the official code treats as present: truthy and not ``"-"``."""
    return bool(value) and value != "-"


def blank(value: object) -> bool:
    """True for ``""`` or ``"-"`` (the official ``value in ['', '-']``)."""
    return value == "" or value == "-"


def before_parenthesis(text: str) -> str:
    """``text`` cut before its first closed ``(...)`` (official ``extract_before_parenthesis``)."""
    if not isinstance(text, str):
        raise OfficialCrash(f"expected a string, got {type(text).__name__}")
    opening = text.find("(")
    if opening < 0 or "\n" in text[:opening] or text.rfind(")") <= opening:
        return text
    return text[:opening]


def name_and_city(text: str) -> tuple[str, str]:
    """``(name, city)`` of ``"Name, City"`` (official ``get_valid_name_city``); ``("-", "-")`` if none."""
    if not isinstance(text, str):
        raise OfficialCrash(f"an entity must be a string, got {type(text).__name__}")
    comma = text.rfind(",")
    if comma < 0 or comma == len(text) - 1:
        return "-", "-"
    start = text.rfind("\n", 0, comma) + 1
    return text[start:comma].strip(), before_parenthesis(text[comma + 1 :].strip()).strip()


def from_to(text: str) -> tuple[str | None, str | None]:
    """``(A, B)`` of the first ``from A to B`` in ``text``; ``(None, None)`` when there is none."""
    ends, tos = _to_ends(text)
    newlines = [m.start() for m in _NEWLINE.finditer(text)] if "\n" in text else []
    start = text.find("from")
    while start != -1:
        spaces = _SPACES.match(text, start + 4).end() - start - 4
        for k in range(spaces, 0, -1):  # the greedy \s+ after "from", then shorter
            a = start + 4 + k
            if a >= len(text) or text[a] == "\n":
                continue
            line_end = newlines[i] if (i := bisect.bisect_left(newlines, a)) < len(newlines) else len(text)
            j = bisect.bisect_right(ends, a + 1)  # the first " to " whose spaces reach past A's first char
            if j < len(ends) and max(a + 1, tos[j][0]) <= line_end:
                return text[a : max(a + 1, tos[j][0])], _destination(text, tos[j][1])
        start = text.find("from", start + 1)
    return None, None


def _to_ends(text: str) -> tuple[list[int], list[tuple[int, int]]]:
    """The "to" that can follow an A: its spaces' start and its position, for each; and, sorted with them,
    the position of each "to" (an A ending at q matches when q lies in the spaces before one)."""
    ends, tos = [], []
    for match in _TO.finditer(text):
        after = _SPACES.match(text, match.end()).end()
        if after - match.end() >= 2 or (after < len(text) and text[after] != ","):
            before = match.start()
            while before > 0 and text[before - 1].isspace():
                before -= 1
            ends.append(match.start())
            tos.append((before, match.start()))
    return ends, tos


def _destination(text: str, to: int) -> str:
    """The ``[^,]+`` after ``to\\s+`` (the spaces greedy, giving one back when no other character follows)."""
    after = _SPACES.match(text, to + 2).end()
    if after < len(text) and text[after] != ",":
        comma = text.find(",", after)
        return text[after : comma if comma != -1 else len(text)]
    return text[after - 1]


def attraction_entries(value: str, fixes: Fixes = NO_FIXES) -> list[str]:
    """The attraction entries of a field: officially ``value.split(';')[:-1]`` (raw strings, an entry
    without a trailing ``;`` dropped); with the ``attraction_last_entry`` fix every ``;``-separated entry
    that is not blank or ``-``, stripped."""
    if "attraction_last_entry" not in fixes:
        return value.split(";")[:-1]
    return [entry.strip() for entry in value.split(";") if entry.strip() not in ("", "-")]


def transport_kind(text: str) -> str | None:
    """``Taxi``, ``Self-driving`` or ``Flight`` by keyword, in that priority (case-insensitive); else None."""
    lowered = text.lower()
    for keyword, kind in (("taxi", "Taxi"), ("self-driving", "Self-driving"), ("flight", "Flight")):
        if keyword in lowered:
            return kind
    return None


def route_cities(current_city: str, day: int) -> tuple[str, str] | None:
    """``(A, B)`` of a ``from A to B`` day with parentheses cut; None for a stay day (no ``from``).

    Raises OfficialCrash where the text says ``from`` but no ``from A to B`` parses (the official
    code then calls a regex on ``None``).
    """
    if "from" not in current_city:
        return None
    origin, destination = from_to(current_city)
    if origin is None or destination is None:
        raise OfficialCrash(f"day {day}: current_city {current_city[:80]!r} has 'from' but no 'from A to B'")
    return before_parenthesis(origin), before_parenthesis(destination)


def parse_query(query: Mapping) -> dict:
    """A query row (HF columns; Python-literal strings allowed) as a dict with typed fields.

    Needs ``org``, ``dest``, ``days``, ``visiting_city_number``, ``people_number``, ``budget`` and
    ``local_constraint``; ``level`` defaults to ``""``. Raises ValueError on a malformed query.
    """
    try:
        local = query.get("local_constraint") or {}
        if isinstance(local, str):
            local = ast.literal_eval(local)
        if not isinstance(local, Mapping):
            raise ValueError("local_constraint is not a mapping")
        parsed = {
            "org": str(query["org"]),
            "dest": str(query["dest"]),
            "days": int(query["days"]),
            "visiting_city_number": int(query["visiting_city_number"]),
            "people_number": int(query["people_number"]),
            "budget": float(query["budget"]),
            "level": str(query.get("level", "")),
            "local_constraint": {key: local.get(key) for key in LOCAL_CONSTRAINT_KEYS},
        }
    except (KeyError, TypeError, ValueError, SyntaxError) as exc:
        raise ValueError(f"malformed TravelPlanner query: {exc!r}") from exc
    cuisine = parsed["local_constraint"]["cuisine"]
    if cuisine is not None and not (isinstance(cuisine, Sequence) and not isinstance(cuisine, str)):
        raise ValueError(f"malformed TravelPlanner query: cuisine {cuisine!r} is not a list")
    return parsed


def gold_plan(record: Mapping) -> list[dict]:
    """The annotated plan (list of day dicts) of a train row; ``annotated_plan`` is ``[query, plan]``."""
    annotated = record["annotated_plan"]
    if isinstance(annotated, str):
        annotated = ast.literal_eval(annotated)
    return list(annotated[1])


def check_plan(plan: object, days: int) -> str | None:
    """Why the official evaluator cannot score this delivered plan at all, or None if it can be evaluated.

    Only the first ``days`` entries matter (the official code never looks further).
    """
    if not isinstance(plan, (list, tuple)):
        return f"the plan is a {type(plan).__name__}, not a list of days"
    for index, day in enumerate(plan[: max(days, 0)]):
        where = f"day {index + 1}"
        if not isinstance(day, Mapping):
            return f"{where} is a {type(day).__name__}, not a dict"
        if "current_city" not in day:
            return f"{where} has no current_city"
        for key in PLAN_FIELDS:
            if key not in day:
                continue
            value = day[key]
            if isinstance(value, str):
                if len(value) > MAX_FIELD_CHARS:
                    return f"{where} {key} is {len(value)} characters long (limit {MAX_FIELD_CHARS})"
            elif key in ("current_city", "accommodation") or value:
                return f"{where} {key} is a {type(value).__name__}, not a string"
    return None
