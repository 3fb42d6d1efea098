"""Where benchmark data is read from, and the one error raised when it is not there."""

from __future__ import annotations

import os
from pathlib import Path

ENV_VAR = "GENENV_DATA_DIR"


class MissingDataError(FileNotFoundError):
    """A benchmark file is not in the data directory; the message says where to put it."""


def data_root(data_dir: str | os.PathLike | None = None) -> Path:
    """The benchmark data root: ``data_dir``, else ``$GENENV_DATA_DIR``, else ``~/.cache/genenv_gym/data``.

    Each benchmark lives in a sub-folder named after it (``bfcl/``, ``alfworld/``, ...), laid out as the
    official release lays out its files.
    """
    if data_dir is not None:
        return Path(data_dir).expanduser()
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR]).expanduser()
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "genenv_gym" / "data"


def benchmark_file(benchmark: str, relative: str, data_dir: str | os.PathLike | None = None) -> Path:
    """Path of one benchmark file, raising MissingDataError with instructions when it is absent."""
    path = data_root(data_dir) / benchmark / relative
    if not path.is_file():
        raise MissingDataError(
            f"{benchmark} data file not found: {path}\n"
            f"Put the official {benchmark} files under {data_root(data_dir) / benchmark} "
            f"(or point {ENV_VAR} at a folder that holds a '{benchmark}/' sub-folder). "
            f"README.md, section 'Benchmark data', says how to obtain them."
        )
    return path
