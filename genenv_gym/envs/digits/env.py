"""``GenEnv-Digits-v0``: the Digits held-out set as a benchmark env."""

from __future__ import annotations

from collections.abc import Sequence

from genenv_gym.envs.benchmark_env import BenchmarkEnv
from genenv_gym.envs.digits.domain import DigitsDomain


class DigitsEnv(BenchmarkEnv):
    """``GenEnv-Digits-v0``: the Digits held-out set (the CPU miniature's benchmark).

    ## Description
    Each episode is one task of the fixed held-out set: reverse a space-separated digit string. Not a
    published benchmark: it lets the co-evolution trainer run end to end on a CPU in minutes.

    ## Observation space
    ``UnicodeText``: ``"reverse: 3 1 4"``.

    ## Action space
    ``UnicodeText`` of at most 100,000 characters: the reversed string (``"4 1 3"``, whitespace-insensitive).

    ## Rewards
    1.0 on an exact match, else 0.0 (``info["error_type"]``: ``wrong_answer``, ``action_error:not_text``).

    ## Episode end
    Terminates after one step.

    ## Arguments
    - ``categories``: levels to draw from (``level_0``, ``level_2``, ...; default all).
    - ``data_dir``: accepted like every benchmark env's and ignored: the held-out set is generated from a
      fixed seed, no files are read.
    - ``num_lengths``, ``heldout_per_length``, ``half_steps``: ``DigitsDomain``'s arguments.

    ## Version history
    - v0: initial version (15 levels in half steps of length 1-8, 200 held-out tasks, exact match)
    """

    def __init__(
        self,
        categories: Sequence[str] | None = None,
        data_dir: str | None = None,
        render_mode: str | None = None,
        **domain_kwargs: int,
    ) -> None:
        super().__init__(DigitsDomain(**domain_kwargs), categories, None, render_mode=render_mode)
