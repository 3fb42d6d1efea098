"""``genenv serve`` attacked as a client would: what a client may ask of the machine (security), what one
client can cost the others (availability), and what one session can change for another (isolation).

Every attack of issue #34 has a test here: kwargs reaching backends, URLs, code and files; paths in
options and tasks; process-global state; a runaway call; one client holding every worker; malformed JSON,
bad tasks and text UTF-8 cannot carry, on both transports; steps before reset; slow and idle
connections; server paths in messages. And every attack of issue #45: a body of millions of tiny JSON
values, an over-limit body and half-sent ones, a real past a float's range, a step racing its session's
DELETE, six attacker networks with calls that run to the limit, two networks filling the server.
Addresses in two /24 networks (127.0.0.1 and 127.0.1.2) stand for two clients (one /24 is one client).
``benchmarks/serve_attacks.py`` runs the same classes against a ``genenv serve`` process on the real data
and reports before/after figures.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from pathlib import Path

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")
websockets_sync = pytest.importorskip("websockets.sync.client")

import serve_toy  # noqa: E402
from serve_toy import TOY, TOY_CLIENT  # noqa: E402

from genenv_gym.fixtures import FIXTURES_DIR  # noqa: E402
from genenv_gym.serve.app import ServeConfig  # noqa: E402
from genenv_gym.serve.catalog import Catalog  # noqa: E402
from genenv_gym.serve.limits import ServeLimits  # noqa: E402
from genenv_gym.serve.server import BackgroundServer  # noqa: E402

SIM = "GenEnv-Sim-Digits-v0"
MULTI = "GenEnv-BFCL-MultiTurn-v0"
TRAVEL = "GenEnv-TravelPlanner-v0"
TOOLS = "GenEnv-TravelPlanner-Tools-v0"
ATTACKER = "127.0.1.2"  # another /24 than 127.0.0.1: another client
CANARY = "GENENV_TEST_CANARY"

LIMITS = {
    "step_timeout_s": 1.5,
    "slow_call_s": 0.5,
    "workers": 2,
    "session_memory_mb": 300,
    "header_timeout_s": 0.6,
    "body_timeout_s": 0.6,
    "keep_alive_s": 0.6,
    "max_connections_per_client": 12,
    "max_body_bytes": 4 * 1024 * 1024,
}


def operator_kwargs(env_id: str) -> dict:
    if env_id in (TOY, SIM):
        return {}
    return {"data_dir": str(FIXTURES_DIR)}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    os.environ[CANARY] = "canary-value"  # a secret of the server's environment
    serve_toy.register(tmp_path_factory.mktemp("toy") / "closed.log")
    catalog = Catalog([TOY, SIM, MULTI, TRAVEL, TOOLS], operator_kwargs, {TOY: TOY_CLIENT})
    background = BackgroundServer(ServeConfig(catalog, ServeLimits(**LIMITS)))
    with background as url:
        yield url, background
    serve_toy.unregister()
    os.environ.pop(CANARY, None)
    assert not background.manager.sessions


def client(url: str, source: str = "127.0.0.1", **kwargs) -> httpx.Client:
    return httpx.Client(
        base_url=url, transport=httpx.HTTPTransport(local_address=source), timeout=30, **kwargs
    )


def ws_connect(url: str, env_id: str, source: str = "127.0.0.1"):
    host, port = url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), source_address=(source, 0))
    return websockets_sync.connect(f"ws://{host}:{port}/envs/{env_id}/ws", sock=sock, max_size=None)


def ask(ws, message) -> dict:
    ws.send(message if isinstance(message, (str, bytes)) else json.dumps(message))
    return json.loads(ws.recv(timeout=30))


def open_session(c: httpx.Client, env_id: str = TOY, **kwargs) -> str:
    answer = c.post(f"/envs/{env_id}/sessions", json={"env_kwargs": kwargs})
    assert answer.status_code == 201, answer.text
    sid = answer.json()["session_id"]
    assert c.post(f"/envs/{env_id}/reset", json={"session_id": sid}).status_code == 200
    return sid


def step(c: httpx.Client, sid: str, text: str, env_id: str = TOY) -> httpx.Response:
    return c.post(f"/envs/{env_id}/step", json={"action": {"text": text}, "session_id": sid})


def niceness(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[16])


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


# -- security: what a client may ask of the machine --------------------------------------------------------


def test_kwargs_that_would_reach_backends_urls_secrets_code_or_files_are_refused_403(server):
    url, _ = server
    hits: list[str] = []

    class Listener(threading.Thread):
        def run(self) -> None:
            with socket.create_server(("127.0.0.1", 0)) as listening:
                self.port = listening.getsockname()[1]
                ready.set()
                listening.settimeout(3)
                try:
                    conn, _ = listening.accept()
                    hits.append(conn.recv(4096).decode(errors="replace"))
                    conn.close()
                except TimeoutError:
                    pass

    ready = threading.Event()
    listener = Listener()
    listener.start()
    ready.wait(5)
    endpoint = f"http://127.0.0.1:{listener.port}"
    attacks = [
        (SIM, {"simulator": "llm", "simulator_kwargs": {"backend": f"openai:m@{endpoint}/v1"}}, "backend"),
        (SIM, {"simulator_kwargs": {"backend_kwargs": {"api_key_env": CANARY}}}, "backend_kwargs"),
        (SIM, {"simulator_kwargs": {"backend": "hf:/tmp/model", "trust_remote_code": True}}, "backend"),
        (SIM, {"domain_kwargs": {"data_dir": "/etc"}}, "data_dir"),
        (MULTI, {"official_filler": "/dev/zero"}, "official_filler"),
        (MULTI, {"data_dir": "/"}, "data_dir"),
        (TRAVEL, {"data_dir": "/tmp"}, "data_dir"),
        (TOY, {"secret_path": "/etc/shadow"}, "secret_path"),
    ]
    with client(url, ATTACKER) as c:
        for env_id, kwargs, key in attacks:
            for answer in (
                c.post(f"/envs/{env_id}/reset", json={"env_kwargs": kwargs}),
                c.post(f"/envs/{env_id}/sessions", json={"env_kwargs": kwargs}),
            ):
                assert answer.status_code == 403, (env_id, kwargs, answer.text)
                body = answer.json()
                assert body["code"] == "FORBIDDEN_KWARGS" and key in body["detail"]
                assert "a client may set:" in body["detail"]
            with ws_connect(url, env_id, ATTACKER) as ws:
                answer = ask(ws, {"type": "reset", "data": {"env_kwargs": kwargs}})
                assert answer["data"]["code"] == "FORBIDDEN_KWARGS"
                assert ask(ws, {"type": "state"})["type"] == "state"  # the connection goes on
        # a declared key with a value outside its bounds: 422 naming the bound
        huge = c.post(f"/envs/{SIM}/reset", json={"env_kwargs": {"batch_size": 40_000}})
        assert huge.status_code == 422 and "[1, 64]" in huge.json()["detail"]
        llm = c.post(f"/envs/{SIM}/reset", json={"env_kwargs": {"simulator": "llm"}})
        assert llm.status_code == 422 and "procedural" in llm.json()["detail"]
        split = c.post(f"/envs/{TRAVEL}/reset", json={"env_kwargs": {"split": "../../../tmp/x"}})
        assert split.status_code == 422 and "one of" in split.json()["detail"]
        # and what is declared works
        fine = c.post(
            f"/envs/{SIM}/reset", json={"env_kwargs": {"batch_size": 4, "curriculum": {"alpha": 0.3}}}
        )
        assert fine.status_code == 200, fine.text
        spec = c.get(f"/envs/{SIM}/spec").json()
        assert spec["client_params"]["env_kwargs"]["batch_size"] == "an integer in [1, 64]"
    listener.join(5)
    assert hits == []  # the server never called the attacker's endpoint


def test_options_and_tasks_never_name_files(server):
    url, _ = server
    with client(url, ATTACKER) as c:
        for options in ({"task_path": "/etc/passwd"}, {"split": "../x"}, {"official_filler": "/dev/zero"}):
            answer = c.post(f"/envs/{MULTI}/reset", json={"options": options})
            assert answer.status_code == 403 and "task_id" in answer.json()["detail"], answer.text
        for task in ({}, {"id": "x", "domain": "bfcl_multiturn", "bogus": 1}, "/etc/passwd"):
            answer = c.post(f"/envs/{MULTI}/reset", json={"options": {"task": task}})
            assert answer.status_code == 422 and answer.json()["code"] == "VALIDATION_ERROR", answer.text
        # a well-formed task of another domain: the env refuses it, 422, and the episode is not started
        task = {"id": "x", "domain": "travelplanner", "evaluation": {"split": "../../../../tmp"}}
        answer = c.post(f"/envs/{TRAVEL}/reset", json={"options": {"task": task}})
        assert answer.status_code == 422 and answer.json()["code"] == "EXECUTION_ERROR", answer.text


def test_an_alfworld_task_reads_only_games_of_the_data_dir(alfworld_tiny_root, tmp_path):
    """A task whose split or game names a path outside the data dir is refused the same way whether the
    path exists or not: no file is read and no existence oracle."""
    import shutil

    import gymnasium as gym

    env_id = "GenEnv-ALFWorld-v0"
    local = gym.make(env_id, data_dir=alfworld_tiny_root)
    game = local.unwrapped.tasks[0].evaluation["game"]
    planted = tmp_path / "planted" / "task" / "trial"
    planted.mkdir(parents=True)
    source = Path(alfworld_tiny_root) / "alfworld" / "json_2.1.1" / "valid_unseen" / game / "game.tw-pddl"
    shutil.copy(source, planted / "game.tw-pddl")
    local.close()
    base = Path(alfworld_tiny_root) / "alfworld" / "json_2.1.1" / "valid_unseen"
    escape = os.path.relpath(tmp_path / "planted", base)
    catalog = Catalog([env_id], {"data_dir": alfworld_tiny_root})
    with BackgroundServer(ServeConfig(catalog, ServeLimits(workers=1))) as url, client(url) as c:
        answers = {}
        for name, evaluation in {
            "planted_game": {"split": "valid_unseen", "game": f"{escape}/task/trial", "goal": "g"},
            "missing_game": {"split": "valid_unseen", "game": f"{escape}/none/trial", "goal": "g"},
            "planted_split": {"split": escape, "game": "task/trial", "goal": "g"},
            "missing_split": {"split": escape + "x", "game": "task/trial", "goal": "g"},
            "absolute": {"split": "valid_unseen", "game": str(planted), "goal": "g"},
        }.items():
            task = {
                "id": "t",
                "domain": "alfworld",
                "category": "pick_and_place_simple",
                "evaluation": evaluation,
            }
            answers[name] = c.post(f"/envs/{env_id}/reset", json={"options": {"task": task}})
            assert answers[name].status_code == 422, (name, answers[name].text)
            assert str(tmp_path) not in answers[name].text and alfworld_tiny_root not in answers[name].text
        planted_game, missing_game = answers["planted_game"].json(), answers["missing_game"].json()
        assert planted_game["code"] == missing_game["code"] == "EXECUTION_ERROR"
        assert planted_game["detail"].replace("/task/", "/none/") == missing_game["detail"]
        assert "<task folder>/<trial folder>" in planted_game["detail"]
        assert "unknown ALFWorld split" in answers["planted_split"].json()["detail"]
        # a game of the data dir, named by its id, plays
        task = {"id": "t", "domain": "alfworld", "category": "pick_and_place_simple"}
        task["evaluation"] = {"split": "valid_unseen", "game": game, "goal": "put something somewhere"}
        assert c.post(f"/envs/{env_id}/reset", json={"options": {"game": game}}).status_code == 200
        played = c.post(f"/envs/{env_id}/reset", json={"options": {"task": task}})
        assert played.status_code == 200 and "put something somewhere" in played.text


def test_error_messages_never_name_server_paths(server):
    url, _ = server
    with client(url) as c:
        sid = open_session(c)
        answer = step(c, sid, "raise")
        assert answer.status_code == 422 and "/srv/genenv" not in answer.text
        assert "<server path>" in answer.json()["detail"]
        missing = c.post(f"/envs/{MULTI}/reset", json={"options": {"task_id": "nope"}})
        assert missing.status_code == 422 and str(FIXTURES_DIR) not in missing.text
        c.delete(f"/envs/{TOY}/sessions/{sid}")


# -- isolation: what one session can change for another -------------------------------------------------


def test_process_global_state_set_by_one_session_is_never_seen_by_another(server):
    url, _ = server
    with client(url, ATTACKER) as attacker, client(url) as honest:
        bad, good = open_session(attacker), open_session(honest)
        assert step(attacker, bad, "global:evil").json()["observation"]["text"].endswith("global=evil")
        assert step(honest, good, "hi").json()["observation"]["text"] == "hi global=initial"
        fresh = honest.post(f"/envs/{TOY}/reset", json={}).json()["observation"]["text"]
        assert fresh.endswith("global=initial")
        for c, sid in ((attacker, bad), (honest, good)):
            c.delete(f"/envs/{TOY}/sessions/{sid}")


# -- availability: what one client can cost the others ---------------------------------------------------


def test_a_runaway_call_is_stopped_with_its_subprocesses_and_the_others_do_not_wait(server):
    url, background = server
    with client(url, ATTACKER) as attacker, client(url) as honest:
        bad, good = open_session(attacker), open_session(honest)
        child = int(step(attacker, bad, "child").json()["observation"]["text"])
        process = int(step(attacker, bad, "pid").json()["observation"]["text"])
        assert alive(child) and niceness(process) == min(19, niceness(os.getpid()) + 5)  # below the server
        answers = {}
        spin = threading.Thread(target=lambda: answers.update(spin=step(attacker, bad, "spin")))
        start = time.monotonic()
        spin.start()
        latencies = []
        lowered = False
        while spin.is_alive() and time.monotonic() - start < 10:
            begin = time.monotonic()
            assert step(honest, good, "hi").status_code == 200
            latencies.append(time.monotonic() - begin)
            lowered = lowered or (time.monotonic() - start > 1.1 and niceness(process) == 19)
        spin.join(10)
        assert answers["spin"].status_code == 504 and answers["spin"].json()["code"] == "STEP_TIMEOUT"
        assert 1.4 < time.monotonic() - start < 6
        assert lowered  # past slow_call_s the runaway ran at the lowest priority
        assert max(latencies) < 0.5 and len(latencies) > 5  # the honest session went on meanwhile
        deadline = time.monotonic() + 5
        while alive(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not alive(child)  # the env's own subprocess went with it
        assert step(attacker, bad, "hi").status_code == 404  # the runaway session is closed
        assert background.manager.killed_calls >= 1
        honest.delete(f"/envs/{TOY}/sessions/{good}")


def test_one_client_cannot_hold_every_worker(server):
    """Two workers: a client with four sessions each sleeping gets one worker while another client holds a
    session; the other's steps still run at once."""
    url, _ = server
    with client(url, ATTACKER) as attacker, client(url) as honest:
        good = open_session(honest)
        bad = [open_session(attacker) for _ in range(4)]
        threads = [threading.Thread(target=step, args=(attacker, sid, "sleep:1.2")) for sid in bad]
        for thread in threads:
            thread.start()
        time.sleep(0.2)
        latencies = []
        for _ in range(5):
            begin = time.monotonic()
            assert step(honest, good, "hi").status_code == 200
            latencies.append(time.monotonic() - begin)
        for thread in threads:
            thread.join(20)
        assert max(latencies) < 0.5, latencies
        for sid in bad:
            attacker.delete(f"/envs/{TOY}/sessions/{sid}")
        honest.delete(f"/envs/{TOY}/sessions/{good}")


def test_memory_and_crashes_end_only_their_own_session(server):
    url, _ = server
    with client(url, ATTACKER) as attacker, client(url) as honest:
        good = open_session(honest)
        for action, status, code in (("alloc:2000", 422, "MEMORY_LIMIT"), ("crash", 500, "ENV_PROCESS_LOST")):
            bad = open_session(attacker)
            answer = step(attacker, bad, action)
            assert (answer.status_code, answer.json()["code"]) == (status, code), answer.text
            assert step(attacker, bad, "hi").status_code == 404
            assert step(honest, good, "hi").status_code == 200
        honest.delete(f"/envs/{TOY}/sessions/{good}")


def test_per_client_session_cap_and_forwarded_headers_are_not_believed(tmp_path):
    serve_toy.register(tmp_path / "closed.log")
    catalog = Catalog([TOY], {}, {TOY: TOY_CLIENT})
    limits = ServeLimits(max_sessions=4, max_sessions_per_client=2, workers=1)
    try:
        with BackgroundServer(ServeConfig(catalog, limits)) as url, client(url, ATTACKER) as attacker:
            for n in range(3):
                answer = attacker.post(
                    f"/envs/{TOY}/sessions", json={}, headers={"X-Forwarded-For": f"10.0.0.{n}"}
                )
                assert answer.status_code == (201 if n < 2 else 429), answer.text
            assert "per client" in answer.json()["detail"]
            with client(url) as honest:  # another client still gets its sessions
                assert honest.post(f"/envs/{TOY}/sessions", json={}).status_code == 201
    finally:
        serve_toy.unregister()


# -- every error is JSON 4xx with a code, on both transports; episodes survive refusals ----------------


def test_malformed_json_bad_tasks_and_unencodable_text_are_4xx_on_both_transports(server):
    url, _ = server
    deep = b'{"seed": ' + b"[" * 40_000 + b"]" * 40_000 + b"}"  # deep, within --max-json-values
    nested = {"options": {"mark": "x"}, "env_kwargs": {}}
    node = nested["env_kwargs"]
    for _ in range(40):
        node["size"] = {}
        node = node["size"]
    with client(url) as c:
        sid = open_session(c)
        cases = [
            (c.post(f"/envs/{TOY}/reset", content=deep), 400, "INVALID_JSON"),
            (c.post(f"/envs/{TOY}/reset", json=nested), 422, "VALIDATION_ERROR"),
            (c.post(f"/envs/{TOY}/reset", content=b'{"options": {"mark": "\\udc80"}}'), 422, "INVALID_TEXT"),
            (c.post(f"/envs/{TOY}/step", content=deep), 400, "INVALID_JSON"),
        ]
        lone = json.dumps({"action": {"text": "echo \udc80"}, "session_id": sid}).encode()
        cases.append((c.post(f"/envs/{TOY}/step", content=lone), 422, "INVALID_TEXT"))
        for answer, status, code in cases:
            assert (answer.status_code, answer.json()["code"]) == (status, code), answer.text
        # the refused step never reached the env: the episode goes on, its step count unchanged
        state = c.get(f"/envs/{TOY}/state", params={"session_id": sid}).json()
        assert state["step_count"] == 0
        assert step(c, sid, "ok").status_code == 200
        assert c.get(f"/envs/{TOY}/state", params={"session_id": sid}).json()["step_count"] == 1
        # text the env makes out of nothing UTF-8 cannot carry still travels (escaped)
        c.delete(f"/envs/{TOY}/sessions/{sid}")
    with ws_connect(url, TOY) as ws:
        assert ask(ws, deep.decode())["data"]["code"] == "INVALID_JSON"
        assert ask(ws, '{"type": "step", "data": {"text": "hi"}}')["data"]["code"] == "EPISODE_STATE"
        assert ask(ws, {"type": "reset", "data": {}})["type"] == "observation"
        assert ask(ws, '{"type": "step", "data": {"text": "a \\udc80"}}')["data"]["code"] == "INVALID_TEXT"
        bad_task = ask(ws, {"type": "reset", "data": {"options": {"task": {}}}})
        assert bad_task["data"]["code"] == "FORBIDDEN_KWARGS"  # the toy takes no task at all
        answer = ask(ws, {"type": "step", "data": {"text": "still here"}})
        assert answer["type"] == "observation" and answer["data"]["observation"]["text"].startswith(
            "still here"
        )
        assert ask(ws, {"type": "state"})["data"]["step_count"] == 1


def test_a_step_before_reset_is_409_on_http(server):
    url, _ = server
    with client(url) as c:
        for env_id in (TOY, SIM, MULTI):
            sid = c.post(f"/envs/{env_id}/sessions", json={}).json()["session_id"]
            answer = step(c, sid, "hi", env_id)
            assert (answer.status_code, answer.json()["code"]) == (409, "EPISODE_STATE"), (
                env_id,
                answer.text,
            )
            c.delete(f"/envs/{env_id}/sessions/{sid}")


def test_idle_and_slow_connections_are_closed(server):
    url, _ = server
    port = int(url.rsplit(":", 1)[1])

    def held_open(feed, limit=5.0) -> tuple[float, bytes]:
        """Seconds until the server closes a connection fed by ``feed`` every 0.1 s, and what it said."""
        sock = socket.create_connection(("127.0.0.1", port))
        sock.settimeout(0.1)
        start, said = time.monotonic(), b""
        try:
            while time.monotonic() - start < limit:
                try:
                    feed(sock)
                    data = sock.recv(4096)
                except TimeoutError:
                    continue
                except OSError:
                    break
                if not data:
                    break
                said += data
            return time.monotonic() - start, said
        finally:
            sock.close()

    sent = {"n": 0}

    def drip_headers(sock):
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n" if sent["n"] == 0 else b"X-A: b\r\n")
        sent["n"] += 1

    def drip_body(sock):
        if sent.setdefault("body", 0) == 0:
            sock.sendall(
                b"POST /envs/%s/reset HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n" % TOY.encode()
            )
        sock.sendall(b" ")
        sent["body"] += 1

    idle, _ = held_open(lambda sock: None)
    headers, _ = held_open(drip_headers)
    body, said = held_open(drip_body)
    assert idle < 2 and headers < 2 and body < 2, (idle, headers, body)
    assert b" 408 " in said and b"REQUEST_TIMEOUT" in said
    # connections beyond the per-client cap are closed at once
    cap = LIMITS["max_connections_per_client"]
    socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(cap + 2)]
    try:
        time.sleep(0.2)
        socks[-1].settimeout(1)
        assert socks[-1].recv(10) == b""
    finally:
        for sock in socks:
            sock.close()
    # WebSocket sessions count as connections while they last, and no longer
    for _ in range(cap + 2):
        with ws_connect(url, TOY) as ws:
            assert ask(ws, {"type": "state"})["type"] == "state"
    time.sleep(0.3)
    with client(url) as c:  # the server serves on
        assert c.get("/health").status_code == 200
    # an honest HTTP session idle past the keep-alive goes on: the client opens its connection again
    import gymnasium as gym

    env = gym.make("GenEnv-Remote-v0", url=url, env_id=TOY, transport="http")
    env.reset()
    time.sleep(LIMITS["keep_alive_s"] + 0.6)
    assert env.step("after a pause")[0].startswith("after a pause")
    env.close()


# -- issue #45: cheap requests that cost a lot, many addresses, the small ones -------------------------------


def many_values(size: int) -> bytes:
    """A step body of about ``size`` bytes that is almost all empty JSON objects."""
    items = b",".join([b"{}"] * (size // 3))
    return b'{"action": {"text": "x", "metadata": {"a": [' + items + b"]}}}"


def test_a_body_of_millions_of_tiny_values_is_refused_before_it_is_decoded(server):
    """One body of tiny items used to hold the event loop for seconds (every other request waited); it is
    now counted from its text and refused 413, on HTTP and on the WebSocket, while /health answers."""
    url, _ = server
    body = many_values(LIMITS["max_body_bytes"] - 1024)
    latencies: list[float] = []
    answers: list[int] = []

    def attack() -> None:
        with client(url, ATTACKER) as c:
            for _ in range(3):
                answers.append(c.post(f"/envs/{TOY}/step", content=body).status_code)

    thread = threading.Thread(target=attack)
    with client(url) as honest:
        thread.start()
        while thread.is_alive():
            begin = time.monotonic()
            assert honest.get("/health").status_code == 200
            latencies.append(time.monotonic() - begin)
        thread.join()
    assert answers == [413, 413, 413]
    assert max(latencies) < 0.5, latencies
    with ws_connect(url, TOY, ATTACKER) as ws:
        answer = ask(ws, b'{"type": "reset", "data": {"options": {"mark": ' + body[37:-2] + b"}}}")
        assert answer["data"]["code"] == "TOO_MANY_VALUES"
        assert ask(ws, {"type": "reset", "data": {}})["type"] == "observation"  # the session goes on


def test_an_over_limit_body_is_a_readable_413_and_a_half_sent_one_one_log_line(server, caplog):
    url, _ = server
    port = int(url.rsplit(":", 1)[1])
    with client(url, ATTACKER) as c:
        answer = c.post(f"/envs/{TOY}/step", content=b" " * (LIMITS["max_body_bytes"] + 10))
        assert (answer.status_code, answer.json()["code"]) == (413, "TOO_LARGE")
    caplog.clear()
    with caplog.at_level("INFO"):
        for _ in range(3):
            sock = socket.create_connection(("127.0.0.1", port))
            sock.sendall(
                b"POST /envs/%s/step HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{" % TOY.encode()
            )
            sock.close()
        time.sleep(0.3)
    lines = [r for r in caplog.records if "step" in r.getMessage()]
    assert len(lines) == 3 and all(r.exc_info is None for r in caplog.records), caplog.text
    assert sum(len(r.getMessage()) for r in caplog.records) < 1000  # no traceback per body


def test_a_huge_integer_for_a_real_kwarg_and_a_step_racing_its_delete_are_4xx(server):
    url, _ = server
    huge = "2" + "0" * 308  # 309 digits, past a float's range
    raw = b'{"env_kwargs": {"skill_decay": %s}}' % huge.encode()
    with client(url, ATTACKER) as c:
        answer = c.post(f"/envs/{SIM}/reset", content=raw)
        assert answer.status_code == 422 and "skill_decay" in answer.json()["detail"], answer.text
        with ws_connect(url, SIM, ATTACKER) as ws:
            answer = ask(ws, b'{"type": "reset", "data": ' + raw + b"}")
            assert answer["data"]["code"] == "VALIDATION_ERROR"
            assert ask(ws, {"type": "state"})["type"] == "state"
        sid = open_session(c)
        racing: list[httpx.Response] = []
        thread = threading.Thread(target=lambda: racing.append(step(c, sid, "sleep:0.8")))
        thread.start()
        time.sleep(0.3)
        assert c.delete(f"/envs/{TOY}/sessions/{sid}").status_code == 200
        thread.join(10)
        assert racing[0].status_code == 404 and racing[0].json()["code"] == "UNKNOWN_SESSION", racing[0].text


def test_six_attacker_networks_with_calls_to_the_limit_leave_the_honest_client_its_share(server):
    """Six clients (six /24 networks) each run calls that go on past --slow-call, on two workers: each
    call leaves the pool once slow, so no honest step waits for a whole attacker call (1.3 s). A free slot
    goes to the client running the fewest calls, the earliest waiter among equals, so a step that arrives
    behind queued attackers with none running waits for their turns too: at most one young call's
    ``slow_call_s`` per round of two, ``(1 + ceil(6 / 2)) x 0.5 = 2.0`` s; once the honest client is in
    step with them, a step waits for the young calls only (about 0.5 s)."""
    url, background = server
    attackers = [client(url, f"127.0.{n}.7") for n in range(10, 16)]
    stop = threading.Event()

    def attack(c: httpx.Client) -> None:
        sid = open_session(c)
        while not stop.is_set():
            step(c, sid, "sleep:1.3")
        c.delete(f"/envs/{TOY}/sessions/{sid}")

    threads = [threading.Thread(target=attack, args=(c,)) for c in attackers]
    with client(url) as honest:
        good = open_session(honest)
        for thread in threads:
            thread.start()
        time.sleep(0.6)
        latencies = []
        for _ in range(5):
            begin = time.monotonic()
            assert step(honest, good, "hi").status_code == 200
            latencies.append(time.monotonic() - begin)
        stop.set()
        for thread in threads:
            thread.join(20)
        honest.delete(f"/envs/{TOY}/sessions/{good}")
    for c in attackers:
        c.close()
    assert max(latencies) < 2.0 and sorted(latencies)[2] < 1.0, latencies
    assert background.manager.slots.left_pool >= 6


def test_two_networks_cannot_fill_the_server(tmp_path):
    """Sessions are shared by client with room kept for one more: two networks holding all they may leave
    a third its sessions; addresses of one /24 are one client."""
    serve_toy.register(tmp_path / "closed.log")
    catalog = Catalog([TOY], {}, {TOY: TOY_CLIENT})
    limits = ServeLimits(max_sessions=12, max_sessions_per_client=6, workers=1)
    try:
        with BackgroundServer(ServeConfig(catalog, limits)) as url:
            held = {}
            for source in ("127.0.3.1", "127.0.3.2", "127.0.4.1"):
                with client(url, source) as c:
                    held[source] = 0
                    while c.post(f"/envs/{TOY}/sessions", json={}).status_code == 201:
                        held[source] += 1
            assert held["127.0.3.1"] == 6 and held["127.0.3.2"] == 0  # one /24: one client
            assert held["127.0.4.1"] == 4  # its share: 12 between two clients and one more
            with client(url, "127.0.5.1") as newcomer:
                assert newcomer.post(f"/envs/{TOY}/sessions", json={}).status_code == 201
    finally:
        serve_toy.unregister()
