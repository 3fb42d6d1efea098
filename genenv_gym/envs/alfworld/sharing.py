"""Keeping what the copies of an async vector env inherit from the process that forks them shared.

Gymnasium's ``AsyncVectorEnv`` makes one env in the parent (to read its spaces), closes it, then forks the
copies. Right before the first fork of a process that made an ALFWorld domain, ``_before_fork`` does there,
once, what every copy would otherwise do for itself on its first game: import the engine and play one game
(which fills the process-wide parses that every game reuses), so that the copies share those pages instead
of each making its own. ``gym.make`` itself stays as lazy as before, and a process that never forks never
pays for it. In a copy, ``note_domain`` keeps the objects inherited from the parent out of the cyclic
garbage collector's reach (``gc.freeze``), once, when it makes its domain: a full collection writes to every
object it visits, which would turn each shared page into a private one. None of this changes what any game
shows.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import logging  # noqa: F401  (see the end of the file)
import os
from collections.abc import Callable

_state = {"warm": False, "forked": False, "frozen": False}
_pending: list[Callable[[], None]] = []  # the warm-up of the last domain made, until the first fork


def note_domain(data_dir: str | None, split: str, plan_cache: str | None) -> None:
    """Called when an ALFWorld domain (with the cached engine) is made: in a forked copy, freeze what it
    inherited (once per copy); elsewhere, have this domain's first game played before the next fork."""
    if _state["forked"] and not _state["frozen"]:
        gc.freeze()
        _state["frozen"] = True
    if not _state["warm"]:
        _pending[:] = [functools.partial(warm_up, data_dir, split, plan_cache)]


def warm_up(data_dir: str | None, split: str, plan_cache: str | None) -> None:
    """Import the engine and play the first game of a split on an engine of its own (a step of it)."""
    from genenv_gym.envs.alfworld.data import discover_games, read_game
    from genenv_gym.envs.alfworld.engine import AlfredEngine
    from genenv_gym.envs.alfworld.planner import TranslationCache, translation_dir

    games = discover_games(data_dir, split)
    if not games:
        return
    translations = TranslationCache(translation_dir(plan_cache)) if plan_cache else None
    engine = AlfredEngine(cached=True, translations=translations)
    try:
        engine.load(read_game(games[0].path))
        engine.step(engine.reset().admissible_commands[0])
    finally:
        engine.close()


def _before_fork() -> None:
    if _state["warm"] or not _pending:
        return
    _state["warm"] = True
    warm = _pending.pop()
    with contextlib.suppress(Exception):  # no engine, no games, a bad file: playing reports it, not this
        warm()


def _after_fork_in_child() -> None:
    _state["forked"] = True
    _state["frozen"] = False
    _pending.clear()


# Registered after ``logging`` is imported: logging registers a pair of fork handlers when it is imported (a
# lock taken before a fork and released after it), and the engine imports it; registered during
# ``_before_fork``, its release would run after that fork without its acquire.
os.register_at_fork(before=_before_fork, after_in_child=_after_fork_in_child)
