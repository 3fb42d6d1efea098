"""The sglang backends' request/response handling, against a loopback server and a stand-in engine.

sglang itself is not installed here (it pins a CUDA torch): the server speaks sglang's native routes as
documented (``/generate`` with ``input_ids``, per-request ``sampling_params`` and ``return_logprob``;
``meta_info.output_token_logprobs`` triples; ``/update_weights_from_disk``; ``/get_model_info``).
"""

import pytest
from fake_llm_server import EOS, FakeLLMServer, sglang_outputs

from genenv_gym.agents.backends import BackendError, SamplingParams, make_backend
from genenv_gym.agents.backends.sglang import SGLangEngineBackend, SGLangServerBackend


class ByteTokenizer:
    """A tokenizer without transformers: one id per UTF-8 byte (offset 3), EOS = 2, a toy chat template."""

    eos_token_id, pad_token_id, eos_token = EOS, 0, "<eos>"
    chat_template = "role-tagged"

    def encode(self, text, add_special_tokens=False):
        return [b + 3 for b in text.encode()]

    def decode(self, ids, skip_special_tokens=True):
        text = bytes(i - 3 for i in ids if i >= 3).decode("utf-8", "replace")
        return text if skip_special_tokens else text + "<eos>" * list(ids).count(EOS)

    def apply_chat_template(self, messages, tokenize=False, add_generation_prompt=True, tools=None):
        return "".join(f"<{m['role']}>{m['content']}</>" for m in messages) + (
            "<assistant>" * add_generation_prompt
        )


@pytest.fixture
def server():
    fake = FakeLLMServer()
    yield fake
    fake.close()


@pytest.fixture(scope="module")
def tokenizer():
    return ByteTokenizer()


def test_generate_sends_token_ids_and_reads_tokens_and_logprobs(server, tokenizer):
    backend = SGLangServerBackend(server.url, tokenizer=tokenizer, model_name="m", backoff=0.01)
    params = SamplingParams(n=2, temperature=0.5, max_new_tokens=8, seed=10)
    out = backend.generate([[11, 12, 13, 14], "hi"], params)
    first = out[0][0]
    assert first.token_ids == (14, 13, 12, EOS) and first.finish_reason == "stop"
    assert first.logprobs == (-0.25, -0.5, -0.75, -1.0)
    assert first.text == tokenizer.decode([14, 13, 12]) and first.prompt_token_ids == (11, 12, 13, 14)
    assert len(out[0]) == 2 and len(out[1]) == 2
    path, body, _ = server.requests[0]
    assert path == "/generate" and body["return_logprob"] is True
    assert body["input_ids"][:2] == [[11, 12, 13, 14], [11, 12, 13, 14]]
    sp = body["sampling_params"]
    assert [s["sampling_seed"] for s in sp] == [10, 11, 12, 13]
    assert sp[0]["max_new_tokens"] == 8 and sp[0]["top_k"] == -1 and sp[0]["temperature"] == 0.5


def test_length_finish_stop_strings_and_batches(server, tokenizer):
    backend = SGLangServerBackend(server.url, tokenizer=tokenizer, max_batch_size=2, backoff=0.01)
    out = backend.generate([[5, 6, 7]] * 3, SamplingParams(max_new_tokens=2))
    assert all(r[0].finish_reason == "length" and r[0].token_ids == (7, 6) for r in out)
    assert len(server.requests) == 2  # 3 prompts in batches of 2
    text = tokenizer.decode([7, 6, 5])
    stopped = backend.generate([[5, 6, 7]], SamplingParams(max_new_tokens=8, stop=(text[-1],)))[0][0]
    assert stopped.finish_reason == "stop" and stopped.stop_string == text[-1]
    assert server.requests[-1][1]["sampling_params"][0]["stop"] == [text[-1]]


def test_chat_renders_the_template_client_side(server, tokenizer):
    backend = SGLangServerBackend(server.url, tokenizer=tokenizer, backoff=0.01)
    chat = [{"role": "user", "content": "hello"}]
    backend.chat([chat], SamplingParams(max_new_tokens=4))
    sent = server.requests[-1][1]["input_ids"][0]
    assert sent == tokenizer.encode(backend.render_chat(chat), add_special_tokens=False)


def test_errors_are_outcomes(server, tokenizer):
    backend = SGLangServerBackend(server.url, tokenizer=tokenizer, retries=1, backoff=0.01)
    server.fail = [500, 500]
    failed = backend.generate([[1, 2]], SamplingParams())[0][0]
    assert failed.finish_reason == "error" and "HTTP 500" in failed.error
    server.handlers["/generate"] = lambda body: [
        {"meta_info": {"finish_reason": {"type": "abort", "message": "oom"}}}
    ]
    assert "aborted: oom" in backend.generate([[1, 2]], SamplingParams())[0][0].error
    server.handlers["/generate"] = lambda body: [{"meta_info": {"output_token_logprobs": [["x"]]}}]
    assert backend.generate([[1, 2]], SamplingParams())[0][0].finish_reason == "error"
    server.handlers["/generate"] = lambda body: []
    assert "too few outputs" in backend.generate([[1, 2]], SamplingParams())[0][0].error


def test_update_weights_from_disk(server, tokenizer):
    backend = SGLangServerBackend(server.url, tokenizer=tokenizer, backoff=0.01)
    backend.update_weights("/ckpt/step_10")
    assert server.loaded == ["/ckpt/step_10"]
    assert server.requests[-1][:2] == ("/update_weights_from_disk", {"model_path": "/ckpt/step_10"})
    with pytest.raises(BackendError, match="no checkpoint"):
        backend.update_weights("/ckpt/missing")
    with pytest.raises(BackendError, match="checkpoint directories"):
        backend.update_weights({"w": 1})


def test_tokenizer_is_found_through_get_model_info(server, tmp_path):
    pytest.importorskip("transformers")
    from genenv_gym.agents.tiny_model import save_tiny

    path = save_tiny(tmp_path / "tiny")
    server.model_info = {"model_path": str(path), "tokenizer_path": str(path)}
    backend = make_backend(f"sglang-server:{server.url}", backoff=0.01)
    assert backend.model_name == str(path) and backend.tokenizer.eos_token == "<|im_end|>"
    with pytest.raises(BackendError, match="cannot reach"):
        SGLangServerBackend("http://127.0.0.1:9", timeout=0.5)


class StandInEngine:
    """Answers like ``sglang.Engine`` (a list of output dicts; ``(success, message)`` for updates)."""

    def __init__(self):
        self.calls = []
        self.updates = []

    def generate(self, input_ids, sampling_params, return_logprob):
        self.calls.append((input_ids, sampling_params, return_logprob))
        return sglang_outputs(
            {"input_ids": input_ids, "sampling_params": sampling_params, "return_logprob": return_logprob}
        )

    def update_weights_from_disk(self, path):
        self.updates.append(path)
        return True, "ok"

    def update_weights_from_tensor(self, named_tensors):
        self.updates.append([name for name, _ in named_tensors])
        return False, "shape mismatch"

    def shutdown(self):
        self.updates.append("shutdown")


def test_offline_engine_backend(tokenizer):
    engine = StandInEngine()
    backend = SGLangEngineBackend("stand-in", tokenizer=tokenizer, engine=engine)
    out = backend.generate([[3, 4, 5]], SamplingParams(n=2, max_new_tokens=8))[0]
    assert [c.token_ids for c in out] == [(5, 4, 3, EOS)] * 2
    assert engine.calls[0][0] == [[3, 4, 5], [3, 4, 5]] and engine.calls[0][2] is True
    backend.update_weights("/ckpt/1")
    with pytest.raises(BackendError, match="shape mismatch"):
        backend.update_weights({"model.embed_tokens.weight": None})
    backend.close()
    assert engine.updates == ["/ckpt/1", ["model.embed_tokens.weight"], "shutdown"]


def test_engine_without_sglang_installed_says_how_to_get_it():
    try:
        import sglang  # noqa: F401
    except ImportError:
        with pytest.raises(BackendError, match=r"genenv-gym\[sglang\]"):
            make_backend("sglang:/models/x")
    else:
        pytest.skip("sglang is installed")
