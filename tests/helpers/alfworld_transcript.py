"""One ALFWorld engine's transcript of a game, for the tests that compare engines and stores."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np


def transcript(
    engine: Any,
    game: Any,
    walkthrough: Sequence[str],
    rng: np.random.Generator,
    between_resets: Callable[[], object] | None = None,
    plan_midway: bool = False,
) -> list[Any]:
    """Load ``game`` (a path or game data), reset twice (calling ``between_resets`` in between), then play
    ``walkthrough`` with random admissible and inadmissible commands mixed in (and, with ``plan_midway``, a
    plan asked for halfway); every state the engine reported."""
    engine.load(game)
    engine.reset()
    if between_resets is not None:
        between_resets()
    state = engine.reset()
    states = [state]
    for k, command in enumerate(walkthrough):
        if plan_midway and k == len(walkthrough) // 2:
            states.append(engine.plan())  # planning midway must not disturb the game
        for extra in (str(rng.choice(state.admissible_commands)), "put nothing nowhere"):
            if rng.random() < 0.4:
                state = engine.step(extra)
                states.append(state)
        state = engine.step(command)
        states.append(state)
    return states
