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


def test_curriculum_follows_an_improving_agent_through_the_candidate_wrapper():
    """README's SB3 path without SB3: an agent whose skill climbs from level 1 to 7 picks the right one of the
    candidates with probability sigmoid(1.5 (skill - level)). The simulator must climb with it. Without the
    neighbour proposals (``simulator_kwargs={"neighbour_prob": 0.0}``) it settles on level 1 early and stays:
    mean level 1.34 from skill 4 to 5.5, 2.06 at skill 7."""
    import math

    from genenv_gym.wrappers.candidate_actions import CandidateActions

    env = CandidateActions(gym.make("GenEnv-Sim-BFCL-v0"))
    rng = np.random.default_rng(0)
    _, info = env.reset(seed=0)
    episodes, checkpoints, wins = 2000, [], []
    for episode in range(episodes):
        skill = 1.0 + 6.0 * episode / episodes
        candidates = info["candidates"]
        right = candidates.index(env.unwrapped.episode.oracle_action())
        solved = rng.random() < 1.0 / (1.0 + math.exp(-1.5 * (skill - info["level"])))
        wrong = (right + 1 + int(rng.integers(len(candidates) - 1))) % len(candidates)
        wins.append(env.step(right if solved else wrong)[1])
        _, info = env.reset()
        if (episode + 1) % 250 == 0:
            checkpoints.append((skill, env.unwrapped.curriculum_state()["mean_level"]))
    lagging = [(round(s, 2), round(level, 2)) for s, level in checkpoints[1:] if level < s - 2.0]
    assert not lagging, f"the simulator's mean level trails the agent's skill by over 2 levels: {lagging}"
    assert checkpoints[-1][1] > checkpoints[0][1] + 3.0, checkpoints
    assert np.mean(wins[episodes // 2 :]) < 0.8  # tasks kept near alpha, not ones the agent has outgrown
