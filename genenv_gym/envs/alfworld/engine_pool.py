"""The engines a domain's episodes are played on: one engine per open episode, reused once it is given back.

An ALFWorld game's state lives in its engine (textworld's PDDL state and fast-downward's library, a copy of
which each engine loads), so two episodes played at once on one engine would reset and move each other's
game. A trainer holds many episodes of a domain open at once (verl's concurrent rollouts, TRL's batch), so
each episode takes an engine of its own from the pool and gives it back when it is closed (or, failing
that, when it is garbage-collected). A Gymnasium env closes its episode at the next reset, so it keeps
playing on one engine.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from genenv_gym.envs.alfworld.engine import AlfredEngine


class EnginePool:
    """Engines made by ``make``, each lent to one episode at a time.

    Args:
        make: builds a new engine (when every engine made so far is lent).
    """

    def __init__(self, make: Callable[[], AlfredEngine]) -> None:
        self._make = make
        self._free: list[AlfredEngine] = []
        self._all: list[AlfredEngine] = []
        self._lock = threading.Lock()

    def acquire(self) -> AlfredEngine:
        """An engine no episode is playing on (a new one when all are lent)."""
        with self._lock:
            if self._free:
                return self._free.pop()
        engine = self._make()
        with self._lock:
            self._all.append(engine)
        return engine

    def release(self, engine: AlfredEngine) -> None:
        """Take back an engine whose episode has ended (giving one back twice has no effect)."""
        with self._lock:
            if any(engine is e for e in self._all) and not any(engine is e for e in self._free):
                self._free.append(engine)

    @property
    def size(self) -> int:
        """How many engines the pool has made."""
        return len(self._all)

    @property
    def lent(self) -> int:
        """How many engines episodes hold now."""
        with self._lock:
            return len(self._all) - len(self._free)

    def close(self) -> None:
        """Close every engine (episodes still open on one can no longer step)."""
        with self._lock:
            engines, self._all, self._free = self._all, [], []
        for engine in engines:
            engine.close()
