"""Sessions: each one owns an env that lives in a process of its own, and a client's share of the server.

One ``SessionManager`` counts every env the server holds (HTTP sessions, WebSocket connections, one-shot
stateless requests) against ``max_sessions`` and, per client, ``max_sessions_per_client``. Each
session's env is built and played in its own process, forked from the zygote (serve/zygote.py). A build,
reset or step runs when the client's fair share of the ``workers`` slots allows (serve/fairness.py) and
within its time limit, counted from when it starts: past it, the session's process (and whatever it
started) is killed, the request answered 504 and the session closed; no other session notices. A call
still running after ``slow_call_s`` drops its process to the lowest CPU priority (short calls of other
sessions go first, as in a feedback queue) and gives its slot back to the pool, still counted against its
client's share (serve/fairness.py): calls that run to the limit never hold the workers. A client (an
identity, serve/identity.py) alone may hold every session; with others it holds at most its share of
``max_sessions`` with room kept for one more client (``session_share``). Idle HTTP
sessions are closed after the idle timeout, and every session at shutdown. A session that joined a
curriculum the server hosts (serve/curricula.py) has its process's curriculum calls answered there; closing
the session forgets its proposals, discards its groups recorded in part, and leaves the curriculum to the
others.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import json
import math
import time
import uuid
from collections import Counter
from typing import TYPE_CHECKING, Any

from genenv_gym.serve.errors import (
    CapacityReached,
    MemoryLimit,
    ServeError,
    SessionBusy,
    StepTimeout,
    UnknownSession,
    WorkerLost,
)
from genenv_gym.serve.fairness import FairSlots, Held
from genenv_gym.serve.limits import ServeLimits
from genenv_gym.serve.worker import OnCall, WorkerProcess
from genenv_gym.serve.zygote import Zygote, ZygoteError

if TYPE_CHECKING:
    from genenv_gym.serve.curricula import HostedCurricula


class Session:
    """One client's env: built once in its own process, used by one request at a time."""

    def __init__(self, env_id: str, kind: str, client: str) -> None:
        self.id = uuid.uuid4().hex
        self.env_id = env_id
        self.kind = kind
        self.client = client
        self.process: WorkerProcess | None = None
        self.lock = asyncio.Lock()
        self.last_used = time.monotonic()
        self.episode_id: str | None = None
        self.step_count = 0
        self.closed = False
        #: the hosted curriculum the session joined (serve/curricula.py), if any
        self.curriculum: str | None = None

    def state(self) -> dict[str, Any]:
        """OpenEnv's ``State``: the episode id and the steps taken in it, plus the env id."""
        return {"episode_id": self.episode_id, "step_count": self.step_count, "env_id": self.env_id}


class SessionManager:
    """Every session of a server, bounded by ``ServeLimits``."""

    def __init__(self, zygote: Zygote, limits: ServeLimits, curricula: HostedCurricula | None = None) -> None:
        self.zygote = zygote
        self.limits = limits
        self.curricula = curricula
        self.sessions: dict[str, Session] = {}
        self.per_client: Counter[str] = Counter()
        self.slots = FairSlots(limits.workers)
        self._episodes = itertools.count(1)
        #: Calls stopped at their time limit (their processes killed, their sessions closed).
        self.killed_calls = 0

    def start(self) -> None:
        """Fork the zygote (at startup, before any client)."""
        self.zygote.start()

    def open(self, env_id: str, kind: str, client: str) -> Session:
        """A new session without an env yet; CapacityReached at the server's limit, the client's limit or
        the client's share (``session_share``)."""
        if len(self.sessions) >= self.limits.max_sessions:
            raise CapacityReached(
                f"the server holds {len(self.sessions)} sessions, its limit (--max-sessions); "
                "close one or try another server"
            )
        if self.per_client[client] >= self.limits.max_sessions_per_client:
            raise CapacityReached(
                f"this client holds {self.per_client[client]} sessions, the limit per client "
                "(--max-sessions-per-client); close one first"
            )
        share = self.session_share(client)
        if self.per_client[client] >= share:
            raise CapacityReached(
                f"this client holds {self.per_client[client]} sessions, its share of --max-sessions while "
                f"{len(self.per_client)} clients hold sessions (room is kept for one more); close one first"
            )
        session = Session(env_id, kind, client)
        self.sessions[session.id] = session
        self.per_client[client] += 1
        self.slots.add_session(client)
        return session

    def session_share(self, client: str) -> int:
        """How many sessions ``client`` may hold now: all of them alone; else ``--max-sessions`` shared
        between the clients that hold sessions and one more, so that a newcomer finds room (a client that
        held more before others came keeps them)."""
        clients = len(self.per_client) + (client not in self.per_client)
        if clients <= 1:
            return self.limits.max_sessions
        return max(1, math.ceil(self.limits.max_sessions / (clients + 1)))

    def get(self, session_id: str, env_id: str) -> Session:
        """The open session ``session_id`` of ``env_id``; raises UnknownSession."""
        session = self.sessions.get(session_id)
        if session is None or session.env_id != env_id:
            raise UnknownSession(
                f"no open session {session_id!r} for {env_id} (closed, timed out, or never made)"
            )
        return session

    async def build(
        self, session: Session, env_kwargs: dict[str, Any], joined: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Fork the session's process and build its env there from the client's (checked) kwargs, within
        ``make_timeout_s``, joined to the hosted curriculum ``joined`` names (``HostedCurricula.take``);
        what the build answers (the env's spaces). The session counts as busy meanwhile (the idle reaper
        leaves it alone)."""
        async with session.lock:
            try:
                process = await asyncio.to_thread(self.zygote.spawn, session.env_id)
            except ZygoteError as error:
                raise ServeError(
                    f"could not start a process for {session.env_id}: {error}", 503, "NO_WORKER"
                ) from None
            if session.closed:  # closed while its process was forking
                process.kill()
                raise UnknownSession(f"session {session.id} is closed")
            session.process = process
            await process.connect()
            message: dict[str, Any] = {"op": "make", "kwargs": env_kwargs}
            if joined is not None:
                session.curriculum = joined["name"]
                message["curriculum"] = {"group_size": joined["group_size"]}
            return json.loads(await self._run(session, message, self.limits.make_timeout_s))

    async def call(self, session: Session, message: dict[str, Any], exclusive: bool = True) -> bytes:
        """Send a reset or step to the session's process; its answer (the result's JSON text, UTF-8)
        within ``step_timeout_s``.

        ``exclusive``: refuse (409) instead of queueing when another request of this session is running.
        """
        if exclusive and session.lock.locked():
            raise SessionBusy(f"session {session.id} is busy with another request: send one at a time")
        async with session.lock:
            session.last_used = time.monotonic()
            try:
                return await self._run(session, message, self.limits.step_timeout_s)
            finally:
                session.last_used = time.monotonic()

    def start_episode(self, session: Session) -> str:
        session.episode_id = f"{session.id[:8]}-{next(self._episodes)}"
        session.step_count = 0
        return session.episode_id

    async def _run(self, session: Session, message: dict[str, Any], timeout: float) -> bytes:
        """``message`` to the session's process in one of the client's slots; ``timeout`` counts from when
        the slot is granted (waiting for it does not count)."""
        if session.closed or session.process is None:
            raise UnknownSession(f"session {session.id} is closed")
        async with self.slots.slot(session.client) as held:
            if session.closed:
                raise UnknownSession(f"session {session.id} is closed")
            slow = (
                asyncio.get_running_loop().call_later(self.limits.slow_call_s, _slow, session.process, held)
                if self.limits.slow_call_s > 0
                else None
            )
            try:
                return await asyncio.wait_for(session.process.ask(message, self._on_call(session)), timeout)
            except asyncio.TimeoutError:
                self.killed_calls += 1
                session.process.kill()
                await self.close(session)
                raise StepTimeout(
                    f"{session.env_id} took longer than {timeout:g} s; its process was stopped and the "
                    "session closed"
                ) from None
            except (MemoryLimit, WorkerLost):
                if session.closed:  # closed (DELETE, shutdown) while the call ran: the process was ended
                    raise UnknownSession(f"session {session.id} was closed while this request ran") from None
                await self.close(session)
                raise
            finally:
                if slow is not None:
                    slow.cancel()

    def _on_call(self, session: Session) -> OnCall | None:
        """What answers the curriculum calls of the session's process (None: it joined none)."""
        if session.curriculum is None or self.curricula is None:
            return None
        return functools.partial(self.curricula.call, session.id, session.curriculum, client=session.client)

    async def close(self, session: Session) -> None:
        """End the session's process (its env closed there) and free its slot (idempotent)."""
        if session.closed:
            return
        session.closed = True
        self.sessions.pop(session.id, None)
        self.per_client[session.client] -= 1
        if self.per_client[session.client] <= 0:
            del self.per_client[session.client]
        self.slots.remove_session(session.client)
        if session.curriculum is not None and self.curricula is not None:  # a thread hop only where needed
            await asyncio.to_thread(self.curricula.forget, session.id, session.curriculum)
        if session.process is None:
            return
        if session.lock.locked():  # a request is running in it: nothing to wait for
            session.process.kill()
        else:
            await session.process.close(self.limits.close_timeout_s)

    async def reap_idle(self) -> int:
        """Close every HTTP session idle beyond the timeout (WebSocket loops time out on their own)."""
        now = time.monotonic()
        stale = [
            s
            for s in list(self.sessions.values())
            if s.kind == "http" and not s.lock.locked() and now - s.last_used > self.limits.idle_timeout_s
        ]
        for session in stale:
            await self.close(session)
        return len(stale)

    async def reap_forever(self) -> None:
        interval = min(max(self.limits.idle_timeout_s / 4, 0.05), 5.0)
        while True:
            await asyncio.sleep(interval)
            await self.reap_idle()

    async def close_all(self) -> None:
        """Close every session (graceful shutdown), then the zygote."""
        await asyncio.gather(*(self.close(s) for s in list(self.sessions.values())))
        with contextlib.suppress(Exception):
            self.zygote.stop()


def _slow(process: WorkerProcess, held: Held) -> None:
    """A call past ``slow_call_s``: its process to the lowest CPU priority, its slot back to the pool."""
    process.deprioritize()
    held.leave_pool()
