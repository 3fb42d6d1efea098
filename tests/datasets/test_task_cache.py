"""The on-disk task cache behind ``gym.make``: what it serves equals what is built, and it never serves a
stale or broken entry (conftest.py points it at a folder of the test run; each test here at its own)."""

from __future__ import annotations

import logging
import pickle
import shutil
from collections import OrderedDict
from pathlib import Path

import gymnasium as gym
import pytest

import genenv_gym
from genenv_gym.agents.scripted import OracleAgent, RandomAgent
from genenv_gym.datasets import task_cache
from genenv_gym.fixtures import FIXTURES_DIR
from genenv_gym.task import Task

genenv_gym.register_envs()

#: Each cached family: an id on the fixtures, and the function its build reads the data files through.
FAMILIES = {
    "GenEnv-BFCL-v0": "genenv_gym.envs.bfcl.domain.load_records",
    "GenEnv-BFCL-MultiTurn-v0": "genenv_gym.envs.bfcl_multiturn.data.load_entries",
    "GenEnv-BFCL-LongContext-Step-v0": "genenv_gym.envs.bfcl_multiturn.data.load_entries",
}


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache folder of this test, and no Tasks in this process's memory."""
    folder = tmp_path / "task_cache"
    monkeypatch.setenv(task_cache.DIR_ENV_VAR, str(folder))
    monkeypatch.delenv(task_cache.OFF_ENV_VAR, raising=False)
    monkeypatch.setattr(task_cache, "_memory", OrderedDict())
    return folder


def fresh_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """What a new process starts with: nothing in memory (the folder stays)."""
    monkeypatch.setattr(task_cache, "_memory", OrderedDict())


def no_build(monkeypatch: pytest.MonkeyPatch, target: str) -> None:
    """Make reading the data files fail: whatever is served now comes from the cache."""

    def fail(*args, **kwargs):
        raise AssertionError("built again instead of read from the cache")

    monkeypatch.setattr(target, fail)


def transcript(env: gym.Env, seeds: int = 2, steps: int = 6) -> list:
    """Every observation, reward, flag and info of seeded oracle and random episodes."""
    out = []
    for seed in range(seeds):
        for agent in (OracleAgent(env), RandomAgent(env, seed=seed)):
            obs, info = env.reset(seed=seed)
            out.append((obs, info))
            for _ in range(steps):
                obs, reward, terminated, truncated, info = env.step(agent.act(obs, info))
                out.append((obs, reward, terminated, truncated, info))
                if terminated or truncated:
                    break
    return out


def entries(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.pkl"))


@pytest.mark.parametrize("env_id", sorted(FAMILIES))
def test_an_env_from_the_cache_equals_one_built_from_the_files(env_id, cache_dir, monkeypatch):
    monkeypatch.setenv(task_cache.OFF_ENV_VAR, "1")
    built = gym.make(env_id, data_dir=str(FIXTURES_DIR))
    assert not cache_dir.exists()
    monkeypatch.delenv(task_cache.OFF_ENV_VAR)
    fresh_process(monkeypatch)
    written = gym.make(env_id, data_dir=str(FIXTURES_DIR))  # built, and the entries written
    assert entries(cache_dir)
    fresh_process(monkeypatch)
    no_build(monkeypatch, FAMILIES[env_id])
    read = gym.make(env_id, data_dir=str(FIXTURES_DIR))
    assert read.unwrapped.tasks == written.unwrapped.tasks == built.unwrapped.tasks
    assert transcript(read) == transcript(built)


def test_real_records_round_trip(shared_data_dir, cache_dir, monkeypatch):
    from genenv_gym.envs.bfcl.domain import BFCLDomain
    from genenv_gym.envs.bfcl_multiturn.domain import BFCLMultiTurnDomain

    for domain, category, target in (
        (BFCLDomain("json"), "simple_javascript", FAMILIES["GenEnv-BFCL-v0"]),
        (BFCLMultiTurnDomain(), "multi_turn_base", FAMILIES["GenEnv-BFCL-MultiTurn-v0"]),
    ):
        built = domain.load_tasks([category], str(shared_data_dir))
        fresh_process(monkeypatch)
        with monkeypatch.context() as patch:
            no_build(patch, target)
            read = domain.load_tasks([category], str(shared_data_dir))
        assert read == built and len(read) in (50, 200)
        assert [domain.oracle_action(t) for t in read[:5]] == [domain.oracle_action(t) for t in built[:5]]


def copy_bfcl_fixture(root: Path) -> Path:
    """A data root holding a copy of the fixtures' BFCL folder; the simple_python question file's path."""
    shutil.copytree(FIXTURES_DIR / "bfcl", root / "bfcl")
    return root / "bfcl" / "BFCL_v4_simple_python.json"


def test_a_changed_data_file_is_read_again(cache_dir, tmp_path, monkeypatch):
    from genenv_gym.envs.bfcl.domain import BFCLDomain

    questions = copy_bfcl_fixture(tmp_path / "data")
    before = BFCLDomain().load_tasks(["simple_python"], str(tmp_path / "data"))
    lines = questions.read_text(encoding="utf-8").splitlines(keepends=True)
    assert len(lines) > 1
    questions.write_text("".join(lines[:-1]), encoding="utf-8")  # one record fewer: a new size and time
    fresh_process(monkeypatch)
    after = BFCLDomain().load_tasks(["simple_python"], str(tmp_path / "data"))
    assert [t.id for t in after] == [t.id for t in before[:-1]]
    assert len(entries(cache_dir)) == 1  # the stale entry was replaced, not kept beside the new one
    fresh_process(monkeypatch)
    no_build(monkeypatch, FAMILIES["GenEnv-BFCL-v0"])
    assert BFCLDomain().load_tasks(["simple_python"], str(tmp_path / "data")) == after


def count_builds(name: str = "tasks") -> tuple[list[int], callable]:
    calls: list[int] = []

    def build() -> list[Task]:
        calls.append(1)
        return [Task(id=f"{name}-{len(calls)}", domain="toy", messages=[{"role": "user", "content": "hi"}])]

    return calls, build


def test_another_code_version_builds_again(cache_dir, tmp_path, monkeypatch):
    data = tmp_path / "data.txt"
    data.write_text("x")
    calls, build = count_builds()
    first = task_cache.cached_tasks("toy", [data], build)
    fresh_process(monkeypatch)
    assert task_cache.cached_tasks("toy", [data], build) == first and len(calls) == 1
    fresh_process(monkeypatch)
    monkeypatch.setattr(task_cache, "code_version", lambda: "another version")
    assert task_cache.cached_tasks("toy", [data], build)[0].id == "tasks-2"
    assert len(entries(cache_dir)) == 1


@pytest.mark.parametrize(
    "damage",
    [
        lambda path: path.write_bytes(path.read_bytes()[:100]),  # cut short by a full disk
        lambda path: path.write_bytes(b"not a pickle at all"),
        lambda path: path.write_bytes(b""),
        lambda path: path.write_bytes(pickle.dumps(("another key", (Task(id="x", domain="toy"),)))),
        lambda path: path.write_bytes(pickle.dumps((path.stem, ("not a task",)))),
        lambda path: path.write_bytes(pickle.dumps(["no", "pair"])),
    ],
    ids=["truncated", "garbage", "empty", "another-key", "not-tasks", "not-a-pair"],
)
def test_a_broken_entry_is_built_again_and_rewritten(damage, cache_dir, tmp_path, monkeypatch, caplog):
    data = tmp_path / "data.txt"
    data.write_text("x")
    calls, build = count_builds()
    first = task_cache.cached_tasks("toy", [data], build)
    (entry,) = entries(cache_dir)
    damage(entry)
    fresh_process(monkeypatch)
    with caplog.at_level(logging.DEBUG, logger=task_cache.__name__):
        assert task_cache.cached_tasks("toy", [data], build)[0].id == "tasks-2"
    assert "unreadable" in caplog.text and len(calls) == 2
    fresh_process(monkeypatch)
    assert task_cache.cached_tasks("toy", [data], build)[0].id == "tasks-2" and len(calls) == 2
    assert first[0].id == "tasks-1"


def test_an_unwritable_cache_folder_only_costs_a_build(tmp_path, monkeypatch, caplog):
    blocker = tmp_path / "a file, not a folder"
    blocker.write_text("")
    monkeypatch.setenv(task_cache.DIR_ENV_VAR, str(blocker / "tasks"))
    monkeypatch.setattr(task_cache, "_memory", OrderedDict())
    _, build = count_builds()
    with caplog.at_level(logging.DEBUG, logger=task_cache.__name__):
        assert task_cache.cached_tasks("toy", [blocker], build)[0].id == "tasks-1"
    assert "could not write" in caplog.text


def test_turned_off_nothing_is_read_or_written(cache_dir, tmp_path, monkeypatch):
    data = tmp_path / "data.txt"
    data.write_text("x")
    _, build = count_builds()
    task_cache.cached_tasks("toy", [data], build)
    (entry,) = entries(cache_dir)
    before = entry.read_bytes()
    monkeypatch.setenv(task_cache.OFF_ENV_VAR, "1")
    assert task_cache.task_cache_dir() is None
    fresh_process(monkeypatch)
    assert task_cache.cached_tasks("toy", [data], build)[0].id == "tasks-2"  # built, not read
    assert entries(cache_dir) == [entry] and entry.read_bytes() == before  # and not written


def test_the_default_folder_is_in_the_users_cache(monkeypatch, tmp_path):
    monkeypatch.delenv(task_cache.DIR_ENV_VAR)
    monkeypatch.delenv(task_cache.OFF_ENV_VAR, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert task_cache.task_cache_dir() == tmp_path / "genenv_gym" / "tasks"


def test_a_pickled_task_equals_the_original_and_hashes_afresh():
    task = Task(id="t", domain="toy", evaluation={"answer": [1, {"a": "b"}]}, messages=[{"role": "user"}])
    hash(task.evaluation)  # computed, and kept on the object
    copy = pickle.loads(pickle.dumps(task))
    assert copy == task and copy.evaluation._hash is None and hash(copy.evaluation) == hash(task.evaluation)


def test_shared_parts_keep_every_value_and_type_apart():
    nan = float("nan")
    tasks = [
        Task(id="a", domain="toy", evaluation={"x": [1, 1.0, True, 0.0, -0.0, "1", None], "n": nan}),
        Task(id="b", domain="toy", evaluation={"x": [1, 1.0, True, 0.0, -0.0, "1", None], "n": 1}),
    ]
    a, b = task_cache.share_equal_parts(tasks)
    assert (a.id, b.id) == ("a", "b") and b == tasks[1]
    assert a.evaluation["x"] is b.evaluation["x"]  # equal content: one object
    values = a.evaluation["x"]
    assert [type(v) for v in values] == [int, float, bool, float, float, str, type(None)]
    assert str(values[4]) == "-0.0" and a.evaluation["n"] is nan
