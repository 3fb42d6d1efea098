"""CandidateActions: Discrete actions over candidate texts, with the mask in info."""

from __future__ import annotations

from collections import Counter

import gymnasium as gym
import numpy as np
import pytest

import genenv_gym  # noqa: F401  (registers the ids)
from genenv_gym.envs.bfcl.candidates import BFCLCandidates
from genenv_gym.envs.bfcl.domain import REFUSAL
from genenv_gym.fixtures import FIXTURES_DIR
from genenv_gym.wrappers.candidate_actions import CandidateActions
from genenv_gym.wrappers.candidates import AdmissibleCommands, default_source


def right_flags(env, candidates):
    base = env.unwrapped
    return [base.domain.verify(base.episode.task, text).success for text in candidates]


@pytest.mark.parametrize(
    ("env_id", "kwargs"),
    [("GenEnv-Sim-BFCL-v0", {}), ("GenEnv-BFCL-v0", {"data_dir": str(FIXTURES_DIR)})],
)
def test_exactly_one_candidate_is_right_and_picking_it_scores(env_id, kwargs):
    env = CandidateActions(gym.make(env_id, **kwargs))
    _, info = env.reset(seed=0)
    positions = Counter()
    for _ in range(80):
        candidates = info["candidates"]
        assert len(candidates) == len(set(candidates)) <= 4
        assert info["action_mask"].dtype == bool and info["action_mask"].sum() == len(candidates)
        assert np.array_equal(env.action_masks(), info["action_mask"])
        flags = right_flags(env, candidates)
        assert sum(flags) == 1, (env.unwrapped.episode.task.id, candidates, flags)
        right = flags.index(True)
        positions[right] += 1
        _, reward, terminated, _, step_info = env.step(right)
        assert reward == 1.0 and terminated and step_info["action_text"] == candidates[right]
        assert step_info["candidates"] == [] and not step_info["action_mask"].any()
        _obs, info = env.reset()
    assert len(positions) == 4 and min(positions.values()) >= 8  # the right answer is not in a fixed slot


def test_bfcl_distractors_are_near_misses_of_the_task():
    env = CandidateActions(gym.make("GenEnv-Sim-BFCL-v0"))
    _, info = env.reset(seed=1)
    kinds = Counter()
    for _ in range(60):
        task = env.unwrapped.episode.task
        names = {tool["name"] for tool in task.tools}
        oracle = env.unwrapped.episode.oracle_action()
        for text in info["candidates"]:
            if text == oracle:
                continue
            if text == REFUSAL:
                kinds["refusal"] += 1
            elif any(name in text for name in names):
                kinds["call"] += 1  # calls only ever name the task's own functions
            else:
                raise AssertionError(f"distractor {text!r} calls none of {names}")
        env.step(0)
        _, info = env.reset()
    assert kinds["refusal"] > 20 and kinds["call"] > 60


def test_seeded_resets_reproduce_the_candidates():
    def first(seed):
        env = CandidateActions(gym.make("GenEnv-Sim-BFCL-v0"))
        _, info = env.reset(seed=seed)
        return info["candidates"]

    assert first(5) == first(5)


def test_masked_indices_wrap_or_raise():
    # live_relevance: any call passes, so the refusal is the only wrong candidate there is
    env = CandidateActions(gym.make("GenEnv-BFCL-v0", data_dir=str(FIXTURES_DIR)), num_candidates=8)
    _, info = env.reset(options={"task_id": "live_relevance_0-0-0"})
    n = len(info["candidates"])
    assert n == 2 and REFUSAL in info["candidates"] and not info["action_mask"][n:].any()
    _, _, _, _, step_info = env.step(n)  # masked: wraps to candidate 0
    assert step_info["masked_action"] and step_info["action_text"] == info["candidates"][0]
    strict = CandidateActions(
        gym.make("GenEnv-BFCL-v0", data_dir=str(FIXTURES_DIR)), 8, invalid_action="raise"
    )
    strict.reset(options={"task_id": "live_relevance_0-0-0"})
    with pytest.raises(ValueError, match="action_masks"):
        strict.step(7)
    with pytest.raises(RuntimeError, match="reset"):
        CandidateActions(gym.make("GenEnv-Sim-BFCL-v0")).step(0)


def test_default_source_follows_the_env():
    env = gym.make("GenEnv-Sim-BFCL-v0")
    assert isinstance(default_source(env, {}), BFCLCandidates)
    assert isinstance(default_source(env, {"admissible_commands": ["look"]}), AdmissibleCommands)


class _FakeEpisode:
    def oracle_action(self):
        return "take mug 1"


def test_admissible_commands_keep_the_expert_command_when_truncated():
    class Env:
        unwrapped = type("U", (), {"episode": _FakeEpisode()})()

    commands = [f"go to shelf {i}" for i in range(30)] + ["take mug 1"]
    rng = np.random.default_rng(0)
    chosen = AdmissibleCommands().candidates(Env(), {"admissible_commands": commands}, 8, rng)
    assert len(chosen) == 8 and "take mug 1" in chosen and set(chosen) <= set(commands)
    everything = AdmissibleCommands().candidates(Env(), {"admissible_commands": commands}, 64, rng)
    assert sorted(everything) == sorted(commands)


@pytest.fixture(scope="module")
def tiny_alfworld(tmp_path_factory):
    """The ALFWorld team's tiny hand-written games on the real engine (skips without the engine)."""
    pytest.importorskip("alfworld")
    pytest.importorskip("textworld")
    tiny = pytest.importorskip("genenv_gym.envs.alfworld.tiny")
    return str(tiny.write_tiny_games(tmp_path_factory.mktemp("tiny")))


def test_alfworld_actions_are_its_admissible_commands(tiny_alfworld):
    env = CandidateActions(gym.make("GenEnv-ALFWorld-v0", data_dir=tiny_alfworld))
    _, info = env.reset(seed=0)
    assert env.action_space.n == 64
    done, reward = False, 0.0
    while not done:
        assert sorted(info["candidates"]) == sorted(set(info["admissible_commands"]))
        expert = env.unwrapped.episode.oracle_action()
        _, reward, terminated, truncated, info = env.step(info["candidates"].index(expert))
        done = terminated or truncated
    assert reward == 1.0 and terminated
    env.close()


def test_alfworld_through_the_sb3_wrappers_passes_both_checkers(tiny_alfworld):
    import warnings

    from gymnasium.utils.env_checker import check_env

    sb3_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    token_ids = pytest.importorskip("genenv_gym.wrappers.token_ids")
    env = CandidateActions(gym.make("GenEnv-ALFWorld-v0", data_dir=tiny_alfworld), num_candidates=16)
    env = token_ids.TokenIdObservation(env, max_tokens=64, candidate_tokens=12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env, skip_render_check=True)
        sb3_checker.check_env(env, warn=False)
    env.close()


def test_any_other_domain_gets_its_expert_and_random_actions():
    from toy_domain import CountingDomain

    from genenv_gym.envs.simulator_env import SimulatorEnv
    from genenv_gym.wrappers.candidates import OracleAndRandom

    env = CandidateActions(SimulatorEnv(domain=CountingDomain()), num_candidates=5)
    _, info = env.reset(seed=0)
    assert isinstance(env.source, OracleAndRandom)
    flags = right_flags(env, info["candidates"])
    assert sorted(flags) == [False, True] and "?" in info["candidates"]  # its only random action is "?"
    assert info["action_mask"].tolist() == [True, True, False, False, False]
    assert env.step(flags.index(True))[1] == 1.0
