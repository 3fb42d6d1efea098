"""ALFWorld as the GenEnv paper scores it: single-step action prediction along expert walkthroughs.

Every state along a game's expert walkthrough is one task: the agent reads the episode so far (the game's
intro, then each expert command and what the game answered) and answers with one command; it is right iff the
command equals the expert's next command after normalisation (``commands.normalize_command``, which also
maps "put X in/on Y" to "move X to Y"). The transcripts come from replaying the walkthrough on the real
engine, once per game.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from genenv_gym.domain import Domain, Verdict
from genenv_gym.envs.alfworld.commands import commands_match, normalize_command
from genenv_gym.envs.alfworld.domain import ALFWorldDomain
from genenv_gym.envs.alfworld.levels import NUM_LEVELS
from genenv_gym.envs.alfworld.prompt import (
    STEP_INSTRUCTION,
    render_transcript,
    task_messages,
    transcript_messages,
)
from genenv_gym.envs.alfworld.task_types import TASK_TYPE_NAMES
from genenv_gym.task import Task, thaw


@dataclass(frozen=True)
class Replay:
    """A walkthrough played on the engine: the intro, the answer to each command, the admissible commands
    of every state (``admissible[k]`` holds before command ``k``), and whether the last command won."""

    intro: str
    feedbacks: tuple[str, ...]
    admissible: tuple[tuple[str, ...], ...]
    won: bool


class ALFWorldStepDomain(Domain):
    """Next-action prediction on ALFWorld walkthroughs, scored by exact match after normalisation.

    Args:
        base: the ALFWorld domain whose games, engine and goal generator this one uses (a new one by default).
        data_dir, split: passed to the new base domain.
    """

    name = "alfworld_step"
    num_levels = NUM_LEVELS

    def __init__(
        self, base: ALFWorldDomain | None = None, data_dir: str | None = None, split: str | None = None
    ) -> None:
        kwargs = {k: v for k, v in (("data_dir", data_dir), ("split", split)) if v is not None}
        self.base = base or ALFWorldDomain(**kwargs)
        self._replays: dict[tuple[str, tuple[str, ...]], Replay] = {}
        self._game_problems: dict[str, list[str]] = {}

    def categories(self) -> tuple[str, ...]:
        return TASK_TYPE_NAMES

    def load_tasks(self, categories: Sequence[str] | None = None, data_dir: str | None = None) -> list[Task]:
        return [step for game in self.base.load_tasks(categories, data_dir) for step in self.step_tasks(game)]

    def step_tasks(self, game_task: Task) -> list[Task]:
        """One task per state along a game's expert walkthrough."""
        plan = list(game_task.evaluation.get("walkthrough") or ())
        return [self.step_task(game_task, k) for k in range(len(plan))]

    def step_task(self, game_task: Task, step: int) -> Task:
        """The task of predicting the expert's command number ``step`` (0-based) of a game."""
        evaluation = thaw(game_task.evaluation)
        plan = evaluation["walkthrough"]
        difficulty = {**thaw(game_task.difficulty), "step": step, "steps_left": len(plan) - step}
        return Task(
            id=f"{game_task.id}@{step}",
            domain=self.name,
            messages=task_messages(str(evaluation["goal"])),
            evaluation={**evaluation, "step": step, "gold_action": plan[step]},
            difficulty=difficulty,
            provenance=game_task.provenance,
            category=game_task.category,
        )

    def replay(self, task: Task) -> Replay:
        """The task's walkthrough played on the engine (once per game and goal, then cached)."""
        key = f"{task.evaluation.get('split')}/{task.evaluation.get('game')}|{task.evaluation.get('goal')}"
        # a client's task may give another walkthrough for the same game and goal: it has its own replay
        replay_key = (key, tuple(task.evaluation.get("walkthrough") or ()))
        if replay_key not in self._replays:
            engine = self.base.checker
            engine.load(self.base.game_data(task), key=key)
            state = engine.reset()
            feedbacks, admissible = [], [state.admissible_commands]
            intro = state.feedback
            for action in task.evaluation.get("walkthrough") or ():
                state = engine.step(normalize_command(action))
                feedbacks.append(state.feedback)
                admissible.append(state.admissible_commands)
            self._replays[replay_key] = Replay(intro, tuple(feedbacks), tuple(admissible), state.won)
        return self._replays[replay_key]

    def messages(self, task: Task) -> list[dict[str, str]]:
        """The episode so far as chat messages, ending with what the game said last."""
        replay, step = self.replay(task), int(task.evaluation["step"])
        plan = list(task.evaluation["walkthrough"])
        return transcript_messages(replay.intro, plan[:step], replay.feedbacks[:step])

    def opening_chat(self, task: Task) -> list[dict[str, str]]:
        """The transcript so far (``messages``): what every episode of the task opens with."""
        return self.messages(task)

    def admissible_commands(self, task: Task) -> tuple[str, ...]:
        """The admissible commands of the task's state."""
        return self.replay(task).admissible[int(task.evaluation["step"])]

    def render(self, task: Task) -> str:
        return render_transcript(self.messages(task))

    def verify(self, task: Task, action: str) -> Verdict:
        gold = str(task.evaluation["gold_action"])
        details = {"category": task.category, "gold_action": gold, "predicted": normalize_command(action)}
        if not isinstance(action, str):
            error = f"action must be a str, got {type(action).__name__}"
            return Verdict(0.0, False, "action_error:not_text", error, details)
        if commands_match(action, gold):
            return Verdict(1.0, True, None, None, details)
        return Verdict(0.0, False, "wrong_action", "not the expert's next command", details)

    def validate(self, task: Task) -> list[str]:
        """The game's checks (made once per game: every state of a walkthrough shares them), then: the gold
        command is admissible in the task's state."""
        game = replace(task, id=task.id.rsplit("@", 1)[0], domain=self.base.name)
        evaluation = {k: v for k, v in thaw(task.evaluation).items() if k not in ("step", "gold_action")}
        key = json.dumps([game.id, game.category, evaluation], sort_keys=True, default=str)
        if key not in self._game_problems:
            self._game_problems[key] = self.base.validate(game)
        problems = list(self._game_problems[key])
        if problems:
            return problems
        if normalize_command(task.evaluation["gold_action"]) not in self.admissible_commands(task):
            return ["gold_action_not_admissible"]
        return []

    def generate(self, level: int, rng: np.random.Generator) -> Task:
        """A state along the plan of a generated goal (see ``ALFWorldDomain.generate``)."""
        game = self.base.generate(level, rng)
        plan = list(game.evaluation.get("walkthrough") or ())
        if not plan:  # unsolved: keep the planner's verdict so validation reports it
            return replace(game, domain=self.name, id=f"{game.id}@0")
        return self.step_task(game, int(rng.integers(len(plan))))

    def oracle_action(self, task: Task) -> str:
        return str(task.evaluation["gold_action"])

    def random_action(self, task: Task, rng: np.random.Generator) -> str:
        """A command drawn uniformly from those admissible in the task's state."""
        commands = self.admissible_commands(task)
        return str(commands[int(rng.integers(len(commands)))]) if commands else "look"

    def reset_info(self, task: Task) -> dict[str, Any]:
        """What the Step env adds to ``reset``'s info (its ``messages`` are ``opening_chat``): the
        admissible commands, the game and the step."""
        return {
            "admissible_commands": list(self.admissible_commands(task)),
            "task_type": task.category,
            "game": task.evaluation.get("game"),
            "step": int(task.evaluation["step"]),
            "instruction": STEP_INSTRUCTION,
        }

    def close(self) -> None:
        """Stop the base domain's planner worker and engines."""
        self.base.close()
