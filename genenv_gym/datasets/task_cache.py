"""Tasks built from a benchmark's files, kept on disk: a fresh process reads them instead of building them.

Building a benchmark's Tasks (prompts rendered, nested data frozen, multi-turn ground truth replayed) takes
seconds; reading them back takes a fraction of that. ``cached_tasks`` serves one built collection of Tasks:
from this process's memory when it was served before, else from the on-disk entry, else built and written.

Where: ``$GENENV_TASK_CACHE_DIR``, else ``$XDG_CACHE_HOME/genenv_gym/tasks`` (``~/.cache/genenv_gym/tasks``
when the variable is unset). ``GENENV_NO_CACHE=1`` turns the on-disk cache off (nothing read or written).
Deleting the folder clears it. An entry is a pickle (uncompressed: reading is what must be fast; the 18
entries of BFCL's ids take 23 MB); the folder must be the user's own, as for any cache of pickles.

An entry's key holds what was built (a name and its parameters), the paths, sizes and modification times of
the files it was built from, a hash of genenv_gym's source code and the Python version: a changed data file
or another version of the code makes a new entry, and writing it removes the stale one. An entry that cannot
be read (truncated, corrupt, of another key) is built again and rewritten; the reason is logged at debug
level. Entries are written atomically, so processes that start together can share the folder.
"""

from __future__ import annotations

import copy as pycopy
import gc
import hashlib
import logging
import os
import pickle
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any

from genenv_gym.atomic_write import atomic_open
from genenv_gym.datasets.data_dir import cache_home, file_version
from genenv_gym.task import FrozenDict, Task

LOG = logging.getLogger(__name__)

#: Names the folder of the on-disk cache.
DIR_ENV_VAR = "GENENV_TASK_CACHE_DIR"
#: Set to ``1`` to turn the on-disk cache off.
OFF_ENV_VAR = "GENENV_NO_CACHE"
#: The layout of an entry; raising it retires every entry written before.
FORMAT = 1
#: Collections kept in this process's memory (each benchmark category is one).
MEMORY_ENTRIES = 64

_SUFFIX = ".pkl"
_memory: OrderedDict[str, tuple[Task, ...]] = OrderedDict()
_memory_lock = threading.Lock()


def task_cache_dir() -> Path | None:
    """The folder of the on-disk task cache, or None when ``GENENV_NO_CACHE`` turns it off."""
    if os.environ.get(OFF_ENV_VAR, "").strip() not in ("", "0"):
        return None
    if os.environ.get(DIR_ENV_VAR):
        return Path(os.environ[DIR_ENV_VAR]).expanduser()
    return cache_home() / "tasks"


@lru_cache(maxsize=1)
def code_version() -> str:
    """A hash of every module of the installed genenv_gym (what builds Tasks, and the Task class itself),
    its version and the Python version."""
    from genenv_gym import __version__

    package = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256(f"{__version__}|{sys.version_info[:2]}|{FORMAT}".encode())
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def _digest(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:24]


def cached_tasks(
    name: str,
    files: Iterable[str | os.PathLike],
    build: Callable[[], Iterable[Task]],
    params: Mapping[str, str] | None = None,
) -> tuple[Task, ...]:
    """The Tasks ``build()`` makes from ``files``, built at most once per data and code version.

    ``name`` and ``params`` say what is built (e.g. a benchmark, a category and an action format): together
    with the files' paths they name the entry; the files' sizes and modification times and the code version
    complete its key. ``build`` must depend on nothing else. A file that does not exist is in the key as
    missing; what ``build`` raises reaches the caller, and nothing is cached then.
    """
    paths = [Path(f) for f in files]
    what = [name, *(f"{k}={v}" for k, v in sorted((params or {}).items()))]
    slot = f"{name}-{_digest(*what, *(str(p.resolve()) for p in paths))}"
    key = f"{slot}.{_digest(*what, *map(file_version, paths), code_version())}"
    with _memory_lock:  # envs are made on several threads by `genenv serve`
        if key in _memory:
            _memory.move_to_end(key)
            return _memory[key]
    folder = task_cache_dir()
    tasks = _read(folder / f"{key}{_SUFFIX}", key) if folder is not None else None
    if tasks is None:
        tasks = tuple(build())
        if folder is not None:
            tasks = share_equal_parts(tasks)
            _write(folder, slot, key, tasks)
    with _memory_lock:
        _memory[key] = tasks
        if len(_memory) > MEMORY_ENTRIES:
            _memory.popitem(last=False)
    return tasks


#: The nested fields of a Task that ``share_equal_parts`` deduplicates.
_NESTED_FIELDS = ("messages", "tools", "evaluation", "difficulty")


def share_equal_parts(tasks: Iterable[Task]) -> tuple[Task, ...]:
    """Equal Tasks whose equal nested values (and strings) are each one object, shared by every task that
    holds it: a benchmark repeats its function docs and states in many tasks, so the entry unpickles into a
    fraction of the objects (a tenth for BFCL multi-turn), each scanned by the garbage collector ever after.
    Sharing is safe because the values are immutable (``FrozenDict``, tuples, scalars)."""
    memo: dict[Any, Any] = {}
    shared = []
    for task in tasks:
        copy = pycopy.copy(task)
        for name in _NESTED_FIELDS:
            object.__setattr__(copy, name, _canonical(getattr(task, name), memo))
        shared.append(copy)
    return tuple(shared)


def _canonical(value: Any, memo: dict[Any, Any]) -> Any:
    """The one object standing for ``value``'s content (its type included: 1, 1.0 and True stay apart)."""
    kind = type(value)
    if kind is FrozenDict:
        data = {k: _canonical(v, memo) for k, v in value.items()}
        key: Any = (kind, tuple((k, id(v)) for k, v in data.items()))
        return memo.setdefault(key, FrozenDict(data))
    if kind is tuple:
        items = tuple(_canonical(v, memo) for v in value)
        return memo.setdefault((kind, tuple(id(v) for v in items)), items)
    if kind is float:
        # repr keeps -0.0 apart from 0.0; a NaN is never merged (equal containers of one NaN would compare
        # equal where distinct NaNs do not).
        return memo.setdefault((kind, repr(value)), value) if value == value else value
    if kind in (str, int, bool):
        return memo.setdefault((kind, value), value)
    return value


@contextmanager
def _gc_paused() -> Iterator[None]:
    """The collector off while a pickle of many small containers is read or written (5-10x faster)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _read(path: Path, key: str) -> tuple[Task, ...] | None:
    """The entry's Tasks, or None (logged) when it is absent or cannot be read as this key's entry."""
    try:
        with _gc_paused():
            stored_key, tasks = pickle.loads(path.read_bytes())
        if stored_key != key or not isinstance(tasks, tuple) or not all(isinstance(t, Task) for t in tasks):
            raise ValueError("the entry holds something else")
    except FileNotFoundError:
        LOG.debug("task cache: no entry %s; building", path)
        return None
    except Exception as error:  # any unreadable entry is rebuilt, never fatal
        LOG.debug("task cache: %s unreadable (%s: %s); building again", path, type(error).__name__, error)
        return None
    return tasks


def _write(folder: Path, slot: str, key: str, tasks: Sequence[Task]) -> None:
    """Store the entry atomically and remove the slot's stale entries; a failure is logged, never raised."""
    path = folder / f"{key}{_SUFFIX}"
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        with _gc_paused():
            data = pickle.dumps((key, tuple(tasks)), protocol=pickle.HIGHEST_PROTOCOL)
        with atomic_open(path) as handle:
            handle.write(data)
        for stale in folder.glob(f"{slot}.*{_SUFFIX}"):
            if stale != path:
                stale.unlink(missing_ok=True)
    except Exception as error:  # a cache that cannot be written only costs the next process a build
        LOG.debug("task cache: could not write %s (%s: %s)", path, type(error).__name__, error)
