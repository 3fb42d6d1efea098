"""What a remote client may choose: the allow-list of constructor kwargs and reset options per env id.

``genenv serve`` builds each session's env from the operator's kwargs (``--env-kwargs``, ``--data-dir``)
with the client's over them, and passes the client's ``reset`` options on. A client may set only what the
env id's ``EnvEntry.client`` declares here, each value checked against its type and bounds; everything
else (data dirs, backends, model paths, URLs, ``trust_remote_code``, variable names, filler files, caches)
is the operator's. A key that is not declared is refused naming the key and the keys that are
(``ParamError.forbidden``: HTTP 403); a declared key with a bad value is refused naming its bound (422).

Declarations are plain data (cheap to import: the manifests hold them). ``Fields`` declares a nested object
(``curriculum``, ``domain_kwargs``) key by key; ``TaskData`` accepts a Task as its JSON dict, bounded in
size and depth; the domain checks the rest when it plays it (paths inside a task never leave the data
dir: see ``genenv_gym.datasets.data_dir.entry_name``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

#: How deep client JSON (kwargs, options, a task) may nest.
MAX_DEPTH = 32


class ParamError(ValueError):
    """A client value refused: ``forbidden`` when its key is not declared (403), else a bad value (422)."""

    def __init__(self, path: str, message: str, forbidden: bool = False) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.forbidden = forbidden


class Param:
    """One client-settable value: ``check`` returns it (normalised) or raises ParamError."""

    def check(self, value: Any, path: str) -> Any:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError


@dataclass(frozen=True)
class Choice(Param):
    """One of ``values``."""

    values: tuple[Any, ...]

    def check(self, value: Any, path: str) -> Any:
        if isinstance(value, bool) or value not in self.values or not _same_kind(value, self.values):
            raise ParamError(path, f"must be one of {list(self.values)}, got {_short(value)}")
        return value

    def describe(self) -> str:
        return f"one of {list(self.values)}"


@dataclass(frozen=True)
class Choices(Param):
    """A non-empty list of distinct ``values`` (or one of them alone when ``single`` is allowed)."""

    values: tuple[Any, ...]
    single: bool = False

    def check(self, value: Any, path: str) -> Any:
        if self.single and not isinstance(value, list):
            return Choice(self.values).check(value, path)
        if not isinstance(value, list) or not value or len(value) > len(self.values):
            raise ParamError(path, f"must be a non-empty list of {list(self.values)}, got {_short(value)}")
        for i, item in enumerate(value):
            Choice(self.values).check(item, f"{path}[{i}]")
        if len(set(map(repr, value))) != len(value):
            raise ParamError(path, "lists a value twice")
        return list(value)

    def describe(self) -> str:
        return f"a list of {list(self.values)}" + (" or one of them" if self.single else "")


@dataclass(frozen=True)
class Integer(Param):
    """An integer in ``[low, high]``."""

    low: int
    high: int

    def check(self, value: Any, path: str) -> Any:
        if type(value) is not int or not self.low <= value <= self.high:
            raise ParamError(path, f"must be an integer in [{self.low}, {self.high}], got {_short(value)}")
        return value

    def describe(self) -> str:
        return f"an integer in [{self.low}, {self.high}]"


@dataclass(frozen=True)
class Real(Param):
    """A finite number in ``[low, high]``."""

    low: float
    high: float

    def check(self, value: Any, path: str) -> Any:
        try:
            number = float(value) if type(value) in (int, float) else math.nan
        except OverflowError:  # an int past a float's range
            number = math.nan
        if not math.isfinite(number) or not self.low <= number <= self.high:
            raise ParamError(path, f"must be a number in [{self.low}, {self.high}], got {_short(value)}")
        return number

    def describe(self) -> str:
        return f"a number in [{self.low}, {self.high}]"


@dataclass(frozen=True)
class Flag(Param):
    """``true`` or ``false``."""

    def check(self, value: Any, path: str) -> Any:
        if type(value) is not bool:
            raise ParamError(path, f"must be true or false, got {_short(value)}")
        return value

    def describe(self) -> str:
        return "true or false"


@dataclass(frozen=True)
class Text(Param):
    """A string of at most ``max_chars`` characters matching ``pattern`` (a full match)."""

    max_chars: int = 200
    pattern: str = r"[\w.:/@+=-]*"

    def check(self, value: Any, path: str) -> Any:
        if not isinstance(value, str) or len(value) > self.max_chars or not re.fullmatch(self.pattern, value):
            limit = f"at most {self.max_chars} characters of {self.pattern}"
            raise ParamError(path, f"must be a string of {limit}, got {_short(value)}")
        return value

    def describe(self) -> str:
        return f"a string of at most {self.max_chars} characters"


@dataclass(frozen=True)
class Fields(Param):
    """An object whose keys are declared one by one (any other key is forbidden)."""

    params: Mapping[str, Param]

    def check(self, value: Any, path: str) -> Any:
        if not isinstance(value, Mapping):
            raise ParamError(path, f"must be an object, got {_short(value)}")
        return check_object(self.params, value, path)

    def describe(self) -> str:
        return "an object with " + (", ".join(self.params) or "no keys")


#: The fields of ``genenv_gym.task.Task`` (kept here so that checking a task's shape imports nothing).
TASK_FIELDS = ("id", "domain", "messages", "tools", "evaluation", "difficulty", "provenance", "category")


@dataclass(frozen=True)
class TaskBound:
    """A family's bound on what makes its checker, validator, planner or solver expensive in a client's
    task: ``what`` is counted along ``path`` in the task's JSON (each key a step into an object, ``"*"``
    every item of a list; the count is the length of the list, object or string reached, summed over the
    items ``"*"`` takes; an integer reached counts as its value: a trip's days), and may be at most
    ``limit``. A value of another shape counts 0: the domain refuses it when it reads the task."""

    what: str
    path: tuple[str, ...]
    limit: int

    def count(self, task: Any) -> int:
        level = [task]
        for key in self.path:
            if key == "*":
                level = [item for value in level if isinstance(value, list) for item in value]
            else:
                level = [value[key] for value in level if isinstance(value, Mapping) and key in value]
        return sum(
            value if type(value) is int else len(value)
            for value in level
            if type(value) is int or isinstance(value, (list, Mapping, str))
        )

    def check(self, task: Any, path: str) -> None:
        found = self.count(task)
        if found > self.limit:
            where = ".".join(self.path)
            raise ParamError(
                path, f"has {found} {self.what} ({where}), more than this server takes: {self.limit}"
            )


@dataclass(frozen=True)
class TaskData(Param):
    """A Task as its JSON dict (``Task.to_dict()``), at most ``max_chars`` of JSON text and within its
    family's ``bounds`` (``TaskBound``); the env's domain checks what the task means when it plays it."""

    max_chars: int = 1_000_000
    bounds: tuple[TaskBound, ...] = ()

    def check(self, value: Any, path: str) -> Any:
        if not isinstance(value, Mapping):
            raise ParamError(path, f"must be a Task as a JSON object, got {_short(value)}")
        unknown = sorted(set(value) - set(TASK_FIELDS))
        if unknown:
            raise ParamError(path, f"unknown Task field(s) {unknown}; a Task has {list(TASK_FIELDS)}")
        for key in ("id", "domain"):
            if not isinstance(value.get(key), str) or not value[key] or len(value[key]) > 500:
                raise ParamError(f"{path}.{key}", "must be a non-empty string of at most 500 characters")
        for key in ("provenance", "category"):
            if key in value and not isinstance(value[key], str):
                raise ParamError(f"{path}.{key}", "must be a string")
        for key in ("messages", "tools"):
            if key in value and not isinstance(value[key], list):
                raise ParamError(f"{path}.{key}", "must be a list")
        for key in ("evaluation", "difficulty"):
            if key in value and not isinstance(value[key], Mapping):
                raise ParamError(f"{path}.{key}", "must be an object")
        if json_size(value) > self.max_chars:
            raise ParamError(path, f"is larger than {self.max_chars} characters of JSON")
        for bound in self.bounds:
            bound.check(value, path)
        return value

    def describe(self) -> str:
        bounds = "".join(f", at most {b.limit} {b.what}" for b in self.bounds)
        return f"a Task as a JSON object{bounds}"


@dataclass(frozen=True)
class ClientParams:
    """What a client may set for one env id: ``gymnasium.make`` kwargs and ``reset`` options."""

    kwargs: Mapping[str, Param] = field(default_factory=dict)
    options: Mapping[str, Param] = field(default_factory=dict)

    def check_kwargs(self, kwargs: Mapping[str, Any]) -> dict[str, Any]:
        """The client's kwargs, checked (ParamError for the first refused one)."""
        return check_object(self.kwargs, kwargs, "env_kwargs")

    def check_options(self, options: Mapping[str, Any] | None) -> dict[str, Any] | None:
        """The client's reset options, checked (ParamError for the first refused one)."""
        return None if options is None else check_object(self.options, options, "options")

    def describe(self) -> dict[str, dict[str, str]]:
        """Key -> what it takes, for ``env_kwargs`` and ``options`` (``GET /envs/<id>/spec`` shows it)."""
        return {
            "env_kwargs": {k: p.describe() for k, p in self.kwargs.items()},
            "options": {k: p.describe() for k, p in self.options.items()},
        }


#: The reset options of an env over a benchmark's tasks: a task by its id, or a task as data.
BENCHMARK_OPTIONS: Mapping[str, Param] = {"task_id": Text(), "task": TaskData()}


def benchmark_options(*bounds: TaskBound) -> dict[str, Param]:
    """``BENCHMARK_OPTIONS`` with a client's task held to the family's ``bounds``."""
    return {"task_id": Text(), "task": TaskData(bounds=bounds)}


def check_object(params: Mapping[str, Param], value: Mapping[str, Any], path: str) -> dict[str, Any]:
    """Every key of ``value`` declared in ``params`` and its value accepted; the checked copy.

    Keys are checked first, nested objects included: a request that names any undeclared key is refused
    for that key (403) whatever its other values.
    """
    check_keys(params, value, path)
    return {key: params[key].check(item, f"{path}.{key}") for key, item in value.items()}


def check_keys(params: Mapping[str, Param], value: Mapping[str, Any], path: str) -> None:
    """ParamError (forbidden) for the first key of ``value`` (or of a nested declared object) that
    ``params`` does not declare."""
    for key, item in value.items():
        where = f"{path}.{key}"
        if key not in params:
            allowed = ", ".join(sorted(params)) or "none"
            raise ParamError(
                where, f"is not a client's choice on this server (a client may set: {allowed})", True
            )
        nested = params[key]
        if isinstance(nested, Fields) and isinstance(item, Mapping):
            check_keys(nested.params, item, where)


def json_depth_ok(value: Any, max_depth: int = MAX_DEPTH) -> bool:
    """Whether ``value`` (decoded JSON) nests at most ``max_depth`` levels (checked without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, Mapping):
            children = list(item.values())
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > max_depth:
            return False
        stack.extend((child, depth + 1) for child in children)
    return True


def json_size(value: Any) -> int:
    """About how many characters ``value`` takes as JSON (strings and keys counted by length)."""
    total, stack = 0, [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            total += len(item) + 2
        elif isinstance(item, Mapping):
            total += 2 + sum(len(str(k)) + 4 for k in item)
            stack.extend(item.values())
        elif isinstance(item, list):
            total += 2 + len(item)
            stack.extend(item)
        else:
            total += 8
    return total


def _same_kind(value: Any, values: tuple[Any, ...]) -> bool:
    return any(type(value) is type(v) for v in values)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
