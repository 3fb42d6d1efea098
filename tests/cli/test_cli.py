import json
import subprocess
import sys

import pytest

from genenv_gym.cli.main import main
from genenv_gym.fixtures import FIXTURES_DIR


def test_list_prints_every_id(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "GenEnv-BFCL-v0" in out and "GenEnv-Sim-BFCL-v0" in out and "GenEnv-BFCL-LiveRelevance-v0" in out


def test_eval_oracle_reports_per_category(monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("GENENV_DATA_DIR", str(FIXTURES_DIR))
    out_file = tmp_path / "report.json"
    assert (
        main(
            ["eval", "--env", "GenEnv-BFCL-v0", "--agent", "oracle", "--no-progress", "--json", str(out_file)]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "simple_python" in out and "100.0%" in out and "non_live_ast" in out
    report = json.loads(out_file.read_text())[0]
    assert report["overall"] == 1.0 and report["total"]["simple_python"] == 2


def test_eval_random_and_limit(monkeypatch, capsys):
    monkeypatch.setenv("GENENV_DATA_DIR", str(FIXTURES_DIR))
    assert (
        main(
            [
                "eval",
                "--env",
                "GenEnv-BFCL-SimplePython-v0",
                "--agent",
                "random",
                "--limit",
                "1",
                "--no-progress",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "simple_python" in out and "0.0%" in out


def test_eval_sim_env_runs_episodes(capsys):
    assert main(["eval", "--env", "GenEnv-Sim-BFCL-v0", "--episodes", "12", "--no-progress"]) == 0
    assert "100.0%" in capsys.readouterr().out


def test_eval_errors_are_actionable(monkeypatch, tmp_path, capsys):
    assert main(["eval", "--env", "GenEnv-Nope-v0"]) == 2
    assert "genenv list" in capsys.readouterr().err
    monkeypatch.setenv("GENENV_DATA_DIR", str(tmp_path))
    assert main(["eval", "--env", "GenEnv-BFCL-v0", "--no-progress"]) == 1
    assert "GENENV_DATA_DIR" in capsys.readouterr().err


def test_console_script_entry_point():
    done = subprocess.run(
        [sys.executable, "-m", "genenv_gym.cli", "list"], capture_output=True, text=True, check=True
    )
    assert "GenEnv-BFCL-v0" in done.stdout


@pytest.mark.parametrize("module", ["torch", "transformers", "tree_sitter"])
def test_import_is_light(module):
    code = f"import genenv_gym, sys; assert {module!r} not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)
