"""How the generator's functions are described: parameters, functions and value samplers.

A :class:`Param` knows its JSON-schema property, how to sample a value, how the question states the value
and which values the possible answer allows. A :class:`Func` groups required and optional parameters with
the question templates that state them. The samplers draw from a ``numpy.random.Generator`` only, so a
record is deterministic given the generator's state.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from genenv_gym.envs.bfcl.checker import standardize_string

Sampler = Callable[[np.random.Generator], Any]


class Retry(Exception):
    """Raised while sampling when the draw must be redone (e.g. two values that have to differ)."""


def fmt_num(value: float | int) -> str:
    """A number as the question states it: integral floats without '.0', others by repr."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return repr(value)


def join_words(words: Sequence[str]) -> str:
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
        return fmt_num(value)
    if isinstance(value, list):
        return join_words([_say_default(v) for v in value])
    return str(value)


@dataclass(frozen=True)
class Param:
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
    fields: tuple[Param, ...] = ()
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
            extra = [a for a in self.aliases(value) if standardize_string(a) != standardize_string(value)]
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


def _dict_schema(fields: tuple[Param, ...]) -> dict[str, Any]:
    return {
        "type": "dict",
        "properties": {f.name: f.schema() for f in fields},
        "required": [f.name for f in fields],
    }


@dataclass(frozen=True)
class Func:
    """A function of the vocabulary: schema parts, question templates and sampling rules.

    ``templates`` are imperative clauses with ``{param}`` slots for every required parameter. ``fixup``
    enforces relations between sampled required values (it may raise ``Retry``). ``near_miss_ok`` says
    no sibling in the family can do this function's job, so the siblings may be offered in a near-miss
    irrelevance task asking for it.
    """

    name: str
    description: str
    templates: tuple[str, ...]
    required: tuple[Param, ...]
    optional: tuple[Param, ...] = ()
    fixup: Callable[[dict[str, Any]], None] | None = None
    near_miss_ok: bool = True

    @property
    def family(self) -> str:
        return self.name.split(".")[0]

    @property
    def complexity(self) -> int:
        return max((p.complexity for p in self.required), default=0)


# ---- samplers --------------------------------------------------------------------------------------


def pick(pool: Sequence[Any]) -> Sampler:
    return lambda rng: pool[int(rng.integers(len(pool)))]


def int_range(low: int, high: int) -> Sampler:
    return lambda rng: int(rng.integers(low, high + 1))


def pick_int(values: Sequence[int]) -> Sampler:
    return lambda rng: int(values[int(rng.integers(len(values)))])


def float_range(low: float, high: float, decimals: int = 1, fractional: bool = False) -> Sampler:
    """Uniform float rounded to ``decimals``; ``fractional`` forbids integral values (for float arrays)."""

    def sample(rng: np.random.Generator) -> float:
        value = round(float(rng.uniform(low, high)), decimals)
        if fractional and value.is_integer():
            value = round(value + 0.5, decimals)
        return value

    return sample


def iso_date(year: int = 2025) -> Sampler:
    return lambda rng: f"{year}-{int(rng.integers(1, 13)):02d}-{int(rng.integers(1, 29)):02d}"


def clock_time() -> Sampler:
    return lambda rng: f"{int(rng.integers(7, 22)):02d}:{(0, 15, 30, 45)[int(rng.integers(4))]:02d}"


def code(prefix: str, digits: int = 4) -> Sampler:
    return lambda rng: prefix + "".join(str(int(d)) for d in rng.integers(0, 10, size=digits))


def _distinct(draw: Sampler, low: int, high: int, key: Callable[[Any], Any]) -> Sampler:
    """A list of ``low..high`` draws whose ``key`` values differ (at most ten draws per wanted item)."""

    def sample(rng: np.random.Generator) -> list[Any]:
        size = int(rng.integers(low, high + 1))
        out: list[Any] = []
        seen: list[Any] = []
        for _ in range(size * 10):
            value = draw(rng)
            if key(value) not in seen:
                out.append(value)
                seen.append(key(value))
            if len(out) == size:
                break
        if len(out) < low:
            raise Retry
        return out

    return sample


def distinct_list(item: Sampler, low: int, high: int) -> Sampler:
    """A list of ``low..high`` distinct items."""
    return _distinct(item, low, high, key=lambda value: value)


def record_of(fields: tuple[Param, ...]) -> Sampler:
    return lambda rng: {f.name: f.sample(rng) for f in fields}


def records_of(fields: tuple[Param, ...], low: int, high: int, key: str) -> Sampler:
    """A list of ``low..high`` dicts whose ``key`` values differ (after BFCL's string standardisation)."""
    return _distinct(record_of(fields), low, high, key=lambda record: standardize_string(str(record[key])))


def differ(first: str, second: str) -> Callable[[dict[str, Any]], None]:
    """Fixup: two values must differ."""

    def fix(values: dict[str, Any]) -> None:
        if standardize_string(str(values[first])) == standardize_string(str(values[second])):
            raise Retry

    return fix


def ordered(first: str, second: str) -> Callable[[dict[str, Any]], None]:
    """Fixup: two dates (ISO strings) in increasing order, swapping them if needed."""

    def fix(values: dict[str, Any]) -> None:
        if values[first] == values[second]:
            raise Retry
        if values[first] > values[second]:
            values[first], values[second] = values[second], values[first]

    return fix


def quote(value: Any) -> str:
    return f"'{value}'"
