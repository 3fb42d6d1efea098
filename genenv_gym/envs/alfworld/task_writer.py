"""How an environment LLM writes ALFWorld goals: the prompt, the strict JSON schema, its parser.

The LLM is shown a few real scenes (their receptacles, and their objects with what can be done to them) and
picks a goal in one of them, as one JSON object::

    {"scene": "pick_heat_then_place_in_recep-Egg-None-Fridge-10/trial_T20190908_123036_372587",
     "task_type": "pick_heat_then_place_in_recep", "object": "Apple", "receptacle": "CounterTop",
     "lamp": null, "goal": "heat an apple and put it on the countertop"}

The scene decides the rest: the goal must be one the scene affords (the object there, with the property
the task type needs; a receptacle of the scene that may hold it; a lamp for ``look_at_obj_in_light``), else
it is rejected as ``invalid`` with the reason. The goal's words must agree with its structure
(``semantic_problems``): they name the object, the receptacle or lamp, the transformation of the task type
and no other one, no other thing of the scene, and two objects exactly when the type takes two. Only then
is the planner asked for a plan in that scene (``GoalGenerator.make_task``); a goal it cannot solve keeps
the planner's verdict and ``Domain.validate`` rejects it, and a solved one is replayed on the engine. The
expert plan, the level and the task id are the domain's, never the LLM's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from genenv_gym.envs.alfworld.data import GameRecord, read_game
from genenv_gym.envs.alfworld.domain import ALFWorldDomain
from genenv_gym.envs.alfworld.goals import APPLIANCES, LAMP_TYPES, NEEDS, GoalSpec, afforded_goals
from genenv_gym.envs.alfworld.levels import NUM_LEVELS
from genenv_gym.envs.alfworld.prompt import task_messages
from genenv_gym.envs.alfworld.scene import Scene, parse_scene
from genenv_gym.envs.alfworld.task_types import TASK_TYPE_NAMES
from genenv_gym.llm_simulator.writer import (
    Target,
    TaskRejected,
    TaskWriterBase,
    describe_skill,
    require_keys,
    strict_json_object,
    task_digest,
)
from genenv_gym.skill import SkillEstimate
from genenv_gym.task import Task, thaw

#: Scenes described per prompt.
SCENES_PER_PROMPT = 3
#: Seed tasks planned when the simulator is given none (each costs one planner call).
SEED_TASKS = NUM_LEVELS
#: A goal is a short ASCII sentence: the game's grammar holds it inside a JSON string, so quotes,
#: backslashes and the grammar's ``#symbol#`` marks are not allowed.
GOAL_TEXT = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ,'\-]{4,159}")
#: A goal is one short imperative: ALFWorld's own goals have 5-8 words (the 134 valid_unseen games),
#: a paraphrase a few more; anything longer carries a second message.
MAX_GOAL_WORDS = 12

#: Words that say each transformation; a goal of another type must not use them.
TRANSFORMATIONS = {
    "pick_heat_then_place_in_recep": ("hot", "heat", "heated", "warm", "warmed", "warm up"),
    "pick_cool_then_place_in_recep": ("cool", "cooled", "cold", "chill", "chilled"),
    "pick_clean_then_place_in_recep": ("clean", "cleaned", "wash", "washed", "rinse", "rinsed"),
}
#: Words of looking, one of which a ``look_at_obj_in_light`` goal uses.
LOOKING = ("look", "examine", "inspect", "check", "study", "view", "see", "read")
#: What the prompt says can be done to an object.
_TRAITS = ("pickupable", "heatable", "coolable", "cleanable", "toggleable")
#: Words that count two objects.
TWO = ("two", "2", "both", "pair")

SYSTEM_PROMPT = """You write new household goals for an agent playing ALFWorld (a text version of \
ALFRED): the agent walks between receptacles, opens them, takes and moves objects, and heats (microwave), \
cools (fridge) or cleans (sink basin) them, or looks at them under a lamp. Reply with exactly one JSON \
object and nothing else. Its keys:
- "scene": the id of one of the scenes below.
- "task_type": one of {task_types}.
- "object": an object type of that scene (as written below) with what the task type needs \
({needs}); two of them must be there for pick_two_obj_and_place.
- "receptacle": where the object must end up, a receptacle type of the scene that can hold it \
(null for look_at_obj_in_light; not the appliance that transforms it).
- "lamp": for look_at_obj_in_light, a lamp type of the scene ({lamps}); else null.
- "goal": the goal as the agent reads it, a short English sentence of at most 12 words (letters, digits, \
spaces, commas, hyphens, apostrophes) naming the object, the receptacle or lamp, and the transformation \
("heat some egg and put it in the fridge"), and nothing else of the scene.
A planner checks every goal in its scene: goals the scene does not afford, that it cannot solve, or whose \
words disagree with the keys are discarded."""


@lru_cache(maxsize=64)
def scene_of(path: str) -> Scene:
    """The parsed initial state of a game file (the last 64 used are kept)."""
    return parse_scene(read_game(path)["pddl_problem"])


def describe_scene(scene: Scene) -> str:
    """A scene as prompt text: its receptacle types with counts, and each object type with its count, what
    can be done to it and the receptacle types it starts in."""
    receptacles = {}
    for kind in scene.receptacles.values():
        receptacles[kind] = receptacles.get(kind, 0) + 1
    lines = ["  receptacles: " + ", ".join(f"{k} x{n}" for k, n in sorted(receptacles.items()))]
    for kind in scene.object_types():
        ids = scene.instances(kind)
        traits = sorted({p for p in _TRAITS for o in ids if o in scene.properties.get(p, set())})
        where = sorted(
            {scene.receptacles.get(scene.in_receptacle[o], "?") for o in ids if o in scene.in_receptacle}
        )
        lines.append(
            f"  {kind} x{len(ids)}: {', '.join(traits) or 'fixed'}; in {', '.join(where) or 'no receptacle'}"
        )
    return "\n".join(lines)


def task_content(task: Task) -> dict[str, Any]:
    """A generated goal in the writer's JSON schema (what an example in a prompt looks like)."""
    spec = GoalSpec.from_dict(thaw(task.evaluation["goal_spec"]))
    return {
        "scene": task.evaluation["game"],
        "task_type": spec.task_type,
        "object": spec.obj,
        "receptacle": spec.recep or None,
        "lamp": spec.toggle or None,
        "goal": task.evaluation["goal"],
    }


def _forms(type_name: str) -> list[str]:
    """How a goal may write a type: ``SoapBar`` as ``soapbar`` or ``soap bar`` (lower case)."""
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", type_name).lower()
    return sorted({type_name.lower(), spaced}, key=len, reverse=True)


def _mentions(text: str, words: Sequence[str]) -> bool:
    """Whether ``text`` (lower case) holds one of ``words`` as a whole word (an ``s``/``es`` plural too)."""
    return any(re.search(rf"\b{re.escape(w)}(?:s|es)?\b", text) for w in words)


def wording_problems(goal: str, spec: GoalSpec, scene: Scene) -> list[str]:
    """Why the words of ``goal`` disagree with ``spec`` in ``scene`` (empty when they agree)."""
    text = goal.lower()
    problems = []
    if len(goal.split()) > MAX_GOAL_WORDS:
        problems.append(
            f"the goal has {len(goal.split())} words; a goal is one imperative of at most {MAX_GOAL_WORDS}"
        )
    named = {spec.obj: "object", spec.recep: "receptacle", spec.toggle: "lamp"}
    for kind, role in named.items():
        if kind and not _mentions(text, _forms(kind)):
            problems.append(f"the goal does not name its {role} {kind}")
    allowed = set(named) | set(APPLIANCES.get(spec.task_type, ()))
    others = [k for k in {*scene.object_types(), *scene.receptacle_types()} if k not in allowed]
    masked = text
    for kind in sorted(allowed - {""}, key=len, reverse=True):  # "desk lamp" must not also read as "desk"
        for form in _forms(kind):
            masked = re.sub(rf"\b{re.escape(form)}(?:s|es)?\b", " ", masked)
    extra = sorted(k for k in others if _mentions(masked, _forms(k)))
    if extra:
        problems.append(f"the goal names {', '.join(extra[:3])}, which the goal is not about")
    own = TRANSFORMATIONS.get(spec.task_type)
    if own and not _mentions(text, own):
        problems.append(f"the goal does not say the transformation of {spec.task_type} ({own[0]})")
    if spec.task_type == "look_at_obj_in_light" and not _mentions(text, LOOKING):
        problems.append("the goal does not ask to look at the object")
    for other, words in TRANSFORMATIONS.items():
        if other != spec.task_type and _mentions(text, words):
            problems.append(f"the goal says a transformation its type does not do ({other})")
    two = spec.task_type == "pick_two_obj_and_place"
    if two != _mentions(text, TWO):
        problems.append("the goal must ask for two objects" if two else "the goal asks for two objects")
    return problems


class ALFWorldTaskWriter(TaskWriterBase):
    """The TaskWriter of the ``alfworld`` domain (see the module docstring)."""

    domain: ALFWorldDomain

    def __init__(self, domain: ALFWorldDomain, seed: int = 0) -> None:
        super().__init__(domain, seed)
        self._scenes: dict[str, GameRecord] = {}
        self._scenes_of: object = None

    def seed_tasks(self, n: int, rng: np.random.Generator) -> list[Task]:
        """At most ``SEED_TASKS`` planned goals, one per level: each costs a planner call, and a handful
        shows the format."""
        return super().seed_tasks(min(n, SEED_TASKS), rng)

    @property
    def scenes(self) -> dict[str, GameRecord]:
        """The scenes goals may be set in, by id (the domain's scene split)."""
        generator = self.domain.goal_generator
        if self._scenes_of is not generator:
            self._scenes = {game.id: game for game in generator.scenes}
            self._scenes_of = generator
        return self._scenes

    def prompt(self, seeds: Sequence[Task], skill: SkillEstimate, target: Target) -> list[dict[str, str]]:
        level = min(max(int(target.level), 0), NUM_LEVELS - 1)
        scenes = list(self.scenes.values())
        picked = self.rng.choice(len(scenes), size=min(SCENES_PER_PROMPT, len(scenes)), replace=False)
        shown = [scenes[int(i)] for i in picked]
        described = "\n".join(f"- scene {g.id}:\n{describe_scene(scene_of(str(g.path)))}" for g in shown)
        steps = level + 4
        examples = [json.dumps(task_content(s)) for s in seeds if "goal_spec" in s.evaluation]
        parts = [
            "The agent's record:\n" + describe_skill(skill),
            f"Write a goal at difficulty level {level} of {NUM_LEVELS - 1}: about {steps} "
            f"{'or more ' if level == NUM_LEVELS - 1 else ''}expert steps (each go to, open, take, "
            "heat/cool/clean and move is a step; a second object or a transformation adds steps). Aim for a "
            f"goal the agent reaches about {target.alpha:.0%} of the time.",
            "Scenes:\n" + described,
        ]
        if examples:
            parts.append("Examples of the format (do not copy them):\n" + "\n".join(examples[:4]))
        parts.append("Write one new goal as a single JSON object.")
        system = SYSTEM_PROMPT.format(
            task_types=", ".join(TASK_TYPE_NAMES),
            needs="; ".join(f"{t}: {p}" for t, p in NEEDS.items()),
            lamps=", ".join(LAMP_TYPES),
        )
        return [{"role": "system", "content": system}, {"role": "user", "content": "\n\n".join(parts)}]

    def parse(self, reply: str, target: Target, provenance: str) -> Task:
        data = strict_json_object(reply)
        require_keys(data, ("scene", "task_type", "object", "goal"), ("receptacle", "lamp"))
        game = self.scenes.get(data["scene"]) if isinstance(data["scene"], str) else None
        if game is None:
            raise TaskRejected("parse", "scene must be the id of one of the domain's scenes")
        if data["task_type"] not in TASK_TYPE_NAMES:
            raise TaskRejected("parse", f"task_type must be one of {list(TASK_TYPE_NAMES)}")
        obj, recep, lamp = (data.get(key) for key in ("object", "receptacle", "lamp"))
        recep, lamp = ("" if value is None else value for value in (recep, lamp))
        if not all(isinstance(v, str) and re.fullmatch(r"[A-Za-z]{0,40}", v) for v in (obj, recep, lamp)):
            raise TaskRejected(
                "parse", "object, receptacle and lamp must be type names (letters only) or null"
            )
        looking = data["task_type"] == "look_at_obj_in_light"
        if not obj or (looking and (recep or not lamp)) or (not looking and (lamp or not recep)):
            raise TaskRejected(
                "parse",
                "look_at_obj_in_light takes an object and a lamp; the other types an object and a receptacle",
            )
        goal = data["goal"]
        if not isinstance(goal, str) or not GOAL_TEXT.fullmatch(goal.strip().rstrip(".")):
            raise TaskRejected("parse", f"goal must match {GOAL_TEXT.pattern} (no quotes, no other signs)")
        goal = " ".join(goal.strip().rstrip(".").split())
        spec = GoalSpec(data["task_type"], obj, recep, lamp)
        scene = scene_of(str(game.path))
        if spec not in afforded_goals(scene, spec.task_type):
            reason = why_not_afforded(spec, scene)
            raise TaskRejected("invalid", f"scene {game.id} does not afford the goal: {reason}")
        if problems := wording_problems(goal, spec, scene):  # before the planner is asked
            raise TaskRejected("semantic", "; ".join(problems))
        planned = self.domain.goal_generator.make_task(game, spec, self.rng)
        evaluation = {**thaw(planned.evaluation), "goal": goal}
        return Task(
            id=f"alfworld_llm_{spec.task_type}_{task_digest(game.split, game.id, spec.to_dict(), goal)}",
            domain=self.domain.name,
            messages=task_messages(goal),
            evaluation=evaluation,
            difficulty={**thaw(planned.difficulty), "target_level": int(target.level)},
            provenance=provenance,
            category=spec.task_type,
        )

    def semantic_problems(self, task: Task) -> list[str]:
        """The goal's words must name its object, receptacle or lamp and transformation, and nothing else."""
        spec = GoalSpec.from_dict(thaw(task.evaluation["goal_spec"]))
        game = self.scenes.get(str(task.evaluation["game"]))
        if game is None:
            return [f"the scene {task.evaluation['game']!r} is not one of the domain's"]
        return wording_problems(str(task.evaluation["goal"]), spec, scene_of(str(game.path)))

    def fingerprint(self, task: Task) -> tuple[str, str]:
        spec = thaw(task.evaluation["goal_spec"])
        scene = str(task.evaluation["game"])
        key = json.dumps([scene, spec], sort_keys=True)
        # the scene as a short tag: the same words in another room are another task, not a near-duplicate
        return key, f"{task.evaluation['goal']} {task_digest(scene)[:8]}"


def why_not_afforded(spec: GoalSpec, scene: Scene) -> str:
    """The first reason a goal is not among the goals ``scene`` affords (for the rejection's reason)."""
    if spec.obj not in scene.object_types():
        return f"no {spec.obj} in the scene"
    need = NEEDS[spec.task_type]
    if spec.obj not in scene.object_types(need):
        return f"the {spec.obj} is not {need}"
    if spec.toggle:
        if spec.toggle not in LAMP_TYPES:
            return f"{spec.toggle} is not a lamp ({', '.join(LAMP_TYPES)})"
        return f"no {spec.toggle} standing in a receptacle, or the {spec.obj} cannot be reached"
    if not scene.has_receptacle(spec.recep):
        return f"no {spec.recep} in the scene"
    if spec.recep in APPLIANCES.get(spec.task_type, ()):
        return f"{spec.recep} is the appliance of {spec.task_type}, not a destination"
    if (spec.recep, spec.obj) not in scene.can_contain:
        return f"a {spec.recep} cannot hold a {spec.obj}"
    if spec.task_type == "pick_two_obj_and_place":
        return f"fewer than two reachable {spec.obj}, or both already in a {spec.recep}"
    return f"the {spec.obj} cannot be reached, already is in a {spec.recep}, or its appliance is missing"
