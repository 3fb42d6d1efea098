"""ALFWorld envs on the real engine in a tiny hand-written room (the id-wide contract is in test_envs.py)."""

import gymnasium as gym
import numpy as np
import pytest

from genenv_gym.agents.scripted import OracleAgent
from genenv_gym.envs.alfworld.commands import normalize_command
from genenv_gym.envs.alfworld.domain import ALFWorldDomain
from genenv_gym.envs.alfworld.tiny import GAMES


@pytest.fixture(scope="module")
def tiny_root(alfworld_tiny_root):
    return alfworld_tiny_root


def make(env_id, root, **kwargs):
    if "-Sim-" in env_id:
        domain_kwargs = {"data_dir": root, "scene_split": "valid_unseen", "planner_timeout_s": 60}
        return gym.make(env_id, batch_size=1, domain_kwargs=domain_kwargs, **kwargs)
    return gym.make(env_id, data_dir=root, **kwargs)


def test_walkthroughs_win_and_hostile_commands_are_harmless(tiny_root):
    env = make("GenEnv-ALFWorld-v0", tiny_root)
    assert {t.category for t in env.unwrapped.tasks} == set(GAMES)
    agent = OracleAgent(env)
    for task in env.unwrapped.tasks:
        obs, info = env.reset(options={"game": task.id})
        for hostile in ("", "\x00\x1b[2J", "x" * 5000, 7):
            obs, reward, terminated, truncated, step = env.step(hostile)
            assert (reward, terminated, truncated) == (0.0, False, False)
            assert step["feedback"] == "Nothing happens." and step["error_type"]
        done = False
        while not done:
            obs, reward, terminated, truncated, info = env.step(agent.act(obs, info))
            done = terminated or truncated
        assert info["won"] and reward == 1.0 and info["steps"] == 4 + len(task.evaluation["walkthrough"])


def test_step_env_gold_actions_are_admissible(tiny_root):
    env = make("GenEnv-ALFWorld-Step-v0", tiny_root).unwrapped
    assert len(env.tasks) == sum(len(w) for _, w in GAMES.values())
    for task in env.tasks:
        assert normalize_command(task.evaluation["gold_action"]) in env.domain.admissible_commands(task)
        env.reset(options={"task_id": task.id})
        assert env.step(task.evaluation["gold_action"])[1] == 1.0


def test_generated_goals_at_every_level_are_planned_and_won(tiny_root):
    domain = ALFWorldDomain(data_dir=tiny_root, scene_split="valid_unseen", planner_timeout_s=60)
    env = make("GenEnv-ALFWorld-v0", tiny_root)
    rng = np.random.default_rng(0)
    for level in range(domain.num_levels):
        task = domain.generate(level, rng)
        assert task.level == level and domain.validate(task) == []
        obs, info = env.reset(options={"task": task})
        agent, done = OracleAgent(env), False
        while not done:
            obs, _, terminated, truncated, info = env.step(agent.act(obs, info))
            done = terminated or truncated
        assert info["won"], task.evaluation["goal"]
    domain.close()


def test_two_envs_in_one_process_do_not_share_game_state(tiny_root):
    """Each env has its own copy of the planner library: vectorised envs in one process stay independent."""
    first, second = make("GenEnv-ALFWorld-Pick-v0", tiny_root), make("GenEnv-ALFWorld-PickTwo-v0", tiny_root)
    walkthroughs = [env.unwrapped.tasks[0].evaluation["walkthrough"] for env in (first, second)]
    first.reset(seed=0)
    second.reset(seed=0)
    results = {0: [], 1: []}
    for k in range(max(map(len, walkthroughs))):
        for i, env in enumerate((first, second)):
            if k < len(walkthroughs[i]):
                results[i].append(env.step(walkthroughs[i][k])[4]["won"])
    assert results[0][-1] and results[1][-1] and not any(results[1][:-1])
