"""The PDDL planner (fast-downward, through textworld) in a worker process, so a slow search can be stopped.

Some goals make the planner search for minutes (two objects of a common type in a big kitchen); a C call
cannot be interrupted in-process, so planning runs in a child process that is killed after ``timeout_s``.
Two on-disk caches spare repeated work across processes and runs: ``PlanCache`` (the planner's verdicts) and
``TranslationCache`` (fast-downward's translation of a goal's problem, which the worker makes to plan it and
this process would otherwise make again to validate and play the goal, and of each benchmark game's problem,
which every process would otherwise make on its first visit: about 0.2 to 1 s each).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import pickle
import select
import subprocess
import sys
import time
import zlib
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO, Any

from genenv_gym.atomic_write import write_atomically

#: Seconds one plan may take before the goal is dropped as "planner_timeout".
DEFAULT_TIMEOUT_S = 20.0
#: Extra seconds the first request may take: the worker imports the engine.
STARTUP_S = 30.0


@dataclass(frozen=True)
class PlanOutcome:
    """What the planner found for a goal.

    ``status`` is ``solved`` (``plan`` reaches the goal), ``trivial`` (the goal already holds), ``unsolvable``
    (no plan, or the translator proves the goal unreachable), ``timeout`` or ``error``; ``reason`` says why.
    """

    status: str
    plan: tuple[str, ...] = ()
    reason: str = ""
    seconds: float = 0.0


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/genenv_gym/alfworld_plans`` (``~/.cache/...`` when the variable is unset)."""
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "genenv_gym" / "alfworld_plans"


class PlanCache:
    """Planner outcomes on disk, one small JSON file per goal, shared by processes and runs.

    Keys hash the game's PDDL domain, grammar, problem and prefix actions; the file also records the
    engine version, so a cache written by another textworld is ignored. A timeout is reused only by a
    planner whose limit is no longer than the one that timed out. Files are written atomically.
    """

    def __init__(self, directory: str | os.PathLike) -> None:
        self.directory = Path(directory)

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str, timeout_s: float) -> PlanOutcome | None:
        try:
            data = json.loads(self._path(key).read_text(encoding="utf-8"))
            if data.get("engine") != _engine_version():
                return None
            if data["status"] == "timeout" and timeout_s > float(data.get("timeout_s", 0.0)):
                return None
            return PlanOutcome(str(data["status"]), tuple(map(str, data["plan"])), str(data["reason"]), 0.0)
        except (OSError, ValueError, KeyError, TypeError, AttributeError):  # unreadable: plan again
            return None

    def put(self, key: str, outcome: PlanOutcome, timeout_s: float) -> None:
        record = {
            **asdict(outcome),
            "plan": list(outcome.plan),
            "timeout_s": timeout_s,
            "engine": _engine_version(),
        }
        with contextlib.suppress(OSError):
            write_atomically(self._path(key), json.dumps(record).encode())


#: Translations kept on disk (about 50-150 KB each, compressed); the oldest beyond are removed.
MAX_TRANSLATIONS = 1024


class TranslationCache:
    """fast-downward's plain translation of PDDL problems on disk, handed to this process's engine.

    The engine memoizes each problem's translation per process (``engine._TRANSLATIONS``, keyed by the
    domain and problem text, the last few only); ``seed`` fills that memo from a file another process (the
    planner worker, a copy of a vector env, an earlier run) wrote, so that loading the game skips the
    translation, and ``store`` writes the one this process made. A file holds the pickled translation
    with the engine version and its key, zlib-compressed; a file that cannot be read, of another engine or
    of another problem is removed (the engine then translates as usual and stores it again). The translation
    is a tree of plain fast-downward objects and lists (no sets), so an unpickled one builds the same game as
    a fresh one. The folder must be the user's own, as for any cache of pickles.
    """

    def __init__(self, directory: str | os.PathLike) -> None:
        self.directory = Path(directory)
        self._writes = 0

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.pkl.z"

    def seed(self, domain: str, problem: str) -> bool:
        """Put the stored translation of (domain, problem) in the engine's memo; whether it was there."""
        from genenv_gym.envs.alfworld import engine

        memo, key = engine._TRANSLATIONS, translation_key(domain, problem)
        if key in memo:
            memo.move_to_end(key)
            return True
        translation = self.get(key[0])
        if translation is None:
            return False
        engine.remember_translation(key, translation)
        return True

    def store(self, domain: str, problem: str) -> None:
        """Write the engine's memoized translation of (domain, problem) to disk, if it has one."""
        from genenv_gym.envs.alfworld import engine

        key = translation_key(domain, problem)
        translation = engine._TRANSLATIONS.get(key)
        if translation is not None and not self._path(key[0]).exists():
            self.put(key[0], translation)

    def get(self, digest: str) -> Any | None:
        """The stored translation (its file's time refreshed, for ``prune``); None when there is none. A file
        that is truncated, corrupt, of another engine or of another key is removed, to be written again."""
        path = self._path(digest)
        try:
            content = path.read_bytes()
        except OSError:  # not stored (yet): translate as usual
            return None
        try:
            record = pickle.loads(zlib.decompress(content))
            if record["engine"] != _engine_version() or record["key"] != digest:
                raise ValueError("a translation of another engine or problem")
            translation = record["translation"]
        except Exception:  # unreadable: translate as usual, and let ``store`` write it again
            with contextlib.suppress(OSError):
                path.unlink()
            return None
        with contextlib.suppress(OSError):
            os.utime(path)
        return translation

    def put(self, digest: str, translation: Any) -> None:
        record = {"engine": _engine_version(), "key": digest, "translation": translation}
        with contextlib.suppress(OSError):
            write_atomically(self._path(digest), zlib.compress(pickle.dumps(record, protocol=5), 1))
        self._writes += 1
        if self._writes % 64 == 0:
            self.prune()

    def prune(self, keep: int = MAX_TRANSLATIONS) -> None:
        """Remove the least recently written or read translations beyond ``keep``."""
        with contextlib.suppress(OSError):
            files = sorted(self.directory.glob("*/*.pkl.z"), key=lambda f: f.stat().st_mtime)
            for old in files[: max(0, len(files) - keep)]:
                old.unlink(missing_ok=True)


def translation_key(domain: str, problem: str) -> tuple[str, bool]:
    """The key of the plain translation of (domain, problem) in the engine's memo (``engine.py``)."""
    return hashlib.sha1(f"{domain}\0{problem}".encode()).hexdigest(), False


def translation_dir(plan_cache: str | os.PathLike) -> Path:
    """Where translations are kept beside a plan cache folder."""
    return Path(plan_cache) / "translations"


def _engine_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"textworld {version('textworld')}, alfworld {version('alfworld')}"
    except PackageNotFoundError:
        return "unknown"


def plan_in_process(engine: Any, game: Mapping[str, Any], actions: Sequence[str] = ()) -> PlanOutcome:
    """Plan for ``game`` after ``actions`` with an AlfredEngine of this process (no time limit)."""
    start = time.perf_counter()
    try:
        engine.load(dict(game))
        state = engine.reset()
        for action in actions:
            state = engine.step(action)
        if state.won:
            return PlanOutcome("trivial", (), "the goal already holds", time.perf_counter() - start)
        plan = tuple(engine.plan())
    except KeyError as error:  # the translator emits a dummy task when it proves the goal unreachable
        return PlanOutcome("unsolvable", (), f"goal unreachable ({error!r})", time.perf_counter() - start)
    except Exception as error:
        return PlanOutcome("error", (), f"engine error: {error!r}", time.perf_counter() - start)
    if not plan:
        return PlanOutcome("unsolvable", (), "the planner found no plan", time.perf_counter() - start)
    return PlanOutcome("solved", plan, "", time.perf_counter() - start)


def serve(requests: IO[str], answers: IO[str], translations: TranslationCache | None = None) -> None:
    """The worker's loop: read one JSON request per line (game, actions), answer one PlanOutcome per line.

    With ``translations``, each problem's translation is taken from there when it is stored, and that of a
    solved goal is stored there (before the answer is sent, so that the asking process finds it).
    """
    from genenv_gym.envs.alfworld.engine import AlfredEngine

    engine = AlfredEngine()
    for line in requests:
        request = json.loads(line)
        game = request["game"]
        if translations is not None:
            translations.seed(game["pddl_domain"], game["pddl_problem"])
        outcome = plan_in_process(engine, game, request.get("actions", ()))
        if translations is not None and outcome.status == "solved":  # the goals the asker validates
            translations.store(game["pddl_domain"], game["pddl_problem"])
        answers.write(json.dumps(asdict(outcome)) + "\n")
        answers.flush()


class PlannerWorker:
    """A child process that plans goals on the real engine, restarted when a plan runs past ``timeout_s``.

    Args:
        timeout_s: the longest one plan may take; the goal then gets status ``timeout``.
        cache_dir: a folder for the on-disk plan cache (``PlanCache``) and, in its ``translations``
            subfolder, the translations the worker made (``TranslationCache``); None: memory only.
    """

    def __init__(
        self, timeout_s: float = DEFAULT_TIMEOUT_S, cache_dir: str | os.PathLike | None = None
    ) -> None:
        if timeout_s <= 0:
            raise ValueError(f"timeout_s must be positive, got {timeout_s}")
        self.timeout_s = timeout_s
        self.cache = PlanCache(cache_dir) if cache_dir is not None else None
        self.translations = TranslationCache(translation_dir(cache_dir)) if cache_dir is not None else None
        self._process: subprocess.Popen | None = None
        self._warm = False
        self._memo: OrderedDict[str, PlanOutcome] = OrderedDict()

    def _start(self) -> None:
        # A plain child interpreter (not multiprocessing's spawn, which re-imports the caller's __main__).
        extra = [str(self.translations.directory)] if self.translations is not None else []
        self._process = subprocess.Popen(
            [sys.executable, "-m", "genenv_gym.envs.alfworld.planner", *extra],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )

    def plan(
        self,
        game: Mapping[str, Any],
        actions: Sequence[str] = (),
        meanwhile: Callable[[], object] | None = None,
    ) -> PlanOutcome:
        """The planner's outcome for ``game`` (game data with its goal) after ``actions``.

        The planner is deterministic, so outcomes other than timeouts are remembered (the last 1024 in
        memory; all of them, timeouts with their limit, in the on-disk cache when the worker has one).
        ``meanwhile`` is called while the worker plans (only when the worker is asked): work the caller
        needs next anyway, such as loading the same game on its own engine, overlaps the search.
        """
        key = hashlib.sha1(
            "\0".join([game["pddl_domain"], game["grammar"], game["pddl_problem"], *actions]).encode()
        ).hexdigest()
        if key in self._memo:
            self._memo.move_to_end(key)
            return self._memo[key]
        if self.cache is not None and (cached := self.cache.get(key, self.timeout_s)) is not None:
            return cached
        outcome = self._ask_worker(game, actions, meanwhile)
        if self.cache is not None and outcome.status != "error":
            self.cache.put(key, outcome, self.timeout_s)
        if outcome.status not in ("timeout", "error"):
            self._memo[key] = outcome
            if len(self._memo) > 1024:
                self._memo.popitem(last=False)
        return outcome

    def _ask_worker(
        self, game: Mapping[str, Any], actions: Sequence[str], meanwhile: Callable[[], object] | None
    ) -> PlanOutcome:
        if self._process is None or self._process.poll() is not None:
            self._start()
        start = time.perf_counter()
        process = self._process
        try:
            process.stdin.write(json.dumps({"game": dict(game), "actions": list(actions)}) + "\n")
            process.stdin.flush()
            if meanwhile is not None:
                # Work ahead only: its failure is the caller's to meet again where it needs the result, and
                # the worker's answer must still be read.
                with contextlib.suppress(Exception):
                    meanwhile()
            # The first request also waits for the worker to import the engine (a few seconds).
            limit = self.timeout_s + (0.0 if self._warm else STARTUP_S)
            ready, _, _ = select.select(
                [process.stdout], [], [], max(0.0, limit - (time.perf_counter() - start))
            )
            line = process.stdout.readline() if ready else ""
        except (BrokenPipeError, OSError) as error:
            self.close()
            return PlanOutcome("error", (), f"planner worker failed: {error!r}", time.perf_counter() - start)
        if not line:
            self.close()
            reason = f"the planner ran past {self.timeout_s:g}s" if not ready else "the planner worker died"
            return PlanOutcome("timeout" if not ready else "error", (), reason, time.perf_counter() - start)
        self._warm = True
        data = json.loads(line)
        return PlanOutcome(data["status"], tuple(data["plan"]), data["reason"], data["seconds"])

    def close(self) -> None:
        """Stop the worker (a later ``plan`` starts a new one)."""
        process, self._process = self._process, None
        self._warm = False
        if process is not None:
            if process.poll() is None:
                process.kill()
            process.wait(timeout=5)
            for stream in (process.stdin, process.stdout):
                with contextlib.suppress(Exception):
                    stream.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close()


def _main() -> None:
    """Entry point of the worker process (``python -m genenv_gym.envs.alfworld.planner [TRANSLATIONS_DIR]``):
    answers go to the real stdout, anything else printed to stderr."""
    answers = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    serve(sys.stdin, answers, TranslationCache(sys.argv[1]) if len(sys.argv) > 1 else None)


if __name__ == "__main__":
    _main()
