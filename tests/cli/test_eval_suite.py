"""`genenv eval --suite`: every requested id has an overview row saying what it ran on, a closing line counts
what did not run on its data and names the commands that get it, and the exit status tells."""

from __future__ import annotations

import pytest

from genenv_gym.cli.main import main
from genenv_gym.evaluation.suite_overview import EXIT_NOT_ALL_ON_DATA, ON_DATA, ON_FIXTURES
from genenv_gym.registry.registration import ENV_ENTRIES, is_simulator_id

SUITE_ALL = [e.id for e in ENV_ENTRIES if not is_simulator_id(e.id)]


def _overview_rows(out: str) -> dict[str, str]:
    """env id -> its overview row (the last table of the output)."""
    table = out[out.rindex("\nenv ") :]
    return {line.split()[0]: line for line in table.strip().splitlines()[1:] if line.startswith("GenEnv-")}


@pytest.fixture
def fresh_install(monkeypatch, tmp_path):
    """No GENENV_DATA_DIR, an empty cache, and no ALFWorld games anywhere."""
    monkeypatch.delenv("GENENV_DATA_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("ALFWORLD_DATA", str(tmp_path / "no-alfworld"))
    return tmp_path


def _suite_all(capsys) -> tuple[int, dict[str, str], str]:
    status = main(["eval", "--suite", "all", "--agent", "oracle", "--limit", "1", "--no-progress"])
    captured = capsys.readouterr()
    return status, _overview_rows(captured.out), captured.err.strip().splitlines()[-1]


def test_suite_all_on_a_fresh_install_plays_the_fixtures_and_says_so(fresh_install, capsys):
    status, rows, last = _suite_all(capsys)
    assert status == EXIT_NOT_ALL_ON_DATA
    assert list(rows) == [
        *(i for i in SUITE_ALL if "ALFWorld" not in i),
        *(i for i in SUITE_ALL if "ALFWorld" in i),
    ]
    assert rows["GenEnv-BFCL-v0"].endswith(ON_FIXTURES) and rows["GenEnv-Bamboogle-v0"].endswith(ON_FIXTURES)
    assert rows["GenEnv-Digits-v0"].endswith(ON_DATA)
    assert "not run: no alfworld data" in rows["GenEnv-ALFWorld-v0"]
    fixtures = sum(row.endswith(ON_FIXTURES) for row in rows.values())
    not_run = sum("not run:" in row for row in rows.values())
    assert f"{fixtures} on the shipped fixtures (not the benchmark), {not_run} not run" in last
    for benchmark in ("bfcl", "apibank", "bamboogle", "travelplanner", "alfworld"):
        assert f"genenv data fetch {benchmark}" in last


@pytest.mark.shared_data("bamboogle")
def test_suite_all_with_one_benchmark_in_a_chosen_data_dir_reports_the_others_missing(
    fresh_install, shared_data_dir, monkeypatch, capsys
):
    (fresh_install / "data").mkdir()
    (fresh_install / "data" / "bamboogle").symlink_to(shared_data_dir / "bamboogle")
    monkeypatch.setenv("GENENV_DATA_DIR", str(fresh_install / "data"))
    status, rows, last = _suite_all(capsys)
    assert status == EXIT_NOT_ALL_ON_DATA and set(rows) == set(SUITE_ALL)
    assert rows["GenEnv-Bamboogle-v0"].endswith(ON_DATA)
    assert "not run: no bfcl data" in rows["GenEnv-BFCL-v0"]
    assert not any(row.endswith(ON_FIXTURES) for row in rows.values())  # a chosen data dir: no fallback
    assert f"genenv data fetch bfcl --dir {fresh_install / 'data'}" in last and "bamboogle" not in last


def test_a_suite_whose_ids_all_ran_on_their_data_exits_0_without_a_closing_line(monkeypatch, capsys):
    """Only the ids that need no data: simulated by a suite of the procedural ids given with --env."""
    monkeypatch.setattr(
        "genenv_gym.cli.main._suite_env_ids", lambda suite: (["GenEnv-Digits-v0", "GenEnv-Ladder-v0"], [])
    )
    assert main(["eval", "--suite", "all", "--agent", "oracle", "--limit", "1", "--no-progress"]) == 0
    captured = capsys.readouterr()
    assert _overview_rows(captured.out)["GenEnv-Ladder-v0"].endswith(ON_DATA)
    assert "requested ids ran" not in captured.err


def test_several_env_ids_on_the_fixtures_say_so_but_exit_0(fresh_install, capsys):
    """--env keeps README's first command green on a fresh install; the overview still says what ran."""
    args = ["eval", "--env", "GenEnv-BFCL-v0", "--env", "GenEnv-Digits-v0", "--limit", "1", "--no-progress"]
    assert main(args) == 0
    captured = capsys.readouterr()
    assert _overview_rows(captured.out)["GenEnv-BFCL-v0"].endswith(ON_FIXTURES)
    assert "1 of 2 requested ids ran on their data" in captured.err


def test_an_id_without_its_extra_is_not_run_with_the_install_line():
    from genenv_gym.evaluation.suite_overview import SuiteOutcomes
    from genenv_gym.registry.extras import MissingExtraError, install_line

    outcomes = SuiteOutcomes(["GenEnv-ALFWorld-v0"])
    error = MissingExtraError(
        f"the ALFWorld engine needs the 'alfworld' extra (missing: textworld): {install_line('alfworld')}"
    )
    outcomes.missed("GenEnv-ALFWorld-v0", error)
    assert outcomes.overview().endswith(
        "not run: the ALFWorld engine needs the 'alfworld' extra (missing: textworld)"
    )
    assert outcomes.closing_line().endswith(f"get what they lack with: {install_line('alfworld')}")
