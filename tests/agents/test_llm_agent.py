"""The LLM agent: every registered env id, reply parsing, tool calls, multi-turn histories, token records."""

import gymnasium as gym
import pytest
from fake_llm_server import FakeLLMServer
from toy_dialog import make_dialog_env

import genenv_gym
from genenv_gym.agents.backends import Completion, SamplingParams, ScriptedBackend
from genenv_gym.agents.chat_session import ChatSession
from genenv_gym.agents.llm_agent import LLMAgent, parse_action
from genenv_gym.fixtures import FIXTURES_DIR

ALL_IDS = [entry.id for entry in genenv_gym.ENV_ENTRIES]


def make(env_id, **kwargs):
    if "-Sim-" not in env_id:
        kwargs.setdefault("data_dir", str(FIXTURES_DIR))
    return gym.make(env_id, **kwargs)


def oracle_rule(env, wrap="{}"):
    return lambda prompt, i: wrap.format(env.unwrapped.episode.oracle_action())


@pytest.fixture(scope="module")
def tiny_backend():
    pytest.importorskip("transformers")
    from genenv_gym.agents.backends import make_backend

    return make_backend("tiny:qwen2")


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_tiny_model_plays_every_registered_env(env_id, tiny_backend, offline_envs):
    env = offline_envs.make(env_id)
    agent = LLMAgent.for_env(env, tiny_backend, params=SamplingParams(max_new_tokens=4, seed=0))
    # Simulator envs serve an offline benchmark task: the agent's side is the same (proposing: elsewhere).
    data_dir = offline_envs.data_dir(env_id)
    options = {"task": env.unwrapped.domain.load_tasks(data_dir=data_dir)[0]} if "-Sim-" in env_id else None
    observation, info = env.reset(seed=0, options=options)
    first_role = info["messages"][0]["role"]
    shown = sum(m["role"] == "assistant" for m in info["messages"])  # e.g. the Step env's transcript
    model_tokens = turns = 0
    restarted = False  # a step asked for a fresh chat (info["messages"]: TravelPlanner's tool loop)
    while turns < 3:  # multi-turn envs: the history grows turn by turn
        turns += 1
        action = agent.act(observation, info)
        model_tokens += len(agent.last_completions[0].token_ids)
        observation, reward, terminated, truncated, info = env.step(action)
        assert isinstance(action, str) and isinstance(reward, float)
        if terminated or truncated:
            break
        restarted |= "messages" in info
    session = agent.sessions[0]
    assert session.messages[-1]["role"] == "assistant"
    if restarted:  # the chat is the last fresh prompt and the reply to it
        assert [m["role"] for m in session.messages] == ["user", "assistant"]
    else:
        assert session.messages[0]["role"] == first_role
        assert len([m for m in session.messages if m["role"] == "assistant"]) == shown + turns
        assert session.tokens.mask.count(1) == model_tokens


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_the_agent_chat_holds_each_env_text_once(env_id, offline_envs):
    """A multi-step env whose observation is the whole transcript gives its new turns (or a fresh prompt)
    in ``info``: the chat the model sees never holds the transcript again inside a new turn."""
    env = offline_envs.make(env_id)
    backend = ScriptedBackend(oracle_rule(env))
    agent = LLMAgent.for_env(env, backend)
    data_dir = offline_envs.data_dir(env_id)
    options = {"task": env.unwrapped.domain.load_tasks(data_dir=data_dir)[0]} if "-Sim-" in env_id else None
    observation, info = env.reset(seed=0, options=options)
    opening = [m["content"] for m in info["messages"] if len(m.get("content") or "") >= 200]
    for _ in range(6):
        action = agent.act(observation, info)
        chat = backend.calls[-1]
        for text in opening:
            assert sum(text in str(m.get("content")) for m in chat) <= 1, chat[-1]
        observation, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break


@pytest.mark.parametrize(
    "wrap", ["{}", "<think>\nlet me see\n</think>\n{}", "```python\n{}\n```", "Sure.\n```\n{}\n```"]
)
@pytest.mark.parametrize("action_format", ["python", "json"])
def test_replies_are_parsed_into_the_env_answer(wrap, action_format):
    env = make("GenEnv-BFCL-Parallel-v0", action_format=action_format)
    agent = LLMAgent.for_env(env, ScriptedBackend(oracle_rule(env, wrap)))
    observation, info = env.reset(seed=3)
    _, reward, _, _, step_info = env.step(agent.act(observation, info))
    assert reward == 1.0, step_info


def test_native_tool_calls_become_bfcl_answers():
    server = FakeLLMServer()
    try:
        env = make("GenEnv-BFCL-SimplePython-v0")
        observation, info = env.reset(seed=1)
        call = info["tools"][0]["name"]
        gold = env.unwrapped.task.evaluation["ground_truth"][0][call]
        arguments = {k: v[0] for k, v in gold.items() if v and v[0] != ""}

        def reply(body):
            import json

            function = {"name": call, "arguments": json.dumps(arguments)}
            return {"choices": [{"message": {"content": None, "tool_calls": [{"function": function}]}}]}

        server.handlers["/v1/chat/completions"] = reply
        agent = LLMAgent.for_env(env, "openai:test@" + server.url, pass_tools=True)
        _, reward, _, _, step_info = env.step(agent.act(observation, info))
        assert reward == 1.0, step_info
        sent = server.requests[-1][1]
        assert sent["tools"][0]["function"]["name"] == call and sent["messages"] == info["messages"]
    finally:
        server.close()


def test_parse_action_rules():
    assert parse_action(Completion("<think>x</think> [f(a=1)]")) == "[f(a=1)]"
    assert parse_action(Completion("thinking...</think>\n```json\n[1]\n```")) == "[1]"
    calls = ({"name": "f", "arguments": {"a": 1, "b": "x", "c": True}},)
    assert parse_action(Completion("", tool_calls=calls), "bfcl", "python") == "[f(a=1, b='x', c=True)]"
    assert (
        parse_action(Completion("", tool_calls=calls), "bfcl", "json")
        == '[{"name": "f", "arguments": {"a": 1, "b": "x", "c": true}}]'
    )
    text = '<tool_call>\n{"name": "g", "arguments": {"q": "paris"}}\n</tool_call>'
    assert parse_action(Completion(text), "bfcl", "python") == "[g(q='paris')]"
    assert parse_action(Completion("", finish_reason="error", error="boom")) == ""
    assert (
        parse_action(Completion("__import__('os').system('x')")) == "__import__('os').system('x')"
    )  # text, never run


def test_multi_turn_history_and_batched_slots():
    backend = ScriptedBackend(["no", "still no", "apple", "river", "cloud", "ember", "stone"] * 4)
    agent = LLMAgent(backend)
    envs = [make_dialog_env() for _ in range(2)]
    firsts = [env.reset(seed=i) for i, env in enumerate(envs)]
    actions = agent.act_batch([o for o, _ in firsts], [i for _, i in firsts])
    steps = [env.step(a) for env, a in zip(envs, actions, strict=True)]
    live = [(k, s) for k, s in enumerate(steps) if not (s[2] or s[3])]
    assert live, "the scripted replies keep at least one episode going"
    k, (observation, _, _, _, info) = live[0]
    agent.act_batch([observation], [info], [k])
    conversation = backend.calls[-1]
    assert conversation[-1] == {"role": "user", "content": observation}
    assert conversation[-2]["role"] == "assistant" and conversation[-2]["content"] == actions[k]
    assert conversation[:2] == firsts[k][1]["messages"]


def test_token_record_of_a_multi_turn_chat_matches_the_template(tiny_backend):
    messages = [{"role": "system", "content": "Game."}, {"role": "user", "content": "Say a word."}]
    for ends_with_eos in (True, False):
        session = ChatSession(tiny_backend, messages)
        reply_ids = tiny_backend.encode("hello there")
        if ends_with_eos:
            reply_ids = [*reply_ids, tiny_backend.tokenizer.eos_token_id]
        session.add_completion(Completion("hello there", tuple(reply_ids), tuple([-1.0] * len(reply_ids))))
        session.add_environment([{"role": "user", "content": "Turn 1: not yet."}])
        expected = tiny_backend.encode(tiny_backend.render_chat(session.messages))
        assert session.tokens.token_ids == expected
        assert session.tokens.mask.count(1) == len(reply_ids) and session.template_fallbacks == 0
        first = session.tokens.mask.index(1)
        assert session.tokens.logprobs[first : first + len(reply_ids)] == [-1.0] * len(reply_ids)
