"""GenEnv-ALFWorld-v0 and GenEnv-ALFWorld-Step-v0 on the real engine and the real valid_unseen games."""

from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from genenv_gym.agents.scripted import OracleAgent, RandomAgent
from genenv_gym.envs.alfworld.commands import normalize_command
from genenv_gym.envs.alfworld.task_types import TASK_TYPE_NAMES

pytestmark = pytest.mark.shared_data


@pytest.fixture(scope="module")
def data_dir(alfworld_data_dir: str) -> str:
    return alfworld_data_dir


@pytest.fixture(scope="module")
def env(data_dir):
    env = gym.make("GenEnv-ALFWorld-v0", data_dir=data_dir)
    yield env
    env.close()


def sample_games(env, per_type=2):
    """A fixed sample: the first ``per_type`` games of each task type."""
    tasks = env.unwrapped.tasks
    return [t for name in TASK_TYPE_NAMES for t in [t for t in tasks if t.category == name][:per_type]]


@pytest.mark.parametrize("env_id", ["GenEnv-ALFWorld-v0", "GenEnv-ALFWorld-Step-v0"])
def test_check_env(env_id, data_dir):
    """On the real games (every id, the Sim one included, is checked on the tiny room: test_alfworld_tiny)."""
    env = gym.make(env_id, data_dir=data_dir)
    check_env(env.unwrapped, skip_render_check=True)
    env.close()


def test_games_and_task_type_variants(env, data_dir):
    tasks = env.unwrapped.tasks
    assert len(tasks) == 134
    counts = {name: sum(t.category == name for t in tasks) for name in TASK_TYPE_NAMES}
    assert counts == {
        "pick_and_place_simple": 24,
        "look_at_obj_in_light": 18,
        "pick_clean_then_place_in_recep": 31,
        "pick_heat_then_place_in_recep": 23,
        "pick_cool_then_place_in_recep": 21,
        "pick_two_obj_and_place": 17,
    }
    heat = gym.make("GenEnv-ALFWorld-Heat-v0", data_dir=data_dir)
    assert {t.category for t in heat.unwrapped.tasks} == {"pick_heat_then_place_in_recep"}
    two = gym.make("GenEnv-ALFWorld-v0", data_dir=data_dir, task_types=["cool", 6])
    assert len(two.unwrapped.tasks) == 38


def test_reset_observation_info_and_seeding(env):
    obs, info = env.reset(seed=7)
    assert obs.startswith("-= Welcome to TextWorld, ALFRED! =-") and obs.endswith(
        f"Your task is to: {info['goal']}."
    )
    assert info["task_type"] in TASK_TYPE_NAMES and info["game"] == info["task_id"] and info["won"] is False
    assert "look" in info["admissible_commands"] and any(
        c.startswith("go to ") for c in info["admissible_commands"]
    )
    sequence = [info["game"]] + [env.reset()[1]["game"] for _ in range(3)]
    env.reset(seed=7)
    assert [env.unwrapped.task.id] + [env.reset()[1]["game"] for _ in range(3)] == sequence


def test_reset_options_select_game_and_task_type(env, data_dir):
    game = env.unwrapped.tasks[5].id
    assert env.reset(options={"game": game})[1]["game"] == game
    path = Path(data_dir) / "alfworld" / "json_2.1.1" / "valid_unseen" / game / "game.tw-pddl"
    assert env.reset(options={"game": str(path)})[1]["game"] == game
    for _ in range(3):
        assert env.reset(options={"task_type": "cool"})[1]["task_type"] == "pick_cool_then_place_in_recep"
    with pytest.raises(KeyError, match="no game"):
        env.reset(options={"game": "nope/trial_0"})


def test_expert_walkthrough_wins_a_sample_of_games(env):
    agent = OracleAgent(env)
    for task in sample_games(env):
        obs, info = env.reset(options={"game": task.id})
        rewards, done = [], False
        while not done:
            obs, reward, terminated, truncated, info = env.step(agent.act(obs, info))
            rewards.append(reward)
            done = terminated or truncated
        assert info["won"] and terminated and not truncated, task.id
        assert rewards == [0.0] * (len(rewards) - 1) + [1.0]
        assert len(rewards) == len(task.evaluation["walkthrough"])


def test_put_in_on_is_accepted_for_move(env):
    task = next(t for t in env.unwrapped.tasks if t.category == "pick_and_place_simple")
    env.reset(options={"game": task.id})
    for command in task.evaluation["walkthrough"]:
        if command.startswith("move "):
            obj, recep = command[len("move ") :].split(" to ")
            command = f"put {obj} in/on {recep}"
        *_, info = env.step(command)
    assert info["won"]


def test_oracle_recovers_with_the_planner_after_a_detour(env):
    task = next(t for t in env.unwrapped.tasks if t.category == "pick_clean_then_place_in_recep")
    obs, info = env.reset(options={"game": task.id})
    env.step("inventory")
    env.step(info["admissible_commands"][0])  # a "go to" the expert did not plan
    agent, done = OracleAgent(env), False
    while not done:
        obs, _, terminated, truncated, info = env.step(agent.act(obs, info))
        done = terminated or truncated
    assert info["won"] and info["steps"] <= 2 + len(task.evaluation["walkthrough"]) + 2


@pytest.mark.parametrize(
    "command", ["", "x" * 20_000, "\x00\x01\x1b[2J\x7f", "take", "go to the moon", 42, None]
)
def test_hostile_commands_are_harmless_steps(env, command):
    obs, info = env.reset(options={"game": env.unwrapped.tasks[0].id})
    before = info["admissible_commands"]
    obs, reward, terminated, truncated, step_info = env.unwrapped.step(command)
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert step_info["feedback"] == "Nothing happens." and step_info["error_type"] and step_info["steps"] == 1
    assert step_info["admissible_commands"] == before
    assert obs == f"Nothing happens.\n\nYour task is to: {info['goal']}."


def test_action_longer_than_the_space_is_a_step_not_the_end(env):
    env.reset(options={"game": env.unwrapped.tasks[0].id})
    _, reward, terminated, truncated, info = env.unwrapped.step("go " * 40_000)
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert info["error_type"] == "action_error:too_long" and info["steps"] == 1


def test_the_step_budget_truncates_the_episode(data_dir):
    env = gym.make("GenEnv-ALFWorld-v0", data_dir=data_dir, max_steps=8)
    agent = RandomAgent(env, seed=0)
    obs, info = env.reset(seed=1)
    for step in range(1, 9):
        obs, _, terminated, truncated, info = env.step(agent.act(obs, info))
        assert info["steps"] == step
        if terminated:
            break
    assert terminated or truncated
    assert truncated == (not info["won"])
    with pytest.raises(RuntimeError, match="episode has ended"):
        env.unwrapped.step("look")


def test_verify_grades_whole_transcripts(env):
    domain = env.unwrapped.domain
    task = sample_games(env, 1)[3]
    assert domain.verify(task, domain.oracle_action(task)).success
    assert domain.verify(task, "\n".join(f"put {c}" for c in task.evaluation["walkthrough"])).reward == 0.0
    verdict = domain.verify(task, "look\n" * 60)
    assert not verdict.success and verdict.error == "the step budget ran out"
    assert domain.verify(task, 3.5).error_type == "action_error:not_text"


@pytest.fixture(scope="module")
def step_env(data_dir):
    env = gym.make("GenEnv-ALFWorld-Step-v0", data_dir=data_dir)
    yield env
    env.close()


def test_step_env_tasks_follow_every_walkthrough(step_env, env):
    step_ids = {t.id for t in step_env.unwrapped.tasks}
    assert len(step_ids) == sum(len(t.evaluation["walkthrough"]) for t in env.unwrapped.tasks) == 788
    game = env.unwrapped.tasks[0]
    assert {f"{game.id}@{k}" for k in range(len(game.evaluation["walkthrough"]))} <= step_ids


def test_step_env_gold_actions_are_admissible_on_a_sample(step_env, env):
    domain = step_env.unwrapped.domain
    for game in sample_games(env):
        for task in domain.step_tasks(game):
            assert normalize_command(task.evaluation["gold_action"]) in domain.admissible_commands(task), (
                task.id
            )
        assert domain.replay(task).won


def test_step_env_observation_and_exact_match(step_env, env):
    game = next(t for t in env.unwrapped.tasks if t.category == "pick_two_obj_and_place")
    obs, info = step_env.reset(options={"task_id": f"{game.id}@2"})
    plan = game.evaluation["walkthrough"]
    assert obs.count("\n> ") == 2 and f"> {plan[0]}" in obs and f"> {plan[1]}" in obs and plan[2] not in obs
    assert info["step"] == 2 and normalize_command(plan[2]) in info["admissible_commands"]
    assert [m["role"] for m in info["messages"]] == [
        "system",
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
    ]
    _, reward, terminated, _, step_info = step_env.step(f"  {plan[2].upper()}. ")
    assert reward == 1.0 and terminated and step_info["gold_action"] == plan[2]
    step_env.reset(options={"task_id": f"{game.id}@2"})
    _, reward, _, _, step_info = step_env.step("look")
    assert reward == 0.0 and step_info["error_type"] == "wrong_action"
    move = next(k for k, a in enumerate(plan) if a.startswith("move "))
    step_env.reset(options={"task_id": f"{game.id}@{move}"})
    assert step_env.step(plan[move].replace("move ", "put ").replace(" to ", " in/on "))[1] == 1.0


def test_step_env_random_baseline_is_weak(step_env):
    rng = np.random.default_rng(0)
    env = step_env.unwrapped
    games = sorted({t.id.rsplit("@", 1)[0] for t in env.tasks})[:: len(env.tasks) // 40 or 1][:6]
    scores = []
    for task in (t for t in env.tasks if t.id.rsplit("@", 1)[0] in games):
        env.reset(options={"task_id": task.id})
        scores.append(env.step(env.domain.random_action(task, rng))[1])
    assert 0.0 <= np.mean(scores) < 0.5


@pytest.mark.slow
def test_expert_wins_all_134_games_and_every_gold_action_is_admissible(env, step_env):
    """The full check (``pytest -m slow``); the default run plays its fixed sample, two games per task
    type: ``test_expert_walkthrough_wins_a_sample_of_games`` and
    ``test_step_env_gold_actions_are_admissible_on_a_sample``."""
    domain = step_env.unwrapped.domain
    agent, wins = OracleAgent(env), 0
    for task in env.unwrapped.tasks:
        obs, info = env.reset(options={"game": task.id})
        done = False
        while not done:
            obs, _, terminated, truncated, info = env.step(agent.act(obs, info))
            done = terminated or truncated
        wins += int(info["won"])
        for step_task in domain.step_tasks(task):
            gold = normalize_command(step_task.evaluation["gold_action"])
            assert gold in domain.admissible_commands(step_task), step_task.id
    assert wins == 134
