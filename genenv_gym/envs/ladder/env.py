"""``GenEnv-Ladder-v0``: the ladder's exhaustive held-out set as a benchmark env."""

from __future__ import annotations

from collections.abc import Sequence

from genenv_gym.envs.benchmark_env import BenchmarkEnv
from genenv_gym.envs.ladder.domain import LadderDomain


class LadderEnv(BenchmarkEnv):
    """``GenEnv-Ladder-v0``: climb a chain of secret permutations, writing every step.

    ## Description
    Each episode is one task of the exhaustive held-out set: from a start symbol, write the first ``l + 1``
    steps of a chain of secret permutations of the symbols ``A``-``D`` (8 steps, drawn from ``seed``), each
    step labelled with its number. Level ``l`` is the stepping stone to level ``l + 1``: it needs every
    step but the last. Not a published benchmark: the fourth curriculum-efficacy design's family.

    ## Observation space
    ``UnicodeText``: ``"climb 3 from B"``.

    ## Action space
    ``UnicodeText`` of at most 100,000 characters: the labelled steps, ``"1D 2A 3C"``
    (whitespace-insensitive).

    ## Rewards
    1.0 on an exact match, else 0.0 (``info["error_type"]``: ``wrong_answer``, ``wrong_format``,
    ``action_error:not_text``).

    ## Episode end
    Terminates after one step.

    ## Arguments
    - ``categories``: levels to draw from (``level_0`` ... ``level_7``; default all).
    - ``data_dir``: accepted like every benchmark env's and ignored: no files are read.
    - ``seed``, ``num_symbols``, ``num_steps``, ``public_steps``, ``disjoint``: ``LadderDomain``'s arguments
      (the secret permutations' seed, 4 symbols, 8 steps, 2 public steps; ``disjoint=True``: every step its
      own alphabet, the fifth efficacy design's family with ``num_symbols=8``).

    ## Version history
    - v0: initial version (4 symbols, 8 steps, 2 public, 32 held-out tasks: every start at every level)
    """

    def __init__(
        self,
        categories: Sequence[str] | None = None,
        data_dir: str | None = None,
        render_mode: str | None = None,
        **domain_kwargs: int | bool,
    ) -> None:
        super().__init__(LadderDomain(**domain_kwargs), categories, None, render_mode=render_mode)
