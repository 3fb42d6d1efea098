"""``genenv serve`` under load, on loopback: throughput and latency against in-process play, memory per
session, a killed client, malformed requests that must not disturb anyone else, and an attacker.

    python benchmarks/serve_load.py [--data-dir DIR] [--sessions 64] [--malformed 10000]
        [--ids GenEnv-BFCL-MultiTurn-v0 GenEnv-APIBank-Dialogue-v0 GenEnv-ALFWorld-v0] [--max-seconds 900]
        [--attacker] [--server-pythonpath DIR] [--server-arg=--step-timeout=10 ...]

For each id, ``--sessions`` scripted oracle episodes (seeds 0..N-1) are played three ways:
1. in-process: ``gymnasium.make_vec(id, N, "sync")``, copy i on seed i (the baseline);
2. quiet: N concurrent WebSocket sessions of ``GenEnv-Remote-v0`` (one thread each) against a
   ``genenv serve`` subprocess; every transcript must equal the in-process one;
3. noisy: the same N sessions again while other threads send ``--malformed`` bad requests (bad JSON,
   bodies over the limit, unknown ids and fields, wrong session ids, pairs of concurrent steps on one
   session); every bad request must be answered 4xx and every transcript must equal the quiet run's;
4. attacked (``--attacker``): the same N sessions again while one other client (from 127.0.1.2, another
   /24) sends the costliest requests the server accepts (``Attacker``): it first takes as many sessions as
   it may hold, then, from 8 threads, resets of ``GenEnv-Sim-ALFWorld-v0`` at the largest batch it may ask
   (each proposal proved by the planner: seconds of CPU each, past the step timeout), of
   ``GenEnv-Sim-TravelPlanner-v0`` at batch 64, steps of 100,000-character actions, connections that drip
   their headers, and refused requests (forbidden kwargs, JSON nested 100,000 deep). Honest latency
   (p50, p99), sessions lost, and transcripts equal to the quiet run's; ``--repeats N`` alternates quiet
   and attacked runs N times and reports the medians (other work on the machine drifts).
Then a client process is killed (SIGKILL) mid-episode, and the time until its session is freed is timed.
Memory per session: the server's resident memory with N sessions open minus before, over N.

Everything runs on 127.0.0.1; every loop is bounded by counts and by ``--max-seconds``. The server and the
clients share this machine's cores: compare ratios from one run, on an idle machine.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import gymnasium as gym
import numpy as np

import genenv_gym  # noqa: F401  (registers the ids)
from genenv_gym.datasets.data_dir import data_root
from genenv_gym.remote.http_json import connection
from genenv_gym.serve.transcript import Transcript, record, record_vector, scripted_actions

DEFAULT_IDS = ["GenEnv-BFCL-MultiTurn-v0", "GenEnv-APIBank-Dialogue-v0", "GenEnv-ALFWorld-v0"]
#: What the attacker plays on (served beside the honest ids).
ATTACK_IDS = ["GenEnv-Sim-ALFWorld-v0", "GenEnv-Sim-TravelPlanner-v0", "GenEnv-BFCL-MultiTurn-v0"]
ATTACKER = "127.0.1.2"  # another /24 than the honest 127.0.0.1: another client
MAX_BODY = 1 << 20


class Deadline:
    def __init__(self, seconds: float) -> None:
        self.end = time.monotonic() + seconds

    def check(self, what: str) -> None:
        if time.monotonic() > self.end:
            raise TimeoutError(f"--max-seconds reached during {what}")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def get(url: str, path: str) -> dict:
    conn = connection(url, 10)
    try:
        conn.request("GET", path)
        return json.loads(conn.getresponse().read())
    finally:
        conn.close()


def descendants(pid: int) -> list[int]:
    """``pid`` and every process below it (the server, its zygote, the sessions' processes)."""
    found, queue = [], [pid]
    while queue:
        current = queue.pop()
        found.append(current)
        try:
            for task in Path(f"/proc/{current}/task").iterdir():
                queue.extend(int(c) for c in (task / "children").read_text().split())
        except OSError:
            pass
    return found


def memory_mb(pid: int) -> float:
    """The proportional set size (pages shared copy-on-write counted once) of the server's process tree."""
    total = 0
    for process in descendants(pid):
        try:
            for line in Path(f"/proc/{process}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024


def start_server(
    ids: list[str], data_dir: str, max_sessions: int, pythonpath: str | None, extra: list[str]
) -> tuple[subprocess.Popen, str]:
    port = free_port()
    command = [sys.executable, "-m", "genenv_gym.cli", "serve", "--port", str(port), "--data-dir", data_dir]
    command += [f"--env={i}" for i in ids]
    command += ["--max-sessions", str(max_sessions), "--max-body-bytes", str(MAX_BODY), *extra]
    env = dict(os.environ, PYTHONPATH=pythonpath) if pythonpath else None
    # run from that copy's folder: ``python -m`` puts the working directory first on the import path
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=pythonpath
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            get(url, "/health")
            return process, url
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("the server did not start within 60 s")


def scripts(env_id: str, n: int, deadline: Deadline) -> list[Transcript]:
    env = gym.make(env_id)
    result = []
    for seed in range(n):
        deadline.check(f"scripting {env_id}")
        result.append(scripted_actions(env, "oracle", seed=seed))
    env.close()
    return result


def in_process(env_id: str, expected: list[Transcript]) -> dict:
    """Steps/s of the same work in-process, timed as the served sessions are (after an untimed first
    reset, which loads each task: ALFWorld parses its game; from a second reset to the last step):

    - ``loop``: N envs, each playing its script (what make_vec sync does, without stacking infos and
      without autoreset); the baseline of the ratio;
    - ``make_vec``: ``gymnasium.make_vec(env_id, N, "sync")``, copy i on seed i, a copy whose script has
      ended stepped with ``"look"`` (its autoreset loads a new task), or why it failed.
    """
    n = len(expected)
    lengths = [len(t.actions) for t in expected]
    envs = [gym.make(env_id) for _ in range(n)]
    for i, env in enumerate(envs):
        env.reset(seed=i)
    start = time.perf_counter()
    for i, env in enumerate(envs):
        env.reset(seed=i)
    for t in range(max(lengths)):
        for i, env in enumerate(envs):
            if t < lengths[i]:
                env.step(expected[i].actions[t])
    result = {"loop": sum(lengths) / (time.perf_counter() - start)}
    for env in envs:
        env.close()
    try:
        vector = gym.make_vec(env_id, n, "sync")
        vector.reset(seed=0)
        start = time.perf_counter()
        vector.reset(seed=0)
        for t in range(max(lengths)):
            vector.step(tuple(e.actions[t] if t < lengths[i] else "look" for i, e in enumerate(expected)))
        result["make_vec"] = sum(lengths) / (time.perf_counter() - start)
        vector.close()
    except (AttributeError, TypeError, ValueError) as error:  # Gymnasium stacking infos that differ
        result["make_vec"] = f"failed: {type(error).__name__}: {error}"
    return result


def check_vector_copy(env_id: str, expected: Transcript) -> bool:
    vector = gym.make_vec(env_id, 1, "sync")
    same = record_vector(vector, expected.actions, seed=0) == expected
    vector.close()
    return same


def remote_play(url: str, env_id: str, expected: list[Transcript], pid: int) -> dict:
    """Every script in its own WebSocket session, all at once; latencies per step, transcripts, memory."""
    n = len(expected)
    latencies: list[list[float]] = [[] for _ in range(n)]
    barrier = threading.Barrier(n + 1)
    opened = threading.Barrier(n + 1)
    transcripts: list[Transcript | None] = [None] * n

    class Timed(gym.Wrapper):
        def __init__(self, env, sink):
            super().__init__(env)
            self.sink = sink

        def step(self, action):
            start = time.perf_counter()
            result = self.env.step(action)
            self.sink.append(time.perf_counter() - start)
            return result

    lost: list[str] = []

    def play(i: int) -> None:
        env = None
        try:
            env = Timed(gym.make("GenEnv-Remote-v0", url=url, env_id=env_id), latencies[i])
            env.reset(seed=i)  # builds the session's env
        except Exception as error:  # counted as lost; the others go on
            lost.append(f"open: {type(error).__name__}: {str(error)[:120]}")
            env = None
        opened.wait(600)
        barrier.wait(600)
        if env is None:
            return
        try:
            transcripts[i] = record(env, expected[i].actions, seed=i)
        except Exception as error:
            lost.append(f"play: {type(error).__name__}: {str(error)[:120]}")
        finally:
            env.close()

    with ThreadPoolExecutor(n) as pool:
        futures = [pool.submit(play, i) for i in range(n)]
        opened.wait(600)
        memory = memory_mb(pid)
        barrier.wait(600)
        start = time.perf_counter()
        for future in futures:
            future.result()
        seconds = time.perf_counter() - start
    flat = np.array([x for per in latencies for x in per] or [float("nan")])
    return {
        "seconds": seconds,
        "steps": int(np.isfinite(flat).sum()),
        "p50_ms": float(np.percentile(flat, 50) * 1000),
        "p99_ms": float(np.percentile(flat, 99) * 1000),
        "memory_open_mb": memory,
        "transcripts": transcripts,
        "lost": lost,
    }


def malformed_requests(url: str, env_id: str, count: int, stop: threading.Event) -> dict:
    """``count`` bad requests from 4 threads; statuses tallied. A pair of concurrent steps on one session
    counts its refused step (409); when both ran, one after the other, the pair is tallied as such."""
    conn = connection(url, 30)
    conn.request("POST", f"/envs/{env_id}/sessions", body=b"{}", headers={"Content-Type": "application/json"})
    session_id = json.loads(conn.getresponse().read())["session_id"]
    conn.request("POST", f"/envs/{env_id}/reset", body=json.dumps({"session_id": session_id}).encode())
    conn.getresponse().read()
    conn.close()
    base = f"/envs/{env_id}"
    kinds = [
        ("POST", f"{base}/reset", b"{not json"),
        ("POST", f"{base}/reset", b"[1, 2]"),
        ("POST", f"{base}/reset", json.dumps({"sead": 1}).encode()),
        ("POST", f"{base}/reset", json.dumps({"seed": -5}).encode()),
        ("POST", "/envs/GenEnv-Nope-v0/reset", b"{}"),
        ("POST", f"{base}/step", json.dumps({"action": {"text": "[]"}, "session_id": "f" * 32}).encode()),
        ("POST", f"{base}/step", json.dumps({"action": {"text": 5}, "session_id": session_id}).encode()),
        ("POST", f"{base}/reset", b"x" * (MAX_BODY + 1)),
        ("GET", f"{base}/state?session_id=nope", None),
        (
            "CONCURRENT",
            f"{base}/step",
            json.dumps({"action": {"text": "[]"}, "session_id": session_id}).encode(),
        ),
    ]
    statuses: dict[int, int] = {}
    lock = threading.Lock()
    sent = iter(range(count))

    def send(conn, method, path, body) -> int:
        conn.request(method, path, body=body, headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        response.read()
        return response.status

    def worker() -> None:
        conn = connection(url, 30)
        for index in sent:
            if stop.is_set():
                return
            method, path, body = kinds[index % len(kinds)]
            if method == "CONCURRENT":
                other = connection(url, 30)
                with ThreadPoolExecutor(2) as pair:
                    answers = list(pair.map(send, [conn, other], ["POST"] * 2, [path] * 2, [body] * 2))
                other.close()
                ran = answers.count(200)  # the pair's steps that ran: not bad requests
                answers = [a for a in answers if a != 200]
                if ran == 2:
                    answers.append("pair ran one after the other")
            else:
                try:
                    answers = [send(conn, method, path, body)]
                except (ConnectionError, OSError):  # the server may close after a 413
                    conn.close()
                    conn = connection(url, 30)
                    answers = [413]
            with lock:
                for status in answers:
                    statuses[status] = statuses.get(status, 0) + 1
        conn.close()

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return statuses


class Attacker:
    """One client, from 127.0.1.2, sending the costliest requests the server accepts until stopped.

    It first opens as many sessions as the server lets one client hold (less what its threads need for
    one-shot requests) and keeps them; then its threads loop over: a stateless reset of
    ``GenEnv-Sim-ALFWorld-v0`` at the largest ``batch_size`` the server takes (each proposal proved by the
    planner), one of ``GenEnv-Sim-TravelPlanner-v0`` at batch 64, a step of 100,000 characters on one of its
    ``GenEnv-BFCL-MultiTurn-v0`` sessions, a connection dripping its headers, a forbidden kwarg, and JSON
    nested 100,000 deep. Every answer's status is tallied per kind.
    """

    def __init__(self, url: str, threads: int = 8) -> None:
        self.url = url
        self.threads = threads
        self.stop = threading.Event()
        self.tally: dict[str, dict[str, int]] = {}
        self.lock = threading.Lock()
        self.held: list[str] = []
        self.workers: list[threading.Thread] = []
        self.batch = self._largest_batch("GenEnv-Sim-ALFWorld-v0")

    def _conn(self, timeout: float = 120):
        host, port = self.url.removeprefix("http://").split(":")
        return http.client.HTTPConnection(host, int(port), timeout=timeout, source_address=(ATTACKER, 0))

    def _send(self, method: str, path: str, body: bytes | None) -> int:
        conn = self._conn()
        try:
            conn.request(method, path, body=body, headers={"Content-Type": "application/json"})
            response = conn.getresponse()
            response.read()
            return response.status
        except (OSError, http.client.HTTPException):
            return 0
        finally:
            conn.close()

    def _count(self, kind: str, status: int | str) -> None:
        with self.lock:
            per = self.tally.setdefault(kind, {})
            per[str(status)] = per.get(str(status), 0) + 1

    def _largest_batch(self, env_id: str) -> int:
        for size in (64, 32, 16, 8, 4, 2, 1):
            body = json.dumps({"env_kwargs": {"batch_size": size}}).encode()
            conn = self._conn(120)
            try:
                conn.request("POST", f"/envs/{env_id}/sessions", body=body)
                response = conn.getresponse()
                answer = json.loads(response.read() or b"{}")
            finally:
                conn.close()
            if response.status == 201:
                self._send("DELETE", f"/envs/{env_id}/sessions/{answer['session_id']}", None)
                return size
        return 1

    def __enter__(self) -> Attacker:
        holdable = int(get(self.url, "/health").get("max_sessions_per_client", 64)) - self.threads
        for _ in range(max(0, holdable)):
            conn = self._conn(120)
            try:
                conn.request("POST", "/envs/GenEnv-BFCL-MultiTurn-v0/sessions", body=b"{}")
                response = conn.getresponse()
                answer = json.loads(response.read() or b"{}")
            finally:
                conn.close()
            self._count("hold_session", response.status)
            if response.status != 201:
                break
            self.held.append(answer["session_id"])
            self._send(
                "POST",
                "/envs/GenEnv-BFCL-MultiTurn-v0/reset",
                json.dumps({"session_id": answer["session_id"]}).encode(),
            )
        self.workers = [
            threading.Thread(target=self._loop, args=(i,), daemon=True) for i in range(self.threads)
        ]
        for worker in self.workers:
            worker.start()
        return self

    def _loop(self, index: int) -> None:
        big = json.dumps({"action": {"text": "[" + "a(x=1)," * 14_000 + "]"}, "session_id": ""})
        kinds = ["alfworld", "travel", "big_step", "drip", "forbidden", "deep"]
        turn = index
        while not self.stop.is_set():
            kind = kinds[turn % len(kinds)]
            turn += 1
            if kind == "alfworld":
                body = json.dumps({"env_kwargs": {"batch_size": self.batch}}).encode()
                self._count(kind, self._send("POST", "/envs/GenEnv-Sim-ALFWorld-v0/reset", body))
            elif kind == "travel":
                body = json.dumps({"env_kwargs": {"batch_size": 64}}).encode()
                self._count(kind, self._send("POST", "/envs/GenEnv-Sim-TravelPlanner-v0/reset", body))
            elif kind == "big_step" and self.held:
                body = big.replace('"session_id": ""', f'"session_id": "{self.held[turn % len(self.held)]}"')
                self._count(kind, self._send("POST", "/envs/GenEnv-BFCL-MultiTurn-v0/step", body.encode()))
            elif kind == "drip":
                self._count(kind, self._drip())
            elif kind == "forbidden":
                body = json.dumps(
                    {"env_kwargs": {"simulator": "llm", "simulator_kwargs": {"backend": "hf:/"}}}
                )
                self._count(kind, self._send("POST", "/envs/GenEnv-Sim-ALFWorld-v0/reset", body.encode()))
            elif kind == "deep":
                body = b'{"seed": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
                self._count(kind, self._send("POST", "/envs/GenEnv-BFCL-MultiTurn-v0/reset", body))

    def _drip(self) -> str:
        """Headers a byte every 0.2 s, for at most 30 s: how it ended."""
        host, port = self.url.removeprefix("http://").split(":")
        try:
            sock = socket.create_connection((host, int(port)), timeout=1, source_address=(ATTACKER, 0))
        except OSError:
            return "refused"
        start = time.monotonic()
        try:
            sock.sendall(b"POST /envs/GenEnv-BFCL-MultiTurn-v0/reset HTTP/1.1\r\nHost: x\r\n")
            while time.monotonic() - start < 30:
                if self.stop.is_set():
                    return "stopped"
                sock.sendall(b"X")
                time.sleep(0.2)
            return "open after 30 s"
        except OSError:
            return "closed"
        finally:
            sock.close()

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for worker in self.workers:
            worker.join(30)  # a request still waiting on a stalled server is abandoned (daemon threads)
        for session_id in self.held:
            self._send("DELETE", f"/envs/GenEnv-BFCL-MultiTurn-v0/sessions/{session_id}", None)


def killed_client(url: str, env_id: str) -> float:
    """Seconds from SIGKILL of a client mid-episode until the server has freed its session."""
    before = get(url, "/health")["active_sessions"]
    code = (
        "import gymnasium as gym, genenv_gym, sys, time\n"
        f"env = gym.make('GenEnv-Remote-v0', url='{url}', env_id='{env_id}')\n"
        "env.reset(seed=0); env.step('look'); print('ready', flush=True); time.sleep(600)\n"
    )
    client = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert client.stdout.readline().strip() == "ready"
    assert get(url, "/health")["active_sessions"] == before + 1
    client.send_signal(signal.SIGKILL)
    client.wait()
    start = time.monotonic()
    while get(url, "/health")["active_sessions"] > before:
        if time.monotonic() - start > 60:
            return float("inf")
        time.sleep(0.01)
    return time.monotonic() - start


def _figure(value: float | str) -> str:
    return f"{value:.0f}" if isinstance(value, float) else value.split(":")[0] + " (stacking infos)"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--data-dir", default=str(data_root()), help="default: $GENENV_DATA_DIR, else the fetch dir"
    )
    parser.add_argument("--ids", nargs="+", default=DEFAULT_IDS)
    parser.add_argument("--sessions", type=int, default=64)
    parser.add_argument("--malformed", type=int, default=10_000, help="0: no noisy run")
    parser.add_argument("--attacker", action="store_true", help="also the attacked run")
    parser.add_argument(
        "--repeats", type=int, default=1, help="quiet and attacked runs alternated this often"
    )
    parser.add_argument("--server-pythonpath", default=None, help="run the server from another copy")
    parser.add_argument("--server-arg", action="append", default=[], help="an extra `genenv serve` argument")
    parser.add_argument("--max-seconds", type=float, default=900)
    parser.add_argument("--json", default=None, help="also write the figures here")
    args = parser.parse_args()
    os.environ["GENENV_DATA_DIR"] = str(Path(args.data_dir).resolve())
    deadline = Deadline(args.max_seconds)
    served = list(dict.fromkeys(args.ids + (ATTACK_IDS if args.attacker else [])))
    per_client = args.sessions + 8
    extra = ["--max-sessions-per-client", str(per_client)] if not args.server_pythonpath else []
    server, url = start_server(
        served,
        os.environ["GENENV_DATA_DIR"],
        2 * per_client + 16,
        args.server_pythonpath,
        extra + args.server_arg,
    )
    results = []
    try:
        idle = memory_mb(server.pid)
        for env_id in args.ids:
            expected = scripts(env_id, args.sessions, deadline)
            assert check_vector_copy(env_id, expected[0]), f"{env_id}: make_vec differs from in-process"
            deadline.check(f"baseline of {env_id}")
            local = in_process(env_id, expected)
            deadline.check(f"quiet run of {env_id}")
            before = memory_mb(server.pid)
            quiet = remote_play(url, env_id, expected, server.pid)
            quiet_same = sum(t == e for t, e in zip(quiet["transcripts"], expected, strict=True))
            row = {
                "env_id": env_id,
                "sessions": args.sessions,
                "steps": quiet["steps"],
                "in_process_steps_per_s": local["loop"],
                "make_vec_sync_steps_per_s": local["make_vec"],
                "served_steps_per_s": quiet["steps"] / quiet["seconds"],
                "p50_ms": quiet["p50_ms"],
                "p99_ms": quiet["p99_ms"],
                "mb_per_session": (quiet["memory_open_mb"] - before) / args.sessions,
                "quiet_equal_in_process": f"{quiet_same}/{args.sessions}",
                "quiet_lost": len(quiet["lost"]),
            }
            row["ratio"] = row["served_steps_per_s"] / row["in_process_steps_per_s"]
            if args.malformed:
                deadline.check(f"noisy run of {env_id}")
                stop = threading.Event()
                tally: dict = {}
                noise = threading.Thread(
                    target=lambda tally=tally, env_id=env_id, stop=stop: tally.update(
                        malformed_requests(url, env_id, args.malformed, stop)
                    )
                )
                noise.start()
                noisy = remote_play(url, env_id, expected, server.pid)
                noise.join(max(1.0, deadline.end - time.monotonic()))
                stop.set()
                same = sum(t == q for t, q in zip(noisy["transcripts"], quiet["transcripts"], strict=True))
                row |= {
                    "noisy_steps_per_s": noisy["steps"] / noisy["seconds"],
                    "noisy_p99_ms": noisy["p99_ms"],
                    "noisy_equal_quiet": f"{same}/{args.sessions}",
                    "malformed_statuses": {str(k): v for k, v in sorted(tally.items(), key=str)},
                    "malformed_not_4xx": sum(
                        v for k, v in tally.items() if isinstance(k, int) and not 400 <= k < 500
                    ),
                }
            if args.attacker:
                # quiet and attacked runs alternate --repeats times (the machine's other load drifts):
                # the medians of their latencies, every loss and every transcript counted
                quiets, attacks, tallies = [quiet], [], []
                for repeat in range(args.repeats):
                    if repeat:
                        deadline.check(f"quiet run {repeat + 1} of {env_id}")
                        quiets.append(remote_play(url, env_id, expected, server.pid))
                    deadline.check(f"attacked run {repeat + 1} of {env_id}")
                    with Attacker(url) as attacker:
                        time.sleep(5)  # its heavy calls under way
                        attacks.append(remote_play(url, env_id, expected, server.pid))
                    tallies.append(attacker.tally)
                same = sum(
                    t == q
                    for a in attacks
                    for t, q in zip(a["transcripts"], quiet["transcripts"], strict=True)
                )
                quiet_p99 = float(np.median([q["p99_ms"] for q in quiets]))
                attacked_p99 = float(np.median([a["p99_ms"] for a in attacks]))
                row |= {
                    "repeats": args.repeats,
                    "quiet_p50_ms_median": float(np.median([q["p50_ms"] for q in quiets])),
                    "quiet_p99_ms_median": quiet_p99,
                    "quiet_p99_ms_each": [round(q["p99_ms"], 1) for q in quiets],
                    "quiet_lost_all": sum(len(q["lost"]) for q in quiets),
                    "attacked_steps_per_s": float(np.median([a["steps"] / a["seconds"] for a in attacks])),
                    "attacked_p50_ms": float(np.median([a["p50_ms"] for a in attacks])),
                    "attacked_p99_ms": attacked_p99,
                    "attacked_p99_ms_each": [round(a["p99_ms"], 1) for a in attacks],
                    "attacked_p99_over_quiet": attacked_p99 / quiet_p99,
                    "attacked_lost": sum(len(a["lost"]) for a in attacks),
                    "attacked_lost_why": [w for a in attacks for w in a["lost"]][:3],
                    "attacked_equal_quiet": f"{same}/{args.sessions * args.repeats}",
                    "attacker_batch": attacker.batch,
                    "attacker_sessions_held": len(attacker.held),
                    "attacker_statuses": tallies,
                }
            results.append(row)
            print(json.dumps(row), flush=True)
        freed = killed_client(url, args.ids[0])
        end = memory_mb(server.pid)
        print(f"server memory (PSS of its process tree): {idle:.0f} MB idle, {end:.0f} MB at the end")
        print(f"killed client: its session freed {freed:.2f} s after SIGKILL")
        print()
        print(
            "| env id | sessions | steps | in-process steps/s | make_vec sync steps/s | served steps/s "
            "| ratio | p50 ms | p99 ms | MB/session | transcripts = in-process |"
        )
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for r in results:
            print(
                f"| `{r['env_id']}` | {r['sessions']} | {r['steps']} | {r['in_process_steps_per_s']:.0f} "
                f"| {_figure(r['make_vec_sync_steps_per_s'])} "
                f"| {r['served_steps_per_s']:.0f} | {r['ratio']:.2f} | {r['p50_ms']:.1f} | {r['p99_ms']:.1f} "
                f"| {r['mb_per_session']:.1f} | {r['quiet_equal_in_process']} |"
            )
        if args.attacker:
            print()
            print("| env id | quiet p50 / p99 ms | attacked p50 / p99 ms | p99 ratio | lost | = quiet |")
            print("|---|---|---|---|---|---|")
            for r in results:
                print(
                    f"| `{r['env_id']}` | {r['quiet_p50_ms_median']:.1f} / {r['quiet_p99_ms_median']:.1f} "
                    f"| {r['attacked_p50_ms']:.1f} / {r['attacked_p99_ms']:.1f} "
                    f"| {r['attacked_p99_over_quiet']:.2f} | {r['attacked_lost']} "
                    f"| {r['attacked_equal_quiet']} |"
                )
        if args.json:
            Path(args.json).write_text(
                json.dumps({"rows": results, "killed_client_freed_s": freed}, indent=1)
            )
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
