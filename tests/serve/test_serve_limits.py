"""The server under hostile or careless clients: every malformed request answered 4xx with a JSON message,
sessions bounded in number, time and idleness, the bearer token, graceful shutdown, and sessions that
never see each other's state."""

from __future__ import annotations

import json
import socket
import threading
import time

import gymnasium as gym
import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")
websockets_sync = pytest.importorskip("websockets.sync.client")

import serve_toy  # noqa: E402
from serve_toy import TOY  # noqa: E402

from genenv_gym.fixtures import FIXTURES_DIR  # noqa: E402
from genenv_gym.remote.http_json import RemoteError  # noqa: E402
from genenv_gym.serve.app import ServeConfig  # noqa: E402
from genenv_gym.serve.catalog import Catalog  # noqa: E402
from genenv_gym.serve.limits import ServeLimits  # noqa: E402
from genenv_gym.serve.server import BackgroundServer  # noqa: E402
from genenv_gym.serve.transcript import record, scripted_actions  # noqa: E402

MULTI = "GenEnv-BFCL-MultiTurn-v0"


def serve(env_ids, token=None, **limits) -> BackgroundServer:
    catalog = Catalog(
        env_ids,
        lambda env_id: {"data_dir": str(FIXTURES_DIR)} if env_id != TOY else {},
        {TOY: serve_toy.TOY_CLIENT},
    )
    return BackgroundServer(ServeConfig(catalog, ServeLimits(**limits), token))


def session(client: httpx.Client, env_id: str, **kwargs) -> str:
    answer = client.post(f"/envs/{env_id}/sessions", json={"env_kwargs": kwargs})
    assert answer.status_code == 201, answer.text
    return answer.json()["session_id"]


def test_every_malformed_request_is_answered_4xx_with_a_message():
    with (
        serve([MULTI], max_action_chars=1000, max_body_bytes=100_000) as url,
        httpx.Client(base_url=url) as c,
    ):
        sid = session(c, MULTI)
        base = f"/envs/{MULTI}"
        cases = [
            (c.post(f"{base}/reset", content=b"{"), 400),
            (c.post(f"{base}/reset", content=b"\xff\xfe"), 400),
            (c.post(f"{base}/reset", json=[1]), 422),
            (c.post(f"{base}/reset", json={"sead": 1}), 422),
            (c.post(f"{base}/reset", json={"seed": -1}), 422),
            (c.post(f"{base}/reset", json={"seed": "1"}), 422),
            (c.post(f"{base}/reset", json={"options": [1]}), 422),
            (c.post(f"{base}/reset", json={"session_id": sid, "options": {"task_id": "nope"}}), 422),
            (c.post(f"{base}/reset", content=b"x" * 200_000), 413),
            (c.post("/envs/GenEnv-Nope-v0/reset", json={}), 404),
            (c.post(f"{base}/step", json={"action": {"text": "[]"}, "session_id": "0" * 32}), 404),
            (c.post(f"{base}/step", json={"action": {"text": "[]"}}), 409),
            (c.post(f"{base}/step", json={"action": {"text": "[]"}, "session_id": sid}), 409),  # before reset
            (c.post(f"{base}/step", json={"action": {"text": "[]", "x": 1}, "session_id": sid}), 422),
            (c.post(f"{base}/step", json={"action": "[]", "session_id": sid}), 422),
            (c.post(f"{base}/step", json={"session_id": sid}), 422),
            (c.post(f"{base}/step", content=b""), 422),
            (c.post(f"{base}/step", json={"action": {"text": "x" * 1001}, "session_id": sid}), 413),
            (c.post(f"{base}/sessions", json={"env_kwargs": {"data_dir": "/etc"}}), 403),
            (c.post(f"{base}/sessions", json={"env_kwargs": {"no_such_kwarg": 1}}), 403),
            (c.post(f"{base}/sessions", json={"kwargs": {}}), 422),
            (c.delete(f"{base}/sessions/nope"), 404),
            (c.get(f"{base}/state", params={"session_id": "nope"}), 404),
            (c.get("/no/such/route"), 404),
            (c.put(f"{base}/reset", json={}), 405),
        ]
        for response, status in cases:
            assert response.status_code == status, (response.request.url, response.text)
            assert response.json()["detail"], response.request.url
        # the session survived all of it
        assert c.post(f"{base}/reset", json={"session_id": sid, "seed": 0}).status_code == 200
        assert c.get("/health").json()["active_sessions"] == 1


def test_websocket_errors_keep_the_connection_usable():
    with serve([MULTI]) as url:
        ws_url = url.replace("http://", "ws://") + f"/envs/{MULTI}/ws"
        with websockets_sync.connect(ws_url) as ws:
            for message in [
                "{",
                "[1]",
                json.dumps({"type": "fly"}),
                json.dumps({"type": "step", "data": {}}),
            ]:
                ws.send(message)
                answer = json.loads(ws.recv(timeout=10))
                assert answer["type"] == "error" and answer["data"]["message"], message
            ws.send(b"\x00\xff")
            assert json.loads(ws.recv(timeout=10))["data"]["code"] == "INVALID_JSON"
            ws.send(json.dumps({"type": "reset", "data": {"seed": 0}}))
            assert json.loads(ws.recv(timeout=10))["type"] == "observation"
            ws.send(json.dumps({"type": "step", "data": {"text": "[]", "x": 1}}))
            assert json.loads(ws.recv(timeout=10))["data"]["code"] == "VALIDATION_ERROR"
            ws.send(json.dumps({"type": "step", "data": {"text": "[]"}}))
            assert json.loads(ws.recv(timeout=10))["type"] == "observation"
        with websockets_sync.connect(url.replace("http://", "ws://") + "/envs/GenEnv-Nope-v0/ws") as ws:
            assert json.loads(ws.recv(timeout=10))["data"]["code"] == "UNKNOWN_ENV"


def test_concurrent_steps_on_one_session_are_refused_and_slow_steps_time_out(toy_id):
    with serve([toy_id], step_timeout_s=1.5) as url, httpx.Client(base_url=url, timeout=30) as c:
        sid = session(c, toy_id)
        c.post(f"/envs/{toy_id}/reset", json={"session_id": sid})
        answers = {}

        def slow() -> None:
            answers["slow"] = c.post(
                f"/envs/{toy_id}/step", json={"action": {"text": "sleep:4"}, "session_id": sid}
            )

        thread = threading.Thread(target=slow)
        thread.start()
        with httpx.Client(base_url=url) as other:
            for _ in range(10):  # until the slow step holds the session (it may reach the server later)
                time.sleep(0.1)
                busy = other.post(f"/envs/{toy_id}/step", json={"action": {"text": "hi"}, "session_id": sid})
                if busy.status_code != 200:
                    break
        thread.join(10)
        assert busy.status_code == 409 and "busy" in busy.json()["detail"]
        assert answers["slow"].status_code == 504
        # the timed-out session is closed; the server goes on serving
        assert c.post(f"/envs/{toy_id}/reset", json={"session_id": sid}).status_code == 404
        assert c.get("/health").json()["active_sessions"] == 0
        assert c.post(f"/envs/{toy_id}/reset", json={}).status_code == 200


def test_session_limit_idle_timeout_and_killed_clients_free_their_sessions(toy_id):
    with serve([toy_id], max_sessions=2, idle_timeout_s=0.4) as url, httpx.Client(base_url=url) as c:
        first, _second = session(c, toy_id), session(c, toy_id)
        refused = c.post(f"/envs/{toy_id}/sessions", json={})
        assert refused.status_code == 429 and "limit" in refused.json()["detail"]
        time.sleep(1.2)  # both idle past the timeout
        assert c.get("/health").json()["active_sessions"] == 0
        assert c.post(f"/envs/{toy_id}/reset", json={"session_id": first}).status_code == 404

        ws = websockets_sync.connect(url.replace("http://", "ws://") + f"/envs/{toy_id}/ws").__enter__()
        ws.send(json.dumps({"type": "reset", "data": {}}))
        ws.recv(timeout=10)
        assert c.get("/health").json()["active_sessions"] == 1
        ws.socket.shutdown(socket.SHUT_RDWR)  # the client dies mid-episode: no close frame
        ws.socket.close()
        deadline = time.monotonic() + 10
        while c.get("/health").json()["active_sessions"] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert c.get("/health").json()["active_sessions"] == 0

        with websockets_sync.connect(url.replace("http://", "ws://") + f"/envs/{toy_id}/ws") as idle:
            assert json.loads(idle.recv(timeout=10))["data"]["code"] == "IDLE_TIMEOUT"


def test_bearer_token(toy_id):
    with serve([toy_id], token="s3cret") as url, httpx.Client(base_url=url) as c:
        assert c.get("/health").status_code == 200  # open for load balancers
        assert c.get(f"/envs/{toy_id}/schema").status_code == 401
        wrong = c.get(f"/envs/{toy_id}/schema", headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401 and "token" in wrong.json()["detail"]
        assert c.get(f"/envs/{toy_id}/schema", headers={"Authorization": "Bearer s3cret"}).status_code == 200
        with websockets_sync.connect(url.replace("http://", "ws://") + f"/envs/{toy_id}/ws") as ws:
            assert json.loads(ws.recv(timeout=10))["data"]["code"] == "UNAUTHORIZED"
        with pytest.raises(RemoteError, match="401"):
            gym.make("GenEnv-Remote-v0", url=url, env_id=toy_id)
        for transport in ("ws", "http"):
            env = gym.make("GenEnv-Remote-v0", url=url, env_id=toy_id, transport=transport, token="s3cret")
            assert env.reset()[0].startswith("ready") and env.step("hi")[0].startswith("hi ")
            env.close()


def test_graceful_shutdown_closes_every_env(toy_id):
    server = serve([toy_id])
    with server as url, httpx.Client(base_url=url) as c:
        for _ in range(2):
            c.post(f"/envs/{toy_id}/reset", json={"session_id": session(c, toy_id)})
        ws = gym.make("GenEnv-Remote-v0", url=url, env_id=toy_id)
        ws.reset()
        closed_before = serve_toy.closes()  # the one /spec built and closed
        assert c.get("/health").json()["active_sessions"] == 3
    assert serve_toy.closes() == closed_before + 3
    assert not server.manager.sessions


def test_two_sessions_on_one_entry_never_see_each_others_state():
    """Two clients play the same BFCL multi-turn entry with different actions, interleaved step by step;
    each gets exactly what it gets when it plays alone in-process."""
    local = gym.make(MULTI, data_dir=str(FIXTURES_DIR))
    task_id = local.unwrapped.tasks[0].id
    options = {"task_id": task_id}
    oracle = scripted_actions(local, "oracle", options=options)
    wrong = scripted_actions(local, "random", options=options, agent_seed=3)
    assert oracle.actions[: len(wrong.actions)] != wrong.actions
    local.close()
    with serve([MULTI]) as url:
        for transport in ("ws", "http"):
            a, b = (gym.make("GenEnv-Remote-v0", url=url, env_id=MULTI, transport=transport) for _ in "ab")
            plays = {"a": [], "b": []}
            firsts = {"a": a.reset(options=options), "b": b.reset(options=options)}
            for i in range(max(len(oracle.actions), len(wrong.actions))):
                for name, env, script in (("a", a, oracle), ("b", b, wrong)):
                    if i < len(script.actions):
                        plays[name].append(env.step(script.actions[i]))
            for name, script in (("a", oracle), ("b", wrong)):
                assert firsts[name] == (script.observation, script.info)
                got = [(o, r, te, tr, info) for o, r, te, tr, info in plays[name]]
                expected = [
                    (s.observation, s.reward, s.terminated, s.truncated, s.info) for s in script.steps
                ]
                assert got == expected, (transport, name)
            a.close()
            b.close()


def test_a_pool_spreads_sessions_over_its_servers(toy_id):
    with serve([toy_id]) as first, serve([toy_id]) as second:
        envs = [gym.make("GenEnv-Remote-v0", url=[first, second], env_id=toy_id) for _ in range(4)]
        assert sorted(e.unwrapped.url for e in envs) == sorted([first, first, second, second])
        for env in envs:
            env.close()
        with pytest.raises(ConnectionError, match="no env server reachable"):
            gym.make("GenEnv-Remote-v0", url="http://127.0.0.1:9", env_id=toy_id)


def test_record_replays_a_remote_episode_of_the_real_data(shared_data_dir):
    """The same scripted episode on the real BFCL multi-turn data, in-process and through the server."""
    catalog = Catalog([MULTI], {})
    local = gym.make(MULTI, data_dir=str(shared_data_dir))
    expected = scripted_actions(local, "oracle", seed=5)
    local.close()
    with BackgroundServer(ServeConfig(catalog)) as url:
        env = gym.make("GenEnv-Remote-v0", url=url, env_id=MULTI)
        assert record(env, expected.actions, seed=5) == expected
        env.close()


def test_concurrent_sessions_of_a_thread_unsafe_engine_play_correctly(alfworld_tiny_root):
    """ALFWorld's engine (textworld's shared PDDL parser) fails when two threads reset at once; sessions
    played concurrently from eight client threads still give the in-process transcripts."""
    from concurrent.futures import ThreadPoolExecutor

    env_id = "GenEnv-ALFWorld-v0"
    local = gym.make(env_id, data_dir=alfworld_tiny_root)
    expected = [scripted_actions(local, "oracle", seed=seed) for seed in range(8)]
    local.close()
    catalog = Catalog([env_id], {"data_dir": alfworld_tiny_root})
    with BackgroundServer(ServeConfig(catalog)) as url:

        def play(seed: int):
            env = gym.make("GenEnv-Remote-v0", url=url, env_id=env_id)
            try:
                return record(env, expected[seed].actions, seed=seed)
            finally:
                env.close()

        with ThreadPoolExecutor(8) as pool:
            assert list(pool.map(play, range(8))) == expected
