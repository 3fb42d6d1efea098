"""Where the ALFWorld games are, and which of them to play: discovery without the engine.

The standard tree is what ``alfworld-download`` writes:
``json_2.1.1/<split>/<task folder>/<trial>/game.tw-pddl``
(plus ``traj_data.json`` and ``initial_state.pddl``, which are optional here). It is looked for in
``<data_dir>/alfworld/`` when ``data_dir`` is given, else in ``$GENENV_DATA_DIR/alfworld/`` (then
``$ALFWORLD_DATA``), else in ``$ALFWORLD_DATA`` (ALFWorld's own variable) and then
``~/.cache/genenv_gym/data/alfworld/``.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from genenv_gym.datasets.data_dir import ENV_VAR, MissingDataError, data_root
from genenv_gym.envs.alfworld.scene import parse_scene
from genenv_gym.envs.alfworld.task_types import resolve_task_types, task_type_of_folder
from genenv_gym.suggest import check_choice

ALFWORLD_ENV_VAR = "ALFWORLD_DATA"
TREE = "json_2.1.1"
SPLITS = ("train", "valid_seen", "valid_unseen")
#: The split LLM-agent papers report (ReAct, Reflexion, GenEnv): 134 out-of-distribution games.
DEFAULT_SPLIT = "valid_unseen"
GAME_FILE = "game.tw-pddl"

_GOAL = re.compile(r'"rhs":\s*"Your task is to: (.*?)\.?"')

HOW_TO_GET_DATA = (
    "Get the official games with `genenv data fetch alfworld`, or with ALFWorld's own script: "
    "`pip install alfworld==0.4.2`, then "
    "`ALFWORLD_DATA=<dir> alfworld-download` (it writes <dir>/json_2.1.1/...). Point {var} at a folder "
    "holding "
    "'alfworld/json_2.1.1/' or ALFWORLD_DATA at the folder holding 'json_2.1.1/'."
)


@dataclass(frozen=True)
class GameRecord:
    """One ALFWorld game as found on disk (no engine involved).

    Attributes:
        id: ``<task folder>/<trial>``, unique within a split; the Task id and ``reset(options={"game": id})``.
        path: the ``game.tw-pddl`` file.
        task_type: the official task type, from ``traj_data.json`` when present, else the folder name.
        goal: the goal text baked into the game's grammar ("put a mug in desk").
        walkthrough: the expert command list stored in the game file.
        split: ``train``, ``valid_seen`` or ``valid_unseen``.
        distractors: receptacles of the scene where no instance of the goal's object starts.
    """

    id: str
    path: Path
    task_type: str
    goal: str
    walkthrough: tuple[str, ...]
    split: str
    distractors: int = 0


def alfworld_root(data_dir: str | os.PathLike | None = None) -> Path:
    """The folder that holds ``json_2.1.1/``; raises MissingDataError saying where to put it."""
    candidates: list[Path] = []
    if data_dir is not None or os.environ.get(ENV_VAR):
        candidates.append(data_root(data_dir) / "alfworld")
    if data_dir is None and os.environ.get(ALFWORLD_ENV_VAR):
        candidates.append(Path(os.environ[ALFWORLD_ENV_VAR]).expanduser())
    if data_dir is None and not os.environ.get(ENV_VAR):
        # also when $ALFWORLD_DATA is set: ``import alfworld`` sets it to its own default (alfworld/info.py),
        # and the games `genenv data fetch alfworld` put in the default data dir must still be found
        candidates.append(data_root() / "alfworld")
    for candidate in candidates:
        if (candidate / TREE).is_dir():
            return candidate
    searched = ", ".join(str(c / TREE) for c in candidates)
    raise MissingDataError(
        f"ALFWorld games not found (looked for {searched}).\n" + HOW_TO_GET_DATA.format(var=ENV_VAR),
        "alfworld",
    )


def read_game(path: str | os.PathLike) -> dict[str, Any]:
    """The JSON content of a ``game.tw-pddl`` file."""
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def goal_text(grammar: str) -> str:
    """The goal baked into a game's grammar, without "Your task is to:" and the final period."""
    match = _GOAL.search(grammar)
    return match.group(1) if match else ""


def discover_games(
    data_dir: str | os.PathLike | None = None,
    split: str = DEFAULT_SPLIT,
    task_types: Sequence[str | int] | str | int | None = None,
) -> list[GameRecord]:
    """The playable games of a split, as the official loader selects them, sorted by id.

    Like ``AlfredTWEnv.collect_game_files``: trials whose path holds ``movable`` or ``Sliced`` are skipped,
    and so are games not marked ``solvable``. Unlike it, ``traj_data.json`` is optional: without it the task
    type comes from the trial's folder name.
    """
    check_choice("ALFWorld split", split, SPLITS)
    folder = alfworld_root(data_dir) / TREE / split
    if not folder.is_dir():
        raise MissingDataError(
            f"ALFWorld split folder not found: {folder}\n" + HOW_TO_GET_DATA.format(var=ENV_VAR),
            "alfworld",
        )
    wanted = set(resolve_task_types(task_types))
    return [game for game in _scan(str(folder), split) if game.task_type in wanted]


@lru_cache(maxsize=8)
def _scan(folder: str, split: str) -> tuple[GameRecord, ...]:
    games = []
    for path in sorted(Path(folder).glob(f"*/*/{GAME_FILE}")):
        trial_dir = path.parent
        if "movable" in str(trial_dir) or "Sliced" in str(trial_dir):
            continue
        task_type = _task_type(trial_dir)
        if task_type is None:
            continue
        data = read_game(path)
        if not data.get("solvable", False):
            continue
        games.append(
            GameRecord(
                id=f"{trial_dir.parent.name}/{trial_dir.name}",
                path=path,
                task_type=task_type,
                goal=goal_text(data.get("grammar", "")),
                walkthrough=tuple(data.get("walkthrough") or ()),
                split=split,
                distractors=parse_scene(data.get("pddl_problem", "")).distractors(
                    _target_of(trial_dir.parent.name)
                ),
            )
        )
    return tuple(games)


def _target_of(folder: str) -> str:
    """The goal's object type, from the trial's folder name (``pick_heat_then_place_in_recep-Egg-...``)."""
    parts = folder.split("-")
    return parts[1] if len(parts) > 1 else ""


def _task_type(trial_dir: Path) -> str | None:
    traj = trial_dir / "traj_data.json"
    if traj.is_file():
        with open(traj, encoding="utf-8") as handle:
            return json.load(handle).get("task_type")
    return task_type_of_folder(trial_dir.parent.name)
