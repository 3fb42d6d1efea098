"""New ALFWorld goals over real scenes at a difficulty level, each planned by the PDDL planner and checked.

``GoalGenerator.generate(level)`` picks a scene (a real game's room and object placement), a task type and a
goal that scene affords whose estimated level is the one asked for, and asks the planner (fast-downward, in a
worker process with a time limit) for a plan. The plan's length, the sub-goals of the type and the distractors
of the scene
give the goal's level; a goal that lands on another level is kept for a later request of that level. A goal
the planner cannot solve is still returned, with the planner's verdict, so that ``validate_task`` rejects it
with its reason and the simulator counts it. ``validate_task`` replays the expert plan on the engine: every
step must be admissible and the plan must win within the step budget.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict, deque
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from genenv_gym.envs.alfworld.commands import normalize_command
from genenv_gym.envs.alfworld.data import GameRecord, read_game
from genenv_gym.envs.alfworld.goals import GoalSpec, afforded_goals, estimate_plan_steps, with_goal_text
from genenv_gym.envs.alfworld.levels import NUM_LEVELS, difficulty_features
from genenv_gym.envs.alfworld.planner import DEFAULT_TIMEOUT_S, PlannerWorker
from genenv_gym.envs.alfworld.prompt import task_messages
from genenv_gym.envs.alfworld.scene import Scene, parse_scene, replace_goal
from genenv_gym.envs.alfworld.task_types import TASK_TYPE_NAMES
from genenv_gym.task import Task

if TYPE_CHECKING:
    from genenv_gym.envs.alfworld.domain import ALFWorldDomain

__all__ = ["DEFAULT_TIMEOUT_S", "GoalGenerator", "validate_task"]

#: Planned goals kept per level for later requests.
STASH_SIZE = 16


class GoalGenerator:
    """Proposes planned goals at a level over a fixed set of real scenes.

    Args:
        domain: the ALFWorld domain (for the step budget and the task format).
        scenes: the games whose rooms and object placements goals are set in.
        planner_timeout_s: the longest the planner may search for one goal.
        attempts: goals planned per request before settling for one at a neighbouring level.
        plan_cache: the planner's on-disk cache folder (None: memory only).
    """

    def __init__(
        self,
        domain: ALFWorldDomain,
        scenes: Sequence[GameRecord],
        planner_timeout_s: float = DEFAULT_TIMEOUT_S,
        attempts: int = 6,
        plan_cache: str | None = None,
    ) -> None:
        if not scenes:
            raise ValueError("goal generation needs at least one scene")
        self.domain = domain
        self.scenes = list(scenes)
        self.attempts = attempts
        self.planner = PlannerWorker(planner_timeout_s, plan_cache)
        self._stash: dict[int, deque[Task]] = {}
        self._scenes: OrderedDict[str, tuple[dict[str, Any], Scene]] = OrderedDict()

    def _scene(self, game: GameRecord) -> tuple[dict[str, Any], Scene]:
        """A scene's game data and parsed initial state (the last 128 used are kept)."""
        if game.id in self._scenes:
            self._scenes.move_to_end(game.id)
        else:
            data = read_game(game.path)
            self._scenes[game.id] = (data, parse_scene(data["pddl_problem"]))
            if len(self._scenes) > 128:
                self._scenes.popitem(last=False)
        return self._scenes[game.id]

    def propose(self, level: int, rng: np.random.Generator) -> tuple[GameRecord, GoalSpec] | None:
        """A scene and a new goal in it whose estimated level is ``level``, or None.

        The scene's own benchmark goal is never proposed; the level is estimated with the plan length
        ``estimate_plan_steps`` counts, so that the planner is asked once per goal, not once per guess.
        """
        for _ in range(16):
            game = self.scenes[int(rng.integers(len(self.scenes)))]
            _, scene = self._scene(game)
            own = game.id.split("/", 1)[0].split("-")
            by_type: dict[str, list[GoalSpec]] = {}
            for task_type in TASK_TYPE_NAMES:
                for goal in afforded_goals(scene, task_type):
                    steps = estimate_plan_steps(scene, goal)
                    features = difficulty_features(task_type, scene.distractors(goal.obj), steps)
                    if features["level"] == level and steps > 0 and not _is_own_goal(goal, own):
                        by_type.setdefault(task_type, []).append(goal)
            if by_type:
                goals = by_type[sorted(by_type)[int(rng.integers(len(by_type)))]]
                return game, goals[int(rng.integers(len(goals)))]
        return None

    def make_task(self, game: GameRecord, spec: GoalSpec, rng: np.random.Generator) -> Task:
        """Plan a goal and write it as a Task (with the planner's verdict when it found no plan)."""
        data, scene = self._scene(game)
        text = spec.text(int(rng.integers(2)))
        problem = replace_goal(data["pddl_problem"], spec.pddl())
        planned = dict(
            data, pddl_problem=problem, grammar=with_goal_text(data["grammar"], text), walkthrough=None
        )
        outcome = self.planner.plan(planned, meanwhile=lambda: self._prepare(planned))
        if self.planner.translations is not None and outcome.status == "solved":
            # the worker's translation of this problem, for the validation and the episode of this process
            self.planner.translations.seed(planned["pddl_domain"], problem)
        steps = len(outcome.plan) or estimate_plan_steps(scene, spec)  # the estimate when there is no plan
        features = difficulty_features(spec.task_type, scene.distractors(spec.obj), steps)
        digest = hashlib.sha1(f"{game.split}/{game.id}|{spec}|{text}".encode()).hexdigest()[:12]
        return Task(
            id=f"alfworld_gen_{spec.task_type}_{digest}",
            domain=self.domain.name,
            messages=task_messages(text),
            evaluation={
                "game": game.id,
                "split": game.split,
                "goal": text,
                "goal_spec": spec.to_dict(),
                "walkthrough": list(outcome.plan),
                "max_steps": self.domain.max_steps,
                "planner": {"status": outcome.status, "reason": outcome.reason},
            },
            difficulty=features,
            provenance="procedural",
            category=spec.task_type,
        )

    def _prepare(self, game: dict[str, Any]) -> None:
        """What this process needs to validate a goal, done while the worker plans it: the engine (imported
        on first use) and, without a translation cache to take the worker's from, the problem's translation
        (memoized for the validation and for the episode that plays it)."""
        checker = self.domain.checker
        if self.planner.translations is None:
            checker.load(game)

    def generate(self, level: int, rng: np.random.Generator) -> Task:
        """A planned goal at ``level``; after ``attempts`` misses (or where no scene affords the level), the
        planned goal nearest to it."""
        level = int(np.clip(level, 0, NUM_LEVELS - 1))
        if self._stash.get(level):
            return self._stash[level].popleft()
        planned: list[Task] = []
        for _ in range(self.attempts):
            proposal = self.propose(level, rng)
            elsewhere = proposal is None  # the scenes afford no goal at this level: the nearest that has one
            if elsewhere:
                nearest = (self.propose(other, rng) for other in _by_distance(level))
                proposal = next(filter(None, nearest), None)
            if proposal is None:
                break
            task = self.make_task(*proposal, rng)
            if elsewhere or task.evaluation["planner"]["status"] != "solved" or task.level == level:
                return task
            planned.append(task)
        if not planned:
            raise RuntimeError(f"no scene affords a goal for level {level}")
        closest = min(planned, key=lambda t: abs(t.level - level))
        for task in planned:
            if task is not closest:
                self._stash.setdefault(task.level, deque(maxlen=STASH_SIZE)).append(task)
        return closest

    def close(self) -> None:
        self.planner.close()


def _by_distance(level: int) -> list[int]:
    """The other levels, nearest first (lower first on ties)."""
    return sorted((other for other in range(NUM_LEVELS) if other != level), key=lambda o: (abs(o - level), o))


def _is_own_goal(goal: GoalSpec, folder: list[str]) -> bool:
    """Whether a goal is the benchmark goal of the scene's own trial (``type-Obj-Mrecep-Recep-scene``)."""
    if len(folder) < 4 or goal.task_type != folder[0] or goal.obj != folder[1]:
        return False
    return (goal.toggle or goal.recep) == folder[3]


def validate_task(domain: ALFWorldDomain, task: Task) -> list[str]:
    """Reasons an ALFWorld task cannot be served; empty when its expert plan wins it on the engine."""
    if task.domain != domain.name:
        return [f"task belongs to domain {task.domain!r}, not {domain.name!r}"]
    if task.category not in TASK_TYPE_NAMES:
        return [f"unknown task type {task.category!r}"]
    evaluation = task.evaluation
    if not evaluation.get("game") or not evaluation.get("goal"):
        return ["malformed: the task names no game or no goal"]
    planner = evaluation.get("planner") or {}
    if planner.get("status", "solved") != "solved":
        return [f"planner_{planner['status']}"]
    plan = [str(a) for a in evaluation.get("walkthrough") or ()]
    if not plan:
        return ["malformed: no expert plan"]
    budget = int(evaluation.get("max_steps", domain.max_steps))
    if len(plan) > budget:
        return ["plan_longer_than_step_budget"]
    try:
        data = domain.game_data(task)
        engine = domain.checker
        engine.load(data, key=f"{evaluation['game']}|{task.id}")
        state = engine.reset()
    except Exception as error:  # a goal the engine cannot build is not servable
        return [f"engine_error: {type(error).__name__}"]
    if state.won:
        return ["trivial: the goal holds at the start"]
    for action in plan:
        if normalize_command(action) not in state.admissible_commands:
            return ["plan_step_not_admissible"]
        state = engine.step(normalize_command(action))
    return [] if state.won else ["plan_does_not_win"]
