"""Shared test setup: one torch thread, the real-data directory, a task cache of the run's own."""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import nullcontext
from pathlib import Path

import pytest

from genenv_gym.datasets.data_dir import data_root, fetch_command
from genenv_gym.registry.manifest import all_manifests, benchmark_names

try:  # torch is optional; when present it must not oversubscribe the two CI cores
    import torch

    torch.set_num_threads(1)
except ImportError:
    pass


def pytest_configure(config: pytest.Config) -> None:
    """The on-disk task cache (``genenv_gym.datasets.task_cache``) in a folder of this run, never the user's
    own: set before collection, since some modules build envs when they are imported, and inherited by
    subprocesses.
    ``GENENV_DATA_DIR`` leaves the environment for the same reason: see ``_data_dir_where_needed``."""
    os.environ["GENENV_TASK_CACHE_DIR"] = tempfile.mkdtemp(prefix="genenv-test-task-cache-")
    os.environ.pop("GENENV_DATA_DIR", None)


def pytest_unconfigure(config: pytest.Config) -> None:
    folder = os.environ.pop("GENENV_TASK_CACHE_DIR", None)
    if folder:
        shutil.rmtree(folder, ignore_errors=True)


#: The real benchmark data: ``GENENV_DATA_DIR`` as the run was started with it (read before
#: ``pytest_configure`` takes the variable out of the environment), else where ``genenv data fetch`` puts it
#: (the package's own rule: ``~/.cache/genenv_gym/data``).
SHARED_DATA = data_root()
TESTS_DIR = Path(__file__).resolve().parent


def needed_benchmarks(item: pytest.Item) -> list[str]:
    """The benchmarks whose data a test reads: those its ``shared_data`` marker names, else its parametrized
    ``real_env_id``'s, else its folder's (``tests/envs/<package>/``), else every benchmark."""
    marker = item.get_closest_marker("shared_data")
    if marker and marker.args:
        return list(marker.args)
    callspec = getattr(item, "callspec", None)
    env_id = callspec.params.get("real_env_id") if callspec else None
    parts = Path(item.path).resolve().relative_to(TESTS_DIR).parts
    package = parts[1] if len(parts) > 2 and parts[0] == "envs" else None
    for manifest in all_manifests():
        ids = {entry.id for entry in manifest.entries}
        if (env_id in ids or manifest.package == package) and manifest.source is not None:
            return [manifest.source.name]
    return benchmark_names()


def missing_data_reason(benchmarks: list[str]) -> str:
    """Why a test cannot run here ("" when every benchmark it reads is in ``SHARED_DATA``)."""
    missing = [b for b in benchmarks if not (SHARED_DATA / b).is_dir()]
    if not missing:
        return ""
    names = ["all"] if missing == benchmark_names() else missing
    fetch = "; ".join(f"'{fetch_command(name, SHARED_DATA)}'" for name in names)
    return f"no {', '.join(missing)} data in {SHARED_DATA}: get it with {fetch} (or set GENENV_DATA_DIR)"


def _needs_data(item: pytest.Item) -> bool:
    marked = item.get_closest_marker("shared_data") is not None
    return marked or "shared_data_dir" in getattr(item, "fixturenames", ())


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """A test that reads benchmark data runs only where each benchmark it reads is present: missing data
    fails under CI (CI=true) and skips elsewhere, naming the fetch command."""
    if not _needs_data(item):
        return
    reason = missing_data_reason(needed_benchmarks(item))
    if reason and os.environ.get("CI"):
        pytest.fail(reason)
    if reason:
        pytest.skip(reason)


#: The test files with ``slow`` tests, seen at collection before ``-m 'not slow'`` deselects them (README's
#: slow table is checked against them: tests/house/test_slow_table.py).
SLOW_FILES = pytest.StashKey[set[str]]()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    root = Path(__file__).resolve().parents[1]
    config.stash[SLOW_FILES] = {
        Path(item.path).resolve().relative_to(root).as_posix()
        for item in items
        if item.get_closest_marker("slow")
    }


#: A test running longer than this says so on the terminal, and again every as many seconds.
HEARTBEAT_S = 60.0


@pytest.hookimpl(hookwrapper=True, trylast=True)
def pytest_runtest_call(item: pytest.Item):
    """No test is silent for minutes: every ``HEARTBEAT_S`` seconds a line names the test still running."""
    reporter = item.config.pluginmanager.get_plugin("terminalreporter")
    capture = item.config.pluginmanager.get_plugin("capturemanager")
    if reporter is None:
        yield
        return
    done, start = threading.Event(), time.monotonic()

    def beat() -> None:
        while not done.wait(HEARTBEAT_S):
            with capture.global_and_fixture_disabled() if capture else nullcontext():
                reporter.write_line(f"    {item.nodeid} still running ({time.monotonic() - start:.0f} s)")

    thread = threading.Thread(target=beat, name="test-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


@pytest.fixture(scope="session", autouse=True)
def _sb3_logs_in_a_test_folder(tmp_path_factory: pytest.TempPathFactory) -> None:
    """SB3's ``learn`` makes an empty ``SB3-<time>`` folder in the system temp dir per call, unless
    ``SB3_LOGDIR`` names one: the suite's go to pytest's temp folder instead of accumulating in /tmp."""
    os.environ.setdefault("SB3_LOGDIR", str(tmp_path_factory.mktemp("sb3_logs")))


@pytest.fixture(autouse=True)
def _data_dir_where_needed(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only a test that asks for the real data (marked ``shared_data``, or using ``shared_data_dir``) sees
    ``GENENV_DATA_DIR``; every other test runs as on a fresh clone without data, in CI as on a laptop, so a
    test that silently needs the data fails everywhere instead of only where the data is missing."""
    if _needs_data(request.node):  # the benchmarks it reads are there: pytest_runtest_setup checked
        monkeypatch.setenv("GENENV_DATA_DIR", str(SHARED_DATA))


@pytest.fixture(scope="session")
def shared_data_dir() -> Path:
    """The real benchmark data (each test's own benchmarks are checked by ``pytest_runtest_setup``)."""
    return SHARED_DATA


@pytest.fixture(scope="session")
def alfworld_engine() -> None:
    """The compiled ALFWorld engine: missing, it fails under CI (CI=true) and skips elsewhere."""
    try:
        import alfworld  # noqa: F401
        import textworld  # noqa: F401
    except ImportError as error:
        message = f'the ALFWorld engine is not installed (pip install ".[alfworld]"): {error}'
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


@pytest.fixture(scope="session")
def alfworld_tiny_root(alfworld_engine, tmp_path_factory) -> str:
    """A data root holding the six tiny hand-written ALFWorld games."""
    from genenv_gym.envs.alfworld.tiny import write_tiny_games

    return str(write_tiny_games(tmp_path_factory.mktemp("alfworld_tiny")))


@pytest.fixture(scope="session")
def alfworld_data_dir(alfworld_engine, shared_data_dir: Path) -> str:
    """The real ALFWorld games (the shared benchmark data), with the engine installed."""
    return str(shared_data_dir)


class OfflineEnvs:
    """``gym.make`` for any registered id on offline data: the shipped fixtures, or the tiny ALFWorld room."""

    def __init__(self, request: pytest.FixtureRequest) -> None:
        self.request = request

    def data_dir(self, env_id: str) -> str:
        if "ALFWorld" in env_id:
            return self.request.getfixturevalue("alfworld_tiny_root")
        from genenv_gym.fixtures import FIXTURES_DIR

        return str(FIXTURES_DIR)

    def kwargs(self, env_id: str, **kwargs) -> dict:
        """The ``gymnasium.make`` kwargs that put ``env_id`` on offline data (``kwargs`` given win)."""
        if "ALFWorld" in env_id and "-Sim-" in env_id:
            domain_kwargs = {"data_dir": self.data_dir(env_id), "scene_split": "valid_unseen"}
            return {"batch_size": 1, "domain_kwargs": {**domain_kwargs, "planner_timeout_s": 60}}
        if "TravelPlanner" in env_id and "-Sim-" in env_id:
            # the real database's reference information is ~10k tokens: more than small models' context
            kwargs.setdefault("domain_kwargs", {"data_dir": self.data_dir(env_id)})
        if "-Sim-" not in env_id:
            kwargs.setdefault("data_dir", self.data_dir(env_id))
        return kwargs

    def make(self, env_id: str, **kwargs):
        import gymnasium as gym

        return gym.make(env_id, **self.kwargs(env_id, **kwargs))


@pytest.fixture
def offline_envs(request: pytest.FixtureRequest) -> OfflineEnvs:
    return OfflineEnvs(request)


@pytest.fixture
def real_env_id(
    request: pytest.FixtureRequest, shared_data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> str:
    """The (indirectly) parametrized env id, with GENENV_DATA_DIR on the real data and, for ALFWorld's ids,
    the engine installed."""
    if "ALFWorld" in request.param:
        request.getfixturevalue("alfworld_engine")
    monkeypatch.setenv("GENENV_DATA_DIR", str(shared_data_dir))
    return request.param


@pytest.fixture
def toy_id(tmp_path: Path) -> Iterator[str]:
    """The server tests' toy env (tests/helpers/serve_toy.py) registered for one test, its closes logged."""
    import serve_toy

    yield serve_toy.register(tmp_path / "closed.log")
    serve_toy.unregister()


@pytest.fixture(scope="session")
def offline_envs_for_session(request: pytest.FixtureRequest) -> OfflineEnvs:
    """``offline_envs`` for session- and module-scoped fixtures (a server that serves every id)."""
    return OfflineEnvs(request)


import sys  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent / "helpers"))  # test helpers such as toy_domain
