"""``GenEnv-ALFWorld-Step-v0``: ALFWorld scored as single-step action prediction, as in the GenEnv paper."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from genenv_gym.envs.alfworld.data import DEFAULT_SPLIT
from genenv_gym.envs.alfworld.domain import ALFWorldDomain
from genenv_gym.envs.alfworld.step_domain import ALFWorldStepDomain
from genenv_gym.envs.alfworld.task_types import resolve_task_types
from genenv_gym.envs.benchmark_env import BenchmarkEnv


class ALFWorldStepEnv(BenchmarkEnv):
    """Predict the expert's next ALFWorld command, one state of a walkthrough per episode.

    ## Description
    Every state along the expert walkthrough of every game is one task (788 for the 134 ``valid_unseen``
    games). The agent reads the episode so far, as played on the real engine: the intro, then each expert
    command (shown as ``> command``) and the game's answer; it answers with one command. This is the
    single-step protocol by which the GenEnv paper scores ALFWorld.

    ## Observation space
    ``UnicodeText``: the instructions, the intro and the transcript so far.

    ## Action space
    ``UnicodeText`` of at most 100,000 characters: one command.

    ## Rewards
    1.0 iff the command equals the expert's next command after normalisation (case, spaces, a leading ``>``,
    a final period, and ``put X in/on Y`` read as ``move X to Y``), else 0.0.

    ## Episode end
    Terminates after one step.

    ## Info
    ``reset``: the task (``task_id`` = ``<game>@<step>``, ``category``, ``level``, ``difficulty``),
    ``messages`` (the transcript as chat), ``admissible_commands`` of the state, ``task_type``, ``game``,
    ``step``. ``step``: ``success``, ``error_type`` (``wrong_action``), ``gold_action``, ``predicted``.

    ## Arguments
    - ``task_types``, ``data_dir``, ``split``: as ``GenEnv-ALFWorld-v0``.

    ``reset(options={"task_id": "<game>@3"})`` plays one state. The transcripts are played on the engine
    the first time a game is served (about a second per game) and kept.

    ## Version history
    - v0: initial version (the 788 states of the expert walkthroughs of the ``valid_unseen`` games, exact
      match of the next command)
    """

    def __init__(
        self,
        task_types: Sequence[str | int] | str | None = None,
        data_dir: str | None = None,
        split: str = DEFAULT_SPLIT,
        render_mode: str | None = None,
    ) -> None:
        domain = ALFWorldStepDomain(ALFWorldDomain(data_dir=data_dir, split=split))
        super().__init__(domain, resolve_task_types(task_types), data_dir, render_mode)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        observation, info = super().reset(seed=seed, options=options)
        info.update(self.domain.reset_info(self.task))
        return observation, info

    def close(self) -> None:
        self.domain.close()
        super().close()
