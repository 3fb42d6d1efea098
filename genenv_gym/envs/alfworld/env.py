"""``GenEnv-ALFWorld-v0`` (multi-turn, on the real engine) and its per-task-type variants."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from genenv_gym.envs.alfworld.data import DEFAULT_SPLIT
from genenv_gym.envs.alfworld.domain import MAX_STEPS, ALFWorldDomain
from genenv_gym.envs.alfworld.task_types import resolve_task_types
from genenv_gym.envs.benchmark_env import BenchmarkEnv
from genenv_gym.task import Task


class ALFWorldEnv(BenchmarkEnv):
    """ALFWorld household games on the real TextWorld engine (textworld 1.7.0 PDDL backend, alfworld 0.4.2).

    ## Description
    Each episode is one ALFWorld game (by default the 134 ``valid_unseen`` games LLM-agent papers report):
    a room, objects in receptacles, and a goal of one of six types (pick & place, examine in light, clean,
    heat, cool, pick two). The agent types one command per step (``go to desk 1``, ``take mug 1 from desk 1``,
    ``move mug 1 to shelf 2``; ReAct's ``put X in/on Y`` is accepted as ``move X to Y``). The engine answers
    as ALFWorld does; a command that does not apply gets "Nothing happens." and still counts as a step.

    ## Observation space
    ``UnicodeText``: the game's text for the last step followed by the goal ("Your task is to: ..."); at
    ``reset`` the engine's intro (welcome banner, the room, the goal).

    ## Action space
    ``UnicodeText`` of at most 100,000 characters: one command. It is normalised (case, spaces, a leading
    ``>``, a final period) and compared with the engine's commands; it is never executed.

    ## Rewards
    1.0 on the step that wins the game (ALFWorld's ``won``), else 0.0.

    ## Episode end
    Terminates when the game is won; truncated after ``max_steps`` steps (50, ALFWorld's budget).

    ## Info
    ``reset`` and ``step``: ``admissible_commands`` (the engine's list for the current state), ``task_type``,
    ``game`` (the game id), ``won``; ``reset`` also the task (``task_id``, ``category``, ``level``,
    ``difficulty``, ``messages``) and ``goal``; ``step`` also ``feedback`` (the engine's text alone),
    ``command`` (as sent), ``steps``, ``success`` and, for a command that did not apply,
    ``error_type="invalid_command"``.

    ## Arguments
    - ``task_types``: task types to draw games from (official names, ``pick``/``examine``/``clean``/``heat``/
      ``cool``/``pick_two``, or ids 1-6; default all six).
    - ``data_dir``: benchmark data root holding ``alfworld/json_2.1.1/`` (default ``$GENENV_DATA_DIR``, then
      ``$ALFWORLD_DATA``).
    - ``split``: ``valid_unseen`` (default), ``valid_seen`` or ``train``.
    - ``max_steps``: the step budget.
    - ``cached_engine``: keep parsed games and PDDL translations across resets (default: resets about 10x and
      steps about 2x faster than the raw engine, with identical transcripts); ``False`` runs textworld's
      ``PddlEnv`` unchanged.

    ``reset(options={"game": id})`` plays a game by id (``<task folder>/<trial>``) or by the path of its
    ``game.tw-pddl``; ``reset(options={"task_type": "heat"})`` draws among games of that type;
    ``reset(options={"task": Task})`` plays any ALFWorld task, generated goals included. Otherwise games are
    drawn with the env's seeded generator, so ``reset(seed=s)`` reproduces the sequence of games.

    ## Version history
    - v0: initial version (the 134 ``valid_unseen`` games on textworld 1.7.0 / alfworld 0.4.2, 50 steps,
      reward 1 on a win)
    """

    def __init__(
        self,
        task_types: Sequence[str | int] | str | None = None,
        data_dir: str | None = None,
        split: str = DEFAULT_SPLIT,
        max_steps: int = MAX_STEPS,
        cached_engine: bool = True,
        render_mode: str | None = None,
    ) -> None:
        domain = ALFWorldDomain(
            data_dir=data_dir, split=split, max_steps=max_steps, cached_engine=cached_engine
        )
        super().__init__(domain, resolve_task_types(task_types), data_dir, render_mode)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        observation, info = super().reset(seed=seed, options=options)
        episode = self.episode
        info.update(
            {
                "admissible_commands": list(episode.admissible),
                "task_type": self.task.category,
                "game": self.task.evaluation.get("game"),
                "goal": self.task.evaluation.get("goal"),
                "won": episode.won,
            }
        )
        return observation, info

    def _choose_task(self, options: dict[str, Any]) -> Task:
        if "game" in options:
            return self._game(str(options["game"]))
        if "task_type" in options:
            wanted = set(resolve_task_types(options["task_type"]))
            pool = [task for task in self.tasks if task.category in wanted]
            if not pool:
                raise ValueError(f"no games of task type {options['task_type']!r} in this env")
            return pool[int(self.np_random.integers(len(pool)))]
        return super()._choose_task(options)

    def _game(self, game: str) -> Task:
        """A loaded game by id, or by the path of its game file."""
        if game in self._index:
            return self.tasks[self._index[game]]
        parts = game.replace("\\", "/").rstrip("/").split("/")
        if parts[-1] == "game.tw-pddl":
            parts = parts[:-1]
        key = "/".join(parts[-2:])
        if key in self._index:
            return self.tasks[self._index[key]]
        raise KeyError(f"no game {game!r} in this env ({len(self.tasks)} games loaded)")

    def close(self) -> None:
        self.domain.close()
        super().close()
