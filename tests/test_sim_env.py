"""GenEnv-Sim-BFCL-v0: the alpha-curriculum drives generated tasks to the agent's skill."""

import gymnasium as gym
import numpy as np
import pytest
from toy_domain import CountingDomain

from genenv_gym.agents.scripted import FixedSkillAgent, OracleAgent
from genenv_gym.envs.simulator_env import SimulatorEnv


def play(env, agent, episodes):
    records = []
    obs, info = env.reset(seed=0)
    for _ in range(episodes):
        _, reward, _, _, step_info = env.step(agent.act(obs, info))
        records.append((info["level"], reward, step_info))
        obs, info = env.reset()
    return records


def test_curriculum_settles_in_band_for_a_fixed_skill_agent():
    env = gym.make("GenEnv-Sim-BFCL-v0")
    agent = FixedSkillAgent(env, skill=5.0, seed=0)
    records = play(env, agent, 1600)
    late = records[-600:]
    success = np.mean([r for _, r, _ in late])
    assert 0.4 <= success <= 0.6, success
    early_level = np.mean([lvl for lvl, _, _ in records[:100]])
    assert abs(np.mean([lvl for lvl, _, _ in late]) - 5.0) < abs(early_level - 5.0) + 0.5
    state = env.unwrapped.curriculum_state()
    assert abs(state["mean_level"] - 5.0) < 1.0
    assert state["stats"]["kept"] > 0


def test_in_band_tasks_earn_more_alpha_reward_than_out_of_band():
    env = gym.make("GenEnv-Sim-BFCL-v0")
    records = play(env, FixedSkillAgent(env, skill=4.0, seed=1), 400)
    finished = [info for _, _, info in records if "in_band" in info]
    inside = [info["alpha_reward"] for info in finished if info["in_band"]]
    outside = [info["alpha_reward"] for info in finished if not info["in_band"]]
    assert inside and outside
    assert min(inside) > max(outside)


def test_each_task_is_served_for_its_attempts_then_updates_the_simulator():
    env = gym.make("GenEnv-Sim-BFCL-v0", curriculum={"attempts": 3})
    agent = OracleAgent(env)
    obs, info = env.reset(seed=5)
    task_id = info["task_id"]
    for attempt in range(3):
        assert info["attempt"] == attempt and info["task_id"] == task_id
        _, reward, terminated, _, step_info = env.step(agent.act(obs, info))
        assert reward == 1.0 and terminated
        assert step_info["p"] == 1.0
        obs, info = env.reset()
    assert "sim_update" in step_info and step_info["in_band"] is False
    assert info["task_id"] != task_id


def test_generated_tasks_are_graded_by_the_benchmark_verifier():
    env = gym.make("GenEnv-Sim-BFCL-v0")
    obs, _ = env.reset(seed=0)
    assert obs.startswith("<|system|>\nYou are an expert in composing functions.")
    task = env.unwrapped.task
    assert task.provenance == "procedural" and 0 <= task.level < env.unwrapped.domain.num_levels
    assert env.unwrapped.domain.validate(task) == []
    _, reward, _, _, step_info = env.step("not a call")
    assert reward == 0.0 and step_info["error_type"]


def test_any_domain_and_explicit_task():
    domain = CountingDomain()
    env = SimulatorEnv(domain=domain)
    _, info = env.reset(seed=0)
    task = domain.generate(2, np.random.default_rng(3))
    obs, info = env.reset(options={"task": task})
    assert info["task_id"] == task.id and obs == task.messages[0]["content"]
    with pytest.raises(ValueError, match="unknown simulator"):
        SimulatorEnv(domain=domain, simulator="llm-without-backend")
    with pytest.raises(ValueError, match="unknown domain"):
        SimulatorEnv(domain="chess")
