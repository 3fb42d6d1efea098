"""The ten difficulty levels of generated BFCL multi-turn entries and their knobs."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Level:
    """The knobs of one difficulty level."""

    turns: int
    max_calls: int
    classes: int
    size: int
    long_context: bool = False
    miss_param: bool = False
    miss_func: bool = False


#: The ten levels, easiest first.
LEVELS: tuple[Level, ...] = (
    Level(1, 1, 1, 1),
    Level(1, 2, 1, 1),
    Level(2, 2, 1, 1),
    Level(2, 2, 2, 2),
    Level(3, 2, 2, 2),
    Level(3, 3, 2, 2),
    Level(3, 3, 3, 2, miss_param=True),
    Level(4, 3, 3, 3, miss_func=True),
    Level(4, 3, 3, 3, long_context=True, miss_param=True),
    Level(4, 3, 3, 3, long_context=True, miss_param=True, miss_func=True),
)
NUM_LEVELS = len(LEVELS)
