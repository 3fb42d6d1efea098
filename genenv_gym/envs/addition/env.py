"""``GenEnv-PaddedAddition-v0``: the padded-addition held-out set as a benchmark env."""

from __future__ import annotations

from collections.abc import Sequence

from genenv_gym.envs.addition.domain import PaddedAdditionDomain
from genenv_gym.envs.benchmark_env import BenchmarkEnv


class PaddedAdditionEnv(BenchmarkEnv):
    """``GenEnv-PaddedAddition-v0``: ``a + b`` on zero-padded little-endian digit strings.

    ## Description
    Each episode is one task of the fixed held-out set: add two numbers written as 6 single digits,
    least-significant digit first, zero-padded (``314`` is ``"4 1 3 0 0 0"``). Both operands of a task have
    ``k`` significant digits; the held-out set has 200 tasks for each ``k = 1..6`` (the whole levels 0, 2,
    ..., 10). Not a published benchmark: the curriculum-efficacy benchmark's family, whose frontier (the
    widths the agent has never trained on) can move.

    ## Observation space
    ``UnicodeText``: ``"add: 4 1 3 0 0 0 + 7 2 0 0 0 0"`` (314 + 27).

    ## Action space
    ``UnicodeText`` of at most 100,000 characters: the sum as 7 single digits, least-significant first,
    zero-padded (``"1 4 3 0 0 0 0"`` for 341; whitespace-insensitive).

    ## Rewards
    1.0 on an exact match, else 0.0 (``info["error_type"]``: ``wrong_answer``, ``action_error:not_text``).

    ## Episode end
    Terminates after one step.

    ## Arguments
    - ``categories``: levels to draw from (``level_0``, ``level_2``, ..., ``level_10``; default all).
    - ``data_dir``: accepted like every benchmark env's and ignored: the held-out set is generated from a
      fixed seed, no files are read.
    - ``heldout_per_level``: held-out tasks per whole level (default 200).

    ## Version history
    - v0: initial version (11 levels of operand width in half steps, 1-6 digits, 1,200 held-out tasks,
      exact match)
    """

    def __init__(
        self,
        categories: Sequence[str] | None = None,
        data_dir: str | None = None,
        render_mode: str | None = None,
        **domain_kwargs: int,
    ) -> None:
        super().__init__(PaddedAdditionDomain(**domain_kwargs), categories, None, render_mode=render_mode)
