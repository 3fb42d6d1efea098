"""Progress bars for long loops: tqdm when it is installed, a plain stderr counter otherwise.

``Progress`` also shows the work inside one item, so a bar whose items take minutes (an LLM's episodes on a
CPU) still moves: ``note(tokens=..., requests=...)`` adds the tokens generated and model requests answered
so far (what ``genenv_gym.agents.backends.progress`` reports) after the item count.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")

#: The fewest seconds between two redraws caused by ``Progress.note``.
NOTE_REFRESH_S = 0.5


def progress(
    items: Iterable[T], total: int | None = None, desc: str = "", enabled: bool = True
) -> Iterator[T]:
    """Iterate ``items`` while showing progress on stderr."""
    yield from Progress(total, desc, enabled).iterate(items)


class Progress:
    """A progress bar on stderr over ``total`` items, with the tokens and requests noted during them."""

    def __init__(
        self,
        total: int | None = None,
        desc: str = "",
        enabled: bool = True,
        refresh_s: float | None = None,
    ) -> None:
        self.total, self.desc, self.enabled = total, desc, enabled
        #: seconds between two redraws caused by ``note`` (default ``NOTE_REFRESH_S``, read now)
        self.refresh_s = NOTE_REFRESH_S if refresh_s is None else refresh_s
        self.count = self.tokens = self.requests = 0
        self.start = self.last_drawn = time.monotonic()
        self._lock = threading.Lock()  # backends may note from their worker threads
        self._bar: Any = None
        if enabled:
            try:
                from tqdm.auto import tqdm
            except ImportError:
                tqdm = None
            if tqdm is not None:
                self._bar = tqdm(total=total, desc=desc, dynamic_ncols=True, file=sys.stderr)

    def iterate(self, items: Iterable[T]) -> Iterator[T]:
        """Yield ``items``, counting each one when the caller asks for the next (or the loop ends)."""
        try:
            for item in items:
                yield item
                self.advance()
        finally:
            self.close()

    def advance(self) -> None:
        """One more item done."""
        with self._lock:
            self.count += 1
            if self._bar is not None:
                self._bar.update(1)
            else:
                self._draw_plain(force=False)

    def note(self, tokens: int = 0, requests: int = 0) -> None:
        """Work done inside the current item: tokens generated, model requests answered."""
        with self._lock:
            self.tokens += tokens
            self.requests += requests
            if not self.enabled or time.monotonic() - self.last_drawn < self.refresh_s:
                return
            if self._bar is not None:
                self.last_drawn = time.monotonic()
                self._bar.set_postfix_str(self.work(), refresh=True)
            else:
                self._draw_plain(force=True)

    def work(self) -> str:
        """The noted work as text: ``1,234 tokens (41.0/s), 12 requests`` (empty before any)."""
        seconds = max(time.monotonic() - self.start, 1e-9)
        parts = []
        if self.tokens:
            parts.append(f"{self.tokens:,} tokens ({self.tokens / seconds:.1f}/s)")
        if self.requests:
            parts.append(f"{self.requests:,} requests")
        return ", ".join(parts)

    def close(self) -> None:
        if self._bar is not None:
            if self.tokens or self.requests:
                self._bar.set_postfix_str(self.work(), refresh=False)
            self._bar.close()
            self._bar = None
        elif self.enabled:
            work = f", {self.work()}" if self.work() else ""
            print(
                f"\r{self.desc} {self.count} done in {time.monotonic() - self.start:.1f}s{work}",
                file=sys.stderr,
            )
            self.enabled = False

    def _draw_plain(self, force: bool) -> None:
        now = time.monotonic()
        if not self.enabled or (not force and now - self.last_drawn < 1.0):
            return
        self.last_drawn = now
        of = f"/{self.total}" if self.total else ""
        work = f", {self.work()}" if self.work() else ""
        print(
            f"\r{self.desc} {self.count}{of} ({self.count / (now - self.start):.1f}/s{work})",
            end="",
            file=sys.stderr,
            flush=True,
        )
