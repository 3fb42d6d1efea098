"""The one door of a client's env kwargs and reset options (serve/client_kwargs.py): its order of checks,
and the same refusal, status, code and message, on every route that takes them (a session's opening, the
one-shot reset, a WebSocket's reset)."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient

from genenv_gym.serve.app import ServeConfig, create_app
from genenv_gym.serve.catalog import Catalog
from genenv_gym.serve.client_kwargs import JOIN_KEY, ClientKwargs, check_client_kwargs
from genenv_gym.serve.curricula import HostedCurricula
from genenv_gym.serve.errors import ServeError

SIM = "GenEnv-Sim-Digits-v0"
BENCH = "GenEnv-Digits-v0"
CATALOG = Catalog([SIM, BENCH])
NO_CURRICULA = HostedCurricula([], CATALOG.server_kwargs)


def refusal(env_id: str, kwargs: dict[str, Any], options: Any = None, may_join: bool = True) -> tuple:
    with pytest.raises(ServeError) as caught:
        check_client_kwargs(CATALOG, NO_CURRICULA, env_id, kwargs, options, may_join=may_join)
    return caught.value.status, caught.value.code, caught.value.message


def test_checked_kwargs_and_options_come_back_normalised():
    chosen = check_client_kwargs(CATALOG, NO_CURRICULA, SIM, {"skill_decay": 1, "curriculum": {"alpha": 0}})
    assert chosen == ClientKwargs({"skill_decay": 1.0, "curriculum": {"alpha": 0.0}}, None, None)
    assert isinstance(chosen.env_kwargs["skill_decay"], float)
    chosen = check_client_kwargs(CATALOG, NO_CURRICULA, BENCH, {}, {"task_id": "digits-1"}, may_join=False)
    assert chosen == ClientKwargs({}, {"task_id": "digits-1"}, None)


def test_an_undeclared_key_is_refused_403_before_any_value_nested_ones_too():
    assert refusal(SIM, {"batch_size": 0, "data_dir": "/x"})[:2] == (403, "FORBIDDEN_KWARGS")
    status, code, message = refusal(SIM, {"batch_size": 0, "curriculum": {"alpha": 9, "gpu": 1}})
    assert (status, code) == (403, "FORBIDDEN_KWARGS") and message.startswith("env_kwargs.curriculum.gpu:")
    assert refusal(BENCH, {"anything": 1})[2].endswith("(a client may set: none)")


def test_a_declared_keys_bad_value_is_422_naming_its_bound():
    status, code, message = refusal(SIM, {"batch_size": 0})
    assert (status, code) == (422, "VALIDATION_ERROR") and "[1, 64]" in message


def test_kwargs_are_checked_before_options():
    assert refusal(SIM, {"data_dir": "/x"}, {"nope": 1})[2].startswith("env_kwargs.data_dir:")
    assert refusal(SIM, {}, {"nope": 1})[:2] == (403, "FORBIDDEN_KWARGS")
    assert refusal(BENCH, {}, {"task_id": 7})[:2] == (422, "VALIDATION_ERROR")


def test_the_curriculum_is_taken_first_or_refused_where_no_episode_is_played():
    unknown = refusal(SIM, {JOIN_KEY: "nope", "data_dir": "/x"})
    assert unknown[:2] == (404, "UNKNOWN_CURRICULUM")
    oneshot = refusal(SIM, {JOIN_KEY: "nope", "data_dir": "/x"}, may_join=False)
    assert oneshot[:2] == (422, "VALIDATION_ERROR") and "a one-shot reset plays no episode" in oneshot[2]


# -- the same door on every route -------------------------------------------------------------------------
CASES = [
    ({"data_dir": "/srv/data"}, None),
    ({"batch_size": 0, "domain_kwargs": {"cache": "x"}}, None),
    ({"batch_size": 0}, None),
    ({"simulator": "llm"}, {"nope": 1}),
    ({}, {"nope": 1}),
    ({}, {"task": "not a task"}),
]


@pytest.fixture(scope="module")
def client():
    # no lifespan: every refusal here comes before a session's process is needed
    return TestClient(create_app(ServeConfig(CATALOG)))


def answered(response) -> tuple:
    body = response.json()
    return response.status_code, body["code"], body["detail"]


@pytest.mark.parametrize(("kwargs", "options"), CASES)
def test_every_route_refuses_the_same_kwargs_alike(client, kwargs, options):
    expected = refusal(SIM, kwargs, options)
    reset = {"env_kwargs": kwargs, "options": options}
    assert answered(client.post(f"/envs/{SIM}/reset", json=reset)) == expected
    # a session's reset: checked before the session is looked up
    assert answered(client.post(f"/envs/{SIM}/reset", json={**reset, "session_id": "x"})) == expected
    if options is None:
        assert answered(client.post(f"/envs/{SIM}/sessions", json={"env_kwargs": kwargs})) == expected
    with client.websocket_connect(f"/envs/{SIM}/ws") as ws:
        ws.send_text(json.dumps({"type": "reset", "data": reset}))
        error = json.loads(ws.receive_text())
        assert error["type"] == "error" and (error["data"]["code"], error["data"]["message"]) == expected[1:]
        ws.send_text(json.dumps({"type": "state"}))  # the connection's session goes on
        assert json.loads(ws.receive_text())["data"]["episode_id"] is None


def test_joining_a_curriculum_is_refused_alike_where_an_episode_is_played_and_apart_where_none_is(client):
    kwargs = {JOIN_KEY: "nope"}
    unknown = refusal(SIM, kwargs)
    assert answered(client.post(f"/envs/{SIM}/sessions", json={"env_kwargs": kwargs})) == unknown
    with client.websocket_connect(f"/envs/{SIM}/ws") as ws:
        ws.send_text(json.dumps({"type": "reset", "data": {"env_kwargs": kwargs}}))
        assert json.loads(ws.receive_text())["data"]["code"] == unknown[1]
    oneshot = refusal(SIM, kwargs, may_join=False)
    assert answered(client.post(f"/envs/{SIM}/reset", json={"env_kwargs": kwargs})) == oneshot
