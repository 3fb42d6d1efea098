"""OpenEnv 0.10.0's MCP surface and session rules, spoken raw (OpenEnv's own client and validator play every
id in test_serve_conformance.py): JSON-RPC over ``POST /mcp`` and the WebSocket's ``mcp`` message, a socket
attached to an MCP session and refused one it may not have, a closed session that says why, and a
non-string action graded as its JSON text."""

from __future__ import annotations

import json
import time

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")
websockets_sync = pytest.importorskip("websockets.sync.client")

import serve_toy  # noqa: E402
from serve_toy import TOY  # noqa: E402

from genenv_gym.fixtures import FIXTURES_DIR  # noqa: E402
from genenv_gym.serve.app import ServeConfig  # noqa: E402
from genenv_gym.serve.catalog import Catalog  # noqa: E402
from genenv_gym.serve.limits import ServeLimits  # noqa: E402
from genenv_gym.serve.server import BackgroundServer  # noqa: E402

MULTI = "GenEnv-BFCL-MultiTurn-v0"


def serve(env_ids, **limits) -> BackgroundServer:
    catalog = Catalog(
        env_ids,
        lambda env_id: {"data_dir": str(FIXTURES_DIR)} if env_id != TOY else {},
        {TOY: serve_toy.TOY_CLIENT},
    )
    return BackgroundServer(ServeConfig(catalog, ServeLimits(**limits)))


def rpc(client: httpx.Client, env_id: str, method: str, **params) -> dict:
    answer = client.post(
        f"/envs/{env_id}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    )
    assert answer.status_code == 200, answer.text
    assert answer.json()["jsonrpc"] == "2.0"
    return answer.json()


def ws_ask(ws, message: dict) -> dict:
    ws.send(json.dumps(message))
    return json.loads(ws.recv(timeout=20))


def test_an_mcp_session_lists_the_tasks_tools_and_plays_calls_with_the_envs_verdicts():
    with serve([MULTI]) as url, httpx.Client(base_url=url, timeout=30) as c:
        assert (
            c.post(f"/envs/{MULTI}/mcp", json={}).json()["error"]["code"] == -32600
        )  # the validator's probe
        assert rpc(c, MULTI, "no/such")["error"]["code"] == -32601
        assert rpc(c, MULTI, "initialize")["result"]["serverInfo"]["name"] == MULTI
        assert "session_id" in rpc(c, MULTI, "tools/list")["error"]["message"]
        sid = rpc(c, MULTI, "openenv/session/create")["result"]["session_id"]
        assert "reset" in rpc(c, MULTI, "tools/list", session_id=sid)["error"]["message"]
        ws_url = url.replace("http://", "ws://") + f"/envs/{MULTI}/ws"
        with websockets_sync.connect(f"{ws_url}?session_id={sid}") as ws:
            first = ws_ask(ws, {"type": "reset", "data": {"seed": 0}})["data"]["observation"]
            tools = rpc(c, MULTI, "tools/list", session_id=sid)["result"]["tools"]
            names = [t["name"] for t in tools]
            assert names[:-1] == [t["name"] for t in first["info"]["tools"]] and names[-1] == "act"
            assert all(t["inputSchema"]["type"] == "object" for t in tools)
            refused = rpc(c, MULTI, "tools/call", session_id=sid, name="no_such_tool", arguments={})
            assert "no_such_tool" in refused["error"]["message"] and names[0] in refused["error"]["message"]
            played = rpc(c, MULTI, "tools/call", session_id=sid, name="act", arguments={"text": "[]"})[
                "result"
            ]
            assert (
                played["action"] == "[]"
                and played["content"][0]["text"] == played["data"]["observation"]["text"]
            )
            # the socket's own MCP message, on the same session
            over_ws = ws_ask(ws, {"type": "mcp", "data": {"jsonrpc": "2.0", "id": 7, "method": "tools/list"}})
            assert over_ws["type"] == "mcp" and over_ws["data"]["id"] == 7
            assert [t["name"] for t in over_ws["data"]["result"]["tools"]] == names
            # OpenEnv's MCP actions as steps
            listed = ws_ask(ws, {"type": "step", "data": {"type": "list_tools"}})["data"]
            assert [t["name"] for t in listed["observation"]["tools"]] == names
            call = {"type": "call_tool", "tool_name": "act", "arguments": {"text": "[]"}}
            called = ws_ask(ws, {"type": "step", "data": call})["data"]
            assert called["observation"]["tool_name"] == "act"
            assert "observation" in called["observation"]["result"]
            assert ws_ask(ws, {"type": "state"})["data"]["step_count"] == 2
            closing = rpc(c, MULTI, "openenv/session/close", session_id=sid)["result"]
            assert closing["closing"] is True  # closed when its socket goes
        deadline = time.monotonic() + 10
        while c.get("/health").json()["active_sessions"] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert c.get("/health").json()["active_sessions"] == 0


def test_a_socket_is_refused_a_session_it_may_not_have(toy_id):
    with serve([toy_id]) as url, httpx.Client(base_url=url, timeout=30) as c:
        ws_url = url.replace("http://", "ws://") + f"/envs/{toy_id}/ws"
        with websockets_sync.connect(f"{ws_url}?session_id=nope") as ws:
            assert json.loads(ws.recv(timeout=10))["data"]["code"] == "UNKNOWN_SESSION"
        sid = c.post(f"/envs/{toy_id}/sessions", json={}).json()["session_id"]
        with websockets_sync.connect(f"{ws_url}?session_id={sid}") as ws:
            with websockets_sync.connect(f"{ws_url}?session_id={sid}") as second:
                assert json.loads(second.recv(timeout=10))["data"]["code"] == "SESSION_BUSY"
            assert ws_ask(ws, {"type": "reset", "data": {}})["type"] == "observation"
        # the session outlives its socket (its client closes it), and is attached again
        with websockets_sync.connect(f"{ws_url}?session_id={sid}") as ws:
            assert ws_ask(ws, {"type": "step", "data": {"text": "hi"}})["data"]["observation"][
                "text"
            ].startswith("hi ")
        assert c.delete(f"/envs/{toy_id}/sessions/{sid}").status_code in (200, 204)


def test_tool_calls_over_http_keep_an_attached_socket_alive(toy_id):
    with serve([toy_id], idle_timeout_s=1.0) as url, httpx.Client(base_url=url, timeout=30) as c:
        sid = rpc(c, toy_id, "openenv/session/create")["result"]["session_id"]
        ws_url = url.replace("http://", "ws://") + f"/envs/{toy_id}/ws?session_id={sid}"
        with websockets_sync.connect(ws_url) as ws:
            ws_ask(ws, {"type": "reset", "data": {}})
            for _ in range(5):  # 2 s of tool calls, none on the socket
                time.sleep(0.4)
                called = rpc(c, toy_id, "tools/call", session_id=sid, name="act", arguments={"text": "x"})
                assert "result" in called, called
            assert ws_ask(ws, {"type": "state"})["data"]["step_count"] == 5


def test_after_the_server_closes_a_session_the_next_message_says_why(toy_id):
    with serve([toy_id], idle_timeout_s=0.5, step_timeout_s=1.0) as url:
        ws_url = url.replace("http://", "ws://") + f"/envs/{toy_id}/ws"
        with websockets_sync.connect(ws_url) as ws:
            ws_ask(ws, {"type": "reset", "data": {}})
            time.sleep(0.7)
            answer = ws_ask(ws, {"type": "step", "data": {"text": "x"}})["data"]
            assert answer["code"] == "SESSION_CLOSED" and "idle timeout" in answer["message"]
        with websockets_sync.connect(ws_url) as ws:
            ws_ask(ws, {"type": "reset", "data": {}})
            assert ws_ask(ws, {"type": "step", "data": {"text": "sleep:5"}})["data"]["code"] == "STEP_TIMEOUT"
            answer = ws_ask(ws, {"type": "step", "data": {"text": "x"}})["data"]
            assert answer["code"] == "SESSION_CLOSED" and "longer than" in answer["message"]
        with websockets_sync.connect(ws_url) as ws:  # a fresh connection: a step first says what happened
            answer = ws_ask(ws, {"type": "step", "data": {"text": "x"}})["data"]
            assert "call reset before step" in answer["message"] and "reconnected" in answer["message"]


def test_a_non_string_action_is_graded_as_its_json_text(toy_id):
    with serve([toy_id]) as url, httpx.Client(base_url=url, timeout=30) as c:
        with websockets_sync.connect(url.replace("http://", "ws://") + f"/envs/{toy_id}/ws") as ws:
            ws_ask(ws, {"type": "reset", "data": {}})
            for value, text in [(7, "7"), (True, "true"), ([1, "a"], '[1,"a"]'), ({"k": 1}, '{"k":1}')]:
                answer = ws_ask(ws, {"type": "step", "data": {"text": value}})
                assert answer["data"]["observation"]["text"] == f"{text} global=initial"
            # a reply that parsed as a JSON object is sent as the action object itself
            answer = ws_ask(ws, {"type": "step", "data": {"name": "f", "arguments": {}}})
            assert answer["data"]["observation"]["text"].startswith('{"name":"f","arguments":{}} ')
        sid = c.post(f"/envs/{toy_id}/sessions", json={}).json()["session_id"]
        c.post(f"/envs/{toy_id}/reset", json={"session_id": sid})
        played = c.post(f"/envs/{toy_id}/step", json={"action": {"text": 3808}, "session_id": sid})
        assert played.status_code == 200 and played.json()["observation"]["text"].startswith("3808 ")
        assert c.post(f"/envs/{toy_id}/step", json={"action": {}, "session_id": sid}).status_code == 422
