"""Procedural generator of BFCL-style function-calling tasks, with difficulty knobs, and a record validator.

Every generated record has the shape of a BFCL v4 single-turn record: a user question, candidate functions
in BFCL's JSON-schema dialect and a possible answer ``[{func_name: {param: [allowed values...]}}]`` (``""``
in an allowed list marks a parameter that may be omitted), so it is graded by the same AST checker
(``checker.grade_output``) as the real benchmark. Questions state every argument value, so an agent can
read the answer off the question.

The function vocabulary below is written for this module: 32 API families (weather, currency, flights,
unit conversion, geometry, stocks, calendar, recipes, ...), each with two to four sibling functions whose
names and descriptions are close enough to serve as distractors.

Difficulty levels ``0 .. NUM_LEVELS-1`` map to knobs (``knobs_for_level``): the number of candidate
functions, how many calls a task needs, parameters per function, optional parameters stated in the
question, array and nested (dict / list-of-dict) parameter types, same-family distractors, and the
chance of an irrelevance task (no offered function fits; near-miss ones offer the target's siblings).
"""

from __future__ import annotations

import copy
import keyword
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from genenv_gym.envs.bfcl.categories import language_of

NUM_LEVELS: int = 10

#: Categories a generated record can have (the names the checker dispatches on).
GENERATED_CATEGORIES: tuple[str, ...] = (
    "simple_python",
    "multiple",
    "parallel",
    "parallel_multiple",
    "irrelevance",
)

#: Categories ``validate_record`` accepts: single-turn ones graded by the AST checker or the relevance rule.
VALID_CATEGORIES: tuple[str, ...] = (
    "simple_python",
    "simple_java",
    "simple_javascript",
    "multiple",
    "parallel",
    "parallel_multiple",
    "irrelevance",
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
    "live_irrelevance",
    "live_relevance",
)

#: Parameter types of BFCL's Python JSON-schema dialect.
PYTHON_TYPES: frozenset[str] = frozenset(
    {"string", "integer", "float", "boolean", "array", "tuple", "dict", "any"}
)
#: Extra type names used by the Java and JavaScript records.
JAVA_TYPES: frozenset[str] = frozenset(
    {"String", "int", "integer", "long", "short", "byte", "char", "double", "float", "boolean", "Boolean"}
    | {"HashMap", "ArrayList", "Array", "Set", "List", "any"}
)
JAVASCRIPT_TYPES: frozenset[str] = frozenset(
    {"String", "string", "Boolean", "boolean", "Number", "number", "integer", "float", "Bigint", "array"}
    | {"dict", "object", "any"}
)

#: The longest question accepted (the longest real BFCL user turn is about 10.8k characters).
MAX_QUESTION_CHARS: int = 12_000
#: The largest number of candidate functions / calls / parameters the knobs may ask for.
MAX_FUNCTIONS, MAX_CALLS, MAX_PARAMS = 12, 6, 8

_REFUSAL = "None of the provided functions can be used to answer this question."
_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


# ----------------------------------------------------------------------------------------------------
# Records and knobs
# ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GeneratedRecord:
    """One generated task in BFCL's record shape, with the difficulty features it was built with.

    ``knobs`` holds the features actually used: ``level``, ``n_functions`` (candidates offered),
    ``n_calls`` (calls in the gold answer; 0 for irrelevance), ``n_targets`` (distinct functions called),
    ``n_params`` / ``n_required`` (largest schema of a called function), ``n_optional_stated`` (optional
    arguments the question states, over all calls), ``array`` / ``nested`` (whether the gold answer has
    array / dict or list-of-dict arguments), ``distractors`` (offered same-family siblings of the target
    functions), ``irrelevant`` and ``near_miss`` (an irrelevance task offering the target's siblings).
    """

    category: str
    question: str
    functions: list[dict]
    ground_truth: list[dict] | None
    knobs: dict[str, int | float | bool] = field(default_factory=dict)


# Knob name -> (kind, lowest, highest). Kinds: "int", "prob" (float in [0, 1]), "bool".
_KNOB_SPEC: dict[str, tuple[str, float, float]] = {
    "level": ("int", 0, NUM_LEVELS - 1),
    "n_functions": ("int", 1, MAX_FUNCTIONS),
    "n_calls": ("int", 1, MAX_CALLS),
    "p_parallel": ("prob", 0.0, 1.0),
    "n_params": ("int", 1, MAX_PARAMS),
    "n_optional_stated": ("int", 0, MAX_PARAMS),
    "p_array": ("prob", 0.0, 1.0),
    "p_nested": ("prob", 0.0, 1.0),
    "n_distractors": ("int", 0, MAX_FUNCTIONS - 1),
    "p_multi_function": ("prob", 0.0, 1.0),
    "p_irrelevance": ("prob", 0.0, 1.0),
    "near_miss_irrelevance": ("bool", 0, 1),
}

# Columns: n_functions, n_calls (most calls), p_parallel (chance of > 1 call), n_params, n_optional_stated,
# p_array, p_nested, n_distractors, p_multi_function (chance parallel calls use >= 2 functions),
# p_irrelevance, near_miss_irrelevance.
_LEVEL_TABLE: tuple[tuple[Any, ...], ...] = (
    (1, 1, 0.0, 2, 0, 0.0, 0.0, 0, 0.0, 0.0, False),
    (1, 2, 0.3, 3, 0, 0.0, 0.0, 0, 0.0, 0.0, False),
    (2, 2, 0.3, 3, 1, 0.1, 0.0, 0, 0.3, 0.1, False),
    (3, 2, 0.4, 4, 1, 0.2, 0.1, 1, 0.4, 0.1, False),
    (3, 3, 0.5, 4, 1, 0.25, 0.15, 1, 0.5, 0.1, False),
    (4, 3, 0.5, 4, 2, 0.3, 0.2, 1, 0.5, 0.1, False),
    (4, 3, 0.6, 5, 2, 0.3, 0.25, 2, 0.6, 0.15, True),
    (5, 3, 0.7, 5, 2, 0.35, 0.3, 2, 0.7, 0.15, True),
    (6, 4, 0.7, 6, 3, 0.35, 0.35, 3, 0.7, 0.15, True),
    (6, 4, 0.8, 6, 3, 0.35, 0.4, 3, 0.8, 0.2, True),
)
_TABLE_KEYS: tuple[str, ...] = (
    "n_functions",
    "n_calls",
    "p_parallel",
    "n_params",
    "n_optional_stated",
    "p_array",
    "p_nested",
    "n_distractors",
    "p_multi_function",
    "p_irrelevance",
    "near_miss_irrelevance",
)


def knobs_for_level(level: int) -> dict[str, Any]:
    """The knob settings of a difficulty level (every knob is non-decreasing in the level)."""
    if (
        isinstance(level, bool)
        or not isinstance(level, (int, np.integer))
        or not 0 <= int(level) < NUM_LEVELS
    ):
        raise ValueError(f"level must be an int in [0, {NUM_LEVELS - 1}], got {level!r}")
    row = _LEVEL_TABLE[int(level)]
    return {"level": int(level), **dict(zip(_TABLE_KEYS, row, strict=True))}


def _validated_knobs(knobs: Mapping[str, Any]) -> dict[str, Any]:
    """Knobs completed from their level's row (level 0 if none is given) and checked; ValueError if bad."""
    if not isinstance(knobs, Mapping):
        raise ValueError(f"knobs must be a mapping, got {type(knobs).__name__}")
    unknown = [k for k in knobs if k not in _KNOB_SPEC]
    if unknown:
        raise ValueError(f"unknown knob(s) {unknown}; known knobs: {sorted(_KNOB_SPEC)}")
    out = knobs_for_level(knobs.get("level", 0))
    for name, value in knobs.items():
        kind, low, high = _KNOB_SPEC[name]
        if kind == "bool":
            if not isinstance(value, (bool, np.bool_)):
                raise ValueError(f"knob {name!r} must be a bool, got {value!r}")
            out[name] = bool(value)
            continue
        if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (int, float, np.integer, np.floating)
        ):
            raise ValueError(f"knob {name!r} must be a number, got {value!r}")
        if kind == "int" and (isinstance(value, (float, np.floating)) and not float(value).is_integer()):
            raise ValueError(f"knob {name!r} must be an integer, got {value!r}")
        if not (math.isfinite(float(value)) and low <= value <= high):
            raise ValueError(f"knob {name!r} must be in [{low}, {high}], got {value!r}")
        out[name] = int(value) if kind == "int" else float(value)
    if out["p_array"] + out["p_nested"] > 1.0:
        raise ValueError(f"p_array + p_nested must be <= 1, got {out['p_array']} + {out['p_nested']}")
    if out["n_distractors"] > out["n_functions"] - 1:
        raise ValueError(
            f"n_distractors ({out['n_distractors']}) must leave room for a target among "
            f"n_functions ({out['n_functions']})"
        )
    return out


# ----------------------------------------------------------------------------------------------------
# Vocabulary: parameters, functions and value samplers
# ----------------------------------------------------------------------------------------------------

Sampler = Callable[[np.random.Generator], Any]


class _Retry(Exception):
    """Raised while sampling when the draw must be redone (e.g. two values that have to differ)."""


def _fmt_num(value: float | int) -> str:
    """A number as the question states it: integral floats without '.0', others by repr."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return repr(value)


def _join(words: Sequence[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    words = list(words)
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def _say_default(value: Any) -> str:
    """How a value is written in a question, by its Python type."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return _fmt_num(value)
    if isinstance(value, list):
        return _join([_say_default(v) for v in value])
    return str(value)


@dataclass(frozen=True)
class _Param:
    """A parameter: schema, value sampler and how the question states its value.

    ``phrase`` states an optional parameter's value (``{v}`` = the said value; for booleans a pair: the
    phrase when True, when False). ``items`` is the item type of an array; ``fields`` are the properties
    of a dict, or of the dict items of an array (then ``items == "dict"``). ``aliases`` gives other
    accepted spellings of a string value.
    """

    name: str
    type: str
    description: str
    sample: Sampler
    say: Callable[[Any], str] = _say_default
    phrase: str | tuple[str, str] = ""
    default: Any = None
    enum: tuple[Any, ...] | None = None
    items: str | None = None
    fields: tuple[_Param, ...] = ()
    aliases: Callable[[Any], list[str]] | None = None

    @property
    def complexity(self) -> int:
        """0 scalar, 1 array of scalars, 2 dict or array of dicts."""
        if self.type == "dict" or self.items == "dict":
            return 2
        return 1 if self.type == "array" else 0

    def schema(self, optional: bool = False) -> dict[str, Any]:
        """The parameter's property in BFCL's JSON-schema dialect."""
        description = self.description
        if optional and self.default is not None:
            description += f" Default is {self.default!r}."
        elif optional:
            description += " Optional."
        prop: dict[str, Any] = {"type": self.type, "description": description}
        if self.enum is not None:
            prop["enum"] = list(self.enum)
        if self.type == "array":
            if self.items == "dict":
                prop["items"] = _dict_schema(self.fields)
            else:
                prop["items"] = {"type": self.items}
        elif self.type == "dict":
            prop.update({k: v for k, v in _dict_schema(self.fields).items() if k != "type"})
        if optional and self.default is not None:
            prop["default"] = self.default
        return prop

    def allowed(self, value: Any) -> list[Any]:
        """The allowed-values list of a stated value, in BFCL's possible-answer form."""
        if self.type == "dict":
            return [{f.name: f.allowed(value[f.name]) for f in self.fields}]
        if self.type == "array" and self.items == "dict":
            return [[{f.name: f.allowed(item[f.name]) for f in self.fields} for item in value]]
        if self.type == "array":
            return [list(value)]
        if self.type == "string" and self.aliases is not None:
            extra = [a for a in self.aliases(value) if _std(a) != _std(value)]
            return [value, *extra]
        return [value]

    def unstated_allowed(self) -> list[Any]:
        """Allowed values of an unmentioned optional parameter: omit it or give the default."""
        return [""] if self.default is None else [self.default, ""]

    def state(self, value: Any) -> str:
        """The phrase stating an optional parameter's value in the question."""
        if isinstance(self.phrase, tuple):
            return self.phrase[0] if value else self.phrase[1]
        return self.phrase.format(v=self.say(value))


def _dict_schema(fields: tuple[_Param, ...]) -> dict[str, Any]:
    return {
        "type": "dict",
        "properties": {f.name: f.schema() for f in fields},
        "required": [f.name for f in fields],
    }


@dataclass(frozen=True)
class _Func:
    """A function of the vocabulary: schema parts, question templates and sampling rules.

    ``templates`` are imperative clauses with ``{param}`` slots for every required parameter. ``fixup``
    enforces relations between sampled required values (it may raise ``_Retry``). ``near_miss_ok`` says
    no sibling in the family can do this function's job, so the siblings may be offered in a near-miss
    irrelevance task asking for it.
    """

    name: str
    description: str
    templates: tuple[str, ...]
    required: tuple[_Param, ...]
    optional: tuple[_Param, ...] = ()
    fixup: Callable[[dict[str, Any]], None] | None = None
    near_miss_ok: bool = True

    @property
    def family(self) -> str:
        return self.name.split(".")[0]

    @property
    def complexity(self) -> int:
        return max((p.complexity for p in self.required), default=0)


# ---- samplers --------------------------------------------------------------------------------------


def _pick(pool: Sequence[Any]) -> Sampler:
    return lambda rng: pool[int(rng.integers(len(pool)))]


def _int(low: int, high: int) -> Sampler:
    return lambda rng: int(rng.integers(low, high + 1))


def _ints(values: Sequence[int]) -> Sampler:
    return lambda rng: int(values[int(rng.integers(len(values)))])


def _float(low: float, high: float, decimals: int = 1, fractional: bool = False) -> Sampler:
    """Uniform float rounded to ``decimals``; ``fractional`` forbids integral values (for float arrays)."""

    def sample(rng: np.random.Generator) -> float:
        value = round(float(rng.uniform(low, high)), decimals)
        if fractional and value.is_integer():
            value = round(value + 0.5, decimals)
        return value

    return sample


def _date(year: int = 2025) -> Sampler:
    return lambda rng: f"{year}-{int(rng.integers(1, 13)):02d}-{int(rng.integers(1, 29)):02d}"


def _clock() -> Sampler:
    return lambda rng: f"{int(rng.integers(7, 22)):02d}:{(0, 15, 30, 45)[int(rng.integers(4))]:02d}"


def _code(prefix: str, digits: int = 4) -> Sampler:
    return lambda rng: prefix + "".join(str(int(d)) for d in rng.integers(0, 10, size=digits))


def _list(item: Sampler, low: int, high: int) -> Sampler:
    """A list of ``low..high`` distinct items."""

    def sample(rng: np.random.Generator) -> list[Any]:
        size = int(rng.integers(low, high + 1))
        out: list[Any] = []
        for _ in range(size * 10):
            value = item(rng)
            if value not in out:
                out.append(value)
            if len(out) == size:
                break
        if len(out) < low:
            raise _Retry
        return out

    return sample


def _record(fields: tuple[_Param, ...]) -> Sampler:
    return lambda rng: {f.name: f.sample(rng) for f in fields}


def _records(fields: tuple[_Param, ...], low: int, high: int, key: str) -> Sampler:
    """A list of ``low..high`` dicts whose ``key`` values differ."""

    def sample(rng: np.random.Generator) -> list[dict[str, Any]]:
        size = int(rng.integers(low, high + 1))
        out: list[dict[str, Any]] = []
        for _ in range(size * 10):
            value = {f.name: f.sample(rng) for f in fields}
            if all(_std(str(v[key])) != _std(str(value[key])) for v in out):
                out.append(value)
            if len(out) == size:
                break
        if len(out) < low:
            raise _Retry
        return out

    return sample


def _differ(first: str, second: str) -> Callable[[dict[str, Any]], None]:
    """Fixup: two values must differ."""

    def fix(values: dict[str, Any]) -> None:
        if _std(str(values[first])) == _std(str(values[second])):
            raise _Retry

    return fix


def _ordered(first: str, second: str) -> Callable[[dict[str, Any]], None]:
    """Fixup: two dates (ISO strings) in increasing order, swapping them if needed."""

    def fix(values: dict[str, Any]) -> None:
        if values[first] == values[second]:
            raise _Retry
        if values[first] > values[second]:
            values[first], values[second] = values[second], values[first]

    return fix


def _std(text: str) -> str:
    """BFCL's string standardisation: drop spaces and ``,./-_*^``, lowercase, ``'`` -> ``"``."""
    return re.sub(r"[ ,./\-_*^]", "", text).lower().replace("'", '"')


def _song_artist(values: dict[str, Any]) -> None:
    """Fixup: the artist is the one who performs the sampled song."""
    values["artist"] = dict(_SONGS)[values["song_title"]]


def _quote(value: Any) -> str:
    return f"'{value}'"


# ---- value pools (invented for this module) ----------------------------------------------------------

_CITIES = (
    "Paris", "Tokyo", "Nairobi", "Lima", "Toronto", "Berlin", "Mumbai", "Sydney", "Cairo", "Oslo", "Seoul",
    "Madrid", "Chicago", "Denver", "Lisbon", "Istanbul", "Bangkok", "Dublin", "Vienna", "Auckland",
    "Santiago", "Reykjavik", "Hanoi", "Montreal", "Zurich", "Cape Town", "Buenos Aires", "San Francisco",
    "Kyoto", "Marrakesh",
)  # fmt: skip
_COUNTRIES = (
    "France", "Japan", "Kenya", "Peru", "Canada", "Germany", "India", "Australia", "Egypt", "Norway",
    "South Korea", "Spain", "Portugal", "Turkey", "Thailand", "Ireland", "Austria", "New Zealand", "Chile",
    "Iceland", "Vietnam", "Brazil", "Mexico", "Morocco", "Argentina",
)  # fmt: skip
_CURRENCIES = {
    "USD": "US dollars", "EUR": "euros", "JPY": "Japanese yen", "GBP": "British pounds",
    "CHF": "Swiss francs", "CAD": "Canadian dollars", "AUD": "Australian dollars", "INR": "Indian rupees",
    "MXN": "Mexican pesos", "BRL": "Brazilian reais", "SEK": "Swedish kronor", "KRW": "South Korean won",
    "ZAR": "South African rand", "NZD": "New Zealand dollars", "SGD": "Singapore dollars",
}  # fmt: skip
_CURRENCY_CODES = tuple(_CURRENCIES)
_AIRPORTS = (
    "JFK", "LAX", "SFO", "ORD", "LHR", "CDG", "NRT", "HND", "FRA", "AMS", "DXB", "SIN", "SYD", "YYZ", "MEX",
    "GRU", "ICN", "MAD", "BCN", "IST",
)  # fmt: skip
_AIRLINES = ("Delta", "Lufthansa", "Qantas", "Emirates", "Air Canada", "KLM", "Singapore Airlines", "Iberia")
_CABINS = ("economy", "premium_economy", "business", "first")
_TICKERS = (
    "AAPL", "MSFT", "GOOGL", "AMZN", "NVDA", "TSLA", "META", "NFLX", "IBM", "ORCL", "INTC", "AMD", "SAP",
)  # fmt: skip
_LANGUAGES = (
    "French", "German", "Spanish", "Japanese", "Italian", "Portuguese", "Korean", "Dutch", "Swedish",
)  # fmt: skip
_CUISINES = ("Italian", "Thai", "Mexican", "Japanese", "Indian", "Ethiopian", "Greek", "Lebanese", "Korean")
_INGREDIENTS = (
    "chickpeas", "salmon", "mushrooms", "tofu", "lentils", "spinach", "eggplant", "chicken thighs", "quinoa",
    "sweet potatoes", "shrimp", "zucchini",
)  # fmt: skip
_DISHES = (
    "lasagna", "pad thai", "ramen", "shakshuka", "paella", "butter chicken", "falafel", "moussaka", "risotto",
    "pho", "ratatouille", "gazpacho",
)  # fmt: skip
_FIRST = (
    "Alice", "Bruno", "Chen", "Dara", "Elena", "Farid", "Grace", "Hiro", "Ines", "Jamal", "Kira", "Luca",
)  # fmt: skip
_LAST = (
    "Nakamura", "Okafor", "Silva", "Novak", "Haddad", "Lindqvist", "Moreau", "Patel", "Kowalski", "Reyes",
)  # fmt: skip
_PEOPLE = tuple(f"{first} {last}" for first in _FIRST for last in _LAST)
_EMAILS = tuple(f"{first.lower()}.{last.lower()}@example.com" for first in _FIRST for last in _LAST)
_MOVIES = (
    "The Silent Harbor", "Midnight Circuit", "Paper Lanterns", "The Last Orchard", "Glass Horizon",
    "Northbound", "Echoes of Mars", "The Clockmaker", "Velvet Static", "A River of Stars",
)  # fmt: skip
_CINEMAS = ("Rialto Cinema", "Odeon Central", "Starlight Theater", "Lumiere Hall", "Cinema Nova")
_SONGS = (
    ("Blue Meridian", "The Cartographers"), ("Salt Roads", "Vela"), ("Neon Tide", "Harbor Lights"),
    ("Paper Moons", "June Arcade"), ("Slow Comet", "The Ninth Wave"), ("Wild Clover", "Mira Sol"),
    ("Static Hearts", "Velvet Engine"), ("Northern Glass", "Lumen"), ("Tin Garden", "Oak and Ash"),
)  # fmt: skip
_SONG_TITLES = tuple(s[0] for s in _SONGS)
_ARTISTS = tuple(s[1] for s in _SONGS)
_TEAMS = (
    "Harbor City FC", "Northfield United", "Riverside Rovers", "Eastport Athletic", "Granite Bay SC",
    "Silver Lake Wanderers", "Kingsbridge Town", "Westvale Rangers",
)  # fmt: skip
_LEAGUES = ("Premier League", "La Liga", "Serie A", "Bundesliga", "Ligue 1", "Eredivisie")
_PLAYERS = ("Tomas Verhoeven", "Amara Diallo", "Kenji Arai", "Sofia Lindgren", "Mateo Ruiz", "Noor Rahman")
_AUTHORS = ("Ursula K. Le Guin", "Chinua Achebe", "Toni Morrison", "Italo Calvino", "Jane Austen", "Lu Xun")
_GENRES = ("science fiction", "mystery", "history", "poetry", "fantasy", "biography")
_ROOMS = ("living room", "kitchen", "bedroom", "office", "garage", "hallway")
_PLATFORMS = ("Twitter", "Mastodon", "LinkedIn", "Instagram", "Facebook")
_TIMEZONES = (
    "Europe/Paris", "Asia/Tokyo", "America/New_York", "America/Los_Angeles", "Australia/Sydney",
    "Africa/Nairobi", "Asia/Kolkata", "Europe/London", "America/Sao_Paulo",
)  # fmt: skip
_FORMULAS = ("H2O", "CO2", "NaCl", "C6H12O6", "H2SO4", "NH3", "CaCO3", "C2H5OH", "KMnO4")
_SENTENCES = (
    "Where is the train station", "The meeting starts at noon", "Please close the window",
    "We need more coffee", "The museum opens on Monday", "My luggage is missing",
)  # fmt: skip
_FOREIGN = (
    "Wo ist der Bahnhof",
    "Je voudrais un cafe",
    "Dove si trova la stazione",
    "Hoe laat is het",
    "Onde fica a praia",
)
_WORDS = ("serendipity", "ephemeral", "lagniappe", "sonder", "petrichor", "hiraeth", "saudade")
_SUBJECTS = ("Quarterly report", "Lunch on Friday", "Project kickoff", "Invoice 2291", "Team offsite")
_BODIES = ("See you at ten", "The draft is attached", "Please confirm by Monday", "Thanks for the update")
_EVENT_TITLES = ("Quarterly review", "Dentist appointment", "Design sync", "Yoga class", "Budget planning")
_HOTELS = ("Hotel Aurora", "The Grand Meridian", "Casa Verde Inn", "Harborview Suites", "Alpine Lodge")
_RESTAURANTS = ("La Piccola Cucina", "Saffron House", "The Copper Pot", "Blue Lotus", "Taqueria del Sol")
_PLACE_TYPES = ("pharmacy", "gas station", "bakery", "hospital", "library", "supermarket", "ATM")
_PRODUCTS = ("wireless earbuds", "running shoes", "espresso machine", "desk lamp", "yoga mat", "backpack")
_SKUS = tuple(f"SKU-{n}" for n in (1042, 2210, 3318, 4471, 5120, 6603, 7789, 8025))
_TABLES = ("customers", "orders", "employees", "invoices", "subscriptions")
_FILTERS: dict[str, tuple[str, ...]] = {
    "city": ("Boston", "Austin", "Seattle", "Denver"),
    "status": ("active", "archived", "pending"),
    "department": ("Sales", "Engineering", "Finance", "Support"),
    "plan": ("basic", "premium", "enterprise"),
}
_INTERESTS = ("museums", "food", "hiking", "architecture", "nightlife", "beaches", "markets", "history")
_USERNAMES = ("harbor_lab", "quietfox", "mira_sol", "urban_botanist", "dataweaver", "tidewatcher")
_LENGTH_UNITS = ("meters", "feet", "miles", "kilometers", "inches", "centimeters", "yards")
_MASS_UNITS = ("kilograms", "pounds", "ounces", "grams", "stones")
_TEMP_SCALES = ("celsius", "fahrenheit", "kelvin")
_VOLUME_UNITS = ("liters", "gallons", "milliliters", "cups", "fluid ounces")
_POSTCODES = ("10115", "75001", "94103", "02139", "60601", "98101", "30301", "73301")


# ---- parameter helpers --------------------------------------------------------------------------------


def _s(name: str, description: str, pool: Sequence[str], **kw: Any) -> _Param:
    return _Param(name, "string", description, _pick(pool), **kw)


def _e(name: str, description: str, pool: Sequence[str], **kw: Any) -> _Param:
    """A string parameter restricted to an enum."""
    say = kw.pop("say", lambda v: str(v).replace("_", " "))
    return _Param(name, "string", description, _pick(pool), enum=tuple(pool), say=say, **kw)


def _i(name: str, description: str, low: int, high: int, **kw: Any) -> _Param:
    return _Param(name, "integer", description, _int(low, high), **kw)


def _f(name: str, description: str, low: float, high: float, decimals: int = 1, **kw: Any) -> _Param:
    return _Param(name, "float", description, _float(low, high, decimals), **kw)


def _b(name: str, description: str, phrase: tuple[str, str], default: bool = False, **kw: Any) -> _Param:
    return _Param(
        name, "boolean", description, lambda rng: bool(rng.integers(2)), phrase=phrase, default=default, **kw
    )


def _currency(name: str, description: str) -> _Param:
    return _Param(
        name,
        "string",
        description + " Three-letter ISO 4217 code, e.g. 'EUR'.",
        _pick(_CURRENCY_CODES),
        say=lambda code: _CURRENCIES[code],
        aliases=lambda code: [_CURRENCIES[code]],
    )


def _date_param(name: str, description: str) -> _Param:
    return _Param(name, "string", description + " Format YYYY-MM-DD.", _date())


_CITY = _s("city", "Name of the city.", _CITIES)
_UNIT_TEMP = _e(
    "unit", "Temperature unit of the result.", ("celsius", "fahrenheit"), phrase="in {v}", default="celsius"
)
_SAY_LIST_Q = lambda values: _join([_quote(v) for v in values])  # noqa: E731


def _say_songs(songs: list[dict[str, str]]) -> str:
    return _join([f"'{s['title']}' by {s['artist']}" for s in songs])


def _say_items(items: list[dict[str, Any]]) -> str:
    return _join(
        [f"{i['quantity']} {'unit' if i['quantity'] == 1 else 'units'} of {i['product_id']}" for i in items]
    )


def _say_conditions(conditions: list[dict[str, str]]) -> str:
    return " and ".join(f"{c['field']} {c['operator']} {c['value']}" for c in conditions)


def _filter_sample(rng: np.random.Generator) -> dict[str, str]:
    field_name = tuple(_FILTERS)[int(rng.integers(len(_FILTERS)))]
    pool = _FILTERS[field_name]
    return {
        "field": field_name,
        "operator": ("=", "!=")[int(rng.integers(2))],
        "value": pool[int(rng.integers(len(pool)))],
    }


_CONDITION_FIELDS = (
    _Param("field", "string", "Column to filter on.", _pick(tuple(_FILTERS))),
    _Param("operator", "string", "Comparison operator.", _pick(("=", "!=")), enum=("=", "!=")),
    _Param("value", "string", "Value to compare the column with.", _pick(_FILTERS["city"])),
)
_SONG_FIELDS = (
    _s("title", "Title of the song.", _SONG_TITLES),
    _s("artist", "Performing artist.", _ARTISTS),
)
_ORDER_FIELDS = (
    _s("product_id", "Product SKU.", _SKUS),
    _i("quantity", "Number of units.", 1, 5),
)
_GUEST_FIELDS = (
    _s("full_name", "Guest's full name.", _PEOPLE),
    _s("email", "Guest's email address.", _EMAILS),
)
_PACKAGE_FIELDS = (
    _f("weight_kg", "Weight in kilograms.", 0.5, 20.0),
    _i("length_cm", "Length in centimeters.", 10, 80),
    _i("width_cm", "Width in centimeters.", 10, 60),
    _i("height_cm", "Height in centimeters.", 5, 50),
)
_USER_UPDATE_FIELDS = (
    _s("email", "New email address.", _EMAILS),
    _s("display_name", "New display name.", _PEOPLE),
)


def _guest_sample(rng: np.random.Generator) -> dict[str, str]:
    i = int(rng.integers(len(_PEOPLE)))
    return {"full_name": _PEOPLE[i], "email": _EMAILS[i]}


def _songs_sample(rng: np.random.Generator) -> list[dict[str, str]]:
    order = rng.permutation(len(_SONGS))[: int(rng.integers(2, 4))]
    return [{"title": _SONGS[int(i)][0], "artist": _SONGS[int(i)][1]} for i in order]


def _conditions_sample(rng: np.random.Generator) -> list[dict[str, str]]:
    fields = rng.permutation(len(_FILTERS))[: int(rng.integers(1, 3))]
    names = tuple(_FILTERS)
    out = []
    for i in fields:
        condition = _filter_sample(rng)
        condition["field"] = names[int(i)]
        pool = _FILTERS[condition["field"]]
        condition["value"] = pool[int(rng.integers(len(pool)))]
        out.append(condition)
    return out


def _numbers(low: float, high: float, size_low: int = 3, size_high: int = 7) -> Sampler:
    return _list(_float(low, high, 1, fractional=True), size_low, size_high)


def _say_numbers(values: list[float]) -> str:
    return _join([repr(v) for v in values])


def _say_point(values: list[float]) -> str:
    return "(" + ", ".join(repr(v) for v in values) + ")"


# ---- the vocabulary -------------------------------------------------------------------------------------

_FUNCS: tuple[_Func, ...] = (
    # weather
    _Func(
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
    _Func(
        "weather.get_forecast",
        "Get a multi-day weather forecast for a city.",
        ("get the {days}-day weather forecast for {city}", "fetch a {days}-day forecast for {city}"),
        (_CITY, _i("days", "Number of days to forecast.", 2, 10)),
        (
            _UNIT_TEMP,
            _b("include_hourly", "Whether to include hour-by-hour detail.", ("with hourly detail", "")),
        ),
    ),
    _Func(
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
    _Func(
        "weather.get_historical",
        "Get the weather recorded in a city on a past date.",
        ("get the weather recorded in {city} on {date}", "look up what the weather was in {city} on {date}"),
        (_CITY, _date_param("date", "The past date.")),
        (_UNIT_TEMP,),
    ),
    # currency
    _Func(
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
        fixup=_differ("from_currency", "to_currency"),
        near_miss_ok=False,
    ),
    _Func(
        "currency.get_exchange_rate",
        "Get the exchange rate between two currencies.",
        ("get the exchange rate from {base_currency} to {quote_currency}",),
        (
            _currency("base_currency", "Currency to convert from."),
            _currency("quote_currency", "Currency to quote in."),
        ),
        (
            _Param(
                "date",
                "string",
                "Date of the rate, format YYYY-MM-DD; today if omitted.",
                _date(2024),
                phrase="as of {v}",
            ),
        ),
        fixup=_differ("base_currency", "quote_currency"),
        near_miss_ok=False,
    ),
    _Func(
        "currency.get_symbol",
        "Look up the printed symbol of a currency.",
        ("look up the symbol used for {currency_code}", "find the currency symbol of {currency_code}"),
        (_currency("currency_code", "The currency."),),
    ),
    _Func(
        "currency.list_countries",
        "List the countries that use a currency as legal tender.",
        ("list the countries that use {currency_code} as legal tender",),
        (_currency("currency_code", "The currency."),),
    ),
    # flights
    _Func(
        "flights.search",
        "Search for flights between two airports on a date.",
        (
            "search for flights from {origin} to {destination} on {departure_date}",
            "find flights leaving {origin} for {destination} on {departure_date}",
        ),
        (
            _s("origin", "IATA code of the departure airport.", _AIRPORTS),
            _s("destination", "IATA code of the arrival airport.", _AIRPORTS),
            _date_param("departure_date", "Day of departure."),
        ),
        (
            _i("passengers", "Number of passengers.", 2, 6, phrase="for {v} passengers", default=1),
            _e("cabin_class", "Cabin class.", _CABINS, phrase="in {v} class", default="economy"),
            _b("nonstop_only", "Only return nonstop flights.", ("nonstop only", "")),
        ),
        fixup=_differ("origin", "destination"),
    ),
    _Func(
        "flights.get_status",
        "Get the live status (on time, delayed, cancelled) of a flight.",
        ("check the status of flight {flight_number} on {date}",),
        (
            _Param(
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
    _Func(
        "flights.get_baggage_allowance",
        "Look up the checked baggage allowance of an airline for a cabin class.",
        ("look up the checked baggage allowance on {airline} in {cabin_class} class",),
        (_s("airline", "Name of the airline.", _AIRLINES), _e("cabin_class", "Cabin class.", _CABINS)),
    ),
    # unit conversion
    _Func(
        "units.convert_length",
        "Convert a length from one unit to another.",
        ("convert {value} {from_unit} to {to_unit}", "express {value} {from_unit} in {to_unit}"),
        (
            _f("value", "The length to convert.", 1, 500),
            _e("from_unit", "Unit of the value.", _LENGTH_UNITS),
            _e("to_unit", "Unit to convert to.", _LENGTH_UNITS),
        ),
        fixup=_differ("from_unit", "to_unit"),
    ),
    _Func(
        "units.convert_mass",
        "Convert a mass (weight) from one unit to another.",
        ("convert {value} {from_unit} to {to_unit}", "express {value} {from_unit} in {to_unit}"),
        (
            _f("value", "The mass to convert.", 1, 500),
            _e("from_unit", "Unit of the value.", _MASS_UNITS),
            _e("to_unit", "Unit to convert to.", _MASS_UNITS),
        ),
        fixup=_differ("from_unit", "to_unit"),
    ),
    _Func(
        "units.convert_temperature",
        "Convert a temperature from one scale to another.",
        ("convert {value} degrees {from_scale} to {to_scale}",),
        (
            _f("value", "The temperature to convert.", -40, 200),
            _e("from_scale", "Scale of the value.", _TEMP_SCALES),
            _e("to_scale", "Scale to convert to.", _TEMP_SCALES),
        ),
        fixup=_differ("from_scale", "to_scale"),
    ),
    _Func(
        "units.convert_volume",
        "Convert a volume from one unit to another.",
        ("convert {value} {from_unit} to {to_unit}",),
        (
            _f("value", "The volume to convert.", 1, 100),
            _e("from_unit", "Unit of the value.", _VOLUME_UNITS),
            _e("to_unit", "Unit to convert to.", _VOLUME_UNITS),
        ),
        fixup=_differ("from_unit", "to_unit"),
    ),
    # geometry
    _Func(
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
    _Func(
        "geometry.rectangle_area",
        "Calculate the area of a rectangle from its length and width.",
        ("calculate the area of a rectangle that is {length} long and {width} wide",),
        (_f("length", "Length of the rectangle.", 1, 100), _f("width", "Width of the rectangle.", 1, 100)),
    ),
    _Func(
        "geometry.triangle_area",
        "Calculate the area of a triangle from its base and height.",
        ("calculate the area of a triangle with a base of {base} and a height of {height}",),
        (_f("base", "Base of the triangle.", 1, 100), _f("height", "Height of the triangle.", 1, 100)),
    ),
    _Func(
        "geometry.polygon_perimeter",
        "Calculate the perimeter of a polygon from the lengths of its sides.",
        ("calculate the perimeter of a polygon whose sides measure {side_lengths}",),
        (
            _Param(
                "side_lengths",
                "array",
                "Lengths of the sides, in order.",
                _numbers(1, 30, 3, 6),
                say=_say_numbers,
                items="float",
            ),
        ),
    ),
    _Func(
        "geometry.distance_2d",
        "Compute the Euclidean distance between two points in the plane.",
        ("compute the distance between the points {point_a} and {point_b}",),
        (
            _Param(
                "point_a",
                "array",
                "First point as [x, y].",
                _list(_float(-20, 20, 1, True), 2, 2),
                say=_say_point,
                items="float",
            ),
            _Param(
                "point_b",
                "array",
                "Second point as [x, y].",
                _list(_float(-20, 20, 1, True), 2, 2),
                say=_say_point,
                items="float",
            ),
        ),
    ),
    # stocks
    _Func(
        "stocks.get_quote",
        "Get the latest trading price of a stock.",
        ("get the latest stock quote for {ticker}", "look up the current share price of {ticker}"),
        (_s("ticker", "Stock ticker symbol.", _TICKERS),),
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
    _Func(
        "stocks.get_price_history",
        "Get the historical prices of a stock between two dates.",
        ("get the price history of {ticker} from {start_date} to {end_date}",),
        (
            _s("ticker", "Stock ticker symbol.", _TICKERS),
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
        fixup=_ordered("start_date", "end_date"),
    ),
    _Func(
        "stocks.compare_returns",
        "Compare the percentage returns of several stocks over a period.",
        ("compare the returns of {tickers} over the last {period_days} days",),
        (
            _Param(
                "tickers", "array", "Ticker symbols to compare.", _list(_pick(_TICKERS), 2, 4), items="string"
            ),
            _i("period_days", "Length of the period in days.", 7, 365),
        ),
    ),
    _Func(
        "stocks.get_dividends",
        "Get the dividends a company paid in a year.",
        ("get the dividends paid by {ticker} in {year}",),
        (_s("ticker", "Stock ticker symbol.", _TICKERS), _i("year", "Calendar year.", 2010, 2024)),
    ),
    # calendar
    _Func(
        "calendar.create_event",
        "Create an event in the user's calendar.",
        (
            "create a calendar event titled '{title}' on {date} at {start_time} "
            "lasting {duration_minutes} minutes",
            "schedule '{title}' on {date} at {start_time} for {duration_minutes} minutes",
        ),
        (
            _s("title", "Title of the event.", _EVENT_TITLES),
            _date_param("date", "Day of the event."),
            _Param("start_time", "string", "Start time, 24-hour HH:MM.", _clock()),
            _Param("duration_minutes", "integer", "Length in minutes.", _ints((15, 30, 45, 60, 90, 120))),
        ),
        (
            _Param(
                "attendees",
                "array",
                "Email addresses of the people to invite.",
                _list(_pick(_EMAILS), 1, 3),
                say=_join,
                phrase="inviting {v}",
                items="string",
            ),
            _Param(
                "reminder_minutes",
                "integer",
                "Minutes before the start to send a reminder.",
                _ints((5, 10, 30, 60)),
                phrase="with a reminder {v} minutes before",
                default=15,
            ),
        ),
    ),
    _Func(
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
    _Func(
        "calendar.find_free_slot",
        "Find the first free slot of a given length in the user's calendar on a day.",
        ("find a free {duration_minutes}-minute slot in my calendar on {date}",),
        (
            _date_param("date", "The day."),
            _Param(
                "duration_minutes", "integer", "Length of the slot in minutes.", _ints((15, 30, 45, 60, 90))
            ),
        ),
        near_miss_ok=False,
    ),
    # recipes
    _Func(
        "recipes.search",
        "Search for recipes that use an ingredient.",
        ("find recipes that use {ingredient}", "search for recipes with {ingredient}"),
        (_s("ingredient", "Main ingredient.", _INGREDIENTS),),
        (
            _s("cuisine", "Cuisine style.", _CUISINES, phrase="from {v} cuisine"),
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
    _Func(
        "recipes.get_nutrition",
        "Get the nutrition facts of a dish for a number of servings.",
        ("get the nutrition facts for {servings} servings of {dish_name}",),
        (_s("dish_name", "Name of the dish.", _DISHES), _i("servings", "Number of servings.", 1, 8)),
    ),
    _Func(
        "recipes.scale",
        "Rescale a recipe's ingredient quantities to a different number of servings.",
        ("scale the {dish_name} recipe from {original_servings} to {target_servings} servings",),
        (
            _s("dish_name", "Name of the dish.", _DISHES),
            _i("original_servings", "Servings the recipe makes.", 2, 6),
            _i("target_servings", "Servings wanted.", 1, 12),
        ),
        fixup=_differ("original_servings", "target_servings"),
    ),
    # hotels
    _Func(
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
        fixup=_ordered("check_in", "check_out"),
    ),
    _Func(
        "hotels.book_room",
        "Book a room at a hotel for a guest.",
        ("book a {room_type} room at {hotel_name} for {nights} nights for {guest}",),
        (
            _s("hotel_name", "Name of the hotel.", _HOTELS),
            _e("room_type", "Kind of room.", ("single", "double", "suite")),
            _i("nights", "Number of nights.", 1, 14),
            _Param(
                "guest",
                "dict",
                "The guest the booking is for.",
                _guest_sample,
                fields=_GUEST_FIELDS,
                say=lambda g: f"{g['full_name']} (email {g['email']})",
            ),
        ),
    ),
    _Func(
        "hotels.cancel_booking",
        "Cancel a hotel booking.",
        ("cancel the hotel booking with confirmation code {confirmation_code}",),
        (_Param("confirmation_code", "string", "The booking's confirmation code.", _code("HX")),),
    ),
    # restaurants
    _Func(
        "restaurants.find",
        "Find restaurants of a cuisine in a city.",
        ("find {cuisine} restaurants in {city}", "look for {cuisine} places to eat in {city}"),
        (_CITY, _s("cuisine", "Cuisine.", _CUISINES)),
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
    _Func(
        "restaurants.reserve_table",
        "Reserve a table at a restaurant.",
        ("reserve a table for {party_size} at {restaurant_name} on {date} at {time}",),
        (
            _s("restaurant_name", "Name of the restaurant.", _RESTAURANTS),
            _date_param("date", "Day of the booking."),
            _Param("time", "string", "Time, 24-hour HH:MM.", _clock()),
            _i("party_size", "Number of diners.", 2, 10),
        ),
    ),
    # statistics
    _Func(
        "stats.mean",
        "Calculate the arithmetic mean of a list of numbers.",
        ("calculate the mean of the numbers {numbers}", "average the values {numbers}"),
        (_Param("numbers", "array", "The numbers.", _numbers(1, 100), say=_say_numbers, items="float"),),
    ),
    _Func(
        "stats.median",
        "Calculate the median of a list of numbers.",
        ("calculate the median of the numbers {numbers}",),
        (_Param("numbers", "array", "The numbers.", _numbers(1, 100), say=_say_numbers, items="float"),),
        near_miss_ok=False,
    ),
    _Func(
        "stats.standard_deviation",
        "Calculate the standard deviation of a list of numbers.",
        ("calculate the standard deviation of the numbers {numbers}",),
        (_Param("numbers", "array", "The numbers.", _numbers(1, 100), say=_say_numbers, items="float"),),
        (
            _b(
                "sample",
                "Use the sample (n - 1) formula rather than the population one.",
                ("", "using the population formula"),
                default=True,
            ),
        ),
    ),
    _Func(
        "stats.percentile",
        "Compute a percentile of a list of numbers.",
        ("find percentile {percentile} of the numbers {numbers}",),
        (
            _Param("numbers", "array", "The numbers.", _numbers(1, 100), say=_say_numbers, items="float"),
            _i("percentile", "Percentile to compute, 1-99.", 5, 95),
        ),
    ),
    # finance
    _Func(
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
    _Func(
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
            _Param(
                "term_months",
                "integer",
                "Length of the loan in months.",
                _ints((12, 24, 36, 48, 60, 120, 360)),
            ),
        ),
    ),
    _Func(
        "finance.return_on_investment",
        "Calculate the return on investment as a percentage.",
        ("calculate the return on an investment that grew from {initial_value} to {final_value} dollars",),
        (
            _f("initial_value", "Amount invested.", 100, 10000, 0),
            _f("final_value", "Value now.", 100, 20000, 0),
        ),
        fixup=_differ("initial_value", "final_value"),
    ),
    # translation
    _Func(
        "translate.text",
        "Translate text into another language.",
        ("translate the sentence '{text}' into {target_language}",),
        (
            _s("text", "Text to translate.", _SENTENCES),
            _s("target_language", "Language to translate into.", _LANGUAGES),
        ),
        (_s("source_language", "Language of the text.", ("English",), phrase="from {v}"),),
    ),
    _Func(
        "translate.detect_language",
        "Detect which language a text is written in.",
        ("detect the language of the text '{text}'", "figure out which language '{text}' is written in"),
        (_s("text", "The text.", _FOREIGN),),
    ),
    _Func(
        "translate.define_word",
        "Look up the dictionary definition of a word.",
        ("look up the definition of the word '{word}'",),
        (_s("word", "The word.", _WORDS),),
        (
            _s(
                "dictionary_language",
                "Language the definition is written in.",
                _LANGUAGES,
                phrase="with the definition written in {v}",
                default="English",
            ),
        ),
    ),
    # email
    _Func(
        "email.send",
        "Send an email.",
        ("send an email to {recipient} with the subject '{subject}' and the body '{body}'",),
        (
            _s("recipient", "Email address of the recipient.", _EMAILS),
            _s("subject", "Subject line.", _SUBJECTS),
            _s("body", "Body text.", _BODIES),
        ),
        (
            _Param(
                "cc",
                "array",
                "Addresses to copy.",
                _list(_pick(_EMAILS), 1, 2),
                say=_join,
                phrase="copying {v}",
                items="string",
            ),
        ),
    ),
    _Func(
        "email.search_inbox",
        "Search the user's inbox for messages matching a query.",
        ("search my inbox for messages about '{query}'",),
        (_s("query", "Search words.", _SUBJECTS),),
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
    _Func(
        "maps.get_directions",
        "Get step-by-step directions between two places.",
        ("get directions from {origin} to {destination}",),
        (_s("origin", "Start place.", _CITIES), _s("destination", "End place.", _CITIES)),
        (
            _e(
                "mode",
                "Travel mode.",
                ("driving", "walking", "cycling", "transit"),
                phrase="with the travel mode set to {v}",
                default="driving",
            ),
        ),
        fixup=_differ("origin", "destination"),
    ),
    _Func(
        "maps.find_nearby",
        "Find places of a given type near a location.",
        ("find a {place_type} near {location}",),
        (
            _s("location", "Where to search around.", _CITIES),
            _e("place_type", "Kind of place.", _PLACE_TYPES),
        ),
        (_f("radius_km", "Search radius in kilometers.", 1, 20, 0, phrase="within {v} km", default=5.0),),
    ),
    _Func(
        "maps.distance_between",
        "Get the straight-line distance between two places.",
        ("get the straight-line distance between {origin} and {destination}",),
        (_s("origin", "First place.", _CITIES), _s("destination", "Second place.", _CITIES)),
        (_e("unit", "Distance unit.", ("km", "miles"), phrase="in {v}", default="km"),),
        fixup=_differ("origin", "destination"),
        near_miss_ok=False,
    ),
    # movies
    _Func(
        "movies.get_showtimes",
        "Get the showtimes of a movie in a city on a day.",
        ("get the showtimes for '{movie_title}' in {city} on {date}",),
        (_s("movie_title", "Title of the movie.", _MOVIES), _CITY, _date_param("date", "The day.")),
    ),
    _Func(
        "movies.get_details",
        "Get the cast, director, runtime and synopsis of a movie.",
        ("get details about the movie '{movie_title}'",),
        (_s("movie_title", "Title of the movie.", _MOVIES),),
        (_i("year", "Release year, to tell remakes apart.", 1980, 2024, phrase="released in {v}"),),
    ),
    _Func(
        "movies.book_tickets",
        "Book cinema tickets for a showing.",
        ("book {seats} tickets for '{movie_title}' at {cinema} for the {showtime} showing",),
        (
            _s("movie_title", "Title of the movie.", _MOVIES),
            _s("cinema", "Name of the cinema.", _CINEMAS),
            _Param("showtime", "string", "Showing time, 24-hour HH:MM.", _clock()),
            _i("seats", "Number of seats.", 1, 6),
        ),
    ),
    # music
    _Func(
        "music.play_song",
        "Play a song by an artist on the user's speaker.",
        ("play '{song_title}' by {artist}",),
        (_s("song_title", "Title of the song.", _SONG_TITLES), _s("artist", "Performing artist.", _ARTISTS)),
        (_i("volume", "Volume from 0 to 100.", 10, 90, phrase="at volume {v}", default=50),),
        fixup=_song_artist,
    ),
    _Func(
        "music.create_playlist",
        "Create a playlist from a list of songs.",
        ("create a playlist named '{playlist_name}' with {songs}",),
        (
            _s(
                "playlist_name",
                "Name of the playlist.",
                ("Road Trip", "Focus", "Sunday Morning", "Workout", "Rainy Day"),
            ),
            _Param(
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
    _Func(
        "music.get_lyrics",
        "Get the lyrics of a song.",
        ("get the lyrics of '{song_title}' by {artist}",),
        (_s("song_title", "Title of the song.", _SONG_TITLES), _s("artist", "Performing artist.", _ARTISTS)),
        fixup=_song_artist,
    ),
    # sports
    _Func(
        "sports.get_match_score",
        "Get the final score of a match between two teams on a date.",
        (
            "get the score of the match between {home_team} and {away_team} on {date}, "
            "with {home_team} at home",
        ),
        (
            _s("home_team", "Home team.", _TEAMS),
            _s("away_team", "Away team.", _TEAMS),
            _date_param("date", "Match day."),
        ),
        fixup=_differ("home_team", "away_team"),
    ),
    _Func(
        "sports.get_standings",
        "Get a league table for a season.",
        ("get the {league} standings for the {season} season",),
        (_s("league", "Name of the league.", _LEAGUES), _i("season", "Year the season started.", 2000, 2024)),
    ),
    _Func(
        "sports.get_player_stats",
        "Get a player's statistics for a season.",
        ("get the statistics of {player_name} for the {season} season",),
        (
            _s("player_name", "Full name of the player.", _PLAYERS),
            _i("season", "Year the season started.", 2010, 2024),
        ),
    ),
    # shopping
    _Func(
        "shop.search_products",
        "Search the online store's catalogue.",
        ("search the store for {query}",),
        (_s("query", "What to look for.", _PRODUCTS),),
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
    _Func(
        "shop.create_order",
        "Place an order for a customer.",
        ("place an order for customer {customer_id} containing {items}",),
        (
            _i("customer_id", "Numeric customer ID.", 1000, 99999),
            _Param(
                "items",
                "array",
                "Order lines.",
                _records(_ORDER_FIELDS, 1, 3, "product_id"),
                say=_say_items,
                items="dict",
                fields=_ORDER_FIELDS,
            ),
        ),
        (_b("express_shipping", "Ship with express delivery.", ("with express shipping", "")),),
    ),
    _Func(
        "shop.get_product_reviews",
        "Get customer reviews of a product.",
        ("get the customer reviews of product {product_id}",),
        (_s("product_id", "Product SKU.", _SKUS),),
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
    _Func(
        "health.bmi",
        "Calculate the body mass index from weight and height.",
        ("calculate the body mass index of someone who weighs {weight_kg} kg and is {height_m} m tall",),
        (_f("weight_kg", "Weight in kilograms.", 45, 120), _f("height_m", "Height in meters.", 1.5, 2.0, 2)),
    ),
    _Func(
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
    _Func(
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
    _Func(
        "physics.kinetic_energy",
        "Calculate the kinetic energy of a moving body.",
        ("calculate the kinetic energy of a {mass_kg} kg object moving at {velocity_mps} m/s",),
        (
            _f("mass_kg", "Mass in kilograms.", 0.5, 100),
            _f("velocity_mps", "Speed in meters per second.", 1, 50),
        ),
    ),
    _Func(
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
    _Func(
        "physics.ohms_law_current",
        "Calculate the current through a resistor from voltage and resistance.",
        ("calculate the current through a {resistance_ohms} ohm resistor at {voltage} volts",),
        (
            _f("voltage", "Voltage in volts.", 1, 240),
            _f("resistance_ohms", "Resistance in ohms.", 1, 1000, 0),
        ),
    ),
    # chemistry
    _Func(
        "chem.molar_mass",
        "Compute the molar mass of a chemical formula.",
        ("compute the molar mass of {formula}",),
        (_s("formula", "Chemical formula, e.g. 'H2O'.", _FORMULAS),),
    ),
    _Func(
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
    _Func(
        "chem.ph_from_concentration",
        "Compute the pH of a solution from its hydrogen-ion molarity.",
        ("compute the pH of a solution with a hydrogen-ion concentration of {hydrogen_ion_molarity} M",),
        (
            _Param(
                "hydrogen_ion_molarity",
                "float",
                "Hydrogen-ion concentration in mol/L.",
                _pick((0.01, 0.001, 0.0001, 0.0005, 0.002, 0.05)),
            ),
        ),
    ),
    # time
    _Func(
        "time.get_current_time",
        "Get the current local time in a time zone.",
        ("get the current time in the {timezone} time zone",),
        (_s("timezone", "IANA time zone name.", _TIMEZONES),),
    ),
    _Func(
        "time.convert_time",
        "Convert a clock time from one time zone to another.",
        ("convert {time} from {from_timezone} time to {to_timezone} time",),
        (
            _Param("time", "string", "Clock time, 24-hour HH:MM.", _clock()),
            _s("from_timezone", "IANA time zone of the time.", _TIMEZONES),
            _s("to_timezone", "IANA time zone to convert to.", _TIMEZONES),
        ),
        fixup=_differ("from_timezone", "to_timezone"),
    ),
    _Func(
        "time.days_between",
        "Count the days between two dates.",
        ("count the days between {start_date} and {end_date}",),
        (_date_param("start_date", "First date."), _date_param("end_date", "Second date.")),
        fixup=_ordered("start_date", "end_date"),
    ),
    # news
    _Func(
        "news.get_headlines",
        "Get today's top news headlines for a country.",
        ("get the top news headlines in {country}",),
        (_s("country", "Country name.", _COUNTRIES),),
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
    _Func(
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
        fixup=_ordered("from_date", "to_date"),
    ),
    # database
    _Func(
        "db.query_records",
        "Query rows of a database table that match conditions.",
        ("query the {table} table for rows where {conditions}",),
        (
            _s("table", "Table name.", _TABLES),
            _Param(
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
    _Func(
        "db.update_user",
        "Update a user's profile fields.",
        ("update user {user_id} so that {updates}",),
        (
            _i("user_id", "Numeric user ID.", 100, 99999),
            _Param(
                "updates",
                "dict",
                "New values of the profile fields.",
                _record(_USER_UPDATE_FIELDS),
                fields=_USER_UPDATE_FIELDS,
                say=lambda u: f"the email is {u['email']} and the display name is {u['display_name']}",
            ),
        ),
    ),
    _Func(
        "db.delete_record",
        "Delete a row of a database table by its ID.",
        ("delete record {record_id} from the {table} table",),
        (_s("table", "Table name.", _TABLES), _i("record_id", "Numeric row ID.", 1, 99999)),
    ),
    # smart home
    _Func(
        "home.set_thermostat",
        "Set the thermostat of a room to a temperature.",
        ("set the thermostat in the {room} to {temperature_c} degrees Celsius",),
        (_s("room", "Room name.", _ROOMS), _f("temperature_c", "Target temperature in Celsius.", 16, 26, 1)),
        (_e("mode", "Thermostat mode.", ("heat", "cool", "auto"), phrase="in {v} mode", default="auto"),),
    ),
    _Func(
        "home.set_lights",
        "Switch the lights of a room on or off.",
        ("turn {turn_on} the lights in the {room}",),
        (
            _s("room", "Room name.", _ROOMS),
            _Param(
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
    _Func(
        "home.lock_door",
        "Lock one of the house's doors.",
        ("lock the {door_name} door",),
        (_e("door_name", "Which door.", ("front", "back", "garage", "side")),),
    ),
    # library
    _Func(
        "library.search_books",
        "Search the library catalogue for books by an author.",
        ("search the library for books by {author}",),
        (_s("author", "Author's name.", _AUTHORS),),
        (
            _s("genre", "Genre.", _GENRES, phrase="in the {v} genre"),
            _i(
                "published_after",
                "Only books published after this year.",
                1900,
                2020,
                phrase="published after {v}",
            ),
        ),
    ),
    _Func(
        "library.reserve_book",
        "Reserve a book for a library member.",
        ("reserve the book with ISBN {isbn} for member {member_id}",),
        (
            _Param("isbn", "string", "ISBN-13 of the book.", _code("978", 10)),
            _i("member_id", "Member number.", 1000, 9999),
        ),
    ),
    _Func(
        "library.renew_loan",
        "Extend the due date of a library loan.",
        ("renew library loan {loan_id} for {extra_days} more days",),
        (
            _Param("loan_id", "string", "ID of the loan.", _code("LN")),
            _i("extra_days", "Days to add.", 7, 28),
        ),
    ),
    # social media
    _Func(
        "social.post_update",
        "Post a status update on a social network.",
        ("post '{message}' on {platform}",),
        (
            _s("platform", "Social network.", _PLATFORMS),
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
            _Param(
                "hashtags",
                "array",
                "Hashtags without the leading '#'.",
                _list(_pick(("launch", "teamwork", "ai", "travel", "news")), 1, 3),
                say=_join,
                phrase="with the hashtags {v}",
                items="string",
            ),
        ),
    ),
    _Func(
        "social.get_follower_count",
        "Get how many followers an account has.",
        ("get the follower count of {username} on {platform}",),
        (_s("platform", "Social network.", _PLATFORMS), _s("username", "Account name.", _USERNAMES)),
    ),
    # real estate
    _Func(
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
    _Func(
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
    _Func(
        "travel.visa_requirements",
        "Check whether a citizen of one country needs a visa to visit another.",
        ("check whether a citizen of {citizenship} needs a visa to visit {destination_country}",),
        (
            _s("citizenship", "Traveller's country of citizenship.", _COUNTRIES),
            _s("destination_country", "Country to visit.", _COUNTRIES),
        ),
        fixup=_differ("citizenship", "destination_country"),
    ),
    _Func(
        "travel.plan_itinerary",
        "Plan a day-by-day sightseeing itinerary for a city.",
        ("plan a {days}-day itinerary for {city} focused on {interests}",),
        (
            _CITY,
            _i("days", "Length of the trip in days.", 1, 7),
            _Param(
                "interests",
                "array",
                "Interests to plan around, in order of priority.",
                _list(_pick(_INTERESTS), 1, 3),
                items="string",
            ),
        ),
    ),
    # car rental
    _Func(
        "car_rental.search",
        "Search rental cars at a location for a period.",
        ("search for rental cars in {pickup_location} from {pickup_date} to {return_date}",),
        (
            _s("pickup_location", "City to pick the car up in.", _CITIES),
            _date_param("pickup_date", "Pick-up day."),
            _date_param("return_date", "Return day."),
        ),
        (_e("car_type", "Kind of car.", ("compact", "suv", "minivan", "convertible"), phrase="for a {v}"),),
        fixup=_ordered("pickup_date", "return_date"),
    ),
    _Func(
        "car_rental.extend_booking",
        "Extend a car rental booking by some days.",
        ("extend car rental booking {booking_id} by {extra_days} days",),
        (
            _Param("booking_id", "string", "ID of the rental booking.", _code("CR", 5)),
            _i("extra_days", "Days to add.", 1, 10),
        ),
    ),
    # geography
    _Func(
        "geo.get_capital",
        "Get the capital city of a country.",
        ("find the capital of {country}",),
        (_s("country", "Country name.", _COUNTRIES),),
    ),
    _Func(
        "geo.get_population",
        "Get the population of a country.",
        ("get the population of {country}",),
        (_s("country", "Country name.", _COUNTRIES),),
        (_i("year", "Year of the estimate.", 1990, 2023, phrase="as of {v}"),),
    ),
    _Func(
        "geo.get_area",
        "Get the land area of a country in square kilometers.",
        ("get the land area of {country}",),
        (_s("country", "Country name.", _COUNTRIES),),
    ),
    # shipping
    _Func(
        "shipping.estimate_cost",
        "Estimate the cost of shipping a package between two postal codes.",
        (
            "estimate the cost of shipping {package} from postal code {origin_postal_code} to postal code "
            "{destination_postal_code}",
        ),
        (
            _s("origin_postal_code", "Sender's postal code.", _POSTCODES),
            _s("destination_postal_code", "Recipient's postal code.", _POSTCODES),
            _Param(
                "package",
                "dict",
                "The package's weight and size.",
                _record(_PACKAGE_FIELDS),
                fields=_PACKAGE_FIELDS,
                say=lambda p: (
                    f"a package weighing {_fmt_num(p['weight_kg'])} kg that is {p['length_cm']} cm long, "
                    f"{p['width_cm']} cm wide and {p['height_cm']} cm high"
                ),
            ),
        ),
        fixup=_differ("origin_postal_code", "destination_postal_code"),
    ),
    _Func(
        "shipping.track_package",
        "Track a parcel by its carrier tracking number.",
        ("track the {carrier} parcel with tracking number {tracking_number}",),
        (
            _Param("tracking_number", "string", "Carrier tracking number.", _code("1Z", 8)),
            _e("carrier", "Carrier.", ("UPS", "FedEx", "DHL", "USPS")),
        ),
    ),
)

# Common optional parameters, appended to the functions they fit (so schemas can grow to n_params).
_EXTRA_OPTIONAL: tuple[tuple[_Param, tuple[str, ...]], ...] = (
    (
        _Param(
            "decimal_places",
            "integer",
            "Decimal places to round the result to.",
            _ints((0, 3, 4)),
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


def _with_extras(func: _Func) -> _Func:
    taken = {p.name for p in (*func.required, *func.optional)}
    extras = [p for p, names in _EXTRA_OPTIONAL if func.name in names and p.name not in taken]
    return replace(func, optional=(*func.optional, *extras)) if extras else func


_FUNCS = tuple(_with_extras(f) for f in _FUNCS)

_FAMILIES: dict[str, tuple[_Func, ...]] = {}
for _func in _FUNCS:
    _FAMILIES[_func.family] = (*_FAMILIES.get(_func.family, ()), _func)
del _func


# ----------------------------------------------------------------------------------------------------
# Building records
# ----------------------------------------------------------------------------------------------------

_OPENERS = ("{}.", "Please {}.", "Could you {}?", "I need you to {}.", "Help me {}.", "Can you {}?")
_LINKS = ("Also, {}.", "Then {}.", "In addition, {}.", "After that, {}.", "Next, {}.")
_LAST_LINKS = ("Finally, {}.", "Lastly, {}.", "And {}.")


@dataclass(frozen=True)
class _Offered:
    """A function as offered in a record: its spec and the optional parameters its schema includes."""

    func: _Func
    optional: tuple[_Param, ...]

    def schema(self) -> dict[str, Any]:
        properties = {p.name: p.schema() for p in self.func.required}
        properties.update({p.name: p.schema(optional=True) for p in self.optional})
        return {
            "name": self.func.name,
            "description": self.func.description,
            "parameters": {
                "type": "dict",
                "properties": properties,
                "required": [p.name for p in self.func.required],
            },
        }


@dataclass(frozen=True)
class _Call:
    """One call of the gold answer: values of the required and of the stated optional parameters."""

    offered: _Offered
    values: dict[str, Any]
    stated: dict[str, Any]

    def ground_truth(self) -> dict[str, dict[str, list[Any]]]:
        params: dict[str, list[Any]] = {
            p.name: p.allowed(self.values[p.name]) for p in self.offered.func.required
        }
        for p in self.offered.optional:
            params[p.name] = p.allowed(self.stated[p.name]) if p.name in self.stated else p.unstated_allowed()
        return {self.offered.func.name: params}

    def clause(self, rng: np.random.Generator) -> str:
        func = self.offered.func
        template = func.templates[int(rng.integers(len(func.templates)))]
        text = template.format(**{p.name: p.say(self.values[p.name]) for p in func.required})
        phrases = [p.state(self.stated[p.name]) for p in self.offered.optional if p.name in self.stated]
        return text + (", " + _join(phrases) if phrases else "")

    def key(self) -> tuple[str, ...]:
        """The standardised required values: two calls of one function in a record must differ here."""
        return tuple(_std(repr(self.values[p.name])) for p in self.offered.func.required)


def _max_complexity(knobs: Mapping[str, Any]) -> int:
    return 2 if knobs["p_nested"] > 0 else 1 if knobs["p_array"] > 0 else 0


def _offer(func: _Func, knobs: Mapping[str, Any], rng: np.random.Generator) -> _Offered:
    """The function with as many optional parameters as ``n_params`` leaves room for."""
    pool = [p for p in func.optional if p.complexity <= _max_complexity(knobs)]
    n_optional = min(max(knobs["n_params"] - len(func.required), 0), len(pool))
    chosen = sorted(int(i) for i in rng.permutation(len(pool))[:n_optional])
    return _Offered(func, tuple(pool[i] for i in chosen))


def _sample_call(offered: _Offered, n_stated: int, rng: np.random.Generator) -> _Call:
    """Sample a call: all required values, and ``n_stated`` optional values differing from their defaults."""
    func = offered.func
    for _ in range(30):
        try:
            values = {p.name: p.sample(rng) for p in func.required}
            if func.fixup is not None:
                func.fixup(values)
            break
        except _Retry:
            continue
    else:
        raise _Retry
    stated: dict[str, Any] = {}
    order = [offered.optional[int(i)] for i in rng.permutation(len(offered.optional))]
    for param in order:
        if len(stated) >= n_stated:
            break
        for _ in range(20):
            value = param.sample(rng)
            if value != param.default and param.state(value):
                stated[param.name] = value
                break
    return _Call(offered, values, stated)


def _pick_function(
    knobs: Mapping[str, Any], rng: np.random.Generator, exclude: Sequence[str], near_miss: bool = False
) -> _Func:
    """A target function: its type complexity drawn from p_array / p_nested, preferring small schemas."""
    u = float(rng.random())
    want = 2 if u < knobs["p_nested"] else 1 if u < knobs["p_nested"] + knobs["p_array"] else 0
    usable = [f for f in _FUNCS if f.name not in exclude and (f.near_miss_ok or not near_miss)]
    pool = [f for f in usable if f.complexity == want] or [
        f for f in usable if f.complexity <= _max_complexity(knobs)
    ]
    pool = [f for f in pool if len(f.required) <= knobs["n_params"]] or pool
    if not pool:
        raise _Retry
    # Prefer functions whose schema can reach n_params: weight 1 / (1 + missing parameters).
    sizes = [
        len(f.required) + len([p for p in f.optional if p.complexity <= _max_complexity(knobs)]) for f in pool
    ]
    weights = np.array([1.0 / (1.0 + max(knobs["n_params"] - size, 0)) for size in sizes])
    return pool[int(rng.choice(len(pool), p=weights / weights.sum()))]


def _others(
    knobs: Mapping[str, Any],
    rng: np.random.Generator,
    target_funcs: Sequence[_Func],
    n_slots: int,
    n_siblings: int,
) -> tuple[list[_Func], int]:
    """Non-target candidates: up to ``n_siblings`` same-family distractors, then other families' fillers."""
    families = list(dict.fromkeys(f.family for f in target_funcs))
    taken = {f.name for f in target_funcs}
    siblings = [f for fam in families for f in _FAMILIES[fam] if f.name not in taken]
    siblings = [siblings[int(i)] for i in rng.permutation(len(siblings))][: min(n_siblings, n_slots)]
    others = list(siblings)
    max_c = _max_complexity(knobs)
    free = [fam for fam in _FAMILIES if fam not in families]
    for i in rng.permutation(len(free)):
        if len(others) >= n_slots:
            break
        choices = [f for f in _FAMILIES[free[int(i)]] if f.complexity <= max_c]
        if choices:
            others.append(choices[int(rng.integers(len(choices)))])
    if len(others) < n_slots:
        raise _Retry
    return others, len(siblings)


def _question(calls: Sequence[_Call], rng: np.random.Generator) -> str:
    sentences = []
    for i, call in enumerate(calls):
        if i == 0:
            pattern = _OPENERS[int(rng.integers(len(_OPENERS)))]
        elif i == len(calls) - 1:
            pattern = _LAST_LINKS[int(rng.integers(len(_LAST_LINKS)))]
        else:
            pattern = _LINKS[int(rng.integers(len(_LINKS)))]
        sentence = pattern.format(call.clause(rng))
        sentences.append(sentence[0].upper() + sentence[1:])
    return " ".join(sentences)


def _build(knobs: Mapping[str, Any], rng: np.random.Generator) -> GeneratedRecord:
    """One record from validated knobs (raises ``_Retry`` when a draw cannot be completed)."""
    n_functions = knobs["n_functions"]
    if float(rng.random()) < knobs["p_irrelevance"]:
        return _build_irrelevance(knobs, rng)
    n_calls = 1
    if knobs["n_calls"] > 1 and float(rng.random()) < knobs["p_parallel"]:
        n_calls = int(rng.integers(2, knobs["n_calls"] + 1))
    n_targets = 1
    if n_calls > 1 and n_functions > 1 and float(rng.random()) < knobs["p_multi_function"]:
        n_targets = int(rng.integers(2, min(n_calls, n_functions) + 1))
    targets: list[_Func] = []
    for _ in range(n_targets):
        targets.append(_pick_function(knobs, rng, [f.name for f in targets]))
    offered = {f.name: _offer(f, knobs, rng) for f in targets}
    assignment = [*targets, *(targets[int(rng.integers(n_targets))] for _ in range(n_calls - n_targets))]
    assignment = [assignment[int(i)] for i in rng.permutation(n_calls)]
    calls: list[_Call] = []
    for func in assignment:
        for _ in range(30):
            call = _sample_call(offered[func.name], knobs["n_optional_stated"], rng)
            if all(c.key() != call.key() for c in calls if c.offered.func.name == func.name):
                break
        else:
            raise _Retry
        calls.append(call)
    others, n_siblings = _others(knobs, rng, targets, n_functions - n_targets, knobs["n_distractors"])
    candidates = [offered[f.name] for f in targets] + [_offer(f, knobs, rng) for f in others]
    candidates = [candidates[int(i)] for i in rng.permutation(len(candidates))]
    if n_calls == 1:
        category = "simple_python" if n_functions == 1 else "multiple"
    else:
        category = "parallel" if n_functions == 1 else "parallel_multiple"
    ground_truth = [c.ground_truth() for c in calls]
    called_types = [
        p
        for c in calls
        for p in (*c.offered.func.required, *c.offered.optional)
        if p.name in c.values or p.name in c.stated
    ]
    features: dict[str, int | float | bool] = {
        "level": int(knobs["level"]),
        "n_functions": len(candidates),
        "n_calls": n_calls,
        "n_targets": n_targets,
        "n_params": max(len(o.func.required) + len(o.optional) for o in offered.values()),
        "n_required": max(len(o.func.required) for o in offered.values()),
        "n_optional_stated": sum(len(c.stated) for c in calls),
        "array": any(p.complexity == 1 for p in called_types),
        "nested": any(p.complexity == 2 for p in called_types),
        "distractors": n_siblings,
        "irrelevant": False,
        "near_miss": False,
    }
    return GeneratedRecord(
        category, _question(calls, rng), [o.schema() for o in candidates], ground_truth, features
    )


def _build_irrelevance(knobs: Mapping[str, Any], rng: np.random.Generator) -> GeneratedRecord:
    """A question for a held-out function that no offered function (near miss: its siblings) can do."""
    near_miss = bool(knobs["near_miss_irrelevance"]) and knobs["n_distractors"] > 0
    held_out = _pick_function(knobs, rng, [], near_miss=near_miss)
    call = _sample_call(_offer(held_out, knobs, rng), knobs["n_optional_stated"], rng)
    n_siblings = knobs["n_distractors"] if near_miss else 0
    others, n_siblings = _others(knobs, rng, [held_out], knobs["n_functions"], n_siblings)
    candidates = [_offer(f, knobs, rng) for f in others]
    candidates = [candidates[int(i)] for i in rng.permutation(len(candidates))]
    features: dict[str, int | float | bool] = {
        "level": int(knobs["level"]),
        "n_functions": len(candidates),
        "n_calls": 0,
        "n_targets": 0,
        "n_params": max(len(o.func.required) + len(o.optional) for o in candidates),
        "n_required": max(len(o.func.required) for o in candidates),
        "n_optional_stated": len(call.stated),
        "array": False,
        "nested": False,
        "distractors": n_siblings,
        "irrelevant": True,
        "near_miss": n_siblings > 0,
    }
    return GeneratedRecord(
        "irrelevance", _question([call], rng), [o.schema() for o in candidates], None, features
    )


def generate_with_knobs(knobs: Mapping[str, Any], rng: np.random.Generator) -> GeneratedRecord:
    """A validated record built from explicit knobs (missing knobs come from their level's row, level 0 if
    none); raises ValueError on unknown, mistyped or out-of-range knobs."""
    checked = _validated_knobs(knobs)
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    problems: list[str] = []
    for _ in range(50):
        try:
            record = _build(checked, rng)
        except _Retry:
            continue
        problems = validate_record(record.functions, record.ground_truth, record.category, record.question)
        if not problems:
            return record
    raise RuntimeError(f"could not generate a valid record for knobs {checked}: last problems {problems}")


def generate(level: int, rng: np.random.Generator) -> GeneratedRecord:
    """A validated record at a difficulty level in ``0 .. NUM_LEVELS-1``, deterministic given ``rng``."""
    return generate_with_knobs(knobs_for_level(level), rng)


# ----------------------------------------------------------------------------------------------------
# Validation
# ----------------------------------------------------------------------------------------------------

_MAX_DEPTH = 8


def _plain(value: Any) -> Any:
    """Deep copy of JSON-like data with mappings as dicts and sequences (not strings) as lists."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return copy.copy(value)


def _is_list(value: Any) -> bool:
    return isinstance(value, (list, tuple))


def _types_for(language: str) -> frozenset[str]:
    if language == "java":
        return PYTHON_TYPES | JAVA_TYPES
    if language == "javascript":
        return PYTHON_TYPES | JAVASCRIPT_TYPES
    return PYTHON_TYPES


def _reserved(word: str, types: frozenset[str]) -> bool:
    """A Python keyword, which cannot be a call or keyword-argument name in Python answers (Java and
    JavaScript answers are parsed as their own language, where e.g. ``from`` is allowed)."""
    return types is PYTHON_TYPES and keyword.iskeyword(word)


def _check_property(prop: Any, path: str, types: frozenset[str], reasons: list[str], depth: int = 0) -> None:
    """Reasons a parameter schema (and its items / properties) is malformed."""
    if depth > _MAX_DEPTH:
        reasons.append(f"{path}: schema nested deeper than {_MAX_DEPTH} levels")
        return
    if not isinstance(prop, Mapping):
        reasons.append(f"{path}: parameter schema must be an object, got {type(prop).__name__}")
        return
    declared = prop.get("type")
    if not isinstance(declared, str) or declared not in types:
        reasons.append(f"{path}: type {declared!r} is not one of BFCL's types {sorted(types)}")
        return
    if "description" in prop and not isinstance(prop["description"], str):
        reasons.append(f"{path}: description must be a string")
    if "enum" in prop and not _is_list(prop["enum"]):
        reasons.append(f"{path}: enum must be a list")
    if "items" in prop:
        _check_property(prop["items"], f"{path}.items", types, reasons, depth + 1)
    if "properties" in prop:
        _check_properties(prop["properties"], prop.get("required", []), path, types, reasons, depth + 1)


def _check_properties(
    properties: Any, required: Any, path: str, types: frozenset[str], reasons: list[str], depth: int
) -> None:
    if not isinstance(properties, Mapping):
        reasons.append(f"{path}: properties must be an object, got {type(properties).__name__}")
        return
    for name, prop in properties.items():
        if depth == 0 and (not isinstance(name, str) or not name.isidentifier() or _reserved(name, types)):
            reasons.append(f"{path}: parameter name {name!r} is not a valid identifier")
            continue
        if not isinstance(name, str) or not name:
            reasons.append(f"{path}: property name {name!r} is not a non-empty string")
            continue
        _check_property(prop, f"{path}.{name}", types, reasons, depth)
    if not _is_list(required) or not all(isinstance(r, str) for r in required):
        reasons.append(f"{path}: required must be a list of parameter names")
        return
    missing = [r for r in required if r not in properties]
    if missing:
        reasons.append(f"{path}: required parameters {missing} are not among the properties")


def _check_function(function: Any, index: int, types: frozenset[str], reasons: list[str]) -> str | None:
    """Reasons a function schema is malformed; returns its name when it has a usable one."""
    if not isinstance(function, Mapping):
        reasons.append(f"function {index}: must be an object, got {type(function).__name__}")
        return None
    name = function.get("name")
    valid_name = isinstance(name, str) and bool(_NAME_RE.match(name))
    if not valid_name or any(_reserved(part, types) for part in str(name).split(".")):
        reasons.append(f"function {index}: name {name!r} is not a (dotted) Python identifier")
        valid_name = False
    path = f"function {name!r}" if valid_name else f"function {index}"
    if not isinstance(function.get("description"), str):
        reasons.append(f"{path}: description must be a string")
    parameters = function.get("parameters")
    if not isinstance(parameters, Mapping):
        reasons.append(f"{path}: parameters must be an object")
    elif parameters.get("type") != "dict":
        reasons.append(f"{path}: parameters.type must be 'dict', got {parameters.get('type')!r}")
    else:
        _check_properties(
            parameters.get("properties"), parameters.get("required", []), path, types, reasons, 0
        )
    return name if valid_name else None


def _type_problem(value: Any, prop: Mapping[str, Any], path: str, depth: int = 0) -> list[str]:
    """Reasons one allowed value does not fit a (Python-dialect) parameter schema."""
    if depth > _MAX_DEPTH:
        return [f"{path}: value nested deeper than {_MAX_DEPTH} levels"]
    declared = prop.get("type")
    problems: list[str] = []
    if declared == "string":
        ok = isinstance(value, str)
    elif declared == "integer":
        ok = type(value) is int
    elif declared == "float":
        ok = type(value) in (int, float) and math.isfinite(value)
    elif declared == "boolean":
        ok = type(value) is bool
    elif declared in ("array", "tuple"):
        ok = isinstance(value, list)
        items = prop.get("items")
        if ok and isinstance(items, Mapping):
            for j, item in enumerate(value):
                if items.get("type") == "dict":
                    problems += _dict_problems(item, items, f"{path}[{j}]", depth + 1)
                elif items.get("type") == "float" and type(item) is int and float in map(type, value):
                    problems.append(
                        f"{path}[{j}]: int {item!r} mixed with floats fails the checker's nested type "
                        f"check; write {float(item)!r}"
                    )
                else:
                    problems += _type_problem(item, items, f"{path}[{j}]", depth + 1)
    elif declared == "dict":
        ok = isinstance(value, Mapping)
        if ok:
            problems += _dict_problems(value, prop, path, depth + 1)
    else:  # "any"
        ok = True
    if not ok:
        return [f"{path}: allowed value {value!r} is not of type {declared!r}", *problems]
    enum = prop.get("enum")
    strings = _is_list(enum) and all(isinstance(e, str) for e in enum)
    if declared == "string" and strings and _std(value) not in {_std(e) for e in enum}:
        problems.append(f"{path}: allowed value {value!r} is not in the enum {list(enum)}")
    return problems


def _dict_problems(value: Any, prop: Mapping[str, Any], path: str, depth: int) -> list[str]:
    """Reasons a possible-answer dict ``{key: [allowed values]}`` does not fit a dict schema."""
    if not isinstance(value, Mapping):
        return [f"{path}: allowed value {value!r} is not of type 'dict'"]
    properties = prop.get("properties")
    problems: list[str] = []
    for key, allowed in value.items():
        if isinstance(properties, Mapping) and properties and key not in properties:
            problems.append(f"{path}: dict key {key!r} is not among the schema's properties")
            continue
        if not _is_list(allowed) or not allowed:
            problems.append(f"{path}.{key}: allowed values must be a non-empty list")
            continue
        sub = properties.get(key) if isinstance(properties, Mapping) else None
        if isinstance(sub, Mapping):
            for v in allowed:
                if v != "" and v is not None:
                    problems += _type_problem(v, sub, f"{path}.{key}", depth + 1)
    return problems


def _check_answer(
    ground_truth: Any,
    category: str,
    schemas: Mapping[str, Mapping[str, Any]],
    python: bool,
    reasons: list[str],
) -> None:
    """Reasons a possible answer is malformed or cannot be met under the schemas."""
    if not _is_list(ground_truth) or not ground_truth:
        reasons.append(f"ground_truth must be a non-empty list of calls for category {category!r}")
        return
    if "parallel" in category:
        if len(ground_truth) < 2:
            reasons.append(
                f"category {category!r} needs at least 2 calls, ground truth has {len(ground_truth)}"
            )
    elif len(ground_truth) != 1:
        reasons.append(f"category {category!r} needs exactly 1 call, ground truth has {len(ground_truth)}")
    for i, entry in enumerate(ground_truth):
        if not isinstance(entry, Mapping) or len(entry) != 1:
            reasons.append(
                f"ground_truth[{i}]: must be a one-key object {{function_name: {{param: [values]}}}}"
            )
            continue
        ((name, params),) = entry.items()
        if name not in schemas:
            reasons.append(f"ground_truth[{i}]: function {name!r} is not among the offered functions")
            continue
        if not isinstance(params, Mapping):
            reasons.append(f"ground_truth[{i}]: arguments of {name!r} must be an object")
            continue
        parameters = schemas[name].get("parameters", {})
        properties = parameters.get("properties", {}) if isinstance(parameters, Mapping) else {}
        required = parameters.get("required", []) if isinstance(parameters, Mapping) else []
        for param in required if _is_list(required) else []:
            if not isinstance(param, str):
                continue  # reported with the function's schema
            allowed = params.get(param)
            if not _is_list(allowed) or all(v == "" for v in allowed):
                reasons.append(f"ground_truth[{i}]: required parameter {name}.{param} has no allowed value")
        for param, allowed in params.items():
            path = f"ground_truth[{i}] {name}.{param}"
            if not isinstance(properties, Mapping) or param not in properties:
                reasons.append(f"{path}: parameter is not in the function's schema")
                continue
            if not _is_list(allowed) or not allowed:
                reasons.append(f"{path}: allowed values must be a non-empty list")
                continue
            if python and isinstance(properties[param], Mapping):
                for value in allowed:
                    if value != "" and value is not None:  # "" = may be omitted; None = explicit null
                        reasons.extend(_type_problem(value, properties[param], path))


def _grade_problems(functions: list[dict], ground_truth: Any, category: str, strict: bool) -> list[str]:
    """Run the checker on the record's own reference answer(s)."""
    from genenv_gym.envs.bfcl import checker, render  # the checker imports nothing from here; lazy anyway

    if category in ("irrelevance", "live_irrelevance"):
        result = checker.grade_output(_REFUSAL, functions, None, category)
        return (
            []
            if result.valid
            else [f"a refusal fails the checker: {result.error_type}: {list(result.errors)}"]
        )
    if ground_truth is None:  # live_relevance: any call passes
        return []
    language = language_of(category)
    problems: list[str] = []
    orders = [("gold answer", ground_truth)]
    if strict and "parallel" in category and len(ground_truth) > 1:
        orders.append(("gold answer in reverse order", list(reversed(ground_truth))))
    for label, answer in orders:
        gold = render.render_answer(answer, functions, language)
        result = checker.grade_output(gold, functions, ground_truth, category)
        if not result.valid:
            problems.append(f"{label} {gold!r} fails the checker: {result.error_type}: {list(result.errors)}")
    return problems


def validate_record(
    functions: Any, ground_truth: Any, category: Any, question: Any, *, strict: bool = True
) -> list[str]:
    """Reasons a (generated or LLM-written) record is malformed or unsolvable; ``[]`` when it is valid.

    Checks the category, the question (a non-empty string of at most ``MAX_QUESTION_CHARS``), the function
    schemas (dotted identifier names, BFCL types, ``required`` within ``properties``), the possible answer
    (offered function names, parameters in the schema, an allowed value for every required parameter,
    allowed values that type-check), that irrelevance-style records have no ground truth, and finally
    that the checker grades the rendered gold answer valid (for parallel categories also in reverse
    order, since the official matcher is greedy) or, for irrelevance, a refusal. Never raises.

    ``strict=False`` keeps only what decides whether the record can be passed: it skips the type and enum
    checks of allowed values that the checker tolerates (BFCL's own files have such values, e.g.
    ``'dontcare'`` for an integer) and the reverse-order check, leaving the checker's verdict on the gold.
    """
    try:
        return _validate(functions, ground_truth, category, question, strict)
    except Exception as exc:  # junk input must come back as reasons, never as an exception
        return [f"record could not be checked: {type(exc).__name__}: {exc}"]


def _validate(functions: Any, ground_truth: Any, category: Any, question: Any, strict: bool) -> list[str]:
    reasons: list[str] = []
    if not isinstance(category, str) or category not in VALID_CATEGORIES:
        reasons.append(f"category {category!r} is not one of {list(VALID_CATEGORIES)}")
        category = "simple_python" if ground_truth is not None else "irrelevance"
    if not isinstance(question, str) or not question.strip():
        reasons.append("question must be a non-empty string")
    elif len(question) > MAX_QUESTION_CHARS:
        reasons.append(f"question is {len(question)} characters long (limit {MAX_QUESTION_CHARS})")
    language = language_of(category)
    types = _types_for(language)
    schemas: dict[str, Mapping[str, Any]] = {}
    if not _is_list(functions) or (not functions and category not in ("irrelevance", "live_irrelevance")):
        reasons.append("functions must be a non-empty list of function schemas")
        functions = []
    for i, function in enumerate(functions):
        name = _check_function(function, i, types, reasons)
        if name is not None:
            if name in schemas:
                reasons.append(f"function name {name!r} is offered twice")
            schemas[name] = function
    if (
        category in ("simple_python", "simple_java", "simple_javascript", "live_simple")
        and len(functions) != 1
    ):
        reasons.append(f"category {category!r} offers exactly one function, got {len(functions)}")
    if category in ("irrelevance", "live_irrelevance", "live_relevance"):
        if ground_truth is not None:
            reasons.append(f"category {category!r} has no ground truth (must be None)")
    else:
        _check_answer(ground_truth, category, schemas, strict and language == "python", reasons)
    if not reasons:
        reasons.extend(_grade_problems(_plain(functions), _plain(ground_truth), category, strict))
    return reasons
