"""A curriculum hosted by ``genenv serve`` under load: episodes/s and the latency an episode pays when its
session joined the shared curriculum, against sessions that each keep their own.

    python benchmarks/serve_curriculum.py [--clients 1 8 32] [--seconds 8] [--repeats 3]
        [--env GenEnv-Sim-Digits-v0] [--out benchmarks/results/serve_curriculum.json]

Starts one ``genenv serve`` process (``--curriculum bench=ENV``, limits raised so that every client gets a
session) and, per number of clients C and per mode (``own``: sessions without ``shared_curriculum``;
``shared``: every session joined to ``bench``), runs C client threads, each with its own HTTP session,
playing one-step episodes (reset, then an answer that is right half of the time) for ``--seconds``. An
episode's latency is its reset plus its step, seen by the client. A shared episode adds one record call (the
step) and, every ``batch_size`` tasks x 4 attempts, one proposal call (a reset) between the session's
process and the server. The two modes alternate, ``--repeats`` times per C, so that drift in the machine's
load falls on both; the summary gives each mode's median episodes/s and the ratio shared / own. Clients,
server and sessions share this machine's cores: compare figures from one run.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(env_id: str, port: int, sessions: int) -> subprocess.Popen:
    command = [
        sys.executable,
        "-m",
        "genenv_gym.cli",
        "serve",
        "--env",
        env_id,
        "--port",
        str(port),
        "--curriculum",
        f"bench={env_id}",
        "--max-sessions",
        str(sessions),
        "--max-sessions-per-client",
        str(sessions),
        "--max-connections-per-client",
        str(4 * sessions),
        "--idle-timeout",
        "600",
    ]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                return server
        except httpx.HTTPError:
            time.sleep(0.2)
    server.kill()
    raise RuntimeError(f"genenv serve did not start: {server.stderr.read() if server.stderr else ''}")


def answer(observation: str, right: bool) -> str:
    if ":" not in observation:
        return "?"
    words = observation.split(":", 1)[1].split()
    return " ".join(reversed(words)) if right else "wrong"


def client_loop(
    url: str, env_id: str, shared: bool, start_at: float, seconds: float, out: list[float], errors: list[str]
) -> None:
    kwargs = {"shared_curriculum": "bench"} if shared else {}
    with httpx.Client(base_url=url, timeout=120) as c:
        opened = c.post(f"/envs/{env_id}/sessions", json={"env_kwargs": kwargs})
        if opened.status_code != 201:
            errors.append(opened.text)
            return
        sid = opened.json()["session_id"]
        c.post(f"/envs/{env_id}/reset", json={"session_id": sid})  # the first batch of proposals
        time.sleep(max(0.0, start_at - time.time()))
        k, end = 0, start_at + seconds
        while time.time() < end:
            t = time.perf_counter()
            obs = c.post(f"/envs/{env_id}/reset", json={"session_id": sid}).json()["observation"]["text"]
            step = c.post(
                f"/envs/{env_id}/step", json={"session_id": sid, "action": {"text": answer(obs, k % 2 == 0)}}
            )
            if step.status_code != 200:
                errors.append(step.text)
                break
            out.append(time.perf_counter() - t)
            k += 1
        c.delete(f"/envs/{env_id}/sessions/{sid}")


def run(url: str, env_id: str, clients: int, shared: bool, seconds: float) -> dict:
    latencies: list[list[float]] = [[] for _ in range(clients)]
    errors: list[str] = []
    start_at = time.time() + 2.0 + 0.05 * clients
    threads = [
        threading.Thread(
            target=client_loop, args=(url, env_id, shared, start_at, seconds, latencies[i], errors)
        )
        for i in range(clients)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    every = sorted(x for lat in latencies for x in lat)
    if errors or not every:
        return {"clients": clients, "mode": "shared" if shared else "own", "errors": errors[:3]}
    return {
        "clients": clients,
        "mode": "shared" if shared else "own",
        "episodes": len(every),
        "episodes_per_s": round(len(every) / seconds, 1),
        "episode_ms_median": round(1000 * statistics.median(every), 2),
        "episode_ms_p95": round(1000 * every[int(0.95 * (len(every) - 1))], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--env", default="GenEnv-Sim-Digits-v0")
    parser.add_argument("--out", default="benchmarks/results/serve_curriculum.json")
    args = parser.parse_args()
    port = free_port()
    server = start_server(args.env, port, max(args.clients) + 2)
    url = f"http://127.0.0.1:{port}"
    rows = []
    try:
        for clients in args.clients:
            for repeat in range(args.repeats):
                for shared in (False, True):
                    row = {"repeat": repeat, **run(url, args.env, clients, shared, args.seconds)}
                    rows.append(row)
                    print(json.dumps(row), flush=True)
        state = httpx.get(f"{url}/curricula/bench", timeout=30).json()["state"]
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(30)
    summary = {
        "command": "python " + " ".join(sys.argv),
        "env_id": args.env,
        "cpus": os.cpu_count(),
        "load_average": os.getloadavg()[0],
        "rows": rows,
        "hosted_curriculum": {k: state[k] for k in ("proposals", "groups_completed", "open_groups")},
    }
    summary["by_clients"] = []
    for clients in args.clients:
        of = {
            mode: [r for r in rows if r["clients"] == clients and r["mode"] == mode and "episodes_per_s" in r]
            for mode in ("own", "shared")
        }
        if not of["own"] or not of["shared"]:
            continue
        line = {"clients": clients}
        for mode, runs in of.items():
            line[f"{mode}_episodes_per_s"] = statistics.median(r["episodes_per_s"] for r in runs)
            line[f"{mode}_episode_ms_median"] = statistics.median(r["episode_ms_median"] for r in runs)
        line["shared_over_own"] = round(line["shared_episodes_per_s"] / line["own_episodes_per_s"], 3)
        summary["by_clients"].append(line)
        print(json.dumps(line), flush=True)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(summary, indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
