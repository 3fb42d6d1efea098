"""ALFWorld without the engine or the real games: commands, task types, discovery, levels."""

import json
import subprocess
import sys

import pytest

import genenv_gym
from genenv_gym.datasets.data_dir import MissingDataError
from genenv_gym.envs.alfworld.commands import commands_match, normalize_command
from genenv_gym.envs.alfworld.data import discover_games, goal_text
from genenv_gym.envs.alfworld.goals import GoalSpec, afforded_goals, with_goal_text
from genenv_gym.envs.alfworld.levels import difficulty_features, level_of
from genenv_gym.envs.alfworld.scene import parse_scene, replace_goal
from genenv_gym.envs.alfworld.task_types import resolve_task_types, task_type

ALFWORLD_IDS = [e.id for e in genenv_gym.ENV_ENTRIES if "ALFWorld" in e.id]


@pytest.mark.parametrize(
    ("said", "engine"),
    [
        ("put mug 1 in/on desk 2", "move mug 1 to desk 2"),
        ("put mug 1 in desk 2", "move mug 1 to desk 2"),
        ("Put  Mug 1 ON desk 2.", "move mug 1 to desk 2"),
        ("> go to shelf 12", "go to shelf 12"),
        ("  take apple 1 from fridge 1\n", "take apple 1 from fridge 1"),
        ('"open drawer 3"', "open drawer 3"),
        ("move mug 1 to desk 2", "move mug 1 to desk 2"),
        ("heat egg 1 with microwave 1", "heat egg 1 with microwave 1"),
    ],
)
def test_commands_normalise_and_put_maps_to_move(said, engine):
    assert normalize_command(said) == engine
    assert commands_match(said, engine)


@pytest.mark.parametrize("hostile", ["", "\x00\x01\x7f", "x" * 200_000, "put", None, 42, ["go to desk 1"]])
def test_hostile_text_normalises_without_error(hostile):
    command = normalize_command(hostile)
    assert isinstance(command, str) and "\x00" not in command
    assert not commands_match(hostile, "go to desk 1")


def test_empty_never_matches():
    assert not commands_match("", "")
    assert not commands_match(".", ".")


def test_task_types_resolve_by_any_name():
    assert task_type("heat").name == "pick_heat_then_place_in_recep"
    assert task_type(2).name == "look_at_obj_in_light" == task_type("examine").name
    assert task_type("puttwo").suffix == "PickTwo"
    assert resolve_task_types(["cool", "pick"]) == ("pick_and_place_simple", "pick_cool_then_place_in_recep")
    assert len(resolve_task_types(None)) == 6
    with pytest.raises(ValueError, match="unknown ALFWorld task type"):
        task_type("slice")


def test_registered_ids_and_import_stays_light():
    expected = {"Pick", "Examine", "Clean", "Heat", "Cool", "PickTwo"}
    assert {f"GenEnv-ALFWorld-{s}-v0" for s in expected} <= set(ALFWORLD_IDS)
    assert {"GenEnv-ALFWorld-v0", "GenEnv-ALFWorld-Step-v0", "GenEnv-Sim-ALFWorld-v0"} <= set(ALFWORLD_IDS)
    heavy = "('textworld', 'alfworld', 'fast_downward', 'torch')"
    code = f"import sys, genenv_gym; print(sorted(m for m in sys.modules if m.split('.')[0] in {heavy}))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


PROBLEM = """(define (problem tiny)
(:domain alfred)
(:objects agent1 - agent
 Apple_bar_1 - object Apple_bar_2 - object Mug_bar_1 - object DeskLamp_bar_1 - object
 Fridge_bar_1 - receptacle Desk_bar_1 - receptacle Microwave_bar_1 - receptacle)
(:init
 (objectType Apple_bar_1 AppleType) (objectType Apple_bar_2 AppleType) (objectType Mug_bar_1 MugType)
 (objectType DeskLamp_bar_1 DeskLampType)
 (receptacleType Fridge_bar_1 FridgeType) (receptacleType Desk_bar_1 DeskType)
 (receptacleType Microwave_bar_1 MicrowaveType)
 (pickupable Apple_bar_1) (pickupable Apple_bar_2) (pickupable Mug_bar_1)
 (heatable Apple_bar_1) (heatable Apple_bar_2) (coolable Mug_bar_1) (toggleable DeskLamp_bar_1)
 (openable Fridge_bar_1)
 (inReceptacle Apple_bar_1 Desk_bar_1) (inReceptacle Apple_bar_2 Fridge_bar_1)
 (inReceptacle Mug_bar_1 Desk_bar_1)
 (inReceptacle DeskLamp_bar_1 Desk_bar_1)
 (canContain DeskType AppleType) (canContain FridgeType AppleType) (canContain DeskType MugType)
 (canContain MicrowaveType AppleType)
)
(:goal (and (holds agent1 Mug_bar_1)))
)
"""


def test_scene_and_afforded_goals():
    scene = parse_scene(PROBLEM)
    assert scene.instances("Apple") == ["Apple_bar_1", "Apple_bar_2"]
    assert scene.receptacle_types() == ["Desk", "Fridge", "Microwave"]
    assert scene.distractors("Apple") == 1 and scene.distractors("Mug") == 2
    heat = afforded_goals(scene, "pick_heat_then_place_in_recep")
    assert GoalSpec("pick_heat_then_place_in_recep", "Apple", "Fridge") in heat
    assert all(g.recep != "Microwave" for g in heat)  # not back into the appliance
    assert afforded_goals(scene, "pick_cool_then_place_in_recep") == [
        GoalSpec("pick_cool_then_place_in_recep", "Mug", "Desk")
    ]
    two = afforded_goals(scene, "pick_two_obj_and_place")
    assert GoalSpec("pick_two_obj_and_place", "Apple", "Desk") in two
    assert GoalSpec("pick_two_obj_and_place", "Mug", "Desk") not in two  # one mug only
    look = afforded_goals(scene, "look_at_obj_in_light")
    assert GoalSpec("look_at_obj_in_light", "Apple", toggle="DeskLamp") in look
    assert afforded_goals(scene, "pick_clean_then_place_in_recep") == []  # no sink


def test_goal_pddl_and_text_come_from_alfworld_library():
    pytest.importorskip("alfworld")
    spec = GoalSpec("pick_heat_then_place_in_recep", "Apple", "Fridge")
    assert "(isHot ?o)" in spec.pddl() and "(objectType ?o AppleType)" in spec.pddl()
    assert spec.text(0) == "put a hot apple in fridge"
    problem = replace_goal(PROBLEM, spec.pddl())
    assert "(holds agent1 Mug_bar_1)" not in problem and problem.count("(:goal") == 1
    grammar = with_goal_text('"task": [{"rhs": "Your task is to: UNKNOWN GOAL."}]', spec.text(1))
    assert goal_text(grammar) == "heat some apple and put it in fridge"


def test_levels_grow_with_each_knob():
    easy = difficulty_features("pick_and_place_simple", distractors=10, plan_steps=4)
    assert easy["level"] == 0 and easy["sub_goals"] == 2
    assert difficulty_features("pick_and_place_simple", 30, 4)["level"] == 1
    assert difficulty_features("pick_heat_then_place_in_recep", 10, 4)["level"] == 1
    assert difficulty_features("pick_two_obj_and_place", 30, 9)["level"] == 5
    assert [level_of(s) for s in range(3, 12)] == [0, 0, 1, 2, 3, 4, 5, 5, 5]


def _fake_game(root, folder, trial, walkthrough, solvable=True, goal="put a mug in desk"):
    path = root / "alfworld" / "json_2.1.1" / "valid_unseen" / folder / trial
    path.mkdir(parents=True)
    grammar = '"task": [{"rhs": "Your task is to: ' + goal + '."}]'
    data = {
        "pddl_domain": "",
        "grammar": grammar,
        "pddl_problem": "",
        "solvable": solvable,
        "walkthrough": walkthrough,
    }
    (path / "game.tw-pddl").write_text(json.dumps(data))


def test_discovery_follows_the_official_loader(tmp_path):
    _fake_game(tmp_path, "pick_and_place_simple-Mug-None-Desk-1", "trial_a", ["go to desk 1"])
    _fake_game(tmp_path, "pick_heat_then_place_in_recep-Egg-None-Fridge-1", "trial_b", ["go to fridge 1"])
    _fake_game(tmp_path, "pick_and_place_simple-Mug-None-Desk-2", "trial_c", [], solvable=False)
    _fake_game(tmp_path, "pick_and_place_with_movable_recep-Mug-Bowl-Desk-1", "trial_d", [])
    _fake_game(tmp_path, "pick_heat_then_place_in_recep-AppleSliced-None-Fridge-1", "trial_e", [])
    games = discover_games(tmp_path)
    assert [g.id for g in games] == [
        "pick_and_place_simple-Mug-None-Desk-1/trial_a",
        "pick_heat_then_place_in_recep-Egg-None-Fridge-1/trial_b",
    ]
    assert games[0].goal == "put a mug in desk" and games[0].walkthrough == ("go to desk 1",)
    assert [g.task_type for g in discover_games(tmp_path, task_types="heat")] == [
        "pick_heat_then_place_in_recep"
    ]


def test_missing_data_says_where_to_put_it(tmp_path, monkeypatch):
    monkeypatch.delenv("ALFWORLD_DATA", raising=False)
    with pytest.raises(MissingDataError, match="alfworld-download") as excinfo:
        discover_games(tmp_path)
    assert str(tmp_path / "alfworld" / "json_2.1.1") in str(excinfo.value)
    with pytest.raises(ValueError, match="unknown ALFWorld split"):
        discover_games(tmp_path, split="test")


def test_alfworld_data_variable_is_honoured(tmp_path, monkeypatch):
    _fake_game(tmp_path, "pick_and_place_simple-Mug-None-Desk-1", "trial_a", ["go to desk 1"])
    monkeypatch.delenv("GENENV_DATA_DIR", raising=False)
    monkeypatch.setenv("ALFWORLD_DATA", str(tmp_path / "alfworld"))
    assert len(discover_games()) == 1
