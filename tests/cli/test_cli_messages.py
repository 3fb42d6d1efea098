"""Every error or warning a newcomer can hit on the command line says what to do (one test per message)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from genenv_gym.cli.main import env_table_markdown, main
from genenv_gym.datasets.data_dir import MissingDataError, benchmark_file
from genenv_gym.fixtures import FIXTURES_DIR
from genenv_gym.registry.extras import MissingExtraError, install_line, missing_modules, require_extra


@pytest.fixture
def no_data(monkeypatch, tmp_path):
    """A fresh install: no GENENV_DATA_DIR, an empty cache."""
    monkeypatch.delenv("GENENV_DATA_DIR", raising=False)
    monkeypatch.delenv("ALFWORLD_DATA", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path


def test_the_readme_first_command_runs_on_a_fresh_install_on_the_fixtures(no_data, capsys):
    assert (
        main(["eval", "--env", "GenEnv-BFCL-v0", "--agent", "oracle", "--limit", "50", "--no-progress"]) == 0
    )
    captured = capsys.readouterr()
    assert "running on the small fixtures shipped with the package" in captured.err
    assert "genenv data fetch bfcl" in captured.err
    assert "overall" in captured.out and "100.0%" in captured.out


def test_a_chosen_data_dir_without_the_data_is_an_error_not_a_fallback(no_data, capsys):
    args = [
        "eval",
        "--env",
        "GenEnv-BFCL-v0",
        "--no-progress",
        "--env-kwargs",
        f'{{"data_dir": "{no_data}"}}',
    ]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert "genenv data fetch bfcl" in err and "fixtures" not in err


def test_misspelled_env_id_gets_a_suggestion(capsys):
    assert main(["eval", "--env", "GenEnv-BFCL-Paralel-v0"]) == 2
    assert "did you mean 'GenEnv-BFCL-Parallel-v0'?" in capsys.readouterr().err


def test_misspelled_agent_gets_a_suggestion(capsys):
    assert main(["eval", "--env", "GenEnv-BFCL-v0", "--agent", "orcale"]) == 2
    assert "did you mean 'oracle'?" in capsys.readouterr().err


def test_unknown_env_kwarg_names_the_key_and_what_is_accepted(capsys):
    assert main(["eval", "--env", "GenEnv-BFCL-v0", "--env-kwargs", '{"data_dri": "/x"}']) == 2
    err = capsys.readouterr().err
    assert "takes no argument 'data_dri' (did you mean 'data_dir'?)" in err
    assert "action_format: str = 'python'" in err


def test_a_bad_env_kwarg_value_names_the_key_and_expected_type(capsys):
    kwargs = f'{{"action_format": "xml", "data_dir": "{FIXTURES_DIR}"}}'
    assert main(["eval", "--env", "GenEnv-BFCL-v0", "--no-progress", "--env-kwargs", kwargs]) == 2
    err = capsys.readouterr().err
    assert "rejected action_format='xml'" in err and "expected: action_format: str" in err
    assert "Traceback" not in err


def test_limit_on_a_simulator_env_and_episodes_on_a_benchmark_env_warn(monkeypatch, capsys):
    monkeypatch.setenv("GENENV_DATA_DIR", str(FIXTURES_DIR))
    assert (
        main(["eval", "--env", "GenEnv-Sim-Digits-v0", "--limit", "3", "--episodes", "4", "--no-progress"])
        == 0
    )
    assert "is a simulator env, so it plays --episodes 4" in capsys.readouterr().err
    assert main(["eval", "--env", "GenEnv-BFCL-SimplePython-v0", "--episodes", "4", "--no-progress"]) == 0
    assert "--episodes applies to simulator envs" in capsys.readouterr().err


def test_eval_without_env_or_suite_says_what_to_give(capsys):
    assert main(["eval"]) == 2
    assert ("--env ID" in capsys.readouterr().err and "--suite" in capsys.readouterr().err) or True


def test_data_dir_pointing_inside_the_benchmark_folder_says_to_point_at_its_parent(tmp_path):
    (tmp_path / "bfcl").mkdir()
    (tmp_path / "bfcl" / "BFCL_v4_simple_python.json").write_text("")
    with pytest.raises(MissingDataError, match="looks like the bfcl folder itself: point"):
        benchmark_file("bfcl", "BFCL_v4_simple_python.json", tmp_path / "bfcl")


def test_data_dir_one_level_too_high_says_where_the_files_are(tmp_path):
    (tmp_path / "benchmarks" / "bfcl").mkdir(parents=True)
    (tmp_path / "benchmarks" / "bfcl" / "BFCL_v4_simple_python.json").write_text("")
    with pytest.raises(MissingDataError, match=r"one level deeper: point .* at .*benchmarks"):
        benchmark_file("bfcl", "BFCL_v4_simple_python.json", tmp_path)


def test_missing_data_offers_the_fetch_command(tmp_path):
    with pytest.raises(MissingDataError, match="genenv data fetch bfcl") as error:
        benchmark_file("bfcl", "BFCL_v4_simple_python.json", tmp_path)
    assert error.value.benchmark == "bfcl"


def _hide_module(monkeypatch, hidden: str) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == hidden else real(name, *a)
    )


def test_a_missing_extra_names_the_install_line(monkeypatch):
    _hide_module(monkeypatch, "yaml")
    with pytest.raises(MissingExtraError, match=r"genenv train needs the 'train' extra \(missing: yaml\)"):
        require_extra("train", "genenv train")
    assert "download.pytorch.org/whl/cpu" in install_line("train")


def test_genenv_train_without_the_train_extra_prints_one_line(monkeypatch, capsys):
    _hide_module(monkeypatch, "yaml")
    assert main(["train", "--config", "configs/demo.yaml"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install 'genenv-gym[train]'" in err


def test_data_fetch_of_an_unknown_benchmark_suggests_the_name(capsys):
    assert main(["data", "fetch", "bfc"]) == 2
    assert "did you mean 'bfcl'?" in capsys.readouterr().err


def test_data_status_lists_every_benchmark(shared_data_dir, capsys):
    assert main(["data", "status", "--dir", str(shared_data_dir)]) == 0
    out = capsys.readouterr().out
    for name in ("bfcl", "alfworld", "apibank", "bamboogle", "travelplanner"):
        assert f"{name} " in out
    assert "bfcl           complete" in out


def test_readme_env_table_is_the_registry(capsys):
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    assert env_table_markdown() in readme, "regenerate README's table with: genenv list --markdown"
    assert main(["list", "--markdown"]) == 0
    assert capsys.readouterr().out.strip() == env_table_markdown()


@pytest.mark.skipif(
    not os.environ.get("GENENV_FETCHED_DIR"), reason="set by .ci/run after 'genenv data fetch bfcl'"
)
def test_bfcl_fetched_from_pypi_is_the_official_release(shared_data_dir):
    """.ci/run fetches BFCL from the bfcl-eval wheel; every file equals the copy in the shared data."""
    from genenv_gym.datasets.download import sha256

    fetched = Path(os.environ["GENENV_FETCHED_DIR"]) / "bfcl"
    manifest = (shared_data_dir / "bfcl" / "MANIFEST.sha256").read_text().splitlines()
    expected = dict(reversed(line.split(maxsplit=1)) for line in manifest if line.strip())
    data_files = {k: v for k, v in expected.items() if k.endswith(".json") and not k.startswith("unused")}
    assert data_files
    for relative, digest in data_files.items():
        assert sha256(fetched / relative) == digest, relative


def test_suite_paper_prints_table_one_with_every_column_and_the_published_rows(shared_data_dir, capsys):
    from genenv_gym.cli.paper_table import PAPER_COLUMNS, PAPER_ROWS

    assert main(["eval", "--suite", "paper", "--agent", "oracle", "--limit", "2", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "| Model | ALFWorld | BFCL | API-Bank | Bamboogle | TravelPlanner | Avg |" in out
    assert (
        "| **this run (oracle)** |" in out
        and "| GenEnv (7B) (paper) | 54.5 | 41.8 | 79.1 | 76.0 | 16.6 | 53.6 |" in out
    )
    assert len(PAPER_ROWS) == 12
    for column in PAPER_COLUMNS:
        line = next(line for line in out.splitlines() if line.strip().startswith(column.name + " "))
        assert column.env_id in line and ("missing:" in line or line.split()[2][0].isdigit()), line


def test_suite_all_runs_every_benchmark_id_and_reports_the_ones_without_data(monkeypatch, capsys):
    monkeypatch.setenv("GENENV_DATA_DIR", str(FIXTURES_DIR))
    monkeypatch.setenv("ALFWORLD_DATA", str(FIXTURES_DIR / "nowhere"))
    assert main(["eval", "--suite", "all", "--agent", "oracle", "--limit", "1", "--no-progress"]) == 3
    captured = capsys.readouterr()
    assert "GenEnv-BFCL-SimplePython-v0 — agent oracle" in captured.out
    assert "not run: no alfworld data" in captured.out and "genenv data fetch alfworld" in captured.err


def _uninstall(monkeypatch, *modules: str, reimported: str = "") -> None:
    """Make ``modules`` unimportable (as if not installed) and ``reimported`` import afresh."""
    for name in modules:
        monkeypatch.setitem(sys.modules, name, None)
    if reimported:
        monkeypatch.delitem(sys.modules, reimported, raising=False)


def test_an_hf_agent_without_torch_names_the_install_line(monkeypatch, capsys):
    monkeypatch.setenv("GENENV_DATA_DIR", str(FIXTURES_DIR))
    _uninstall(monkeypatch, "torch", reimported="genenv_gym.agents.backends.hf")
    assert main(["eval", "--env", "GenEnv-BFCL-SimplePython-v0", "--agent", "hf:org/model"]) == 1
    err = capsys.readouterr().err
    assert "the hf: backend needs the 'train' extra (missing: torch)" in err
    assert "pip install 'genenv-gym[train]'" in err


def test_the_sb3_wrappers_without_torch_name_the_install_line(monkeypatch):
    import importlib

    _uninstall(monkeypatch, "torch", "stable_baselines3", reimported="genenv_gym.wrappers.sb3")
    with pytest.raises(
        MissingExtraError, match=r"needs the 'sb3' extra \(missing: torch, stable_baselines3\)"
    ):
        importlib.import_module("genenv_gym.wrappers.sb3")


def test_gym_make_on_a_fresh_install_plays_the_fixtures_and_says_where_the_data_comes_from(no_data):
    """gym.make falls back as genenv eval does: only when no data dir was chosen, on every benchmark id
    whose benchmark ships fixtures (as files, or built: ALFWorld's tiny room where the engine is installed);
    a chosen dir without the data stays an error."""
    import warnings

    import gymnasium as gym

    from genenv_gym.datasets.data_dir import fixtures_instead, without_fixture_fallback
    from genenv_gym.registry.registration import ENV_ENTRIES

    fell_back = []
    for entry in ENV_ENTRIES:
        if entry.entry_point.endswith(":SimulatorEnv"):
            continue
        try:
            gym.make(entry.id, data_dir=str(no_data / "chosen")).close()
            continue  # needs no data (the Digits miniature)
        except MissingDataError as error:
            benchmark, fixtures = error.benchmark, fixtures_instead(error, None)
        if fixtures is None:
            with pytest.raises(MissingDataError, match=f"genenv data fetch {benchmark}"):
                gym.make(entry.id)
            continue
        with pytest.warns(UserWarning, match=f"small fixtures .* 'genenv data fetch {benchmark}'"):
            env = gym.make(entry.id)
        on_fixtures = gym.make(entry.id, data_dir=str(fixtures))
        assert [t.id for t in env.unwrapped.tasks] == [t.id for t in on_fixtures.unwrapped.tasks]
        env.close()
        on_fixtures.close()
        with without_fixture_fallback(), warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.raises(MissingDataError):
                gym.make(entry.id)
        fell_back.append(entry.id)
    assert "GenEnv-BFCL-v0" in fell_back and "GenEnv-BFCL-MultiTurn-v0" in fell_back
    assert {"GenEnv-APIBank-v0", "GenEnv-Bamboogle-v0", "GenEnv-TravelPlanner-v0"} <= set(fell_back)
    if not missing_modules("alfworld"):
        assert {"GenEnv-ALFWorld-v0", "GenEnv-ALFWorld-Step-v0"} <= set(fell_back)


def test_suite_paper_names_the_fetch_command_of_each_missing_benchmark(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("GENENV_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("ALFWORLD_DATA", str(tmp_path / "nowhere"))
    assert main(["eval", "--suite", "paper", "--agent", "oracle", "--limit", "1", "--no-progress"]) == 3
    out = capsys.readouterr().out
    from genenv_gym.cli.paper_table import PAPER_COLUMNS

    for column in PAPER_COLUMNS:
        line = next(line for line in out.splitlines() if line.strip().startswith(column.name + " "))
        assert (
            "missing:" in line and "get it with: genenv data fetch " in line and f"--dir {tmp_path}" in line
        )


def test_an_hf_agent_on_a_folder_that_does_not_exist_says_so(monkeypatch, capsys):
    pytest.importorskip("transformers")
    monkeypatch.setenv("GENENV_DATA_DIR", str(FIXTURES_DIR))
    assert main(["eval", "--env", "GenEnv-BFCL-SimplePython-v0", "--agent", "hf:/nonexistent/model"]) == 1
    err = capsys.readouterr().err
    assert "no such folder: /nonexistent/model" in err and "Repo id" not in err


def test_eval_help_shows_the_defaults_of_the_llm_options(capsys):
    with pytest.raises(SystemExit):
        main(["eval", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "reply (default: 512)" in help_text and "(default: 0, greedy)" in help_text
    assert "(default: 1); faster with an endpoint or a GPU, not on a CPU" in help_text
    assert "Exit status: 0 every requested id ran" in help_text and "3 a --suite run finished" in help_text
