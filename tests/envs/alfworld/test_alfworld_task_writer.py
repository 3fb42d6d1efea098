"""The ALFWorld LLM task writer: the LLM proposes a goal in a scene; the scene and the planner decide."""

from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from genenv_gym.agents.backends import Completion, ScriptedBackend
from genenv_gym.agents.scripted import OracleAgent
from genenv_gym.envs.alfworld.domain import ALFWorldDomain
from genenv_gym.envs.alfworld.task_writer import ALFWorldTaskWriter, task_content, wording_problems
from genenv_gym.llm_simulator import LLMSimulator, Target, TaskRejected
from genenv_gym.skill import SkillTracker

TARGET = Target(2, 6, 0.5, 0.5, 0.0, 0.0)
#: A scene of the tiny room (every tiny game shares the room; this one's own goal heats an apple).
SCENE = "pick_heat_then_place_in_recep-Apple-None-Shelf-0/trial_tiny"


@pytest.fixture(scope="module")
def domain(alfworld_tiny_root):
    domain = ALFWorldDomain(
        data_dir=alfworld_tiny_root, scene_split="valid_unseen", planner_timeout_s=60, plan_cache=None
    )
    yield domain
    domain.close()


@pytest.fixture(scope="module")
def writer(domain):
    return ALFWorldTaskWriter(domain)


def reply(**changes) -> dict:
    data = {
        "scene": SCENE,
        "task_type": "pick_heat_then_place_in_recep",
        "object": "Plate",
        "receptacle": "Desk",
        "lamp": None,
        "goal": "warm up a plate and set it on the desk",
    }
    data.update(changes)
    return data


def parse(writer, data: dict):
    return writer.parse(json.dumps(data), TARGET, "llm:test")


def test_a_good_goal_is_planned_in_its_scene_and_won_by_the_plan(writer, domain):
    task = parse(writer, reply())
    assert task.id.startswith("alfworld_llm_pick_heat") and task.provenance == "llm:test"
    assert task.evaluation["goal"] == "warm up a plate and set it on the desk"
    assert task.messages[-1]["content"] == "Your task is to: warm up a plate and set it on the desk."
    plan = list(task.evaluation["walkthrough"])
    assert task.evaluation["planner"]["status"] == "solved" and "heat plate 1 with microwave 1" in plan
    assert task.difficulty["plan_steps"] == len(plan) and task.difficulty["target_level"] == TARGET.level
    assert domain.validate(task) == [] and writer.semantic_problems(task) == []
    assert domain.verify(task, domain.oracle_action(task)).success
    assert not domain.verify(task, "\n".join(p for p in plan if not p.startswith("heat"))).success


@pytest.mark.parametrize(
    ("change", "kind", "message"),
    [
        ({"scene": "nowhere/trial"}, "parse", "scene must be"),
        ({"task_type": "pick_and_juggle"}, "parse", "task_type must be"),
        ({"object": "Plate 1"}, "parse", "type names"),
        ({"lamp": "DeskLamp"}, "parse", "an object and a lamp"),
        ({"receptacle": None}, "parse", "an object and a receptacle"),
        ({"goal": 'heat a "plate" for the desk'}, "parse", "goal must match"),
        ({"goal": "heat a plate #task# desk"}, "parse", "goal must match"),
        ({"extra": 1}, "parse", "unknown key"),
        ({"object": "Banana", "goal": "heat a banana, put it on the desk"}, "invalid", "no Banana"),
        ({"receptacle": "Microwave"}, "invalid", "appliance"),
        (
            {"task_type": "look_at_obj_in_light", "receptacle": None, "lamp": "Fridge"},
            "invalid",
            "not a lamp",
        ),
        ({"goal": "put a plate on the desk"}, "semantic", "transformation"),
        ({"goal": "warm up a plate and set it on the shelf"}, "semantic", "names Shelf"),
        ({"goal": "warm up a mug and set it on the desk"}, "semantic", "does not name its object Plate"),
        ({"goal": "warm up a clean plate and set it on the desk"}, "semantic", "does not do"),
        ({"goal": "warm up two plates and set them on the desk"}, "semantic", "asks for two"),
    ],
)
def test_bad_goals_are_rejected_with_their_kind_and_reason(writer, change, kind, message):
    with pytest.raises(TaskRejected, match=message) as caught:
        parse(writer, reply(**change))
    assert caught.value.kind == kind


def test_the_words_must_agree_with_the_goal(writer):
    from genenv_gym.envs.alfworld.goals import GoalSpec
    from genenv_gym.envs.alfworld.task_writer import scene_of

    scene = scene_of(str(writer.scenes[SCENE].path))
    look = GoalSpec("look_at_obj_in_light", "Mug", toggle="DeskLamp")
    assert wording_problems("examine the mug under the desk lamp", look, scene) == []  # not also "desk"
    assert wording_problems("put the mug on the desk", look, scene)
    two = GoalSpec("pick_two_obj_and_place", "Apple", "Shelf")
    assert wording_problems("find two apples and put them on the shelf", two, scene) == []
    assert any("two objects" in p for p in wording_problems("put an apple on the shelf", two, scene))


def test_generated_goals_written_in_the_schema_are_accepted(writer, domain):
    seeds = writer.seed_tasks(32, np.random.default_rng(0))
    assert 0 < len(seeds) <= 6  # planned: a handful shows the format
    for seed in seeds:
        written = parse(writer, task_content(seed))
        assert domain.validate(written) == [] and writer.semantic_problems(written) == []
        assert written.evaluation["goal_spec"] == seed.evaluation["goal_spec"]


def test_prompts_are_seeded_and_describe_scenes_and_the_level(domain):
    skill = SkillTracker(domain.num_levels, 0.5).estimate()
    first = ALFWorldTaskWriter(domain, seed=3).prompt([], skill, TARGET)
    assert first == ALFWorldTaskWriter(domain, seed=3).prompt([], skill, TARGET)
    system, user = first[0]["content"], first[1]["content"]
    assert "pick_two_obj_and_place" in system and "DeskLamp, FloorLamp" in system
    assert "difficulty level 2 of 5" in user and "about 6 expert steps" in user
    assert "receptacles: Cabinet x1, Desk x1" in user and "Plate x1: cleanable, coolable, heatable" in user


def test_the_llm_simulator_serves_planned_goals_the_oracle_wins(writer, domain):
    replies = [
        json.dumps(reply()),
        "{not json",
        json.dumps(reply(goal="put a plate on the desk")),
        json.dumps(reply(object="Banana")),
    ]
    sim = LLMSimulator(domain, ScriptedBackend(replies), writer=writer, seeds=[], batch_size=4, seed=0)
    tasks = sim.generate_batch(SkillTracker(domain.num_levels).estimate())
    assert len(tasks) == 1 and sim.stats.rejected == {"parse": 1, "semantic": 1, "invalid": 1}
    assert any("no Banana in the scene" in reason for reason in sim.stats.reasons)
    assert domain.verify(tasks[0], domain.oracle_action(tasks[0])).reward == 1.0


def test_the_same_goal_in_the_same_scene_is_a_duplicate_in_another_scene_a_new_task(writer, domain):
    sim = LLMSimulator(domain, ScriptedBackend(["unused"]), writer=writer, seeds=[], seed=0)
    other_scene = "pick_two_obj_and_place-Apple-None-Shelf-0/trial_tiny"
    reworded = reply(goal="heat the plate, then put it on the desk")
    for data in (reply(), reworded, reply(scene=other_scene)):
        sim.screen(Completion(json.dumps(data)), TARGET, {})
    assert sim.stats.accepted == 2 and sim.stats.rejected == {"duplicate": 1}


def test_the_sim_env_plays_llm_written_goals(alfworld_tiny_root):
    env = gym.make(
        "GenEnv-Sim-ALFWorld-v0",
        simulator="llm",
        domain_kwargs={
            "data_dir": alfworld_tiny_root,
            "scene_split": "valid_unseen",
            "planner_timeout_s": 60,
            "plan_cache": None,
        },
        simulator_kwargs={"backend": ScriptedBackend([json.dumps(reply())]), "seeds": [], "batch_size": 1},
    )
    agent = OracleAgent(env)
    observation, info = env.reset(seed=0)
    assert info["provenance"] == "llm:scripted"
    assert observation.endswith("Your task is to: warm up a plate and set it on the desk.")
    done = False
    while not done:
        observation, reward, terminated, truncated, info = env.step(agent.act(observation, info))
        done = terminated or truncated
    assert reward == 1.0 and info["won"]
    env.close()


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    field=st.sampled_from(["scene", "task_type", "object", "receptacle", "lamp", "goal"]),
    value=st.none() | st.integers() | st.text(max_size=40) | st.lists(st.text(max_size=5), max_size=3),
)
def test_any_field_value_parses_or_is_rejected_cleanly(writer, field, value):
    try:
        task = parse(writer, reply(**{field: value}))
    except TaskRejected as rejection:
        assert rejection.kind in ("parse", "invalid", "semantic")
    else:
        assert writer.semantic_problems(task) == []


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    st.text(max_size=300)
    | st.builds(lambda cut, tail: json.dumps(reply())[:cut] + tail, st.integers(0, 200), st.text(max_size=20))
)
def test_hostile_replies_never_crash_the_screen(writer, domain, text):
    sim = LLMSimulator(domain, ScriptedBackend(["unused"]), writer=writer, seeds=[], seed=0)
    task = sim.screen(Completion(text), TARGET, {})
    assert task is None or domain.verify(task, domain.oracle_action(task)).success
    assert sim.stats.accepted + sum(sim.stats.rejected.values()) == 1
