"""``genenv data fetch`` against a loopback server standing in for the official hosts (no network)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from genenv_gym.cli.main import main
from genenv_gym.datasets import download as fetch_module
from genenv_gym.datasets.sources import SOURCES
from genenv_gym.registry.data_source import GitHubFiles, Source, Urls

FILES = {
    "/repos/org/bench/git/trees/abc123?recursive=1": json.dumps(
        {
            "tree": [
                {"path": "bench/data/a.jsonl", "type": "blob"},
                {"path": "bench/data/sub/b.json", "type": "blob"},
                {"path": "bench/data", "type": "tree"},
                {"path": "bench/other/c.txt", "type": "blob"},
                {"path": "bench/data/../../escape.txt", "type": "blob"},
            ]
        }
    ),
    "/org/bench/abc123/bench/data/a.jsonl": '{"q": 1}\n{"q": 2}\n',
    "/org/bench/abc123/bench/data/sub/b.json": "{}",
    "/files/test.jsonl": '{"id": "test_0"}\n',
}


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = FILES.get(self.path)
        self.send_response(200 if body is not None else 404)
        self.end_headers()
        if body is not None:
            self.wfile.write(body.encode())

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def server(monkeypatch):
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}"
    monkeypatch.setattr(fetch_module, "GITHUB_API", base)
    monkeypatch.setattr(fetch_module, "GITHUB_RAW", base)
    monkeypatch.setattr(fetch_module, "TIMEOUT_S", 5)
    yield base
    httpd.shutdown()


def test_github_files_at_a_commit_are_fetched_checked_and_listed(server, monkeypatch, tmp_path):
    source = Source(
        "bench",
        "a test benchmark",
        (GitHubFiles("org/bench", "abc123", ("bench/data/",), strip=("bench/",)),),
        "MIT",
        {"data/a.jsonl": 2},
        {"data/sub/*.json": 1},
    )
    monkeypatch.setitem(SOURCES, "bench", source)
    result = fetch_module.fetch("bench", tmp_path)
    assert sorted(result.files) == ["data/a.jsonl", "data/sub/b.json"] and result.complete
    assert not (tmp_path / "escape.txt").exists() and not (tmp_path / "bench" / "other").exists()
    manifest = (tmp_path / "bench" / "FETCHED.sha256").read_text().splitlines()
    assert [line.split()[1] for line in manifest] == ["data/a.jsonl", "data/sub/b.json"]


def test_a_wrong_record_count_is_reported_as_incomplete(server, monkeypatch, tmp_path, capsys):
    source = Source(
        "bench", "t", (Urls(((f"{server}/files/test.jsonl", "test.jsonl"),)),), "MIT", {"test.jsonl": 125}
    )
    monkeypatch.setitem(SOURCES, "bench", source)
    assert main(["data", "fetch", "bench", "--dir", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "test.jsonl has 1 records, the official release 125" in out


def test_a_refused_download_says_which_file_and_exits_one(server, monkeypatch, tmp_path, capsys):
    source = Source("bench", "t", (Urls(((f"{server}/files/missing.jsonl", "x.jsonl"),)),), "MIT")
    monkeypatch.setitem(SOURCES, "bench", source)
    assert main(["data", "fetch", "bench", "--dir", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "could not download" in err and "missing.jsonl" in err and "not fetched completely: bench" in err


def test_alfworld_without_the_engine_is_one_line_with_the_install_command(monkeypatch, capsys, tmp_path):
    from genenv_gym.envs.alfworld import engine

    def missing() -> None:
        raise ImportError(f"{engine.INSTALL_HINT} (No module named 'textworld')")

    monkeypatch.setattr(engine, "require_engine", missing)
    monkeypatch.setenv("GENENV_DATA_DIR", str(Path(__file__).parent))
    from genenv_gym.envs.alfworld.tiny import write_tiny_games

    root = write_tiny_games(tmp_path)
    code = main(
        [
            "eval",
            "--env",
            "GenEnv-ALFWorld-v0",
            "--no-progress",
            "--env-kwargs",
            json.dumps({"data_dir": str(root)}),
        ]
    )
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1 and 'pip install "genenv-gym[alfworld]"' in err
