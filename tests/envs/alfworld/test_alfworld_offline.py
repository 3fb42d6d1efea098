"""ALFWorld on a fresh install: with the engine and no games, its ids play the six-game tiny room as the other
benchmarks play their shipped fixtures, with the same one-line notice; a chosen place without games stays an
error."""

from __future__ import annotations

import gymnasium as gym
import pytest

from genenv_gym.cli.main import main
from genenv_gym.datasets.data_dir import MissingDataError
from genenv_gym.envs.alfworld.tiny import GAMES


@pytest.fixture
def fresh_install(alfworld_engine, monkeypatch, tmp_path):
    monkeypatch.delenv("GENENV_DATA_DIR", raising=False)
    monkeypatch.delenv("ALFWORLD_DATA", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path


def test_gym_make_plays_the_tiny_room_with_the_fixture_notice(fresh_install):
    with pytest.warns(
        UserWarning,
        match="no alfworld data installed: running on the small fixtures .* 'genenv data fetch alfworld'",
    ):
        env = gym.make("GenEnv-ALFWorld-v0")
    assert sorted(t.category for t in env.unwrapped.tasks) == sorted(GAMES)
    env.close()


def test_genenv_eval_says_it_plays_the_fixtures(fresh_install, capsys):
    args = ["eval", "--env", "GenEnv-ALFWorld-Pick-v0", "--agent", "oracle", "--no-progress"]
    assert main(args) == 0
    captured = capsys.readouterr()
    notice = [line for line in captured.err.splitlines() if "no alfworld data installed" in line]
    assert len(notice) == 1 and "not the benchmark" in notice[0] and "genenv data fetch alfworld" in notice[0]
    assert "overall                          1       1    100.0%" in captured.out


def test_a_chosen_folder_without_games_is_an_error_not_the_tiny_room(fresh_install, monkeypatch):
    monkeypatch.setenv("ALFWORLD_DATA", str(fresh_install / "my-alfworld"))
    with pytest.raises(MissingDataError, match="genenv data fetch alfworld"):
        gym.make("GenEnv-ALFWorld-v0")
    monkeypatch.delenv("ALFWORLD_DATA")
    with pytest.raises(MissingDataError):
        gym.make("GenEnv-ALFWorld-v0", data_dir=str(fresh_install / "chosen"))


def test_games_fetched_into_the_default_data_dir_are_found_after_import_alfworld(
    fresh_install, monkeypatch, capsys
):
    """``import alfworld`` sets $ALFWORLD_DATA to its own default: the default data dir is searched anyway,
    so `genenv data fetch alfworld` then `genenv eval` plays the fetched games, not the tiny room."""
    from genenv_gym.envs.alfworld.data import discover_games
    from genenv_gym.envs.alfworld.tiny import write_tiny_games

    write_tiny_games(fresh_install / "cache" / "genenv_gym" / "data")
    monkeypatch.setenv("ALFWORLD_DATA", str(fresh_install / "alfworld-own-default"))
    assert len(discover_games()) == len(GAMES)
    args = ["eval", "--env", "GenEnv-ALFWorld-Pick-v0", "--env", "GenEnv-ALFWorld-Cool-v0", "--no-progress"]
    assert main(args) == 0
    captured = capsys.readouterr()
    assert "fixtures" not in captured.err and captured.out.count("  its data") == 2
