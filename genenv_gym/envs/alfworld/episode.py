"""A multi-turn ALFWorld episode on the real engine: commands in, the game's text out; won or out of steps."""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from genenv_gym.domain import Episode, StepResult
from genenv_gym.envs.alfworld.commands import normalize_command
from genenv_gym.envs.alfworld.engine import AlfredEngine, EngineState
from genenv_gym.envs.alfworld.engine_pool import EnginePool
from genenv_gym.envs.alfworld.prompt import with_goal
from genenv_gym.task import Task

NOTHING_HAPPENS = "Nothing happens."


class ALFWorldEpisode(Episode):
    """An agent playing one game: each command (valid or not) is a step; winning ends it, so does the budget.

    The episode plays on an engine of its own, taken from ``engines`` and given back by ``close`` (or when
    the episode is garbage-collected), so that episodes played at once never touch each other's game.

    Args:
        task: the game (benchmark or generated) as a Task.
        engines: the pool the episode's engine comes from (the episode loads its game on it).
        game: the game data the engine loads (``ALFWorldDomain.game_data(task)``).
        max_steps: the step budget (50, as ALFWorld's evaluation configs); then the episode is truncated.
    """

    def __init__(self, task: Task, engines: EnginePool, game: dict[str, Any], max_steps: int) -> None:
        engine = engines.acquire()
        try:
            engine.load(game, key=_game_key(task))
            state = engine.reset()
        except BaseException:
            engines.release(engine)
            raise
        self._engine = engine
        self._release = weakref.finalize(self, engines.release, engine)
        self.goal = str(task.evaluation["goal"])
        super().__init__(task, with_goal(state.feedback, self.goal))
        self.max_steps = max_steps
        self.steps = 0
        self.actions: list[str] = []
        self.won = state.won
        self.admissible = state.admissible_commands
        self._plan = list(task.evaluation.get("walkthrough") or ())
        self._on_plan = True

    @property
    def engine(self) -> AlfredEngine:
        """The engine this episode's game is on (until the episode is closed)."""
        if not self._release.alive:
            raise RuntimeError("the episode was closed: its engine plays another game now")
        return self._engine

    def close(self) -> None:
        """Give the engine back to the pool: the episode cannot step after this."""
        self._release()
        self.done = True

    def step(self, action: Any) -> StepResult:
        command = normalize_command(action)
        state = self.engine.step(command)
        self.steps += 1
        self.actions.append(command)
        if self._on_plan and (
            len(self.actions) > len(self._plan) or self._plan[len(self.actions) - 1] != command
        ):
            self._on_plan = False
        return self._result(state, command, action)

    def invalid_action(self, error_type: str, error: str) -> StepResult:
        """An action the env refused to parse (too long): one step in which nothing happens."""
        self.steps += 1
        self.actions.append("")
        self._on_plan = False
        result = self._result(self.engine.state, "", None, refused=True)
        result.info.update({"error_type": error_type, "error": error})
        return result

    def _result(self, state: EngineState, command: str, action: Any, refused: bool = False) -> StepResult:
        self.won = state.won
        self.admissible = state.admissible_commands
        terminated = state.won
        truncated = not terminated and self.steps >= self.max_steps
        self.done = terminated or truncated
        feedback = NOTHING_HAPPENS if refused else state.feedback
        info: dict[str, Any] = {
            "success": state.won,
            "won": state.won,
            "error_type": None,
            "command": command,
            "feedback": feedback,
            "admissible_commands": list(state.admissible_commands),
            "steps": self.steps,
            "task_type": self.task.category,
            "game": self.task.evaluation.get("game"),
        }
        if not state.moved or refused:
            info["error_type"] = "action_error:not_text" if not isinstance(action, str) else "invalid_command"
            info["error"] = (
                f"action must be a str, got {type(action).__name__}"
                if not isinstance(action, str)
                else f"{command!r} is not an admissible command here"
            )
        return StepResult(
            with_goal(feedback, self.goal), 1.0 if state.won else 0.0, terminated, truncated, info
        )

    def oracle_action(self) -> str:
        """The expert's next command: the walkthrough while the agent follows it, else the planner's plan."""
        if not self._on_plan:
            self._plan = list(self.actions) + self.engine.plan()
            self._on_plan = True
        return self._plan[len(self.actions)] if len(self.actions) < len(self._plan) else "look"

    def random_action(self, rng: np.random.Generator) -> str:
        """A command drawn uniformly from the admissible ones (ALFWorld's random baseline)."""
        return str(self.admissible[int(rng.integers(len(self.admissible)))]) if self.admissible else "look"


def _game_key(task: Task) -> str:
    """What identifies a task's game data for the engine (the same game with another goal is another key)."""
    return f"{task.evaluation.get('game')}|{task.id}"
