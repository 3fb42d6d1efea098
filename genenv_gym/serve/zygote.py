"""The zygote: a process, forked when the server starts, that forks one process per session.

Forking each session from the server itself would copy a process with an event loop, threads and every
client's socket; the zygote is forked once, before the first request, closes what it inherited but its
own channel, and from then on runs a single thread that only warms env ids and forks. Before its first
session of an env id it builds that id once with the operator's kwargs and plays a reset (the benchmark
files parsed, the caches filled), so that every session of the id starts from those pages, shared
copy-on-write (``gc.freeze`` keeps the collector from writing to them). It never runs a client's kwargs,
options or actions: those go to the session processes only.

Requests arrive on a ``SOCK_SEQPACKET`` socket, one packet each: ``{"env_id"}`` with the session's end of
a fresh socket pair attached (``SCM_RIGHTS``); the answer is ``{"pid"}``. The zygote dies with the server
(``PR_SET_PDEATHSIG``), and sessions die with the zygote.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import gc
import json
import os
import signal
import socket
import threading
from collections.abc import Callable
from typing import Any

from genenv_gym.serve.worker import WorkerProcess, run_session

#: Builds the env of ``env_id`` with the client's (checked) kwargs, in a session's process.
MakeEnv = Callable[[str, dict[str, Any]], Any]


class ZygoteError(RuntimeError):
    """The zygote did not answer (it died, or a warm-up ran past its time)."""


class Zygote:
    """The server's handle on its zygote; ``spawn`` is thread-safe (one fork at a time)."""

    def __init__(
        self,
        make_env: MakeEnv,
        describe: Callable[[Any], Any],
        memory_mb: int | None = None,
        nice: int = 0,
        timeout_s: float = 300.0,
    ) -> None:
        self.make_env = make_env
        self.describe = describe
        self.memory_mb = memory_mb
        self.nice = nice
        self.timeout_s = timeout_s
        self.pid: int | None = None
        self._sock: socket.socket | None = None
        self._lock = threading.Lock()
        #: Ids whose warm-up the zygote is not to try again (it ran past its time once).
        self._cold: set[str] = set()

    def start(self) -> None:
        """Fork the zygote (call before the server has clients)."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:  # the zygote
            try:
                ours.close()
                _zygote_main(theirs, parent, self)
            finally:
                os._exit(0)
        theirs.close()
        self.pid, self._sock = pid, ours

    def spawn(self, env_id: str) -> WorkerProcess:
        """A new session process for ``env_id`` (blocking: the first of an id waits for its warm-up)."""
        with self._lock:
            if self._sock is None:
                self.start()
            server_end, session_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                request = json.dumps({"env_id": env_id, "warm": env_id not in self._cold}).encode()
                self._sock.settimeout(self.timeout_s)
                socket.send_fds(self._sock, [request], [session_end.fileno()])
                reply = self._sock.recv(4096)
                if not reply:
                    raise ZygoteError("the zygote ended")
                pid = int(json.loads(reply)["pid"])
            except (OSError, ValueError, KeyError, ZygoteError) as error:
                server_end.close()
                self._cold.add(env_id)
                self._restart()
                raise ZygoteError(f"no session process for {env_id} ({type(error).__name__})") from None
            finally:
                session_end.close()
        return WorkerProcess(pid, server_end)

    def _restart(self) -> None:
        self.stop()
        self.start()

    def stop(self) -> None:
        """End the zygote (its sessions go with it)."""
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        if self.pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, 0)
            self.pid = None


def _zygote_main(sock: socket.socket, parent: int, zygote: Zygote) -> None:
    _die_with(parent)
    _drop_inherited_descriptors(keep={sock.fileno()})
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # session processes are reaped by the kernel
    sock.settimeout(None)
    warm: set[str] = set()
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(sock, 65536, 1)
        except OSError:
            return
        if not data:
            return
        try:
            request = json.loads(data)
            env_id = str(request["env_id"])
            if not fds:
                raise ValueError("no socket attached")
        except (ValueError, KeyError):
            for fd in fds:
                os.close(fd)
            sock.send(json.dumps({"error": "bad request"}).encode())
            continue
        if env_id not in warm:
            warm.add(env_id)
            if request.get("warm", True):
                _warm_up(zygote, env_id)
            gc.freeze()
        pid = os.fork()
        if pid == 0:  # the session
            sock.close()
            session = socket.socket(fileno=fds[0])
            make = functools.partial(zygote.make_env, env_id)
            run_session(session, make, zygote.describe, zygote.memory_mb, zygote.nice)
        with contextlib.suppress(OSError):
            os.setpgid(pid, pid)  # before the server can try to kill its group
        os.close(fds[0])
        sock.send(json.dumps({"pid": pid}).encode())


def _warm_up(zygote: Zygote, env_id: str) -> None:
    """Build ``env_id`` with the operator's kwargs and play one reset; a failure is left for the session
    to meet (and report) when it builds the env itself."""
    with contextlib.suppress(BaseException):
        env = zygote.make_env(env_id, {})
        try:
            env.reset(seed=0)
        finally:
            env.close()


def _die_with(parent: int) -> None:
    """SIGKILL this process when the server's process ends (Linux; elsewhere the channel's end does)."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:
        os._exit(0)


def _drop_inherited_descriptors(keep: set[int]) -> None:
    """Point every inherited descriptor but stdio and ``keep`` at /dev/null: the server's listening socket
    and its clients' connections must not stay open in the zygote (a client would never see its
    connection close). Pointing rather than closing: Python objects still own those numbers."""
    null = os.open(os.devnull, os.O_RDWR)
    try:
        for name in os.listdir("/proc/self/fd"):
            fd = int(name)
            if fd > 2 and fd != null and fd not in keep:
                with contextlib.suppress(OSError):
                    os.dup2(null, fd)
    except OSError:
        pass
    finally:
        os.close(null)
