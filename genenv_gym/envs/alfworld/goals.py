"""ALFWorld goals in real scenes: the goals a scene affords, and their PDDL and text as ALFWorld writes them.

The PDDL goals and the goal sentences are ALFWorld's own (``alfworld.gen.goal_library``, the library
``alfworld-generate`` uses); this module fills them in with other objects and receptacles of the same scene.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

from genenv_gym.envs.alfworld.scene import Scene

LAMP_TYPES = ("DeskLamp", "FloorLamp")
#: The appliance a transforming task type uses; placing the object back into it is not a new goal.
APPLIANCES = {
    "pick_clean_then_place_in_recep": ("SinkBasin", "Sink"),
    "pick_heat_then_place_in_recep": ("Microwave",),
    "pick_cool_then_place_in_recep": ("Fridge",),
}
#: The object property each task type needs.
NEEDS = {
    "pick_and_place_simple": "pickupable",
    "look_at_obj_in_light": "pickupable",
    "pick_clean_then_place_in_recep": "cleanable",
    "pick_heat_then_place_in_recep": "heatable",
    "pick_cool_then_place_in_recep": "coolable",
    "pick_two_obj_and_place": "pickupable",
}
_TASK_LINE = re.compile(r'("rhs":\s*"Your task is to: )(.*?)(")')


@dataclass(frozen=True)
class GoalSpec:
    """One goal: a task type and its targets (types, as in ALFRED: ``Apple``, ``Fridge``, ``DeskLamp``)."""

    task_type: str
    obj: str
    recep: str = ""
    toggle: str = ""

    def to_dict(self) -> dict[str, str]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any) -> GoalSpec:
        return cls(**{k: str(data.get(k, "")) for k in ("task_type", "obj", "recep", "toggle")})

    def pddl(self) -> str:
        """The PDDL goal (with the ``)`` that closes ``define``), from ALFWorld's goal library."""
        from alfworld.gen import goal_library

        template = goal_library.gdict[self.task_type]["pddl"]
        return template.format(obj=self.obj, recep=self.recep, toggle=self.toggle, mrecep="").replace(
            "#", "-"
        )

    def text(self, template_index: int = 0) -> str:
        """The goal sentence, from ALFWorld's templates ("put a hot apple in fridge")."""
        from alfworld.gen import goal_library

        templates = goal_library.gdict[self.task_type]["templates"]
        template = templates[template_index % len(templates)]
        return template.format(
            obj=self.obj.lower(), recep=self.recep.lower(), toggle=self.toggle.lower(), mrecep=""
        )


def with_goal_text(grammar: str, text: str) -> str:
    """A game grammar whose ``#task#`` says "Your task is to: <text>."."""
    patched, count = _TASK_LINE.subn(lambda m: f"{m[1]}{text}.{m[3]}", grammar, count=1)
    if count != 1:
        raise ValueError("the grammar has no 'Your task is to:' rule")
    return patched


def afforded_goals(scene: Scene, task_type: str) -> list[GoalSpec]:
    """Every goal of a task type that the scene affords, before any planning.

    The object type must be in the scene with the property the task needs (two instances for
    ``pick_two_obj_and_place``); the receptacle type must be in the scene and allowed to contain the object
    (``canContain``), and not be the appliance of the task; ``look_at_obj_in_light`` needs a toggleable lamp
    standing in a receptacle.
    Only objects that start in a receptacle count (others cannot be taken). Goals already true at the start
    are left out where the scene shows it (the object already in such a receptacle).
    """
    goals: list[GoalSpec] = []
    need = NEEDS[task_type]
    pickable = set(scene.object_types("pickupable"))
    reachable = {scene.objects[o] for o in scene.in_receptacle if o in scene.objects}
    object_types = [
        t for t in scene.object_types(need) if t in pickable and t in reachable and "Sliced" not in t
    ]
    if task_type == "look_at_obj_in_light":
        # the goal asks for the lamp to stand in a receptacle at the agent's location
        toggleable = scene.properties.get("toggleable", set())
        lamps = sorted(
            {scene.objects[o] for o in toggleable if o in scene.objects and o in scene.in_receptacle}
        )
        for lamp in (lamp for lamp in lamps if lamp in LAMP_TYPES):
            goals += [GoalSpec(task_type, obj, toggle=lamp) for obj in object_types if obj not in LAMP_TYPES]
        return goals
    appliances = APPLIANCES.get(task_type, ())
    if appliances and not any(scene.has_receptacle(a) for a in appliances):
        return []
    needed = 2 if task_type == "pick_two_obj_and_place" else 1
    for obj in object_types:
        instances = [o for o in scene.instances(obj) if o in scene.in_receptacle]  # reachable ones
        if len(instances) < needed:
            continue
        for recep in scene.receptacle_types():
            if recep in appliances or (recep, obj) not in scene.can_contain:
                continue
            already = sum(
                scene.receptacles.get(scene.in_receptacle.get(o, ""), "") == recep for o in instances
            )
            if task_type in ("pick_and_place_simple", "pick_two_obj_and_place") and already >= needed:
                continue
            goals.append(GoalSpec(task_type, obj, recep))
    return goals


def estimate_plan_steps(scene: Scene, goal: GoalSpec) -> int:
    """The length of the shortest plan for a goal, counted from the scene without the planner.

    Each visit to a receptacle is one ``go to``, a closed one is opened once, and the object is taken,
    transformed at its appliance and placed, one step each; the cheapest instances and receptacles win. It
    is used to aim goal generation at a level; the planner's plan is what the level is finally read from.
    """
    openable = scene.properties.get("openable", set())
    instances = [o for o in scene.instances(goal.obj) if o in scene.in_receptacle]
    if goal.task_type == "look_at_obj_in_light":
        lamps = [o for o in scene.instances(goal.toggle) if o in scene.in_receptacle]
        costs = [
            _fetch(scene.in_receptacle[o], openable)
            + int(scene.in_receptacle[lamp] != scene.in_receptacle[o])
            + 1
            for o in instances
            for lamp in lamps
        ]
        return min(costs, default=0)
    targets = [r for r, t in scene.receptacles.items() if t == goal.recep]
    transform = 2 if goal.task_type in APPLIANCES else 0  # go to the appliance, use it
    costs = []
    for o in instances:
        source = scene.in_receptacle[o]
        for target in targets:
            opened = {source} if source in openable else set()
            cost = _fetch(source, openable) + transform + _place(target, openable, opened)
            if goal.task_type == "pick_two_obj_and_place":
                opened |= {target} if target in openable else set()
                second = [
                    _fetch(scene.in_receptacle[p], openable - opened)
                    + _place(target, openable, opened | {target})
                    for p in instances
                    if p != o
                ]
                if not second:
                    continue
                cost += min(second)
            costs.append(cost)
    return min(costs, default=0)


def _fetch(source: str, openable: set[str]) -> int:
    """go to the source, open it if it is closed, take the object."""
    return 2 + int(source in openable)


def _place(target: str, openable: set[str], opened: set[str]) -> int:
    """go to the target, open it if it is closed and not opened yet, move the object there."""
    return 2 + int(target in openable and target not in opened)
