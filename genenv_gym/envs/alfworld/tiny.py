"""A tiny hand-written ALFWorld room, one game per task type, for tests that run without the real games.

The games use ALFWorld's own PDDL domain and grammar (``alfworld/data/alfred.pddl`` and ``alfred.twl2``,
shipped in the alfworld wheel) and a six-receptacle room written here; ``write_tiny_games(root)`` lays
them out as ``alfworld-download`` does (``root/alfworld/json_2.1.1/valid_unseen/<folder>/trial_tiny/``),
so ``gymnasium.make("GenEnv-ALFWorld-v0", data_dir=root)`` plays them on the real engine. On a fresh
install (no data dir chosen, no games) ``offline_fixtures`` gives them as the fixtures that stand in for the
benchmark.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from importlib import resources
from pathlib import Path

from genenv_gym.envs.alfworld.goals import GoalSpec, with_goal_text
from genenv_gym.envs.alfworld.scene import replace_goal

RECEPTACLES = {"Desk": 1, "Fridge": 2, "Microwave": 3, "SinkBasin": 4, "Shelf": 5, "Cabinet": 6}
#: PDDL ids of the receptacles (ALFRED names sink basins "Sink|...|SinkBasin"; the game shows "sinkbasin 1")
RECEPTACLE_IDS = {r: "Sink_bar_1_bar_SinkBasin" if r == "SinkBasin" else f"{r}_bar_1" for r in RECEPTACLES}
OPENABLE = ("Fridge", "Microwave", "Cabinet")
#: object id -> (type, receptacle type it starts in, properties)
OBJECTS = {
    "Apple_bar_1": ("Apple", "Fridge", ("pickupable", "heatable", "coolable", "cleanable")),
    "Apple_bar_2": ("Apple", "Desk", ("pickupable", "heatable", "coolable", "cleanable")),
    "Mug_bar_1": ("Mug", "Shelf", ("pickupable", "heatable", "coolable", "cleanable", "isReceptacleObject")),
    "DeskLamp_bar_1": ("DeskLamp", "Desk", ("toggleable",)),
    "Plate_bar_1": ("Plate", "Cabinet", ("pickupable", "heatable", "coolable", "cleanable")),
}
#: Where ``import alfworld`` points ``$ALFWORLD_DATA`` when it is unset (alfworld/info.py sets the variable).
ALFWORLD_OWN_DEFAULT = "~/.cache/alfworld"
CAN_CONTAIN = [(r, o) for r in RECEPTACLES for o in ("Apple", "Mug", "Plate")]
#: One game per task type: its goal, its folder, and its walkthrough (checked by tests on the engine).
GAMES = {
    "pick_and_place_simple": (
        GoalSpec("pick_and_place_simple", "Mug", "Desk"),
        ["go to shelf 1", "take mug 1 from shelf 1", "go to desk 1", "move mug 1 to desk 1"],
    ),
    "look_at_obj_in_light": (
        GoalSpec("look_at_obj_in_light", "Mug", toggle="DeskLamp"),
        ["go to shelf 1", "take mug 1 from shelf 1", "go to desk 1", "use desklamp 1"],
    ),
    "pick_clean_then_place_in_recep": (
        GoalSpec("pick_clean_then_place_in_recep", "Mug", "Desk"),
        [
            "go to shelf 1",
            "take mug 1 from shelf 1",
            "go to sinkbasin 1",
            "clean mug 1 with sinkbasin 1",
            "go to desk 1",
            "move mug 1 to desk 1",
        ],
    ),
    "pick_heat_then_place_in_recep": (
        GoalSpec("pick_heat_then_place_in_recep", "Apple", "Shelf"),
        [
            "go to desk 1",
            "take apple 1 from desk 1",
            "go to microwave 1",
            "heat apple 1 with microwave 1",
            "go to shelf 1",
            "move apple 1 to shelf 1",
        ],
    ),
    "pick_cool_then_place_in_recep": (
        GoalSpec("pick_cool_then_place_in_recep", "Mug", "Shelf"),
        [
            "go to shelf 1",
            "take mug 1 from shelf 1",
            "go to fridge 1",
            "cool mug 1 with fridge 1",
            "go to shelf 1",
            "move mug 1 to shelf 1",
        ],
    ),
    "pick_two_obj_and_place": (
        GoalSpec("pick_two_obj_and_place", "Apple", "Shelf"),
        [
            "go to desk 1",
            "take apple 1 from desk 1",
            "go to shelf 1",
            "move apple 1 to shelf 1",
            "go to fridge 1",
            "open fridge 1",
            "take apple 2 from fridge 1",
            "go to shelf 1",
            "move apple 2 to shelf 1",
        ],
    ),
}


def tiny_problem() -> str:
    """The room as a PDDL problem (with a placeholder goal)."""
    objects = ["agent1 - agent"]
    objects += [f"{t}Type - otype" for t in sorted({t for t, _, _ in OBJECTS.values()})]
    objects += [f"{r}Type - rtype" for r in RECEPTACLES]
    objects += [f"{o} - object" for o in OBJECTS]
    objects += [f"{RECEPTACLE_IDS[r]} - receptacle" for r in RECEPTACLES]
    objects += [f"loc_bar_{i} - location" for i in range(len(RECEPTACLES) + 1)]
    init = ["(atLocation agent1 loc_bar_0)"]
    for receptacle, loc in RECEPTACLES.items():
        init += [f"(receptacleType {RECEPTACLE_IDS[receptacle]} {receptacle}Type)"]
        init += [f"(receptacleAtLocation {RECEPTACLE_IDS[receptacle]} loc_bar_{loc})"]
    init += [f"(openable {RECEPTACLE_IDS[r]})" for r in OPENABLE]
    for obj, (kind, receptacle, properties) in OBJECTS.items():
        init += [f"(objectType {obj} {kind}Type)", f"(inReceptacle {obj} {RECEPTACLE_IDS[receptacle]})"]
        init += [f"(objectAtLocation {obj} loc_bar_{RECEPTACLES[receptacle]})"]
        init += [f"({prop} {obj})" for prop in properties]
    init += [f"(canContain {r}Type {o}Type)" for r, o in CAN_CONTAIN]
    body = "\n".join(objects)
    facts = "\n".join(init)
    header = "(define (problem tiny_room)\n(:domain alfred)\n"
    return f"{header}(:objects\n{body}\n)\n(:init\n{facts}\n)\n(:goal (and))\n)\n"


def tiny_game(task_type: str) -> dict:
    """The game data of one task type, as in a ``game.tw-pddl`` file."""
    goal, walkthrough = GAMES[task_type]
    data = resources.files("alfworld") / "data"
    grammar = (data / "alfred.twl2").read_text(encoding="utf-8")
    return {
        "pddl_domain": (data / "alfred.pddl").read_text(encoding="utf-8"),
        "grammar": with_goal_text(grammar, goal.text(0)),
        "pddl_problem": replace_goal(tiny_problem(), goal.pddl()),
        "solvable": True,
        "walkthrough": list(walkthrough),
    }


def write_tiny_games(root: str | Path) -> Path:
    """Write the six games under ``root`` (a data root, as ``GENENV_DATA_DIR``); returns ``root``."""
    root = Path(root)
    for task_type, (goal, _) in GAMES.items():
        folder = f"{task_type}-{goal.obj}-None-{goal.toggle or goal.recep}-0"
        path = root / "alfworld" / "json_2.1.1" / "valid_unseen" / folder / "trial_tiny"
        path.mkdir(parents=True, exist_ok=True)
        (path / "game.tw-pddl").write_text(json.dumps(tiny_game(task_type)), encoding="utf-8")
    return root


def offline_fixtures(parent: str | Path) -> Path | None:
    """A data root under ``parent`` holding the six games, written once per content: the stand-in for the
    ALFWorld games on a fresh install (the manifest's ``Source.fixtures``). None when ``$ALFWORLD_DATA``
    names a folder of the user's (a chosen place without the games is an error, not a fallback);
    ImportError without the engine."""
    from genenv_gym.envs.alfworld.data import ALFWORLD_ENV_VAR

    chosen = os.environ.get(ALFWORLD_ENV_VAR)
    if chosen and Path(chosen).expanduser() != Path(ALFWORLD_OWN_DEFAULT).expanduser():
        return None
    games = json.dumps({task_type: tiny_game(task_type) for task_type in GAMES}, sort_keys=True)
    root = Path(parent) / f"alfworld-tiny-{hashlib.sha256(games.encode()).hexdigest()[:12]}"
    if not root.is_dir():
        root.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(dir=root.parent, prefix=".alfworld-tiny-"))
        write_tiny_games(staging)
        try:
            staging.rename(root)
        except OSError:  # another process put the same games there first
            shutil.rmtree(staging, ignore_errors=True)
    return root
