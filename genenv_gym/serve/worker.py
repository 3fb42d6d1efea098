"""A session's process: the one place its env lives, and the server's handle on it.

The zygote (serve/zygote.py) forks one process per session; ``run_session`` is that process's whole life:
it builds the env, answers ``make`` / ``reset`` / ``step`` / ``close`` messages (serve/frames.py) and
an MCP client's ``tools`` / ``call`` (serve/mcp_tools.py) in order, and exits when the server closes the
connection. Whatever the env does to its process (a module global it sets, a cache it fills, memory it
takes, a call that never returns) stays in that process, and the server ends it by killing its process
group (``WorkerProcess.kill``).

A ``make`` that names a ``curriculum`` (``{"group_size"}``: the session joined a curriculum the server
hosts, serve/curricula.py) makes the env propose from and record into it (``join_curriculum``), through
calls on the same socket (serve/session_curriculum.py).

Replies (serve/frames.py): the result as the JSON text the client gets (``wire.json_text``: the process
does that work, not the server's event loop), or an error ``{"kind", "message"}`` with ``kind`` one of
``state`` (the env refused for the episode's state: RuntimeError), ``env`` (any other error of the env or
its kwargs, a result with no JSON form), ``memory`` (the env outgrew ``memory_mb``; the process then
exits). Messages never name server paths.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import resource
import signal
import socket
from collections.abc import Awaitable, Callable
from typing import Any

from genenv_gym.serve import frames
from genenv_gym.serve.contract import observation_payload
from genenv_gym.serve.errors import (
    EnvFailed,
    EpisodeStateError,
    MemoryLimit,
    WorkerLost,
    redact_paths,
)
from genenv_gym.serve.mcp_tools import call_action, episode_tools
from genenv_gym.serve.session_curriculum import join_hosted_curriculum
from genenv_gym.serve.wire import json_text, options_from_json


def run_session(
    sock: socket.socket, make_env: Any, describe: Any, memory_mb: int | None, nice: int = 0
) -> None:
    """Serve one session on ``sock`` until the server closes it; never returns (the process exits).

    ``make_env(kwargs)`` builds the env; ``describe(env)`` is what a ``make`` answers (its spaces). The
    process runs ``nice`` steps below the server (its env work never delays the server's own) and takes at
    most ``memory_mb`` of data memory beyond what it inherited.
    """
    code = 0
    env = None
    try:
        _own_process_group()
        _limit_memory(memory_mb)
        if nice > 0:
            os.nice(nice)
        while True:
            try:
                request = frames.receive(sock)
            except frames.FrameError:
                break
            op = request.get("op")
            if op == "close":
                break
            try:
                if op == "make":
                    env = make_env(request.get("kwargs") or {})
                    if request.get("curriculum") is not None:
                        join_hosted_curriculum(env, sock, request["curriculum"])
                    result = describe(env)
                elif env is None:
                    raise RuntimeError("the env is not built yet")
                elif op == "reset":
                    options = options_from_json(request.get("options"))
                    obs, info = env.reset(seed=request.get("seed"), options=options)
                    result = observation_payload(obs, info)
                elif op == "step":
                    obs, reward, terminated, truncated, info = env.step(request["action"])
                    result = observation_payload(obs, info, reward, terminated, truncated)
                elif op == "tools":
                    result = {"tools": episode_tools(env)}
                elif op == "call":
                    action = call_action(env, request["name"], request["arguments"])
                    obs, reward, terminated, truncated, info = env.step(action)
                    payload = observation_payload(obs, info, reward, terminated, truncated)
                    result = {"action": action, **payload}
                else:
                    raise ValueError(f"unknown operation {op!r}")
                reply = frames.encode_reply(frames.OK, json_text(result).encode("utf-8"))
            except MemoryError:
                env = None  # its state is not to be trusted; the process ends after this answer
                sock.sendall(_error("memory", "the env ran out of the session's memory limit"))
                break
            except RecursionError:  # a RuntimeError, but no episode state's
                reply = _error("env", "RecursionError: the input nests too deeply")
            except RuntimeError as error:
                reply = _error("state", str(error))
            except Exception as error:
                reply = _error("env", f"{type(error).__name__}: {error}")
            sock.sendall(reply)
    except BaseException:  # the server is gone, or the env took the process down: nothing to answer
        code = 1
    finally:
        if env is not None:
            with contextlib.suppress(BaseException):
                env.close()
        os._exit(code)


def _error(kind: str, message: str) -> bytes:
    body = json.dumps({"kind": kind, "message": redact_paths(message)})
    return frames.encode_reply(frames.ERROR, body.encode("ascii"))


def _own_process_group() -> None:
    """Lead a process group of its own (so a kill reaches the env's own subprocesses too); default
    signals, but ignore the terminal's Ctrl-C (the server closes sessions itself when it stops)."""
    os.setpgid(0, 0)
    for name in ("SIGTERM", "SIGCHLD", "SIGPIPE"):
        signal.signal(getattr(signal, name), signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _limit_memory(memory_mb: int | None) -> None:
    """Let the process take at most ``memory_mb`` of data memory beyond what it inherited."""
    if not memory_mb:
        return
    inherited = 0
    with contextlib.suppress(OSError, ValueError), open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmData:"):
                inherited = int(line.split()[1]) * 1024
    limit = inherited + memory_mb * 1024 * 1024
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))


#: Answers a session process's curriculum call (its JSON body) with a JSON-able answer.
OnCall = Callable[[bytes], Awaitable[dict[str, Any]]]
NO_CURRICULUM = {"error": "this session has joined no curriculum"}
#: Curriculum calls answered per request (a reset proposes once at most, a step records once).
MAX_CALLS_PER_REQUEST = 4
TOO_MANY_CALLS = {"error": f"at most {MAX_CALLS_PER_REQUEST} curriculum calls per request"}


class WorkerProcess:
    """The server's handle on one session's process: ask it, or kill it (its whole process group)."""

    def __init__(self, pid: int, sock: socket.socket) -> None:
        self.pid = pid
        self._sock = sock
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self.dead = False

    async def connect(self) -> None:
        self._sock.setblocking(False)
        self._reader, self._writer = await asyncio.open_unix_connection(
            sock=self._sock, limit=frames.MAX_FRAME_BYTES
        )

    async def ask(self, message: dict[str, Any], on_call: OnCall | None = None) -> bytes:
        """Send ``message`` and wait for the answer: the result's JSON text (UTF-8), or the ServeError it
        names. The process's curriculum calls on the way are answered by ``on_call`` (refused without one).

        No time limit here: the caller bounds the wait and kills the process when it runs out.
        """
        if self.dead or self._writer is None:
            raise WorkerLost("the session's process has ended; open a new session")
        try:
            self._writer.write(frames.encode(message))
            await self._writer.drain()
            kind, body = await frames.read_reply(self._reader)
            calls = 0
            while kind == frames.CALL:
                calls += 1
                if on_call is None:
                    answer = NO_CURRICULUM
                elif calls > MAX_CALLS_PER_REQUEST:
                    answer = TOO_MANY_CALLS
                else:
                    answer = await on_call(body)
                self._writer.write(frames.encode(answer))
                await self._writer.drain()
                kind, body = await frames.read_reply(self._reader)
        except (frames.FrameError, ConnectionError, OSError):
            self.kill()
            raise WorkerLost("the session's process ended during the request (the env crashed it)") from None
        if kind == frames.OK:
            return body
        try:
            error = json.loads(body)
        except ValueError:
            error = None
        if not isinstance(error, dict):
            error = {}
        kind, message = error.get("kind"), redact_paths(str(error.get("message", "")))
        if kind == "state":
            raise EpisodeStateError(message)
        if kind == "memory":
            self.dead = True
            raise MemoryLimit(f"{message}; the session is closed")
        raise EnvFailed(message)

    async def close(self, timeout_s: float) -> None:
        """Ask the process to close its env and exit; kill it if it has not within ``timeout_s``."""
        if not self.dead and self._writer is not None:
            with contextlib.suppress(Exception):
                self._writer.write(frames.encode({"op": "close"}))
                await asyncio.wait_for(self._writer.drain(), timeout_s)
                await asyncio.wait_for(self._reader.read(), timeout_s)  # the end: it has exited
        self.kill()

    def deprioritize(self) -> None:
        """Drop the process and everything it started to the lowest CPU priority (for good: a process may
        not raise its own priority again)."""
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PGRP, self.pid, 19)

    def kill(self) -> None:
        """SIGKILL the process and everything it started (idempotent)."""
        self.dead = True
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)
        if self._writer is not None:
            self._writer.close()
        else:
            self._sock.close()
