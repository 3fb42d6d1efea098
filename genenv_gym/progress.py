"""Progress bars for long loops: tqdm when it is installed, a plain stderr counter otherwise."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")


def progress(
    items: Iterable[T], total: int | None = None, desc: str = "", enabled: bool = True
) -> Iterator[T]:
    """Iterate ``items`` while showing progress on stderr."""
    if not enabled:
        yield from items
        return
    try:
        from tqdm.auto import tqdm
    except ImportError:
        yield from _plain_progress(items, total, desc)
        return
    yield from tqdm(items, total=total, desc=desc, dynamic_ncols=True, file=sys.stderr)


def _plain_progress(items: Iterable[T], total: int | None, desc: str) -> Iterator[T]:
    start = last = time.monotonic()
    count = 0
    for count, item in enumerate(items, 1):
        yield item
        now = time.monotonic()
        if now - last >= 1.0:
            last = now
            of = f"/{total}" if total else ""
            print(
                f"\r{desc} {count}{of} ({count / (now - start):.1f}/s)", end="", file=sys.stderr, flush=True
            )
    print(f"\r{desc} {count} done in {time.monotonic() - start:.1f}s", file=sys.stderr)
