"""Sharing the env workers between clients: no client holds every one.

At most ``slots`` env calls (builds, resets, steps) run at once, each in its session's process. A client
(one address, as the server sees it) with sessions open is owed ``ceil(slots / clients)`` of them: while
other clients hold sessions it runs at most that many calls at once, even when workers are free, so the
others' next calls never wait behind its longest ones. A free slot goes to the waiting client running the
fewest calls (the earliest waiter among equals).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import math
from collections import Counter
from collections.abc import AsyncIterator


class FairSlots:
    """``slots`` concurrent env calls, shared fairly between the clients that hold sessions."""

    def __init__(self, slots: int) -> None:
        if slots < 1:
            raise ValueError(f"slots must be >= 1, got {slots}")
        self.slots = slots
        self.sessions: Counter[str] = Counter()
        self.running: Counter[str] = Counter()
        self._waiting: list[tuple[int, str, asyncio.Future]] = []
        self._order = itertools.count()

    def add_session(self, client: str) -> None:
        self.sessions[client] += 1

    def remove_session(self, client: str) -> None:
        self.sessions[client] -= 1
        if self.sessions[client] <= 0:
            del self.sessions[client]
        self._dispatch()

    def share(self) -> int:
        """How many calls one client may run at once now."""
        return max(1, math.ceil(self.slots / max(1, len(self.sessions))))

    @contextlib.asynccontextmanager
    async def slot(self, client: str) -> AsyncIterator[None]:
        """Hold one slot for ``client`` (waiting for its turn) while the block runs."""
        future = asyncio.get_running_loop().create_future()
        entry = (next(self._order), client, future)
        self._waiting.append(entry)
        self._dispatch()
        try:
            await future
        except BaseException:
            if future.done() and not future.cancelled():
                self._release(client)  # granted as it was cancelled
            elif entry in self._waiting:
                self._waiting.remove(entry)
            raise
        try:
            yield
        finally:
            self._release(client)

    def _release(self, client: str) -> None:
        self.running[client] -= 1
        if self.running[client] <= 0:
            del self.running[client]
        self._dispatch()

    def _dispatch(self) -> None:
        share = self.share()
        while self._waiting and sum(self.running.values()) < self.slots:
            eligible = [w for w in self._waiting if self.running[w[1]] < share and not w[2].done()]
            if not eligible:
                self._waiting = [w for w in self._waiting if not w[2].done()]
                return
            chosen = min(eligible, key=lambda w: (self.running[w[1]], w[0]))
            self._waiting.remove(chosen)
            self.running[chosen[1]] += 1
            chosen[2].set_result(None)
