"""The hf backend's fast engine: the padded engine's tokens and a forward pass's logprobs, less work.

On a CPU the decode step runs eagerly; ``benchmarks/fast_engine_check.py`` runs the same comparisons on a
GPU, where the step is a replayed CUDA graph (docs/llm_stack.md has its figures).
"""

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from forward_logprobs import forward_logprobs, random_tokens  # noqa: E402

from genenv_gym.agents.backends import BackendError, SamplingParams  # noqa: E402
from genenv_gym.agents.backends.fast import FastEngine, unsupported_reason  # noqa: E402
from genenv_gym.agents.backends.fast.engine import length_bucket, row_bucket  # noqa: E402
from genenv_gym.agents.backends.hf import HFBackend  # noqa: E402
from genenv_gym.agents.tiny_model import build_tiny  # noqa: E402


@pytest.fixture(scope="module", params=["qwen2", "llama"])
def tiny(request):
    return build_tiny(request.param, seed=4)


def assert_exact(model, prompts, out, temperature):
    for prompt, row in zip(prompts, out, strict=True):
        for c in row:
            assert c.ok, c.error
            ref = forward_logprobs(model, prompt, c, temperature)
            assert max(abs(a - b) for a, b in zip(ref, c.logprobs, strict=True)) < 1e-4


def completions(out):
    return [(c.token_ids, c.finish_reason, c.text) for row in out for c in row]


RAGGED = [
    random_tokens(60, 0)[:40],
    [*random_tokens(60, 0)[:55], 7, 8],
    random_tokens(30, 1),
    random_tokens(12, 2),
    [5],
]


@pytest.mark.parametrize("group_size", [1, 8])
def test_greedy_tokens_equal_the_padded_engine_and_sampled_logprobs_a_forward_pass(tiny, group_size):
    """Ragged prompts (one of a single token, two sharing a head), G = 1 and 8."""
    model, tokenizer = tiny
    greedy = SamplingParams(n=group_size, temperature=0.0, max_new_tokens=8, ignore_eos=True)
    fast = HFBackend(model, tokenizer, engine="fast")
    padded = HFBackend(model, tokenizer, engine="padded")
    assert completions(fast.generate(RAGGED, greedy)) == completions(padded.generate(RAGGED, greedy))
    sampled = fast.generate(RAGGED, SamplingParams(n=group_size, temperature=0.8, max_new_tokens=8, seed=5))
    assert_exact(model, RAGGED, sampled, 0.8)
    if group_size == 8:
        assert len({c.token_ids for c in sampled[0]}) > 1  # the G samples differ
        assert fast.prefill_positions < padded.prefill_positions / 4  # each prompt prefilled once


def test_rows_that_end_early_leave_the_batch_and_match_the_padded_engine(tiny):
    """Ends of turn at different steps (a checkpoint's eos list), groups cut across batches of 6."""
    model, tokenizer = tiny
    prompts = [random_tokens(50, 3), random_tokens(20, 4), random_tokens(35, 5)]
    params = SamplingParams(n=8, temperature=0.0, max_new_tokens=12)
    probe = HFBackend(model, tokenizer, engine="padded").generate(prompts, params.with_(ignore_eos=True))
    saved = model.generation_config.eos_token_id
    model.generation_config.eos_token_id = [
        tokenizer.eos_token_id,
        probe[0][0].token_ids[2],
        probe[2][0].token_ids[6],
    ]
    try:
        fast = HFBackend(model, tokenizer, engine="fast", max_batch_size=6)
        got = fast.generate(prompts, params)
        want = HFBackend(model, tokenizer, engine="padded", max_batch_size=6).generate(prompts, params)
        sampled = fast.generate(prompts, params.with_(temperature=1.0, seed=3))
    finally:
        model.generation_config.eos_token_id = saved
    assert completions(got) == completions(want)
    assert len({len(c.token_ids) for r in got for c in r}) > 1 and fast._fast.compactions > 0
    assert_exact(model, prompts, sampled, 1.0)


def test_later_turns_prefill_the_shared_task_prompt_once(tiny):
    model, tokenizer = tiny
    task = random_tokens(80, 6)
    chats = [task + random_tokens(k, 10 + k) for k in (3, 9, 14, 20, 5, 7, 11, 2)]
    greedy = SamplingParams(temperature=0.0, max_new_tokens=6, ignore_eos=True)
    fast = HFBackend(model, tokenizer, engine="fast")
    alone = HFBackend(model, tokenizer, engine="fast", share_prefixes=False)
    padded = HFBackend(model, tokenizer, engine="padded", share_prefixes=False)
    want = completions(padded.generate(chats, greedy))
    assert completions(fast.generate(chats, greedy)) == want == completions(alone.generate(chats, greedy))
    assert fast.prefill_positions * 2 < alone.prefill_positions
    assert_exact(model, chats, fast.generate(chats, greedy.with_(temperature=0.7, seed=1)), 0.7)


def test_stop_strings_cut_as_the_padded_engine_cuts(tiny):
    model, tokenizer = tiny
    params = SamplingParams(n=2, temperature=0.0, max_new_tokens=20, stop=("e", "d"))
    prompts = ["hello world", "abc", "the weather in Paris"]
    fast = HFBackend(model, tokenizer, engine="fast").generate(prompts, params)
    assert completions(fast) == completions(
        HFBackend(model, tokenizer, engine="padded").generate(prompts, params)
    )


def test_top_k_and_top_p_sample_inside_the_kept_set_and_report_full_vocabulary_logprobs():
    model, tokenizer = build_tiny("qwen2", seed=6)
    backend = HFBackend(model, tokenizer, engine="fast")
    prompt = random_tokens(20, 7)
    with torch.no_grad():
        logits = model(torch.tensor([prompt])).logits[0, -1].float()
    top3 = set(torch.topk(logits, 3).indices.tolist())
    firsts = {c.token_ids[0] for c in backend.generate([prompt], SamplingParams(n=64, top_k=3, seed=0))[0]}
    assert firsts <= top3 and len(firsts) > 1
    probs = torch.softmax(logits, dim=-1)
    ordered = torch.sort(probs, descending=True)
    nucleus = set(ordered.indices[: int((ordered.values.cumsum(0) < 0.5).sum()) + 1].tolist())
    out = backend.generate([prompt], SamplingParams(n=32, top_p=0.5, max_new_tokens=3, seed=1))
    assert {c.token_ids[0] for c in out[0]} <= nucleus
    assert_exact(model, [prompt], out, 1.0)  # the logprob ignores the truncation, as sglang's does


def test_a_seed_makes_a_call_reproducible():
    model, tokenizer = build_tiny("llama", seed=1)
    backend = HFBackend(model, tokenizer, engine="fast")
    params = SamplingParams(n=4, max_new_tokens=6, seed=11)
    first = completions(backend.generate(RAGGED, params))
    assert first == completions(backend.generate(RAGGED, params))
    assert first != completions(backend.generate(RAGGED, params.with_(seed=12)))


def test_unsupported_models_are_refused_by_name_and_auto_picks_padded_on_a_cpu():
    from transformers import GPT2Config, GPT2LMHeadModel

    model, tokenizer = build_tiny("qwen2")
    assert unsupported_reason(model) is None
    assert HFBackend(model, tokenizer).engine == "padded"  # auto: the fast engine is for GPUs
    gpt2 = GPT2LMHeadModel(GPT2Config(n_layer=1, n_head=2, n_embd=16, vocab_size=len(tokenizer)))
    assert "gpt2" in unsupported_reason(gpt2)
    with pytest.raises(BackendError, match=r"fast engine cannot run .*gpt2"):
        HFBackend(gpt2, tokenizer, engine="fast")
    with pytest.raises(ValueError, match="CUDA graphs need the model on a GPU"):
        FastEngine(model, graphs=True)


def test_the_cache_is_kept_between_calls_and_freed_by_close():
    model, tokenizer = build_tiny("qwen2", seed=2)
    backend = HFBackend(model, tokenizer, engine="fast")
    params = SamplingParams(n=2, max_new_tokens=4, seed=0)
    backend.generate(RAGGED, params)
    cache = backend._fast._cache
    assert cache is not None and cache.fits(len(RAGGED) * 2, length_bucket(62 + 4))
    backend.generate(RAGGED[:2], params)
    assert backend._fast._cache is cache  # a smaller call reuses it
    backend.close()
    assert backend._fast._cache is None


def test_buckets_round_up_to_captured_shapes():
    assert [row_bucket(n) for n in (1, 3, 9, 64, 65, 500, 513, 700)] == [1, 4, 16, 64, 96, 512, 640, 768]
    assert [length_bucket(n) for n in (1, 128, 129)] == [128, 128, 256]


@pytest.mark.slow
def test_compiled_layers_give_the_eager_tokens_and_logprobs():
    """torch.compile on the CPU takes minutes: the full suite only (the GPU check runs it at every lease)."""
    model, tokenizer = build_tiny("qwen2", seed=4)
    params = SamplingParams(n=8, temperature=0.0, max_new_tokens=6, ignore_eos=True)
    eager = HFBackend(model, tokenizer, engine="fast").generate(RAGGED, params)
    compiled = HFBackend(model, tokenizer, engine="fast", fast_config={"compile": True}).generate(
        RAGGED, params
    )
    assert completions(compiled) == completions(eager)
    for a, b in zip([c for r in eager for c in r], [c for r in compiled for c in r], strict=True):
        assert max(abs(x - y) for x, y in zip(a.logprobs, b.logprobs, strict=True)) < 1e-4
