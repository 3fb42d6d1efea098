"""The openai backend against a loopback server: requests, retries, timeouts, concurrency, errors."""

import pytest
from fake_llm_server import FakeLLMServer

from genenv_gym.agents.backends import BackendError, SamplingParams, make_backend, parse_spec
from genenv_gym.agents.backends.openai import OpenAIBackend, normalize_base_url

CHAT = [{"role": "user", "content": "hello there"}]


@pytest.fixture
def server():
    fake = FakeLLMServer()
    yield fake
    fake.close()


def backend(server, **kwargs):
    kwargs.setdefault("backoff", 0.01)
    return OpenAIBackend("test-model", server.url, **kwargs)


def test_chat_request_and_response(server, monkeypatch):
    monkeypatch.setenv("GENENV_TEST_KEY", "sk-test")
    b = backend(server, api_key_env="GENENV_TEST_KEY")
    params = SamplingParams(n=2, temperature=0.3, top_p=0.9, top_k=5, max_new_tokens=17, stop=("\n",), seed=4)
    out = b.chat([CHAT, [{"role": "user", "content": "second"}]], params)
    assert [c.text for c in out[0]] == ["echo 0: hello there", "echo 1: hello there"]
    assert out[1][0].text == "echo 0: second" and out[0][0].logprobs == (-0.5, -0.5, -0.5, -0.5)
    path, body, headers = next(r for r in server.requests if r[1]["messages"] == CHAT)
    assert path == "/v1/chat/completions" and headers["Authorization"] == "Bearer sk-test"
    assert body["model"] == "test-model" and body["messages"] == CHAT and body["n"] == 2
    assert body["max_tokens"] == 17 and body["top_k"] == 5 and body["stop"] == ["\n"] and body["seed"] == 4
    assert body["logprobs"] is True and body["temperature"] == 0.3
    assert not b.token_level
    b.close()


def test_retries_with_backoff_then_succeeds(server):
    server.fail = [503, (429, {"Retry-After": "0"}), 500]
    out = backend(server, retries=3).chat([CHAT], SamplingParams())[0][0]
    assert out.ok and out.text.startswith("echo")
    assert len(server.requests) == 4


def test_gives_up_as_an_error_completion(server):
    server.fail = [500] * 10
    out = backend(server, retries=2).chat([CHAT], SamplingParams(n=2))[0]
    assert [c.finish_reason for c in out] == ["error", "error"]
    assert "HTTP 500" in out[0].error and "gave up after 3 attempts" in out[0].error


def test_timeout_is_an_error_completion(server):
    server.delay = 0.5
    out = backend(server, timeout=0.1, retries=1).chat([CHAT], SamplingParams())[0][0]
    assert out.finish_reason == "error" and "timeout" in out.error.lower()


def test_wrong_key_or_model_raises(server):
    server.fail = [401]
    with pytest.raises(BackendError, match=r"HTTP 401.*API key"):
        backend(server).chat([CHAT], SamplingParams())
    server.fail = [404]
    with pytest.raises(BackendError, match="HTTP 404"):
        backend(server).chat([CHAT], SamplingParams())


def test_bad_request_is_an_outcome_and_refused_logprobs_are_dropped(server):
    server.fail = [400]
    assert backend(server).chat([CHAT], SamplingParams())[0][0].finish_reason == "error"
    original = server.handlers["/v1/chat/completions"]

    def refuse_logprobs(body):
        if "logprobs" in body:
            return 400, {"error": {"message": "logprobs is not supported by this model"}}
        return original(body)

    server.handlers["/v1/chat/completions"] = refuse_logprobs
    b = backend(server)
    assert b.chat([CHAT], SamplingParams())[0][0].ok
    assert b.chat([CHAT], SamplingParams())[0][0].ok
    assert ["logprobs" in body for _, body, _ in server.requests[1:]] == [True, False, False]


def test_concurrency_is_limited(server):
    server.delay = 0.1
    b = backend(server, max_concurrency=2)
    out = b.chat([CHAT] * 6, SamplingParams())
    assert all(r[0].ok for r in out)
    assert server.max_in_flight == 2


def test_fewer_choices_than_n_are_topped_up(server):
    original = server.handlers["/v1/chat/completions"]
    server.handlers["/v1/chat/completions"] = lambda body: original({**body, "n": 1})
    out = backend(server).chat([CHAT], SamplingParams(n=3))[0]
    assert len(out) == 3 and all(c.ok for c in out)
    assert [body["n"] for _, body, _ in server.requests] == [3, 2, 1]


def test_tool_calls_and_malformed_responses(server):
    server.handlers["/v1/chat/completions"] = lambda body: {
        "choices": [
            {
                "message": {
                    "content": None,
                    "tool_calls": [
                        {"type": "function", "function": {"name": "f", "arguments": '{"a": 1, "b": "x"}'}},
                        {"type": "function", "function": {"name": "g", "arguments": "not json"}},
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ]
    }
    tools = [{"name": "f", "parameters": {"type": "object", "properties": {}}}]
    out = backend(server).chat([CHAT], SamplingParams(), tools=tools)[0][0]
    assert out.text == "" and out.tool_calls == (
        {"name": "f", "arguments": {"a": 1, "b": "x"}},
        {"name": "g", "arguments": "not json"},
    )
    assert server.requests[-1][1]["tools"] == [{"type": "function", "function": tools[0]}]
    server.handlers["/v1/chat/completions"] = lambda body: {"nothing": True}
    assert "no choices" in backend(server).chat([CHAT], SamplingParams())[0][0].error
    server.handlers["/v1/chat/completions"] = lambda body: b"<html>not json</html>"
    assert "not JSON" in backend(server, retries=0).chat([CHAT], SamplingParams())[0][0].error


def test_completions_route_with_token_ids(server):
    out = backend(server).generate([[1, 2, 3], "text prompt"], SamplingParams(max_new_tokens=2))
    assert out[0][0].token_ids == (7, 8) and out[0][0].logprobs == (-0.1, -0.2)
    assert out[0][0].finish_reason == "length" and out[1][0].text == " after 11"
    assert sorted(str(body["prompt"]) for _, body, _ in server.requests) == ["[1, 2, 3]", "text prompt"]


def test_api_key_required_for_remote_endpoints(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(BackendError, match="OPENAI_API_KEY"):
        make_backend("openai:gpt-4o-mini")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    b = make_backend("openai:gemini-2.5-pro@https://generativelanguage.googleapis.com/v1beta/openai")
    assert (
        b.base_url == "https://generativelanguage.googleapis.com/v1beta/openai"
        and b.model_name == "gemini-2.5-pro"
    )
    b.close()
    assert parse_spec("openai:m@http://127.0.0.1:30000").url == "http://127.0.0.1:30000"
    assert normalize_base_url("http://127.0.0.1:30000") == "http://127.0.0.1:30000/v1"
    with pytest.raises(BackendError, match="base URL"):
        normalize_base_url("127.0.0.1:30000")
