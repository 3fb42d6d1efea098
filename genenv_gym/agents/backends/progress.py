"""What a running backend call has done so far, for a caller that shows it (``genenv eval``'s progress bar).

A caller opens ``reporting_generation(listener)``; while it is open, backends call the listener as the work
advances: ``listener(tokens=n)`` for the tokens of each decoding step of a batch (``hf``'s padded and fast
engines),
``listener(requests=n, tokens=m)`` when requests finish (``hf``'s continuous engine, ``openai``,
``sglang-server``; ``m`` where the backend knows the token counts). Without a listener the backends do no
extra work. This module imports neither torch nor transformers.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Iterator
from contextlib import contextmanager

#: ``listener(tokens=..., requests=...)``: counts of work done since the previous call.
Listener = Callable[..., None]

_LISTENER: contextvars.ContextVar[Listener | None] = contextvars.ContextVar(
    "genenv_generation_listener", default=None
)


@contextmanager
def reporting_generation(listener: Listener) -> Iterator[None]:
    """Backend calls made inside this block report their progress to ``listener``."""
    token = _LISTENER.set(listener)
    try:
        yield
    finally:
        _LISTENER.reset(token)


def generation_listener() -> Listener | None:
    """The listener of the enclosing ``reporting_generation`` block (None outside one). A backend that hands
    requests to worker threads reads it before it does: the threads do not see the caller's context."""
    return _LISTENER.get()
