"""Playing a multi-turn env in tests: a list of actions, or the oracle through a whole episode."""

from __future__ import annotations

from genenv_gym.agents.scripted import OracleAgent


def play(env, actions):
    """Step through ``actions``; the last step's (obs, reward, terminated, truncated, info)."""
    out = None
    for action in actions:
        out = env.step(action)
    return out


def play_oracle(env, task_id: str) -> tuple[float, dict]:
    """The oracle's total reward and last info on ``task_id``; the episode must terminate, not truncate."""
    agent = OracleAgent(env)
    obs, info = env.reset(options={"task_id": task_id})
    total, done = 0.0, False
    while not done:
        obs, reward, terminated, truncated, step_info = env.step(agent.act(obs, info))
        total += reward
        done = terminated or truncated
    assert terminated and not truncated
    return total, step_info
