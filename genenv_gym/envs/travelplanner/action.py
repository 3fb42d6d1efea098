"""Agent text -> the official parsed plan (a list of day dicts), and a plan rendered back as text.

Two formats are accepted:

- **JSON**: a list of day dicts in the official parsed-plan format (``days``, ``current_city``,
  ``transportation``, ``breakfast``, ``attraction``, ``lunch``, ``dinner``, ``accommodation``), bare, in a
  Markdown code fence, wrapped as ``{"plan": [...]}``, or between the first ``[`` and the last ``]`` of the
  text. The list is graded as written (the evaluator itself fails malformed days with a reason).
- **Text**: the day-by-day format the sole-planning prompt asks for (``Day N:`` then ``Current City:``,
  ``Transportation:``, ``Breakfast:``, ``Attraction:``, ``Lunch:``, ``Dinner:``, ``Accommodation:`` lines).
  Parsed leniently, doing by rule what the official GPT-4 conversion (``postprocess/openai_request.py``)
  is told to do: Markdown bullets, ``#`` and ``**`` around headers and keys are ignored, keys are
  case-insensitive (``Attractions``/``Accommodations`` too), a missing field or an empty / ``None`` /
  ``N/A`` value becomes ``-``, and attractions become ``Name, City;`` entries, each ended by ``;`` (a
  trailing ``.`` after an entity is dropped, as in the official prompt's own example). When the day
  numbering starts again (a draft, then the final plan), the last run of days is the plan.

Anything else is not a plan: ``parse_plan`` returns ``(None, None, reason)`` and the plan counts as not
delivered. Parsing is linear in the text and never executes it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence

from genenv_gym.envs.travelplanner.plan_parsing import PLAN_FIELDS

#: Longest action text parsed (the env's action space allows as much).
MAX_PLAN_CHARS = 100_000
#: Text-format key prefix (lower case) -> official field.
_TEXT_KEYS = (
    ("current", "current_city"),
    ("transport", "transportation"),
    ("breakfast", "breakfast"),
    ("attraction", "attraction"),
    ("lunch", "lunch"),
    ("dinner", "dinner"),
    ("accommodation", "accommodation"),
)
_LABELS = {
    "current_city": "Current City",
    "transportation": "Transportation",
    "breakfast": "Breakfast",
    "attraction": "Attraction",
    "lunch": "Lunch",
    "dinner": "Dinner",
    "accommodation": "Accommodation",
}
_LEAD = " \t#*>-•_`"
_TRAIL = " \t*_`"
_DAY = re.compile(r"day\s{0,3}(\d{1,4})\b", re.IGNORECASE)
_FIELD = re.compile(
    r"(current\s{1,3}city|transportations?|breakfasts?|attractions?|lunch(?:es)?|dinners?|accommodations?)"
    r"[\s*_]{0,6}:(.*)",
    re.IGNORECASE | re.DOTALL,
)
_EMPTY = frozenset(("", "-", "none", "n/a", "na", "null", "nil"))


def parse_plan(text: object) -> tuple[list | None, str | None, str | None]:
    """``(plan, "json" or "text", None)`` for a plan; ``(None, None, reason)`` when the text holds none."""
    if not isinstance(text, str):
        return None, None, f"the action must be a string, got {type(text).__name__}"
    if len(text) > MAX_PLAN_CHARS:
        return None, None, f"the plan has {len(text)} characters, more than the limit of {MAX_PLAN_CHARS}"
    plan = _json_plan(text)
    if plan is not None:
        return plan, "json", None
    days = _text_plan(text)
    if days:
        return days, "text", None
    reason = "no plan found: expected a JSON list of day dicts or 'Day N:' blocks of 'Field: value' lines"
    return None, None, reason


def _json_plan(text: str) -> list | None:
    candidates = [text.strip()]
    fence = _fenced(text)
    if fence is not None:
        candidates.append(fence)
    first, last = text.find("["), text.rfind("]")
    if 0 <= first < last:
        candidates.append(text[first : last + 1])
    for candidate in candidates:
        if not candidate.startswith(("[", "{")):
            continue
        try:
            value = json.loads(candidate)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, Mapping) and isinstance(value.get("plan"), list):
            value = value["plan"]
        if isinstance(value, list) and value and any(isinstance(day, Mapping) for day in value):
            return value
    return None


def _fenced(text: str) -> str | None:
    """The body of the first Markdown code fence (linear: one opening, one closing)."""
    opening = text.find("```")
    body = text.find("\n", opening) + 1 if opening >= 0 else 0
    closing = text.find("```", body) if body else -1
    return text[body:closing].strip() if closing >= 0 else None


def _strip_decor(line: str) -> str:
    return line.lstrip(_LEAD).rstrip(_TRAIL)


def _clean_value(value: str, key: str) -> str:
    value = value.strip()
    if value.startswith(("**", "__")):  # "**Breakfast:** Name, City"
        value = value[2:].strip()
    if value.lower() in _EMPTY:
        return "-"
    if key == "attraction":
        entries = [_drop_period(part.strip()) for part in value.split(";")]
        entries = [entry for entry in entries if entry and entry.lower() not in _EMPTY]
        return "".join(f"{entry};" for entry in entries) or "-"
    if key in ("breakfast", "lunch", "dinner", "accommodation"):
        return _drop_period(value) or "-"
    return value


def _drop_period(entity: str) -> str:
    """``"Name, City."`` -> ``"Name, City"`` (a period after the city; names keep theirs)."""
    return entity[:-1].rstrip() if entity.endswith(".") and "," in entity else entity


def _text_plan(text: str) -> list[dict]:
    days: list[dict] = []
    current: dict | None = None
    last_key: str | None = None
    for raw in text.splitlines():
        line = _strip_decor(raw)
        if not line:
            continue
        day = _DAY.match(line)
        if day is not None:
            rest = _strip_decor(line[day.end() :].lstrip(" :*_)."))
            number = int(day.group(1))
            if days and number <= days[-1]["days"]:
                days = []  # the numbering restarts: a later (final) plan replaces a draft
            current = {"days": number, **dict.fromkeys(PLAN_FIELDS, "-")}
            days.append(current)
            last_key = None
            if not rest:
                continue
            line = rest
        if current is None:
            continue
        field = _FIELD.match(line)
        if field is not None:
            word = field.group(1).lower()
            key = next(name for prefix, name in _TEXT_KEYS if word.startswith(prefix))
            current[key] = _clean_value(field.group(2), key)
            last_key = key
        elif last_key == "attraction" and raw.lstrip().startswith(("-", "*", "•")):
            # a bulleted attraction list under "Attraction:"
            extra = _clean_value(line, "attraction")
            if extra != "-":
                current["attraction"] = (
                    "" if current["attraction"] == "-" else current["attraction"]
                ) + extra
    return days


def render_plan_text(plan: Sequence[Mapping]) -> str:
    """A plan (official day dicts) in the prompt's text format; empty days (``{}``) are left out."""
    blocks = []
    for index, day in enumerate(plan):
        if not isinstance(day, Mapping) or not day:
            continue
        lines = [f"Day {day.get('days', index + 1)}:"]
        lines += [f"{_LABELS[key]}: {day.get(key, '-')}" for key in PLAN_FIELDS]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def render_plan_json(plan: Sequence[Mapping]) -> str:
    """A plan as the official JSON list of day dicts (empty days left out)."""
    return json.dumps([dict(day) for day in plan if isinstance(day, Mapping) and day], ensure_ascii=False)
