"""What travels: info and options as JSON (serve/wire.py), spaces, client JSON checked, messages without
server paths, the CLI."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from genenv_gym.cli.main import main
from genenv_gym.serve.catalog import registered_env_ids, space_from_json, space_to_json
from genenv_gym.serve.client_kwargs import merge_kwargs
from genenv_gym.serve.errors import InvalidText, ServeError, redact_paths
from genenv_gym.serve.wire import (
    NOT_JSON_KEY,
    NotJSON,
    info_to_json,
    json_text,
    options_from_json,
    to_json_value,
)
from genenv_gym.spaces import UnicodeText
from genenv_gym.task import Task, freeze


def make_task() -> Task:
    return Task.from_dict(
        {
            "id": "t1",
            "domain": "digits",
            "messages": [{"role": "user", "content": "reverse 12"}],
            "evaluation": {"answer": "21"},
        }
    )


def test_info_to_json_follows_the_documented_table():
    task = make_task()
    info = {
        "text": "é",
        "n": np.int64(3),
        "x": np.float32(0.5),
        "flag": np.bool_(True),
        "mask": np.array([[1, 0], [0, 1]], dtype=np.int8),
        "nan": float("nan"),
        "inf": -math.inf,
        "pair": (1, "a"),
        "frozen": freeze({"a": [1, {"b": 2}]}),
        "tags": {"b", "a"},
        "keys": {1: "one"},
        "task": task,
        "callback": print,
        "nested": {"ok": 1, "obj": object()},
    }
    converted = info_to_json(info)
    assert json.loads(json.dumps(converted, allow_nan=False)) == converted
    assert converted["n"] == 3 and type(converted["n"]) is int
    assert converted["x"] == 0.5 and converted["flag"] is True
    assert converted["mask"] == [[1, 0], [0, 1]]
    assert (converted["nan"], converted["inf"]) == ("nan", "-inf")
    assert converted["pair"] == [1, "a"] and converted["frozen"] == {"a": [1, {"b": 2}]}
    assert converted["tags"] == ["a", "b"] and converted["keys"] == {"1": "one"}
    assert converted["task"] == task.to_dict()
    assert "callback" not in converted and converted["nested"] == {"ok": 1}
    assert converted[NOT_JSON_KEY] == ["callback", "nested.obj"]
    assert NOT_JSON_KEY not in info_to_json({"a": 1})


def test_options_travel_and_come_back_with_their_task():
    task = make_task()
    sent = json.loads(json.dumps(to_json_value({"task": task, "task_id": "t1"})))
    assert options_from_json(sent) == {"task": task, "task_id": "t1"}
    assert options_from_json(None) is None
    with pytest.raises(NotJSON, match="fn"):
        to_json_value({"fn": print})


def test_spaces_round_trip():
    space = UnicodeText(100, min_length=2)
    back = space_from_json(json.loads(json.dumps(space_to_json(space))))
    assert isinstance(back, UnicodeText) and (back.min_length, back.max_length) == (2, 100)
    assert back.contains("ünïcode")


def test_the_clients_kwargs_go_over_the_operators_one_level_deep():
    merged = merge_kwargs(
        {"domain_kwargs": {"data_dir": "/d", "scoring": "a"}}, {"domain_kwargs": {"scoring": "b"}}
    )
    assert merged == {"domain_kwargs": {"data_dir": "/d", "scoring": "b"}}


def test_served_ids_are_the_registry_less_the_client(capsys):
    import genenv_gym

    ids = registered_env_ids()
    assert ids == [e.id for e in genenv_gym.ENV_ENTRIES]
    assert main(["list"]) == 0
    assert "GenEnv-Remote-v0" in capsys.readouterr().out


def test_serve_cli_refuses_bad_arguments(capsys, monkeypatch):
    pytest.importorskip("fastapi")
    assert main(["serve", "--env", "GenEnv-BFCL-MultiTurn-v"]) == 2
    assert "did you mean" in capsys.readouterr().err
    monkeypatch.delenv("GENENV_TEST_TOKEN", raising=False)
    assert main(["serve", "--token-env", "GENENV_TEST_TOKEN"]) == 2
    assert "GENENV_TEST_TOKEN" in capsys.readouterr().err
    assert main(["serve", "--env-kwargs", "[1]"]) == 2


def test_genenv_serve_runs_binds_localhost_and_stops_on_sigterm(tmp_path):
    pytest.importorskip("fastapi")
    import signal
    import socket
    import subprocess
    import sys
    import time
    import urllib.request

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [
        sys.executable,
        "-m",
        "genenv_gym.cli",
        "serve",
        "--port",
        str(port),
        "--env",
        "GenEnv-Digits-v0",
        "--workers",
        "2",
    ]
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    try:
        deadline, health = time.monotonic() + 60, None
        while health is None and time.monotonic() < deadline and process.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as answer:
                    health = json.loads(answer.read())
            except OSError:
                time.sleep(0.1)
        assert health == {
            "status": "healthy",
            "active_sessions": 0,
            "max_sessions": 128,
            "max_sessions_per_client": 64,
            "workers": 2,
            "env_ids": 1,
        }
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/envs", timeout=5) as answer:
            assert json.loads(answer.read()) == {"env_ids": ["GenEnv-Digits-v0"]}
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/envs/GenEnv-Digits-v0/spec", timeout=30):
            pass  # a session's process came and went
        children = _children(process.pid)
        assert len(children) == 1  # the zygote
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=30)
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in children) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(pid) for pid in children), "the zygote outlived the server"
    # uvicorn shuts down gracefully, then re-raises the signal it caught
    assert process.returncode in (0, -signal.SIGTERM), err
    assert "Application shutdown complete" in err
    assert f"http://127.0.0.1:{port}/envs/<env id>" in err


def _children(pid: int) -> list[int]:
    from pathlib import Path

    return [int(c) for t in Path(f"/proc/{pid}/task").iterdir() for c in (t / "children").read_text().split()]


def _alive(pid: int) -> bool:
    from pathlib import Path

    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def test_the_serving_doc_says_which_transports_each_id_is_tested_on():
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "serving.md").read_text()
    rows = [line for line in doc.splitlines() if line.startswith("| `GenEnv-") and "| reference |" in line]
    assert [row.split("`")[1] for row in rows] == registered_env_ids()


@settings(max_examples=60, deadline=None)
@given(st.recursive(st.text() | st.integers() | st.booleans(), lambda inner: st.lists(inner, max_size=3)))
def test_json_text_carries_any_string_through_utf8(value):
    """Strings with lone surrogates (an env may echo them) still travel: escaped, the same once decoded."""
    text = json_text({"observation": value})
    assert json.loads(text.encode("utf-8")) == {"observation": value}


@settings(max_examples=60, deadline=None)
@given(
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=30),
    st.lists(st.text(alphabet="abcXYZ019_.-", min_size=1, max_size=8), min_size=2, max_size=5),
)
def test_messages_lose_every_absolute_path(prefix, parts):
    path = "/" + "/".join(parts)
    redacted = redact_paths(f"{prefix} cannot open {path}: no such file")
    assert path not in redacted and "<server path>" in redacted


def test_client_json_is_checked_for_depth_and_text():
    pytest.importorskip("pydantic")
    from genenv_gym.serve.contract import check_json

    check_json({"a": [{"b": "ünï"}]}, "x")
    deep: dict = {}
    node = deep
    for _ in range(40):
        node["k"] = {}
        node = node["k"]
    with pytest.raises(ServeError, match="nests deeper"):
        check_json(deep, "x")
    with pytest.raises(InvalidText, match="lone surrogate"):
        check_json({"a": ["ok", "bad \udc80"]}, "x")
    with pytest.raises(InvalidText):
        check_json({"key \ud800": 1}, "x")
