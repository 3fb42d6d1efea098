"""Every id in every vector mode (sync, async with and without shared memory): each copy plays exactly what
the same env plays alone (observations, rewards, ends), and Gymnasium can merge the copies' info."""

from __future__ import annotations

import gymnasium as gym
import pytest
from vector_modes import MODES

import genenv_gym
from genenv_gym.agents.scripted import OracleAgent

ALL_IDS = [entry.id for entry in genenv_gym.ENV_ENTRIES]
COPIES, STEPS = 2, 5
#: Sent instead of the oracle's action now and then (copies out of step, so that one copy's info describes
#: a failure while the other's describes a success): characters outside any ASCII charset.
UNICODE_ACTION = "— 侓 \u202e ☃ \x00 <answer>—</answer>"


def _reference(env_id: str, kwargs: dict) -> tuple[list, list]:
    """Each copy alone, seeded as ``make_vec`` seeds it, played by the oracle (now and then by
    :data:`UNICODE_ACTION`) with next-step autoreset: the actions to send, and per step the (observation,
    reward, terminated, truncated) of each copy."""
    envs = [gym.make(env_id, **kwargs) for _ in range(COPIES)]
    states = [env.reset(seed=i) for i, env in enumerate(envs)]
    agents = [OracleAgent(env) for env in envs]
    finished = [False] * COPIES
    actions, outcomes = [], []
    for step in range(STEPS):
        step_actions, step_outcomes = [], []
        for i, env in enumerate(envs):
            if finished[i]:
                step_actions.append("")  # ignored: this step resets the copy
                obs, info = env.reset()
                states[i] = (obs, info)
                step_outcomes.append((obs, 0.0, False, False))
                finished[i] = False
                continue
            action = UNICODE_ACTION if (step + i) % 3 == 1 else agents[i].act(*states[i])
            obs, reward, terminated, truncated, info = env.step(action)
            states[i] = (obs, info)
            finished[i] = terminated or truncated
            step_actions.append(action)
            step_outcomes.append((obs, float(reward), terminated, truncated))
        actions.append(step_actions)
        outcomes.append(step_outcomes)
    for env in envs:
        env.close()
    return actions, outcomes


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("env_id", ALL_IDS)
def test_every_vector_mode_plays_each_copy_as_alone(env_id, mode, offline_envs):
    kwargs = offline_envs.kwargs(env_id)
    actions, expected = _reference(env_id, kwargs)
    vectorization_mode, vector_kwargs = MODES[mode]
    vec = gym.make_vec(
        env_id, num_envs=COPIES, vectorization_mode=vectorization_mode, vector_kwargs=vector_kwargs, **kwargs
    )
    closed = False
    try:
        observations, _ = vec.reset(seed=0)
        assert vec.single_observation_space.contains(observations[0])
        for step_actions, step_expected in zip(actions, expected, strict=True):
            observations, rewards, terminated, truncated, infos = vec.step(tuple(step_actions))
            got = [
                (observations[i], float(rewards[i]), bool(terminated[i]), bool(truncated[i]))
                for i in range(COPIES)
            ]
            assert got == step_expected
            assert isinstance(infos, dict)  # Gymnasium could merge the copies' info
        vec.close()
        closed = True
    finally:
        if not closed:  # a failed step leaves AsyncVectorEnv waiting on its workers: end them
            vec.close(terminate=True)
