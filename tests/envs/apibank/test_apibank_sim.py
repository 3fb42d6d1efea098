"""API-Bank procedural generator and GenEnv-Sim-APIBank-v0: validity, knobs, determinism, the sim env."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import genenv_gym  # noqa: F401 - registers the ids
from genenv_gym.agents.scripted import OracleAgent
from genenv_gym.envs.apibank.domain import APIBankDomain
from genenv_gym.envs.apibank.generator import NUM_LEVELS, GeneratorConfig, config_for_level


@pytest.fixture(scope="module")
def domain() -> APIBankDomain:
    return APIBankDomain("corrected")


@pytest.mark.parametrize("level", range(NUM_LEVELS))
def test_generated_tasks_are_valid_and_their_knobs_show(domain, level):
    rng = np.random.default_rng(level)
    config = config_for_level(level)
    for _ in range(8):
        task = domain.generate(level, rng)
        assert domain.validate(task) == [] and task.level == level
        apis_called = [t["api_name"] for t in task.evaluation["earlier_api_turns"]]
        assert ("GetUserToken" in apis_called) == config.token
        assert ("AddAlarm" in apis_called) == config.depends
        names = [t["name"] for t in task.tools]
        if config.retrieval:
            assert names == ["ToolSearcher"]
        else:
            assert len(names) == len(apis_called) + 1 + config.distractors
        assert domain.verify(task, domain.random_action(task, rng)).reward == 0.0


def test_generation_is_deterministic(domain):
    a = [domain.generate(2, np.random.default_rng(7)).to_json() for _ in range(2)]
    assert a[0] == a[1]


def test_dependent_calls_use_an_earlier_output(domain):
    task = domain.generate(2, np.random.default_rng(3))
    token = task.evaluation["earlier_api_turns"][0]
    assert token["api_name"] == "GetUserToken"
    token_turn = next(m["content"] for m in task.messages if m["content"].startswith("[GetUserToken("))
    assert task.evaluation["ground_truth"]["param_dict"]["token"] in token_turn


def test_config_validation_is_actionable():
    with pytest.raises(ValueError, match="distractors"):
        GeneratorConfig(distractors=20).validate()
    with pytest.raises(ValueError, match="needs token"):
        GeneratorConfig(depends=True).validate()
    with pytest.raises(ValueError, match=r"levels are 0\.\.4"):
        config_for_level(9)


def test_sim_env_serves_generated_tasks_with_no_arguments():
    env = gym.make("GenEnv-Sim-APIBank-v0", batch_size=2)
    oracle = OracleAgent(env.unwrapped)
    for seed in range(4):
        obs, info = env.reset(seed=seed)
        assert info["provenance"] == "procedural"
        assert env.step(oracle.act(obs, info))[1] == 1.0
