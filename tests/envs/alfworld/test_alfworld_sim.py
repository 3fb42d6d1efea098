"""GenEnv-Sim-ALFWorld-v0: new goals in real scenes, solved by the PDDL planner before it is served."""

import re
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

from genenv_gym.agents.scripted import OracleAgent
from genenv_gym.envs.alfworld.data import read_game
from genenv_gym.envs.alfworld.domain import ALFWorldDomain
from genenv_gym.envs.alfworld.goals import GoalSpec, afforded_goals
from genenv_gym.envs.alfworld.planner import PlannerWorker
from genenv_gym.envs.alfworld.scene import parse_scene, replace_goal
from genenv_gym.simulator import ProceduralSimulator
from genenv_gym.task import Task

pytestmark = pytest.mark.shared_data


@pytest.fixture(scope="module")
def data_dir(alfworld_data_dir: str) -> str:
    return alfworld_data_dir


@pytest.fixture(scope="module")
def domain(data_dir):
    domain = ALFWorldDomain(data_dir=data_dir, scene_split="valid_unseen", planner_timeout_s=60)
    yield domain
    domain.close()


def test_every_benchmark_goal_is_rebuilt_from_the_goal_library_and_afforded(domain):
    """The generator writes goals as ALFWorld wrote the 134 real ones, and would propose each of them."""
    squash = lambda text: re.sub(r"\s+", " ", text).strip()  # noqa: E731
    for game in domain.games():
        task_type, obj, _, target, _ = game.id.split("/")[0].split("-")
        spec = (
            GoalSpec(task_type, obj, toggle=target)
            if task_type == "look_at_obj_in_light"
            else GoalSpec(task_type, obj, target)
        )
        problem = read_game(game.path)["pddl_problem"]
        assert squash(replace_goal(problem, spec.pddl())) == squash(problem), game.id
        assert spec in afforded_goals(parse_scene(problem), task_type), game.id
        assert game.goal in (spec.text(0), spec.text(1))


def test_generated_goals_are_solved_by_the_planner_and_its_plan_wins(domain, data_dir):
    env = gym.make("GenEnv-ALFWorld-v0", data_dir=data_dir)
    rng = np.random.default_rng(0)
    for level in (0, 3, 5):
        task = domain.generate(level, rng)
        assert task.provenance == "procedural" and task.evaluation["planner"]["status"] == "solved"
        assert abs(task.level - level) <= 1 and task.difficulty["plan_steps"] == len(
            task.evaluation["walkthrough"]
        )
        assert domain.validate(task) == []
        assert Task.from_json(task.to_json()) == task
        scene_goal = read_game(
            Path(data_dir) / "alfworld/json_2.1.1/valid_unseen" / task.evaluation["game"] / "game.tw-pddl"
        )
        assert f"Your task is to: {task.evaluation['goal']}." not in scene_goal["grammar"]  # a new goal
        obs, info = env.reset(options={"task": task})
        assert obs.endswith(f"Your task is to: {task.evaluation['goal']}.")
        agent, done = OracleAgent(env), False
        while not done:
            obs, reward, terminated, truncated, info = env.step(agent.act(obs, info))
            done = terminated or truncated
        assert info["won"] and reward == 1.0, task.evaluation["goal"]
    env.close()


def test_unsolvable_proposals_are_counted_and_dropped_with_their_reason(domain):
    generator = domain.goal_generator
    bedroom = next(
        g for g in generator.scenes if g.id.split("/")[0].endswith("-308")
    )  # no microwave, no apple
    spec = GoalSpec("pick_heat_then_place_in_recep", "Apple", "Desk")
    impossible = generator.make_task(bedroom, spec, np.random.default_rng(0))
    assert impossible.evaluation["planner"]["status"] == "unsolvable"
    assert domain.validate(impossible) == ["planner_unsolvable"]

    real = domain.generate(1, np.random.default_rng(1))
    proposals = iter([impossible, impossible, real])
    original = domain.generate
    domain.generate = lambda level, rng: next(proposals)
    try:
        simulator = ProceduralSimulator(domain)
        served = simulator.propose(1, None, np.random.default_rng(0))
    finally:
        domain.generate = original
    assert served == [real]
    assert simulator.stats.rejected == {"planner_unsolvable": 2} and simulator.stats.proposed == 3


def test_a_planner_that_runs_too_long_is_stopped(domain):
    worker = PlannerWorker(timeout_s=60)
    real = domain.generate(4, np.random.default_rng(2))
    game = domain.game_data(real)
    assert worker.plan(game).status == "solved"  # warm: the engine is imported
    worker.timeout_s = 0.001
    outcome = worker.plan(dict(game, pddl_problem=game["pddl_problem"] + " "))  # not memoized
    assert outcome.status == "timeout" and "ran past" in outcome.reason
    worker.timeout_s = 60
    assert worker.plan(game).status == "solved"
    worker.close()


def test_sim_env_serves_planned_goals_through_the_curriculum(data_dir):
    """On the real scenes (check_env on the Sim id runs on the tiny room: test_alfworld_tiny)."""
    env = gym.make(
        "GenEnv-Sim-ALFWorld-v0",
        batch_size=1,
        curriculum={"attempts": 2},
        domain_kwargs={"data_dir": data_dir, "scene_split": "valid_unseen", "planner_timeout_s": 60},
    )
    agent = OracleAgent(env)
    obs, info = env.reset(seed=3)
    first = info["task_id"]
    for attempt in range(2):
        assert info["attempt"] == attempt and info["task_id"] == first and info["provenance"] == "procedural"
        done = False
        while not done:
            obs, _, terminated, truncated, step_info = env.step(agent.act(obs, info))
            done = terminated or truncated
        assert step_info["won"] and step_info["p"] == 1.0
        obs, info = env.reset()
    assert "sim_update" in step_info and info["task_id"] != first
    assert env.unwrapped.curriculum_state()["stats"]["proposed"] >= 2
    planner = env.unwrapped.domain._generator.planner
    worker = planner._process
    env.close()  # stops the domain's planner worker, not only at interpreter exit
    assert planner._process is None and (worker is None or worker.poll() is not None)


def test_the_plan_cache_lets_a_second_planner_skip_the_search(domain, tmp_path):
    real = domain.generate(3, np.random.default_rng(5))
    game = domain.game_data(real)
    first = PlannerWorker(timeout_s=60, cache_dir=tmp_path)
    solved = first.plan(game)
    first.close()
    assert solved.status == "solved" and list(tmp_path.rglob("*.json"))
    second = PlannerWorker(timeout_s=60, cache_dir=tmp_path)
    again = second.plan(game)
    assert again.plan == solved.plan and second._process is None  # answered from disk, no worker started
    second.close()


def test_a_cached_timeout_is_retried_by_a_more_patient_planner(tmp_path):
    from genenv_gym.envs.alfworld.planner import PlanCache, PlanOutcome

    cache = PlanCache(tmp_path)
    cache.put("k" * 40, PlanOutcome("timeout", (), "ran past 5s"), timeout_s=5)
    assert cache.get("k" * 40, timeout_s=5).status == "timeout"
    assert cache.get("k" * 40, timeout_s=60) is None
    cache.put("s" * 40, PlanOutcome("solved", ("go to desk 1",)), timeout_s=5)
    assert cache.get("s" * 40, timeout_s=60).plan == ("go to desk 1",)
