"""Every path `genenv eval` and `genenv export` will write is checked before any work: one line, exit 2."""

from __future__ import annotations

import pytest

from genenv_gym.cli.main import main


@pytest.fixture(autouse=True)
def _fresh_install(monkeypatch, tmp_path):
    monkeypatch.delenv("GENENV_DATA_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


EVAL = ["eval", "--env", "GenEnv-BFCL-v0", "--agent", "oracle", "--limit", "1", "--no-progress"]


@pytest.fixture
def a_file(tmp_path):
    path = tmp_path / "afile"
    path.write_text("", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("option", "where"),
    [
        ("--out", "/proc/nope/run"),
        ("--out", "{afile}/run"),
        ("--out", "{afile}"),
        ("--json", "/proc/nope.json"),
        ("--json", "{afile}/r.json"),
        ("--json", "{tmp}"),
        ("--csv", "/proc/nope/r.csv"),
    ],
)
def test_an_unwritable_eval_output_is_one_line_before_the_run(
    option, where, a_file, tmp_path, monkeypatch, capsys
):
    def no_run(*args, **kwargs):
        raise AssertionError("the run started")

    monkeypatch.setattr("genenv_gym.evaluation.evaluate", no_run)
    path = where.format(afile=a_file, tmp=tmp_path)
    assert main([*EVAL, option, path]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith(f"genenv eval: {option} {path}: "), err


def test_report_files_get_their_folders_and_no_probe_file_is_left(tmp_path, capsys):
    json_path, csv_path, out = tmp_path / "a" / "r.json", tmp_path / "b" / "r.csv", tmp_path / "run"
    assert main([*EVAL, "--json", str(json_path), "--csv", str(csv_path), "--out", str(out)]) == 0
    assert json_path.is_file() and csv_path.is_file()
    assert sorted(p.name for p in out.iterdir()) == [
        "episodes.jsonl",
        "report.csv",
        "report.json",
        "run.json",
    ]


def test_an_unwritable_export_path_is_one_line_before_any_row_is_built(monkeypatch, capsys):
    def no_export(*args, **kwargs):
        raise AssertionError("the export started")

    monkeypatch.setattr("genenv_gym.export.export", no_export)
    assert (
        main(["export", "--env", "GenEnv-BFCL-v0", "--format", "jsonl", "--out", "/proc/nope/x.jsonl"]) == 2
    )
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("genenv export: --out /proc/nope/x.jsonl: "), err
