"""CPU time of the code under test, for the tests that bound it."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def cpu_clock() -> Iterator[Callable[[], float]]:
    """Yield a function returning the CPU seconds spent since the block began, with the cyclic garbage
    collector held off inside the block: a full pass over a long test session's heap can take half a second,
    which is the test process's cost, not the code's."""
    enabled = gc.isenabled()
    gc.disable()
    start = time.process_time()
    try:
        yield lambda: time.process_time() - start
    finally:
        if enabled:
            gc.enable()
