"""Sharing the env workers between clients: no client holds every one, however many addresses it has.

At most ``slots`` env calls (builds, resets, steps) run at once in the shared pool, each in its session's
process. A client (an identity, serve/identity.py: its per-client token, else its address's network) with
sessions open is owed ``ceil(slots / clients)`` calls: while other clients hold sessions it runs at most
that many at once, even when workers are free, so the others' next calls never wait behind its longest
ones. A free slot goes to the waiting client running the fewest calls (the earliest waiter among equals).

A call that runs past ``--slow-call`` leaves the pool (``Held.leave_pool``; its process already dropped to
the lowest CPU priority): its slot goes to the next waiter, so calls that run to the time limit, from
however many clients, never hold the pool. It still counts against its own client's share until it ends,
so one client's slow calls are at most its share, and the calls running at once at most ``slots`` plus one
per client.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import math
from collections import Counter
from collections.abc import AsyncIterator


class Held:
    """One granted call: in the shared pool until it ends or leaves it."""

    def __init__(self, slots: FairSlots, client: str) -> None:
        self._slots = slots
        self.client = client
        self.in_pool = True

    def leave_pool(self) -> None:
        """Stop counting against the shared pool (the call runs on, counted against its client's share)."""
        if self.in_pool:
            self.in_pool = False
            self._slots.in_pool -= 1
            self._slots.left_pool += 1
            self._slots._dispatch()


class FairSlots:
    """``slots`` concurrent env calls, shared fairly between the clients that hold sessions."""

    def __init__(self, slots: int) -> None:
        if slots < 1:
            raise ValueError(f"slots must be >= 1, got {slots}")
        self.slots = slots
        self.sessions: Counter[str] = Counter()
        self.running: Counter[str] = Counter()
        #: Calls holding a slot of the pool now (the others running have left it).
        self.in_pool = 0
        #: Calls that left the pool past the slow-call time (a counter, for /health and benchmarks).
        self.left_pool = 0
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
    async def slot(self, client: str) -> AsyncIterator[Held]:
        """Hold one slot for ``client`` (waiting for its turn) while the block runs."""
        future = asyncio.get_running_loop().create_future()
        entry = (next(self._order), client, future)
        self._waiting.append(entry)
        self._dispatch()
        try:
            await future
        except BaseException:
            if future.done() and not future.cancelled():
                self._release(future.result())  # granted as it was cancelled
            elif entry in self._waiting:
                self._waiting.remove(entry)
            raise
        held = future.result()
        try:
            yield held
        finally:
            self._release(held)

    def _release(self, held: Held) -> None:
        if held.in_pool:
            held.in_pool = False
            self.in_pool -= 1
        self.running[held.client] -= 1
        if self.running[held.client] <= 0:
            del self.running[held.client]
        self._dispatch()

    def _dispatch(self) -> None:
        share = self.share()
        while self._waiting and self.in_pool < self.slots:
            eligible = [w for w in self._waiting if self.running[w[1]] < share and not w[2].done()]
            if not eligible:
                self._waiting = [w for w in self._waiting if not w[2].done()]
                return
            chosen = min(eligible, key=lambda w: (self.running[w[1]], w[0]))
            self._waiting.remove(chosen)
            self.running[chosen[1]] += 1
            self.in_pool += 1
            chosen[2].set_result(Held(self, chosen[1]))
