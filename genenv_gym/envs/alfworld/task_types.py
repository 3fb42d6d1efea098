"""ALFWorld's six task types: folder prefixes, short names, env-id suffixes and sub-goal counts."""

from __future__ import annotations

from dataclasses import dataclass

from genenv_gym.suggest import unknown_choice


@dataclass(frozen=True)
class TaskType:
    """One ALFWorld task type.

    Attributes:
        name: the official name, which is also the prefix of each trial's folder (``pick_and_place_simple``).
        official_id: the id in ALFWorld's ``env.task_types`` config (1 to 6).
        short: the short name accepted in filters (``pick``), ReAct's prompt key aside.
        react_key: the key of ReAct's few-shot prompts for this type (``put``, ``examine``, ...).
        suffix: the env-id suffix (``GenEnv-ALFWorld-Pick-v0``).
        sub_goals: the sub-goals of the task (find and take, transform, place...), a difficulty knob.
    """

    name: str
    official_id: int
    short: str
    react_key: str
    suffix: str
    sub_goals: int


TASK_TYPES: tuple[TaskType, ...] = (
    TaskType("pick_and_place_simple", 1, "pick", "put", "Pick", 2),
    TaskType("look_at_obj_in_light", 2, "examine", "examine", "Examine", 2),
    TaskType("pick_clean_then_place_in_recep", 3, "clean", "clean", "Clean", 3),
    TaskType("pick_heat_then_place_in_recep", 4, "heat", "heat", "Heat", 3),
    TaskType("pick_cool_then_place_in_recep", 5, "cool", "cool", "Cool", 3),
    TaskType("pick_two_obj_and_place", 6, "pick_two", "puttwo", "PickTwo", 4),
)

TASK_TYPE_NAMES: tuple[str, ...] = tuple(t.name for t in TASK_TYPES)

_BY_ANY: dict[str, TaskType] = {}
for _t in TASK_TYPES:
    for _key in (_t.name, _t.short, _t.react_key, _t.suffix.lower(), str(_t.official_id)):
        _BY_ANY.setdefault(_key, _t)


def task_type(key: str | int) -> TaskType:
    """The task type named by its official name, short name, ReAct key, env suffix or official id."""
    found = _BY_ANY.get(str(key).strip().lower())
    if found is None:
        raise ValueError(
            unknown_choice("ALFWorld task type", key, TASK_TYPE_NAMES) + " or an official id 1-6"
        )
    return found


def resolve_task_types(keys: str | int | list | tuple | None) -> tuple[str, ...]:
    """Official names of the task types named in ``keys`` (all six when None), in the official order."""
    if keys is None:
        return TASK_TYPE_NAMES
    if isinstance(keys, (str, int)):
        keys = [keys]
    chosen = {task_type(k).name for k in keys}
    if not chosen:
        raise ValueError("the task-type filter is empty")
    return tuple(name for name in TASK_TYPE_NAMES if name in chosen)


def task_type_of_folder(folder: str) -> str | None:
    """The task type of a trial's folder name (``pick_heat_then_place_in_recep-Egg-None-Fridge-10``)."""
    prefix = folder.split("-", 1)[0]
    return prefix if prefix in TASK_TYPE_NAMES else None
