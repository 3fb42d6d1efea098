"""The hf backend on tiny random-weight models: batching, n samples, seeds, stops, logprobs, both engines."""

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from forward_logprobs import forward_logprobs  # noqa: E402

from genenv_gym.agents.backends import SamplingParams, make_backend, parse_spec  # noqa: E402
from genenv_gym.agents.backends.base import Completion, finish_tokens  # noqa: E402
from genenv_gym.agents.backends.hf import HFBackend  # noqa: E402
from genenv_gym.agents.tiny_model import build_tiny, save_tiny  # noqa: E402

CHAT = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "What is the weather in Paris?"},
]


@pytest.fixture(scope="module")
def tiny():
    return build_tiny("qwen2")


@pytest.fixture(scope="module")
def backend(tiny):
    model, tokenizer = tiny
    return HFBackend(model, tokenizer, engine="padded")


def test_n_samples_per_prompt_with_token_ids_and_logprobs(tiny, backend):
    model, _ = tiny
    prompts = ["short", "a somewhat longer prompt to force left padding"]
    results = backend.generate(prompts, SamplingParams(n=3, temperature=0.7, max_new_tokens=6, seed=1))
    assert [len(r) for r in results] == [3, 3]
    for prompt, completions in zip(prompts, results, strict=True):
        for c in completions:
            assert c.ok and 1 <= len(c.token_ids) <= 6 and len(c.logprobs) == len(c.token_ids)
            assert list(c.prompt_token_ids) == backend.encode(prompt)
            ref = forward_logprobs(model, c.prompt_token_ids, c, temperature=0.7)
            assert max(abs(a - b) for a, b in zip(ref, c.logprobs, strict=True)) < 1e-4


def test_seeds_reproduce_and_vary(backend):
    params = SamplingParams(n=2, max_new_tokens=5, seed=7)
    first = backend.generate(["hello"], params)
    again = backend.generate(["hello"], params)
    other = backend.generate(["hello"], params.with_(seed=8))
    assert [c.token_ids for c in first[0]] == [c.token_ids for c in again[0]]
    assert [c.token_ids for c in first[0]] != [c.token_ids for c in other[0]]


def test_left_padding_does_not_change_greedy_output(backend):
    greedy = SamplingParams(temperature=0.0, max_new_tokens=6)
    alone = backend.generate(["hello there"], greedy)[0][0]
    batched = backend.generate(["hello there", "x " * 40], greedy)[0][0]
    assert alone.token_ids == batched.token_ids
    assert max(abs(a - b) for a, b in zip(alone.logprobs, batched.logprobs, strict=True)) < 1e-4


def test_stop_strings_cut_the_text_and_keep_the_covering_tokens(backend):
    sampled = SamplingParams(max_new_tokens=12, seed=3)
    full = backend.generate(["stop test"], sampled)[0][0]
    stop = full.text[4:6]
    assert stop and stop in full.text
    cut = backend.generate(["stop test"], sampled.with_(stop=(stop,)))[0][0]
    assert cut.finish_reason == "stop" and cut.stop_string == stop
    assert cut.text == full.text[: full.text.index(stop)]
    assert full.token_ids[: len(cut.token_ids)] == cut.token_ids
    assert stop in backend.decode(cut.token_ids) and stop not in backend.decode(cut.token_ids[:-1])


def test_finish_tokens_cuts_at_eos_and_ignores_padding():
    decode = lambda ids: "".join(chr(97 + i) for i in ids)  # noqa: E731
    params = SamplingParams(max_new_tokens=8)
    done = finish_tokens([0, 1, 9, 9, 9], [-1.0] * 5, params, [9], decode)
    assert done.token_ids == (0, 1, 9) and done.text == "ab" and done.finish_reason == "stop"
    running = finish_tokens([0, 1, 2], [-1.0] * 3, params, [9], decode)
    assert running.finish_reason == "length" and running.token_ids == (0, 1, 2)
    ignoring = finish_tokens([0, 9, 1], [-1.0] * 3, params.with_(ignore_eos=True), [9], decode)
    assert ignoring.token_ids == (0, 9, 1)
    stopped = finish_tokens([0, 1, 2, 3, 9], None, params.with_(stop=("bc",)), [9], decode)
    assert stopped.text == "a" and stopped.token_ids == (0, 1, 2) and stopped.stop_string == "bc"


def test_chat_uses_the_chat_template(backend):
    completion = backend.chat([CHAT], SamplingParams(max_new_tokens=3, seed=0))[0][0]
    rendered = backend.render_chat(CHAT)
    assert rendered.endswith("<|im_start|>assistant\n")
    assert list(completion.prompt_token_ids) == backend.encode(rendered)


def test_continuous_engine_matches_the_padded_engine(tiny):
    model, tokenizer = tiny
    greedy = SamplingParams(temperature=0.0, max_new_tokens=5)
    padded = HFBackend(model, tokenizer, engine="padded").generate(["abc", "hello world"], greedy)
    continuous = HFBackend(model, tokenizer, engine="continuous")
    try:
        cb = continuous.generate(["abc", "hello world"], greedy)
    finally:
        continuous.close()
    for p, c in zip(padded, cb, strict=True):
        assert p[0].token_ids == c[0].token_ids
        assert max(abs(a - b) for a, b in zip(p[0].logprobs, c[0].logprobs, strict=True)) < 1e-4


@pytest.mark.parametrize("engine", ["padded", "fast", "continuous"])
def test_no_engine_leaves_the_model_unusable_for_a_training_step(engine):
    """A trainer generates with its own model, then runs a plain forward and backward on it.

    With eager attention the continuous manager switches the model to ``paged|eager`` (on a GPU: to flash
    attention) while it generates; the model must have its own attention back when ``generate`` returns.
    """
    model, tokenizer = build_tiny("qwen2", seed=3)
    model.set_attn_implementation("eager")
    model.train()
    backend = HFBackend(model, tokenizer, engine=engine)
    greedy = SamplingParams(temperature=0.0, max_new_tokens=3)
    try:
        for _ in range(2):  # the second call reuses the continuous manager, which needs its attention again
            out = backend.generate(["abc", "hello world"], greedy)
            assert all(r[0].ok and len(r[0].token_ids) == 3 for r in out)
            assert model.config._attn_implementation == "eager" and model.training
            ids = torch.tensor([[5, 6, 7, 8], [0, 9, 10, 11]])
            loss = model(ids, attention_mask=torch.tensor([[1, 1, 1, 1], [0, 1, 1, 1]]), labels=ids).loss
            loss.backward()
            grads = [p.grad for p in model.parameters() if p.grad is not None]
            assert grads and all(torch.isfinite(g).all() for g in grads)
            model.zero_grad()
    finally:
        backend.close()
    assert model.config._attn_implementation == "eager"


def test_a_script_that_never_closes_the_continuous_engine_still_exits(tmp_path):
    import subprocess
    import sys

    script = (
        "import torch; torch.set_num_threads(1)\n"
        "from genenv_gym.agents.backends import SamplingParams\n"
        "from genenv_gym.agents.backends.hf import HFBackend\n"
        "from genenv_gym.agents.tiny_model import build_tiny\n"
        "model, tokenizer = build_tiny()\n"
        "backend = HFBackend(model, tokenizer, engine='continuous')\n"
        "print(len(backend.generate(['abc'], SamplingParams(max_new_tokens=2))[0][0].token_ids))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "2"


@pytest.mark.parametrize("engine", ["padded", "fast", "continuous"])
def test_checkpoint_generation_defaults_do_not_leak_into_sampling(engine):
    model, tokenizer = build_tiny("qwen2", seed=2)
    model.generation_config.top_k = 1  # as a checkpoint's generation_config.json might set
    model.generation_config.repetition_penalty = 3.0
    backend = HFBackend(model, tokenizer, engine=engine)
    try:
        out = backend.generate(["defaults"], SamplingParams(n=4, max_new_tokens=4, seed=0))[0]
    finally:
        backend.close()
    assert len({c.token_ids for c in out}) > 1  # top_k=1 would make every sample the same
    for c in out:
        ref = forward_logprobs(model, c.prompt_token_ids, c)
        assert max(abs(a - b) for a, b in zip(ref, c.logprobs, strict=True)) < 1e-4


def test_llama_architecture_and_specs(tmp_path):
    llama = make_backend("tiny:llama")
    out = llama.generate(["hi"], SamplingParams(max_new_tokens=3, seed=0))[0][0]
    assert len(out.token_ids) == len(out.logprobs) >= 1
    path = save_tiny(tmp_path / "tiny", arch="qwen2")
    loaded = make_backend(f"hf:{path}")
    assert loaded.model_name == str(path) and loaded.model.dtype == torch.float32
    assert parse_spec("hf:/models/x").model == "/models/x"
    with pytest.raises(ValueError, match="must start with"):
        parse_spec("hugging:x")


def test_update_weights_changes_generation(tmp_path):
    model, tokenizer = build_tiny("qwen2", seed=0)
    model.train()  # a trainer's model: sampled in eval mode, its mode restored
    backend = HFBackend(model, tokenizer)
    greedy = SamplingParams(temperature=0.0, max_new_tokens=6)
    before = backend.generate(["weights"], greedy)[0][0].logprobs
    assert model.training
    other, _ = build_tiny("qwen2", seed=1)
    backend.update_weights(other.state_dict())
    after = backend.generate(["weights"], greedy)[0][0].logprobs
    assert max(abs(a - b) for a, b in zip(before, after, strict=True)) > 1e-3
    path = save_tiny(tmp_path / "seed0", seed=0)
    backend.update_weights(str(path))
    again = backend.generate(["weights"], greedy)[0][0].logprobs
    assert max(abs(a - b) for a, b in zip(before, again, strict=True)) < 1e-5


def test_empty_prompt_is_an_error_completion(backend):
    out = backend.generate([[], "ok"], SamplingParams(max_new_tokens=2))
    assert out[0][0].finish_reason == "error" and out[1][0].ok
    assert isinstance(out[0][0], Completion)
