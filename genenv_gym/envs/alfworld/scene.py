"""What a real ALFWorld scene holds, read from a game's PDDL problem without the engine."""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field

_FACT = re.compile(r"\((\w+)((?: [^\s()]+)+)\)")
_GOAL = re.compile(r"\(:goal\b")
#: Unary properties of objects and receptacles that goal generation reads.
PROPERTIES = (
    "pickupable",
    "cleanable",
    "heatable",
    "coolable",
    "toggleable",
    "openable",
    "sliceable",
    "isReceptacleObject",
    "isCool",
    "isHot",
    "isClean",
)


def type_name(pddl_type: str) -> str:
    """``AppleType`` -> ``Apple``."""
    return pddl_type[: -len("Type")] if pddl_type.endswith("Type") else pddl_type


@dataclass
class Scene:
    """The initial state of one real ALFWorld scene.

    Attributes:
        objects: object id -> object type (``Apple``); ids are the PDDL names (``Apple_bar__plus_00...``).
        receptacles: receptacle id -> receptacle type (``Fridge``).
        properties: property name -> ids that have it (``heatable``, ``openable``, ...).
        in_receptacle: object id -> the receptacle id it starts in.
        can_contain: (receptacle type, object type) pairs the domain allows.
    """

    objects: dict[str, str] = field(default_factory=dict)
    receptacles: dict[str, str] = field(default_factory=dict)
    properties: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    in_receptacle: dict[str, str] = field(default_factory=dict)
    can_contain: set[tuple[str, str]] = field(default_factory=set)

    def instances(self, object_type: str) -> list[str]:
        """Ids of the objects of a type."""
        return sorted(o for o, t in self.objects.items() if t == object_type)

    def object_types(self, prop: str | None = None) -> list[str]:
        """Object types present in the scene (those with ``prop`` when given)."""
        ids = self.objects if prop is None else self.properties.get(prop, set()) & set(self.objects)
        return sorted({self.objects[o] for o in ids})

    def receptacle_types(self) -> list[str]:
        """Receptacle types present in the scene."""
        return sorted(set(self.receptacles.values()))

    def has_receptacle(self, receptacle_type: str) -> bool:
        return receptacle_type in self.receptacles.values()

    def distractors(self, object_type: str) -> int:
        """Receptacles where no instance of ``object_type`` starts: the places an agent may search in vain."""
        holding = {self.in_receptacle[o] for o in self.instances(object_type) if o in self.in_receptacle}
        return len(self.receptacles) - len(holding)


def parse_scene(pddl_problem: str) -> Scene:
    """The scene of a PDDL problem (its ``:init`` section)."""
    start = pddl_problem.find("(:init")
    goal = _GOAL.search(pddl_problem)
    init = pddl_problem[start : goal.start() if goal else len(pddl_problem)]
    scene = Scene()
    for name, args in _FACT.findall(init):
        values = args.split()
        if name == "objectType" and len(values) == 2:
            scene.objects[values[0]] = type_name(values[1])
        elif name == "receptacleType" and len(values) == 2:
            scene.receptacles[values[0]] = type_name(values[1])
        elif name == "inReceptacle" and len(values) == 2:
            scene.in_receptacle[values[0]] = values[1]
        elif name == "canContain" and len(values) == 2:
            scene.can_contain.add((type_name(values[0]), type_name(values[1])))
        elif name in PROPERTIES and len(values) == 1:
            scene.properties[name].add(values[0])
    return scene


def replace_goal(pddl_problem: str, goal_pddl: str) -> str:
    """The problem with its ``(:goal ...)`` (and the closing of ``define``) replaced by ``goal_pddl``.

    ``goal_pddl`` is written as ALFWorld's goal library writes it: the goal followed by the ``)`` that
    closes ``(define``.
    """
    match = _GOAL.search(pddl_problem)
    if match is None:
        raise ValueError("the PDDL problem has no (:goal ...) section")
    return pddl_problem[: match.start()] + goal_pddl.strip() + "\n"
