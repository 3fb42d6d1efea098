"""Where benchmark data is read from, the one error raised when it is not there, and when the shipped
fixtures stand in for it."""

from __future__ import annotations

import contextvars
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ENV_VAR = "GENENV_DATA_DIR"


class MissingDataError(FileNotFoundError):
    """A benchmark file is not in the data directory; the message says where to put it.

    ``benchmark`` names the benchmark folder that was looked in, so callers can offer to fetch it.
    """

    def __init__(self, message: str, benchmark: str | None = None) -> None:
        super().__init__(message)
        self.benchmark = benchmark


def data_root(data_dir: str | os.PathLike | None = None) -> Path:
    """The benchmark data root: ``data_dir``, else ``$GENENV_DATA_DIR``, else ``~/.cache/genenv_gym/data``.

    Each benchmark lives in a sub-folder named after it (``bfcl/``, ``alfworld/``, ...), laid out as the
    official release lays out its files.
    """
    if data_dir is not None:
        return Path(data_dir).expanduser()
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR]).expanduser()
    return cache_home() / "data"


#: A name of one entry of a data folder (a split, a game): no separator, no leading dot, so never ``..``.
_ENTRY = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]{0,199}")


def entry_name(name: object, what: str) -> str:
    """``name`` when it names one entry of a data folder (letters, digits, ``_.+-``; not starting with a
    dot); ValueError naming ``what`` otherwise. Splits and games are chosen by such names, so a value
    that came from a task or a client never makes a path leave the data dir."""
    if not isinstance(name, str) or not _ENTRY.fullmatch(name):
        raise ValueError(
            f"{what} must be a name (letters, numbers, _.+-), not a path: got {str(name)[:80]!r}"
        )
    return name


def cache_home() -> Path:
    """genenv_gym's folder in the user's cache: ``$XDG_CACHE_HOME/genenv_gym`` (``~/.cache/genenv_gym``)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "genenv_gym"


def benchmark_file(benchmark: str, relative: str, data_dir: str | os.PathLike | None = None) -> Path:
    """Path of one benchmark file, raising MissingDataError with instructions when it is absent."""
    root = data_root(data_dir)
    path = root / benchmark / relative
    if not path.is_file():
        raise MissingDataError(
            f"{benchmark} data file not found: {path}\n{_hint(root, benchmark, relative)}", benchmark
        )
    return path


def fetch_command(benchmark: str, data_dir: str | os.PathLike | None = None) -> str:
    """The command that fetches ``benchmark`` into ``data_dir`` (``--dir`` left out for the default one)."""
    if data_dir is None or Path(data_dir).expanduser() == cache_home() / "data":
        return f"genenv data fetch {benchmark}"
    return f"genenv data fetch {benchmark} --dir {data_dir}"


def file_version(path: str | os.PathLike) -> str:
    """What tells an edited data file from the one read before: its resolved path, size and modification
    time (``missing`` when it is absent)."""
    path = Path(path)
    try:
        stat = path.stat()
    except OSError:
        return f"{path.resolve()}:missing"
    return f"{path.resolve()}:{stat.st_size}:{stat.st_mtime_ns}"


def _hint(root: Path, benchmark: str, relative: str) -> str:
    """What to do: point one level up or down when that is where the files are, else fetch them."""
    where = "the data dir" if os.environ.get(ENV_VAR) is None else f"{ENV_VAR}"
    if (root / relative).is_file() or root.name == benchmark:
        return (
            f"{root} looks like the {benchmark} folder itself: point {where} at its parent, "
            f"{root.parent}, which must hold the '{benchmark}/' sub-folder."
        )
    for depth, pattern in (("one level", f"*/{benchmark}"), ("two levels", f"*/*/{benchmark}")):
        nested = sorted(p.parent for p in root.glob(pattern) if (p / relative).is_file())
        if nested:
            return f"the {benchmark} files are {depth} deeper: point {where} at {nested[0]}."
    return (
        f"Fetch them with: {fetch_command(benchmark, root)}\n"
        f"(or put the official {benchmark} files under {root / benchmark}, or point {ENV_VAR} at a folder "
        f"that holds a '{benchmark}/' sub-folder; README.md, section 'Benchmark data', says more)."
    )


_FIXTURE_FALLBACK = contextvars.ContextVar("genenv_fixture_fallback", default=True)


@contextmanager
def without_fixture_fallback() -> Iterator[None]:
    """Inside this block ``fixtures_instead`` declines: missing data raises ``MissingDataError`` (``genenv
    eval`` decides itself between fetching, the fixtures and reporting the benchmark missing)."""
    token = _FIXTURE_FALLBACK.set(False)
    try:
        yield
    finally:
        _FIXTURE_FALLBACK.reset(token)


def fixtures_instead(error: MissingDataError, data_dir: str | os.PathLike | None) -> Path | None:
    """The shipped fixtures' data root, to play instead of the benchmark data ``error`` found missing.

    Only on a fresh install: no data dir was chosen (``data_dir`` is None and ``$GENENV_DATA_DIR`` is
    unset), the package ships fixtures of that benchmark (as files, or as code its manifest's
    ``Source.fixtures`` builds in the user's cache), and no ``without_fixture_fallback`` block is open;
    otherwise None, and the error stands. A chosen data dir without the data is always an error.
    """
    from genenv_gym.fixtures import FIXTURES_DIR

    chosen = data_dir is not None or bool(os.environ.get(ENV_VAR))
    benchmark = error.benchmark
    if chosen or not _FIXTURE_FALLBACK.get() or not benchmark:
        return None
    if (FIXTURES_DIR / benchmark).is_dir():
        return FIXTURES_DIR
    return _built_fixtures(benchmark)


def _built_fixtures(benchmark: str) -> Path | None:
    """The fixtures a benchmark's manifest builds (``Source.fixtures``), or None where it cannot."""
    from genenv_gym.datasets.sources import SOURCES
    from genenv_gym.registry.manifest import load

    source = SOURCES.get(benchmark)
    if source is None or source.fixtures is None:
        return None
    try:
        return load(source.fixtures)(cache_home() / "fixtures")
    except ImportError:  # what builds them is not installed: the error about the data stands
        return None
