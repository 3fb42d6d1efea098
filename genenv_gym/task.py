"""The Task record: one problem an agent is asked to solve, frozen and JSON round-trippable."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields
from typing import Any


class FrozenDict(Mapping):
    """A read-only, hashable mapping used for the nested JSON data of a frozen Task."""

    __slots__ = ("_data", "_hash")

    def __init__(self, data: Mapping[str, Any] = ()) -> None:
        self._data = dict(data)
        self._hash: int | None = None

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(json.dumps(thaw(self), sort_keys=True, default=str))
        return self._hash

    def __repr__(self) -> str:
        return f"FrozenDict({self._data!r})"

    def __reduce__(self) -> tuple[Any, tuple[dict[str, Any]]]:
        # Pickled as its data alone: the cached hash is of this process's string hashing, and restoring
        # through ``_frozen_dict`` (no copy, no slot-by-slot state) keeps the task cache's reads fast.
        return _frozen_dict, (self._data,)


def _frozen_dict(data: dict[str, Any]) -> FrozenDict:
    """A FrozenDict over ``data`` itself (unpickling: ``data`` is already a fresh dict of frozen values)."""
    frozen = FrozenDict.__new__(FrozenDict)
    frozen._data = data
    frozen._hash = None
    return frozen


def freeze(value: Any) -> Any:
    """Deep-convert JSON data to immutable form: dicts to FrozenDict, lists to tuples."""
    if isinstance(value, Mapping):
        return FrozenDict({str(k): freeze(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    return value


#: Types ``thaw`` returns as they are without an ``isinstance`` check against the Mapping ABC (slow).
_SCALARS = frozenset({str, int, float, bool, type(None)})


def thaw(value: Any) -> Any:
    """Deep-convert frozen data back to plain JSON data: mappings to dicts, tuples to lists."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is FrozenDict:
        return {k: thaw(v) for k, v in value._data.items()}
    if kind is tuple or kind is list:
        return [thaw(v) for v in value]
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [thaw(v) for v in value]
    return value


@dataclass(frozen=True)
class Task:
    """One task of a domain, as the agent sees it and as the verifier grades it.

    Attributes:
        id: unique within its domain; official ids for benchmark records (``simple_python_0``).
        domain: the name of the Domain that renders and verifies it (``bfcl``).
        messages: the chat the agent sees, a sequence of ``{"role", "content"}`` mappings.
        tools: the tool/function specifications offered to the agent (may be empty).
        evaluation: what the verifier needs (reference answer, possible answers, checker data).
        difficulty: difficulty features; ``level`` (an int) is the one simulators act on.
        provenance: ``benchmark:<split>``, ``procedural`` or ``llm:<model>``.
        category: the benchmark category or task type the official metric reports by.
    """

    id: str
    domain: str
    messages: tuple = ()
    tools: tuple = ()
    evaluation: FrozenDict = field(default_factory=FrozenDict)
    difficulty: FrozenDict = field(default_factory=FrozenDict)
    provenance: str = "procedural"
    category: str = ""

    def __post_init__(self) -> None:
        for name in ("messages", "tools", "evaluation", "difficulty"):
            object.__setattr__(self, name, freeze(getattr(self, name)))
        if not self.id or not self.domain:
            raise ValueError("a Task needs a non-empty id and domain")

    @property
    def level(self) -> int:
        """The difficulty level simulators act on (0 when the task has none)."""
        return int(self.difficulty.get("level", 0))

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-compatible dict (lists, dicts, str, numbers)."""
        return {f.name: thaw(getattr(self, f.name)) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Task:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown Task fields: {sorted(unknown)}")
        return cls(**dict(data))

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Task:
        return cls.from_dict(json.loads(text))
