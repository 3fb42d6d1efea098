"""Generated tokens per second of the hf backend by batch size, against plain ``model.generate``.

The model is a random-weight Qwen2 with the shape of Qwen2.5-0.5B (or 1.5B): the same compute and memory
traffic per token as the real checkpoint, no download. Every prompt is ``--prompt-tokens`` long (with
``--jitter`` spread, so batches need padding like real rollouts) and every sequence generates exactly
``--new-tokens`` tokens (``ignore_eos``), so tokens/s compare like with like. Rows:

- ``hf:padded`` / ``hf:continuous``: ``HFBackend.generate`` on the whole batch (token ids and per-token
  logprobs returned, as the trainer needs them);
- ``generate:batched``: one plain left-padded ``model.generate`` call on the batch (no logprobs);
- ``generate:loop``: plain ``model.generate`` one prompt at a time (the naive rollout loop).

Examples::

    python benchmarks/rollout_throughput.py --size qwen2.5-0.5b --batch-sizes 1 4 16 --new-tokens 16
    python benchmarks/rollout_throughput.py --device cuda --batch-sizes 1 8 32 64 128 256 --new-tokens 128 \\
        --engines padded continuous --out runs/throughput_h100.json
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import torch
import transformers

from genenv_gym.agents.backends import SamplingParams
from genenv_gym.agents.backends.hf import HFBackend
from genenv_gym.agents.tiny_model import SIZES, build_model, build_tokenizer


def make_prompts(n: int, length: int, jitter: float, vocab: int, seed: int) -> list[list[int]]:
    generator = torch.Generator().manual_seed(seed)
    low = max(1, int(length * (1 - jitter)))
    high = max(low, int(length * (1 + jitter)))
    lengths = torch.randint(low, high + 1, (n,), generator=generator).tolist()
    return [torch.randint(3, vocab, (k,), generator=generator).tolist() for k in lengths]


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


def time_backend(backend: HFBackend, prompts: list[list[int]], new_tokens: int) -> tuple[float, int]:
    params = SamplingParams(temperature=1.0, max_new_tokens=new_tokens, ignore_eos=True, seed=0)
    sync(backend.device)
    start = time.perf_counter()
    results = backend.generate(prompts, params)
    sync(backend.device)
    elapsed = time.perf_counter() - start
    errors = [c.error for r in results for c in r if not c.ok]
    if errors:
        raise RuntimeError(f"generation failed: {errors[0]}")
    return elapsed, sum(len(c.token_ids) for r in results for c in r)


def plain_generate(
    model, prompts: list[list[int]], new_tokens: int, pad: int, batched: bool
) -> tuple[float, int]:
    device = model.device
    groups = [prompts] if batched else [[p] for p in prompts]
    sync(device)
    start = time.perf_counter()
    produced = 0
    with torch.inference_mode():
        for group in groups:
            width = max(len(p) for p in group)
            ids = torch.full((len(group), width), pad, dtype=torch.long)
            mask = torch.zeros_like(ids)
            for row, p in enumerate(group):
                ids[row, width - len(p) :] = torch.tensor(p)
                mask[row, width - len(p) :] = 1
            out = model.generate(
                input_ids=ids.to(device),
                attention_mask=mask.to(device),
                do_sample=True,
                max_new_tokens=new_tokens,
                top_k=0,
                pad_token_id=pad,
            )
            produced += (out.shape[1] - width) * len(group)
    sync(device)
    return time.perf_counter() - start, produced


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--size", default="qwen2.5-0.5b", choices=sorted(SIZES))
    parser.add_argument("--arch", default="qwen2", choices=["qwen2", "llama"])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--prompt-tokens", type=int, default=64)
    parser.add_argument("--jitter", type=float, default=0.25, help="prompt length spread (fraction)")
    parser.add_argument("--new-tokens", type=int, default=16)
    parser.add_argument("--engines", nargs="+", default=["padded"], choices=["padded", "continuous"])
    parser.add_argument("--loop-max-batch", type=int, default=16, help="largest batch for generate:loop")
    parser.add_argument("--no-baseline", action="store_true", help="skip the plain model.generate rows")
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads")
    parser.add_argument(
        "--repeats", type=int, default=1, help="runs per method (interleaved); the fastest is kept"
    )
    parser.add_argument("--out", type=Path, default=None, help="write the results as JSON here")
    args = parser.parse_args()

    if args.threads:
        torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    dtype = torch.bfloat16 if device.type == "cuda" else torch.float32
    tokenizer = build_tokenizer()
    model = build_model(args.arch, args.size, tokenizer, dtype=dtype, device=device)
    model.generation_config.eos_token_id = None  # every sequence runs to --new-tokens in every method
    params_b = sum(p.numel() for p in model.parameters()) / 1e9
    vocab = len(tokenizer)
    backends = {
        e: HFBackend(model, tokenizer, engine=e, max_batch_size=max(args.batch_sizes)) for e in args.engines
    }
    header = (
        f"# {args.arch} {args.size} ({params_b:.2f}B params, random weights) on {device.type}"
        f" ({torch.cuda.get_device_name() if device.type == 'cuda' else platform.processor() or 'cpu'},"
        f" {torch.get_num_threads()} threads), {dtype};"
        f" prompts {args.prompt_tokens}±{args.jitter:.0%} tokens,"
        f" {args.new_tokens} new tokens; torch {torch.__version__}"
    )
    print(header, flush=True)
    warm = make_prompts(2, 8, 0.0, vocab, seed=99)
    for backend in backends.values():
        time_backend(backend, warm, 2)
    plain_generate(model, warm, 2, tokenizer.pad_token_id, batched=True)

    rows = []
    print("| batch | method | seconds | tokens | tokens/s |\n|---:|---|---:|---:|---:|", flush=True)
    for batch in args.batch_sizes:
        prompts = make_prompts(batch, args.prompt_tokens, args.jitter, vocab, seed=batch)
        pad = tokenizer.pad_token_id
        runs: list[tuple[str, Callable[[], tuple[float, int]]]] = [
            (f"hf:{name}", partial(time_backend, backend, prompts, args.new_tokens))
            for name, backend in backends.items()
        ]
        if not args.no_baseline:
            runs.append(
                ("generate:batched", partial(plain_generate, model, prompts, args.new_tokens, pad, True))
            )
            if batch <= args.loop_max_batch:
                runs.append(
                    ("generate:loop", partial(plain_generate, model, prompts, args.new_tokens, pad, False))
                )
        best: dict[str, tuple[float, int]] = {}
        for _ in range(args.repeats):  # methods interleaved, so load changes hit them alike; best time kept
            for method, run in runs:
                seconds, tokens = run()
                if method not in best or seconds < best[method][0]:
                    best[method] = (seconds, tokens)
        for method, (seconds, tokens) in best.items():
            row = {
                "batch": batch,
                "method": method,
                "seconds": seconds,
                "tokens": tokens,
                "tokens_per_s": tokens / seconds,
            }
            rows.append(row)
            print(f"| {batch} | {method} | {seconds:.2f} | {tokens} | {tokens / seconds:.1f} |", flush=True)
    for backend in backends.values():
        backend.close()
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        versions = {"torch": torch.__version__, "transformers": transformers.__version__}
        result = {
            "setup": header,
            "args": vars(args) | {"out": str(args.out)},
            "versions": versions,
            "rows": rows,
        }
        args.out.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
