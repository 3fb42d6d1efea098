"""A model that calls tools natively scores what the oracle scores, on every registered env id.

Each step's oracle action is read back into native tool calls by the call format its domain's manifest
declares (``{"name", "arguments"}`` lists, as an OpenAI-compatible endpoint returns them), handed to the LLM
agent's parser as a completion with ``tool_calls`` and no text, and the parsed action is played. Steps whose
action is text (a reply in words, a command) go through the parser as text.
"""

from __future__ import annotations

import pytest

import genenv_gym
from genenv_gym.agents.backends import Completion
from genenv_gym.agents.llm_agent import env_answer_format, parse_action
from genenv_gym.agents.scripted import OracleAgent
from genenv_gym.agents.tool_calls import JSON_CALLS, call_format_of
from genenv_gym.registry.manifest import domain_spec

ALL_IDS = [entry.id for entry in genenv_gym.ENV_ENTRIES]
#: Ids with a call format whose oracle answers every task in words (a refusal, a reply after an API result).
ANSWERS_IN_WORDS = {
    "GenEnv-BFCL-Irrelevance-v0",
    "GenEnv-BFCL-LiveIrrelevance-v0",
    "GenEnv-APIBank-Response-v0",
}


def play_with_native_calls(env, episodes: int = 4) -> tuple[list[float], int]:
    """Episode returns, and how many steps went through native tool calls."""
    oracle = OracleAgent(env)
    domain, action_format = env_answer_format(env)
    call_format = call_format_of(domain)
    returns, native_steps = [], 0
    obs, info = env.reset(seed=0)
    for _ in range(episodes):
        total, done = 0.0, False
        while not done:
            action = oracle.act(obs, info)
            calls = call_format.from_action(action, action_format)
            if calls:
                native_steps += 1
                completion = Completion("", tool_calls=tuple(calls))
            else:
                completion = Completion(action)
            obs, reward, terminated, truncated, _ = env.step(parse_action(completion, domain, action_format))
            total += reward
            done = terminated or truncated
        returns.append(total)
        obs, info = env.reset()
    return returns, native_steps


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_native_tool_calls_of_the_oracle_score_one(env_id, offline_envs):
    env = offline_envs.make(env_id)
    try:
        returns, native_steps = play_with_native_calls(env)
        domain, _ = env_answer_format(env)
        spec = domain_spec(domain)
        assert spec is not None, f"{env_id}: domain {domain!r} is in no manifest"
        if spec.call_format is not None:
            assert (native_steps > 0) == (env_id not in ANSWERS_IN_WORDS), (env_id, native_steps)
        _, info = env.reset(seed=0)
        if info.get("tools"):
            assert spec.call_format is not None, f"{env_id} offers tools but its manifest has no call_format"
    finally:
        env.close()
    assert returns == [1.0] * len(returns), (env_id, returns)


@pytest.mark.parametrize(
    "env_id", ["GenEnv-BFCL-v0", "GenEnv-BFCL-MultiTurn-v0", "GenEnv-APIBank-Dialogue-v0"]
)
def test_native_tool_calls_in_the_json_action_format(env_id, offline_envs):
    kwargs = {} if "APIBank" in env_id else {"action_format": "json"}
    env = offline_envs.make(env_id, **kwargs)
    try:
        returns, native_steps = play_with_native_calls(env)
    finally:
        env.close()
    assert native_steps > 0 and returns == [1.0] * len(returns)


def test_domains_without_a_call_format_get_json_lists():
    calls = [{"name": "ls", "arguments": {"a": True}}]
    assert call_format_of("no-such-domain") is JSON_CALLS
    assert parse_action(Completion("", tool_calls=tuple(calls)), None, None) == (
        '[{"name": "ls", "arguments": {"a": true}}]'
    )


def test_native_calls_on_bfcl_multiturn_become_its_python_calls():
    """The bug this fixes: a JSON list the multi-turn decoder rejects ("list element is not a call")."""
    calls = ({"name": "ls", "arguments": {"a": True}},)
    assert parse_action(Completion("", tool_calls=calls), "bfcl_multiturn", "python") == "[ls(a=True)]"
