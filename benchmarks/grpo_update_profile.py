"""Where one GRPO micro-batch's time goes on a GPU: reference forward, policy forward, backward, optimizer.

The trainer's update at the paper's shape runs micro-batches of one task (G = 8 rows of ~3.7k tokens: a
BFCL prompt with the small local tokenizer plus 256 response tokens) through ``grpo.token_logprobs`` and
``grpo.grpo_loss`` exactly as ``Trainer._micro_loss`` does (right-padded rows, no attention mask, the
vocabulary projection in chunks). This script times each phase with CUDA events over ``--steps`` micro-batches
after a warm-up, prints tokens/s and MFU per phase (model FLOPs: 2N per token forward, 4N backward, N the
matmul parameters), and the top CUDA kernels of one micro-batch from ``torch.profiler``.

Example::

    python benchmarks/grpo_update_profile.py --rows 8 --tokens 3700 --chunk-tokens 1024
"""

from __future__ import annotations

import argparse
import copy
import json
import time

import torch

from genenv_gym.agents.tiny_model import build_model, build_tokenizer
from genenv_gym.train.grpo import grpo_loss, token_logprobs
from genenv_gym.train.master_weights import MasterWeightAdamW

PEAK_BF16 = {"H200": 989.4e12, "H100": 989.4e12, "A100": 312.0e12}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shape", default="qwen2.5-0.5b")
    parser.add_argument("--rows", type=int, default=8)
    parser.add_argument("--tokens", type=int, default=3700, help="tokens per row (ragged by ±10%%)")
    parser.add_argument("--chunk-tokens", type=int, default=1024)
    parser.add_argument("--checkpointing", action="store_true")
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="print the top kernels of one micro-batch")
    parser.add_argument(
        "--fused",
        nargs="+",
        default=["off", "on"],
        choices=["off", "on"],
        help="token_logprobs' compiled logit reading, each timed in turn in this process",
    )
    args = parser.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    dtype = torch.bfloat16 if device.type == "cuda" else torch.float32
    tokenizer = build_tokenizer()
    model = build_model("qwen2", args.shape, tokenizer, dtype=dtype, device=device)
    reference = copy.deepcopy(model).eval().requires_grad_(False)
    model.train()
    if args.checkpointing:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    optimizer = MasterWeightAdamW(model.parameters(), lr=1e-6)  # the trainer's optimizer
    n = sum(p.numel() for p in model.parameters())  # tied embedding counted once: it is the LM head
    generator = torch.Generator().manual_seed(0)
    lengths = torch.randint(
        int(args.tokens * 0.9), int(args.tokens * 1.1) + 1, (args.rows,), generator=generator
    )
    width = int(lengths.max())
    ids = torch.randint(3, len(tokenizer), (args.rows, width), generator=generator).to(device)
    mask = (torch.arange(width).unsqueeze(0) < lengths.unsqueeze(1)).float()
    mask[:, : width - 256] = 0.0  # the loss reads the response tokens only
    mask = mask.to(device)
    tokens = int(lengths.sum())

    def micro_batch(timer: dict[str, list[float]] | None, fused: bool) -> None:
        events = [torch.cuda.Event(enable_timing=True) for _ in range(5)] if device.type == "cuda" else []
        mark = (lambda i: events[i].record()) if events else (lambda i: None)
        mark(0)
        with torch.no_grad():
            ref = token_logprobs(reference, ids, None, args.chunk_tokens, fused)
        mark(1)
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=device.type == "cuda"):
            lp = token_logprobs(model, ids, None, args.chunk_tokens, fused)
        out = grpo_loss(lp, lp.detach(), torch.ones(args.rows, device=device), mask, ref)
        mark(2)
        out.loss.backward()
        mark(3)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        mark(4)
        if timer is not None and events:
            torch.cuda.synchronize()
            for name, i in (
                ("reference forward", 0),
                ("policy forward", 1),
                ("backward", 2),
                ("optimizer", 3),
            ):
                timer.setdefault(name, []).append(events[i].elapsed_time(events[i + 1]) / 1000)

    name = torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"
    peak = next((f for k, f in PEAK_BF16.items() if k in name), None)
    flops = {"reference forward": 2, "policy forward": 2, "backward": 4, "optimizer": 0}
    for fused in (choice == "on" for choice in args.fused):
        micro_batch(None, fused)  # warm-up (and compilation)
        if device.type == "cuda":
            torch.cuda.reset_peak_memory_stats(device)
        timer: dict[str, list[float]] = {}
        start = time.perf_counter()
        for _ in range(args.steps):
            micro_batch(timer, fused)
        wall = (time.perf_counter() - start) / args.steps
        result = {
            "device": name,
            "rows": args.rows,
            "tokens": tokens,
            "checkpointing": args.checkpointing,
            "chunk_tokens": args.chunk_tokens,
            "fused_logprobs": fused,
            "seconds_per_micro_batch": round(wall, 4),
            "update_mfu": round(8 * n * tokens / wall / peak, 4) if peak else None,
            "phases": {},
        }
        for phase, seconds in timer.items():
            best = min(seconds)
            result["phases"][phase] = {
                "seconds": round(best, 4),
                "mfu": round(flops[phase] * n * tokens / best / peak, 4) if peak and flops[phase] else None,
            }
        if device.type == "cuda":
            result["peak_memory_gib"] = round(torch.cuda.max_memory_allocated(device) / 2**30, 2)
        print(json.dumps(result), flush=True)
        if args.profile and device.type == "cuda":
            from torch.profiler import ProfilerActivity, profile

            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                micro_batch(None, fused)
                torch.cuda.synchronize()
            averages = prof.key_averages()
            table = averages.table(sort_by="cuda_time_total", row_limit=12, max_name_column_width=60)
            print(table, flush=True)


if __name__ == "__main__":
    main()
