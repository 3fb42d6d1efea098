"""Writing a file so that a reader or a crash sees the old content or the new one, never half of it."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO


@contextmanager
def atomic_open(path: str | Path) -> Iterator[BinaryIO]:
    """A binary handle on a temporary file beside ``path``, synced and renamed over ``path`` on success.

    On an exception the temporary file is removed and ``path`` keeps its old content.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_atomically(path: str | Path, data: bytes) -> None:
    """Replace ``path`` by ``data`` atomically."""
    with atomic_open(path) as handle:
        handle.write(data)
