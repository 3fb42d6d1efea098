"""The ALFWorld domain: real games and new goals in real scenes, played and checked on the real engine."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from genenv_gym.datasets.data_dir import entry_name
from genenv_gym.domain import Domain, Episode, Verdict
from genenv_gym.envs.alfworld import generator
from genenv_gym.envs.alfworld.commands import normalize_command
from genenv_gym.envs.alfworld.data import (
    DEFAULT_SPLIT,
    SPLITS,
    GameRecord,
    alfworld_root,
    discover_games,
    read_game,
)
from genenv_gym.envs.alfworld.engine import AlfredEngine
from genenv_gym.envs.alfworld.engine_pool import EnginePool
from genenv_gym.envs.alfworld.episode import ALFWorldEpisode
from genenv_gym.envs.alfworld.goals import GoalSpec, with_goal_text
from genenv_gym.envs.alfworld.levels import NUM_LEVELS, difficulty_features
from genenv_gym.envs.alfworld.planner import (
    TranslationCache,
    default_cache_dir,
    translation_dir,
    translation_key,
)
from genenv_gym.envs.alfworld.prompt import SYSTEM_PROMPT, goal_line, task_messages
from genenv_gym.envs.alfworld.scene import replace_goal
from genenv_gym.envs.alfworld.sharing import note_domain
from genenv_gym.envs.alfworld.task_types import TASK_TYPE_NAMES, resolve_task_types
from genenv_gym.suggest import check_choice
from genenv_gym.task import Task

#: ALFWorld's step budget (``max_nb_steps_per_episode`` in its configs).
MAX_STEPS = 50


class ALFWorldDomain(Domain):
    """ALFWorld (TextWorld engine, PDDL backend): six household task types, success = the game is won.

    A Task is one game: its goal, the game it is played in (``evaluation["game"]``), the expert plan
    (``evaluation["walkthrough"]``) and, for generated goals, the goal itself (``evaluation["goal_spec"]``).
    ``verify`` grades a whole transcript (one command per line) by replaying it on the engine.

    Generated goals (``generate``) cost one planner call each (about 1 to 10 seconds; a goal the planner
    cannot solve within ``planner_timeout_s``, typically two objects of a common type in a big kitchen, is
    dropped as ``planner_timeout``); ``validate`` replays the plan on the engine.

    Args:
        data_dir: benchmark data root (see ``genenv_gym.envs.alfworld.data`` for the lookup order).
        split: the split whose games ``load_tasks`` returns (``valid_unseen``: the 134 games papers report).
        scene_split: the split whose scenes generated goals are set in; default ``train`` when it is there,
            else ``split`` with a warning (training on goals in the evaluation scenes leaks those rooms).
        max_steps: the step budget of an episode.
        planner_timeout_s: the longest the planner may search for one generated goal.
        plan_cache: a folder where planner outcomes, and the translations of the goals they solve and of the
            games played, are kept across processes and runs (``"default"``:
            ``~/.cache/genenv_gym/alfworld_plans``; None: memory only). Vector-env copies and later runs then
            plan and translate each goal and game once, and each process keeps only the last few in memory.
        cached_engine: reuse parsed games and translations across resets (default; same transcripts, several
            times faster). ``False`` plays on textworld's ``PddlEnv`` unchanged.

    A process that made a domain imports the engine and plays one game right before it first forks, so that
    the copies an async vector env forks from it share that work; see ``sharing``.
    """

    name = "alfworld"
    num_levels = NUM_LEVELS

    def __init__(
        self,
        data_dir: str | None = None,
        split: str = DEFAULT_SPLIT,
        scene_split: str | None = None,
        max_steps: int = MAX_STEPS,
        planner_timeout_s: float = generator.DEFAULT_TIMEOUT_S,
        cached_engine: bool = True,
        plan_cache: str | None = "default",
    ) -> None:
        if max_steps < 1:
            raise ValueError(f"max_steps must be >= 1, got {max_steps}")
        self.data_dir = data_dir
        self.split = split
        self._scene_split = scene_split
        self.max_steps = max_steps
        self.planner_timeout_s = planner_timeout_s
        self.plan_cache = str(default_cache_dir()) if plan_cache == "default" else plan_cache
        self.cached_engine = cached_engine
        self.translations = (
            TranslationCache(translation_dir(self.plan_cache)) if cached_engine and self.plan_cache else None
        )
        self.engines = EnginePool(self._new_engine)
        self._checker: AlfredEngine | None = None
        self._generator: generator.GoalGenerator | None = None
        if cached_engine:
            note_domain(data_dir, split, self.plan_cache)

    # -- benchmark games -------------------------------------------------------------------------------

    def categories(self) -> tuple[str, ...]:
        return TASK_TYPE_NAMES

    def games(self, categories: Sequence[str] | None = None, split: str | None = None) -> list[GameRecord]:
        """The playable games of a split (default: this domain's), filtered by task type."""
        return discover_games(self.data_dir, split or self.split, categories)

    def load_tasks(self, categories: Sequence[str] | None = None, data_dir: str | None = None) -> list[Task]:
        if data_dir is not None and data_dir != self.data_dir:
            self.data_dir = data_dir
            self._generator = None
        return [self.game_task(game) for game in self.games(resolve_task_types(categories))]

    def game_task(self, game: GameRecord) -> Task:
        """The Task of a benchmark game."""
        features = difficulty_features(game.task_type, game.distractors, len(game.walkthrough))
        return Task(
            id=game.id,
            domain=self.name,
            messages=task_messages(game.goal),
            evaluation={
                "game": game.id,
                "split": game.split,
                "goal": game.goal,
                "walkthrough": list(game.walkthrough),
                "max_steps": self.max_steps,
            },
            difficulty=features,
            provenance=f"benchmark:alfworld_{game.split}",
            category=game.task_type,
        )

    def game_data(self, task: Task) -> dict[str, Any]:
        """What the engine loads for a task: the game file, with the generated goal where the task has one.

        The task names its game by split and id (``<task folder>/<trial folder>``), never by a path: a task
        from anywhere (a client of ``genenv serve``) reads only games of the data dir.
        """
        split = task.evaluation.get("split", self.split)
        check_choice("ALFWorld split", split, SPLITS)
        game = task.evaluation.get("game")
        parts = game.split("/") if isinstance(game, str) else []
        if len(parts) != 2:
            raise ValueError(
                f"an ALFWorld game is named <task folder>/<trial folder>, got {str(game)[:80]!r}"
            )
        folders = [entry_name(part, "an ALFWorld game's folder") for part in parts]
        data = read_game(
            alfworld_root(self.data_dir) / "json_2.1.1" / split / folders[0] / folders[1] / "game.tw-pddl"
        )
        spec = task.evaluation.get("goal_spec")
        if spec:
            goal = GoalSpec.from_dict(spec)
            data = dict(data, walkthrough=list(task.evaluation.get("walkthrough") or ()))
            data["pddl_problem"] = replace_goal(data["pddl_problem"], goal.pddl())
            data["grammar"] = with_goal_text(data["grammar"], str(task.evaluation["goal"]))
        return data

    def prepare(self, categories: Sequence[str] | None = None) -> int:
        """Store the translation of every game of this domain's split (of these task types) that the on-disk
        store lacks, so that no process has to make it on a first visit; how many were made. Nothing to do
        without a store (``plan_cache=None``) or with the raw engine."""
        if self.translations is None:
            return 0
        made = 0
        for game in self.games(resolve_task_types(categories)):
            data = read_game(game.path)
            if self.translations.get(translation_key(data["pddl_domain"], data["pddl_problem"])[0]) is None:
                self.checker.load(data)
                made += 1
        return made

    # -- playing and grading ---------------------------------------------------------------------------

    def _new_engine(self) -> AlfredEngine:
        return AlfredEngine(cached=self.cached_engine, translations=self.translations)

    @property
    def checker(self) -> AlfredEngine:
        """The engine of ``verify`` and ``validate`` (each call loads, replays and is done), apart from the
        episodes' engines, so checks never disturb an episode in progress."""
        if self._checker is None:
            self._checker = self._new_engine()
        return self._checker

    def start_episode(self, task: Task) -> Episode:
        """A new episode of ``task`` on an engine of its own (``engines``: given back when it is closed), so
        any number of episodes can be played at once, interleaved in any order."""
        return ALFWorldEpisode(
            task,
            self.engines,
            self.game_data(task),
            int(task.evaluation.get("max_steps", self.max_steps)),
        )

    def render(self, task: Task) -> str:
        return f"{SYSTEM_PROMPT}\n\n{goal_line(str(task.evaluation['goal']))}"

    def verify(self, task: Task, action: str) -> Verdict:
        """Replay a transcript (one command per line) from the start; success iff it wins within budget."""
        if not isinstance(action, str):
            return Verdict(
                0.0, False, "action_error:not_text", f"action must be a str, got {type(action).__name__}"
            )
        commands = [line for line in action.splitlines() if line.strip()]
        budget = int(task.evaluation.get("max_steps", self.max_steps))
        engine = self.checker
        engine.load(self.game_data(task), key=f"{task.evaluation.get('game')}|{task.id}")
        state = engine.reset()
        steps = 0
        for command in commands[:budget]:
            state = engine.step(normalize_command(command))
            steps += 1
            if state.won:
                break
        details = {"category": task.category, "steps": steps}
        if state.won:
            return Verdict(1.0, True, None, None, details)
        reason = (
            "the step budget ran out" if len(commands) > budget else "the transcript does not win the game"
        )
        return Verdict(0.0, False, "not_won", reason, details)

    def oracle_action(self, task: Task) -> str:
        """The expert walkthrough as a transcript (one command per line), which ``verify`` accepts."""
        return "\n".join(task.evaluation.get("walkthrough") or ())

    def random_action(self, task: Task, rng: np.random.Generator) -> str:
        """A well-formed but uninformed transcript: the expert's commands in a random order."""
        commands = list(task.evaluation.get("walkthrough") or ("look",))
        return "\n".join(commands[i] for i in rng.permutation(len(commands)))

    # -- generated goals -------------------------------------------------------------------------------

    @property
    def scene_split(self) -> str:
        """The split whose scenes generated goals use."""
        if self._scene_split is not None:
            return self._scene_split
        root = alfworld_root(self.data_dir) / "json_2.1.1"
        if (root / "train").is_dir():
            return "train"
        warnings.warn(
            f"ALFWorld 'train' split not found under {root}: generated goals use the {self.split} scenes. "
            "Training on them leaks the evaluation rooms; download the train split or pass scene_split.",
            stacklevel=2,
        )
        self._scene_split = self.split
        return self._scene_split

    @property
    def goal_generator(self) -> generator.GoalGenerator:
        """The generator of new goals over this domain's scenes (built on first use)."""
        if self._generator is None:
            scenes = self.games(split=self.scene_split)
            self._generator = generator.GoalGenerator(
                self, scenes, self.planner_timeout_s, plan_cache=self.plan_cache
            )
        return self._generator

    def generate(self, level: int, rng: np.random.Generator) -> Task:
        return self.goal_generator.generate(level, rng)

    def validate(self, task: Task) -> list[str]:
        return generator.validate_task(self, task)

    def close(self) -> None:
        """Stop the planner worker and the engines."""
        if self._generator is not None:
            self._generator.close()
        self.engines.close()
        if self._checker is not None:
            self._checker.close()
        self._checker = None
