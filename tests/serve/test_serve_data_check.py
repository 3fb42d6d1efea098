"""``genenv serve`` checks at start-up which served ids can play with the data it has: it serves those, says
why the others cannot (with the command that fetches their data), and refuses to start when none can."""

from __future__ import annotations

import pytest

import genenv_gym.serve.server
from genenv_gym.cli.main import main
from genenv_gym.serve.catalog import Catalog
from genenv_gym.serve.data_check import check_served_ids, ids_to_check

IDS = [
    "GenEnv-BFCL-SimplePython-v0",
    "GenEnv-BFCL-MultiTurnBase-v0",  # reads BFCL's data from another package
    "GenEnv-Sim-ALFWorld-v0",  # makes without its games, fails at its first reset
    "GenEnv-Sim-BFCL-v0",
    "GenEnv-Digits-v0",
]


def test_ids_without_their_data_are_named_with_the_fetch_command(monkeypatch, tmp_path):
    missing = tmp_path / "no-such-dir"
    monkeypatch.setenv("GENENV_DATA_DIR", str(missing))
    check = check_served_ids(Catalog(IDS))
    assert check.servable == ["GenEnv-Sim-BFCL-v0", "GenEnv-Digits-v0"] and check.on_fixtures == []
    by_reason = {tuple(ids): reason for reason, ids in check.refused.items()}
    bfcl = by_reason[("GenEnv-BFCL-SimplePython-v0", "GenEnv-BFCL-MultiTurnBase-v0")]
    assert f"no bfcl data in {missing}" in bfcl and f"genenv data fetch bfcl --dir {missing}" in bfcl
    assert "genenv data fetch alfworld" in by_reason[("GenEnv-Sim-ALFWorld-v0",)]
    lines = check.lines()
    assert len(lines) == 2 and all(line.startswith("not serving ") for line in lines)


def test_a_fresh_install_serves_the_fixtures_and_says_so(monkeypatch, tmp_path):
    monkeypatch.delenv("GENENV_DATA_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    check = check_served_ids(Catalog(["GenEnv-BFCL-SimplePython-v0", "GenEnv-Digits-v0"]))
    assert check.servable == ["GenEnv-BFCL-SimplePython-v0", "GenEnv-Digits-v0"] and not check.refused
    assert check.on_fixtures == ["GenEnv-BFCL-SimplePython-v0"]
    assert "on the small fixtures shipped with the package" in check.lines()[0]


@pytest.fixture
def started(monkeypatch):
    """``genenv serve`` up to the point where it would start uvicorn: the served ids it would start with."""
    pytest.importorskip("fastapi")
    pytest.importorskip("uvicorn")
    served: list[list[str]] = []

    class Server:
        started = True  # as uvicorn's, which genenv serve reads after run() to say whether it started

        def run(self) -> None:
            return None

    def uvicorn_server(config, *args, **kwargs):
        served.append(list(config.catalog.env_ids))
        return Server()

    monkeypatch.setattr(genenv_gym.serve.server, "uvicorn_server", uvicorn_server)
    return served


def test_serve_starts_with_the_ids_that_can_play_and_refuses_when_none_can(
    started, tmp_path, capsys, monkeypatch
):
    monkeypatch.setenv("GENENV_DATA_DIR", "")  # --data-dir sets it for the process: undone after the test
    envs = [f"--env={env_id}" for env_id in IDS]
    assert main(["serve", "--data-dir", str(tmp_path), *envs]) == 0
    assert started == [["GenEnv-Sim-BFCL-v0", "GenEnv-Digits-v0"]]
    err = capsys.readouterr().err
    assert "does not hold every benchmark complete" in err and "not serving 2 ids" in err
    assert "2 env ids on http://127.0.0.1:8000" in err

    assert main(["serve", "--data-dir", str(tmp_path), "--env", "GenEnv-BFCL-SimplePython-v0"]) == 1
    assert len(started) == 1
    err = capsys.readouterr().err
    assert f"none of the 1 env ids can be served with the data dir {tmp_path}; not starting" in err
    assert f"genenv data fetch bfcl --dir {tmp_path}" in err


@pytest.mark.shared_data
def test_a_complete_data_dir_is_trusted_without_playing_anything(shared_data_dir, monkeypatch):
    from genenv_gym.registry.extras import missing_modules
    from genenv_gym.registry.manifest import all_manifests

    monkeypatch.setenv("GENENV_DATA_DIR", str(shared_data_dir))
    lacking = [m for m in all_manifests() if m.extra and missing_modules(m.extra.name)]
    assert ids_to_check(Catalog()) == [e.id for m in lacking for e in m.entries]
