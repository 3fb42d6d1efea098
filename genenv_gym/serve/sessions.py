"""Sessions: each one owns its own env instance, always run by the same worker thread.

One ``SessionManager`` counts every env the server holds (HTTP sessions, WebSocket connections, one-shot
stateless requests) against ``max_sessions``, runs each reset/step under a time limit, closes sessions
idle longer than the idle timeout, and closes every env at shutdown.

Env code runs on ``env_threads`` worker threads (default 1), each session pinned to one of them. One
thread is the safe default: some envs' libraries share parsers between instances (textworld's PDDL parser,
used by ALFWorld, fails when two threads parse at once), and Python's GIL leaves little to gain from
more threads for pure-Python envs; to use more cores, run more servers and give clients the pool.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import gymnasium as gym

from genenv_gym.serve.errors import CapacityReached, SessionBusy, StepTimeout, UnknownSession
from genenv_gym.serve.limits import ServeLimits

#: Builds the env of one session: (env id, client kwargs) -> env.
EnvFactory = Callable[[str, dict[str, Any]], gym.Env]


class Session:
    """One client's env: built once, used by one request at a time, on its own thread."""

    def __init__(self, env_id: str, kind: str, executor: ThreadPoolExecutor) -> None:
        self.id = uuid.uuid4().hex
        self.env_id = env_id
        self.kind = kind
        self.env: gym.Env | None = None
        self.executor = executor
        self.lock = asyncio.Lock()
        self.last_used = time.monotonic()
        self.episode_id: str | None = None
        self.step_count = 0
        self.closed = False

    def state(self) -> dict[str, Any]:
        """OpenEnv's ``State``: the episode id and the steps taken in it, plus the env id."""
        return {"episode_id": self.episode_id, "step_count": self.step_count, "env_id": self.env_id}


class SessionManager:
    """Every session of a server, bounded by ``ServeLimits``."""

    def __init__(self, factory: EnvFactory, limits: ServeLimits) -> None:
        self.factory = factory
        self.limits = limits
        self.sessions: dict[str, Session] = {}
        self.workers = [
            ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"genenv-env-{i}")
            for i in range(limits.env_threads)
        ]
        self._next_worker = itertools.count()
        self._episodes = itertools.count(1)
        #: Threads left running by a reset/step past its time limit (their sessions are closed).
        self.abandoned_calls = 0

    def open(self, env_id: str, kind: str) -> Session:
        """A new session without an env yet; raises CapacityReached at ``max_sessions``."""
        if len(self.sessions) >= self.limits.max_sessions:
            raise CapacityReached(
                f"the server holds {len(self.sessions)} sessions, its limit (--max-sessions); "
                "close one or try another server"
            )
        session = Session(env_id, kind, self.workers[next(self._next_worker) % len(self.workers)])
        self.sessions[session.id] = session
        return session

    def get(self, session_id: str, env_id: str) -> Session:
        """The open session ``session_id`` of ``env_id``; raises UnknownSession."""
        session = self.sessions.get(session_id)
        if session is None or session.env_id != env_id:
            raise UnknownSession(
                f"no open session {session_id!r} for {env_id} (closed, timed out, or never made)"
            )
        return session

    async def build(self, session: Session, env_kwargs: dict[str, Any]) -> None:
        """Build the session's env from the client's kwargs (on its thread, within ``make_timeout_s``)."""
        session.env = await self._run(
            session, lambda: self.factory(session.env_id, env_kwargs), self.limits.make_timeout_s
        )

    async def call(self, session: Session, fn: Callable[[], Any], exclusive: bool = True) -> Any:
        """Run ``fn`` (a reset or step of the session's env) on its thread within ``step_timeout_s``.

        ``exclusive``: refuse (409) instead of queueing when another request of this session is running.
        """
        if exclusive and session.lock.locked():
            raise SessionBusy(f"session {session.id} is busy with another request: send one at a time")
        async with session.lock:
            session.last_used = time.monotonic()
            try:
                return await self._run(session, fn, self.limits.step_timeout_s)
            finally:
                session.last_used = time.monotonic()

    def start_episode(self, session: Session) -> str:
        session.episode_id = f"{session.id[:8]}-{next(self._episodes)}"
        session.step_count = 0
        return session.episode_id

    async def _run(self, session: Session, fn: Callable[[], Any], timeout: float) -> Any:
        """``fn`` on the session's worker; ``timeout`` counts from when the worker starts it (time queued
        behind other sessions' calls on the same worker does not count)."""
        if session.closed:
            raise UnknownSession(f"session {session.id} is closed")
        loop = asyncio.get_running_loop()
        started = loop.create_future()

        def run() -> Any:
            loop.call_soon_threadsafe(lambda: started.done() or started.set_result(None))
            return fn()

        future = loop.run_in_executor(session.executor, run)
        try:
            await asyncio.wait({started, future}, return_when=asyncio.FIRST_COMPLETED)
            return await asyncio.wait_for(asyncio.shield(future), timeout)
        except asyncio.TimeoutError:
            self.abandoned_calls += 1
            await self.close(session, wait=False)
            raise StepTimeout(
                f"{session.env_id} took longer than {timeout:g} s; the session is closed"
            ) from None

    async def close(self, session: Session, wait: bool = True) -> None:
        """Close the session's env on its own thread and free its slot (idempotent)."""
        self.sessions.pop(session.id, None)
        if session.closed:
            return
        session.closed = True
        env = session.env
        session.env = None
        if env is not None:
            future = asyncio.get_running_loop().run_in_executor(session.executor, _close_quietly, env)
            if wait:
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(asyncio.shield(future), self.limits.step_timeout_s)

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
        """Close every session's env (graceful shutdown)."""
        await asyncio.gather(*(self.close(s) for s in list(self.sessions.values())))
        for worker in self.workers:
            worker.shutdown(wait=False)


def _close_quietly(env: gym.Env) -> None:
    with contextlib.suppress(Exception):
        env.close()
