"""Sharing the env workers between clients: no client holds every one, and long calls make way.

At most ``slots`` env calls (builds, resets, steps) run at once in the foreground, each in its session's
process. A client (one address, as the server sees it) with sessions open while other clients hold
sessions is owed ``ceil(slots / clients)`` of them: it runs at most that many foreground calls at once,
even when slots are free, so the others' next calls never wait behind its longest ones. A free slot goes
to the waiting client running the fewest calls (the earliest waiter among equals).

A call that has run long (the session manager decides when, and lowers its process's CPU priority) may
leave the foreground for the background (``Ticket.demote``): it goes on running but frees its slot for
short calls. A client holds at most its share of background calls too; past that, its long calls keep
their slots.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import math
from collections import Counter
from collections.abc import AsyncIterator


class Ticket:
    """One granted call: in the foreground (holding a slot) until demoted to the background."""

    def __init__(self, slots: FairSlots, client: str) -> None:
        self.slots = slots
        self.client = client
        self.background = False

    def demote(self) -> bool:
        """Move to the background and free the slot; False when the client's background is full."""
        return self.slots._demote(self)


class FairSlots:
    """``slots`` concurrent foreground env calls, shared fairly between the clients that hold sessions."""

    def __init__(self, slots: int) -> None:
        if slots < 1:
            raise ValueError(f"slots must be >= 1, got {slots}")
        self.slots = slots
        self.sessions: Counter[str] = Counter()
        self.running: Counter[str] = Counter()
        self.background: Counter[str] = Counter()
        self._waiting: list[tuple[int, str, asyncio.Future]] = []
        self._order = itertools.count()

    def add_session(self, client: str) -> None:
        self.sessions[client] += 1

    def remove_session(self, client: str) -> None:
        _decrement(self.sessions, client)
        self._dispatch()

    def share(self) -> int:
        """How many foreground (and how many background) calls one client may run at once now."""
        return max(1, math.ceil(self.slots / max(1, len(self.sessions))))

    @contextlib.asynccontextmanager
    async def slot(self, client: str) -> AsyncIterator[Ticket]:
        """Hold a slot for ``client`` (waiting for its turn) while the block runs."""
        future = asyncio.get_running_loop().create_future()
        entry = (next(self._order), client, future)
        self._waiting.append(entry)
        self._dispatch()
        ticket = Ticket(self, client)
        try:
            await future
        except BaseException:
            if future.done() and not future.cancelled():
                self._release(ticket)  # granted as it was cancelled
            elif entry in self._waiting:
                self._waiting.remove(entry)
            raise
        try:
            yield ticket
        finally:
            self._release(ticket)

    def _demote(self, ticket: Ticket) -> bool:
        if ticket.background:
            return True
        if self.background[ticket.client] >= self.share():
            return False
        _decrement(self.running, ticket.client)
        self.background[ticket.client] += 1
        ticket.background = True
        self._dispatch()
        return True

    def _release(self, ticket: Ticket) -> None:
        _decrement(self.background if ticket.background else self.running, ticket.client)
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


def _decrement(counts: Counter[str], key: str) -> None:
    counts[key] -= 1
    if counts[key] <= 0:
        del counts[key]
