"""The fast engine against the padded engine and a teacher-forced forward pass, on the device it will run on.

The CPU tests (tests/agents/test_fast_engine.py) check the engine eagerly; on a GPU the decode step is a
replayed CUDA graph and the prefill uses the fused attention kernel, so this script checks those paths where
they run. For each model (a small random-weight Qwen2 and Llama in float32, and the Qwen2.5-0.5B shape in the
device's generation dtype) and each case (G = 1 and 8, ragged prompts, rows that end early at different
steps, a later turn whose chats share the task prompt), it prints:

- greedy: the share of completions whose tokens equal the padded engine's (a float32 model must give 1.0;
  in bfloat16 two kernels' rounding can flip a near-tie, after which the sequences differ);
- sampled: the largest |logprob - forward logprob| over every sampled token (float32: < 1e-4);
- the number of CUDA graphs captured.

Exit status 1 when a float32 check fails. Example::

    python benchmarks/fast_engine_check.py --device cuda
"""

from __future__ import annotations

import argparse
import sys

import torch

from genenv_gym.agents.backends import SamplingParams
from genenv_gym.agents.backends.hf import HFBackend
from genenv_gym.agents.tiny_model import build_model, build_tokenizer


def tokens(n: int, seed: int, vocab: int) -> list[int]:
    return torch.randint(3, vocab, (n,), generator=torch.Generator().manual_seed(seed)).tolist()


def forward_logprobs(model, prompt: list[int], completion, temperature: float) -> list[float]:
    ids = torch.tensor([prompt + list(completion.token_ids)], device=model.device)
    with torch.inference_mode():
        logits = model(ids).logits[0].float() / temperature
    logp = torch.log_softmax(logits, dim=-1)
    return [logp[len(prompt) - 1 + j, t].item() for j, t in enumerate(completion.token_ids)]


def cases(vocab: int) -> dict[str, tuple[list[list[int]], int]]:
    base = tokens(300, 0, vocab)
    task = tokens(200, 6, vocab)
    return {
        "G=1 ragged": ([base[:120], [*base[:250], 7, 8], tokens(90, 1, vocab), tokens(33, 2, vocab), [5]], 1),
        "G=8 ragged": ([tokens(150, 3, vocab), tokens(60, 4, vocab), tokens(95, 5, vocab)], 8),
        "later turn": ([task + tokens(k, 10 + k, vocab) for k in (3, 9, 14, 20, 5, 7, 11, 2)], 1),
    }


def check(name: str, model, tokenizer, exact: bool, compile: bool) -> bool:
    vocab = min(len(tokenizer), model.config.vocab_size)
    fast = HFBackend(model, tokenizer, engine="fast", fast_config={"compile": compile})
    padded = HFBackend(model, tokenizer, engine="padded")
    ok = True
    for case, (prompts, n) in cases(vocab).items():
        greedy = SamplingParams(n=n, temperature=0.0, max_new_tokens=24, ignore_eos=True)
        a = padded.generate(prompts, greedy)
        b = fast.generate(prompts, greedy)
        pairs = [(x, y) for ra, rb in zip(a, b, strict=True) for x, y in zip(ra, rb, strict=True)]
        same = sum(x.token_ids == y.token_ids for x, y in pairs) / len(pairs)
        # early stops: two tokens the model samples become ends of turn
        probe = fast.generate(prompts, SamplingParams(n=n, max_new_tokens=24, seed=1, ignore_eos=True))
        saved = model.generation_config.eos_token_id
        model.generation_config.eos_token_id = [probe[0][0].token_ids[3], probe[-1][-1].token_ids[9]]
        try:
            sampled = fast.generate(prompts, SamplingParams(n=n, temperature=0.8, max_new_tokens=24, seed=2))
        finally:
            model.generation_config.eos_token_id = saved
        worst = max(
            abs(x - y)
            for prompt, row in zip(prompts, sampled, strict=True)
            for c in row
            for x, y in zip(forward_logprobs(model, prompt, c, 0.8), c.logprobs, strict=True)
        )
        lengths = sorted({len(c.token_ids) for row in sampled for c in row})
        errors = [c.error for row in sampled for c in row if not c.ok]
        passed = not errors and (not exact or (same == 1.0 and worst < 1e-4))
        ok &= passed
        graphs = fast._fast._step.captured if fast._fast and fast._fast._step else 0
        print(
            f"| {name} | {case} | {same:.3f} | {worst:.2e} | {lengths[0]}-{lengths[-1]} | {graphs}"
            f" | {'ok' if passed else 'FAIL ' + str(errors[:1])} |",
            flush=True,
        )
    fast.close()
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--no-large", action="store_true", help="skip the Qwen2.5-0.5B shape")
    parser.add_argument("--archs", nargs="+", default=["qwen2", "llama"], choices=["qwen2", "llama"])
    parser.add_argument("--compile", action="store_true", help="the fast engine with torch.compile'd layers")
    args = parser.parse_args()
    device = torch.device(args.device)
    tokenizer = build_tokenizer()
    print(
        f"# device {torch.cuda.get_device_name(device) if device.type == 'cuda' else 'cpu'}; torch "
        f"{torch.__version__}"
    )
    print("| model | case | greedy equal to padded | max logprob error | completion lengths | graphs | |")
    print("|---|---|---:|---:|---|---:|---|")
    ok = True
    shape = {"hidden_size": 256, "intermediate_size": 1024, "num_hidden_layers": 4}
    label = " compiled" if args.compile else ""
    for arch in args.archs:
        model = build_model(arch, "tiny", tokenizer, dtype=torch.float32, device=device, **shape)
        ok &= check(f"{arch} tiny fp32{label}", model, tokenizer, exact=True, compile=args.compile)
    if not args.no_large:
        dtype = torch.bfloat16 if device.type == "cuda" else torch.float32
        model = build_model("qwen2", "qwen2.5-0.5b", tokenizer, dtype=dtype, device=device)
        name = f"qwen2.5-0.5b shape {str(dtype).removeprefix('torch.')}{label}"
        check(name, model, tokenizer, exact=False, compile=args.compile)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
