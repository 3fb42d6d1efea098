"""Generated tokens/s of the hf backend's engines against plain ``model.generate``, and the HBM roofline.

The model is a random-weight Qwen2 with the shape of Qwen2.5-0.5B (or 1.5B, or ``tiny`` resized with
``--hidden-size`` / ``--layers``): the same compute and memory traffic per token as the real checkpoint, no
download. A batch is ``batch / --group-size`` tasks whose prompt each of its G rows shares (as the G samples
of a GRPO group do). Prompts are ``--prompt-tokens`` long: ``ragged`` spreads them by ``--jitter`` (batches
need padding, like real rollouts), ``same`` makes them all that long. ``--reply-tokens`` times a later turn
of a multi-turn episode: each of the G chats of a task continues the task prompt with its own reply. Every
sequence generates exactly ``--new-tokens`` tokens (``ignore_eos``), so tokens/s compare like with like.
Methods:

- ``hf:padded`` / ``hf:continuous``: ``HFBackend.generate`` with ``n = G`` (token ids and per-token logprobs
  returned, as the trainer needs them), prefix sharing ``on`` and/or ``off`` (``--prefix-sharing``: the
  padded engine's ``share_prefixes``; the continuous manager's ``allow_block_sharing``);
- ``generate:batched``: one plain left-padded ``model.generate`` call on the batch (no logprobs);
- ``generate:loop``: plain ``model.generate`` one row at a time (the naive rollout loop).

Every method runs once at each real shape before it is timed (``--warmup-runs``), then ``--repeats`` times,
interleaved with the other methods so load changes hit them alike; the fastest run is kept. Each row
reports seconds and prompt positions prefilled (padding included) per task, and the fraction of the decode
roofline: a decode step must read every weight once and the KV cache of every row (mean context = mean
prompt + half the new tokens), so ``--hbm-bandwidth`` bytes/s allow at most ``batch / (bytes / bandwidth)``
tokens/s. The measured rate includes the prefill, so the fraction understates how near the decode step
alone comes to the roofline.

Examples::

    # CPU: prefix sharing at G = 8 against one row per sample (prefill positions and seconds per task)
    python benchmarks/rollout_throughput.py --size tiny --hidden-size 256 --layers 4 --threads 1 \\
        --batch-sizes 64 --group-size 8 --prompt-tokens 300 --new-tokens 4 --prefix-sharing on off \\
        --loop-max-batch 0
    # GPU: every engine x {ragged, same-length} x batch {64, 512} x prefix sharing on/off (docs/llm_stack.md)
    python benchmarks/rollout_throughput.py --device cuda --engines padded continuous --lengths ragged same \\
        --batch-sizes 64 512 --group-size 8 --prompt-tokens 1024 --new-tokens 128 --prefix-sharing on off \\
        --loop-max-batch 0 --max-run-seconds 30 --out runs/rollout_matrix_h100.json
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import torch
import transformers

from genenv_gym.agents.backends import SamplingParams
from genenv_gym.agents.backends.hf import HFBackend
from genenv_gym.agents.tiny_model import SIZES, build_model, build_tokenizer

#: One H100 SXM's HBM3 bandwidth, bytes/s.
H100_HBM_BANDWIDTH = 3.35e12
#: Datasheet HBM bandwidth by device-name fragment, bytes/s (first match wins).
HBM_BANDWIDTH = {"H200": 4.8e12, "H100 PCIe": 2.0e12, "H100": H100_HBM_BANDWIDTH, "A100": 2.0e12}


def hbm_bandwidth(device: torch.device) -> float:
    """The roofline's bandwidth for ``device``: its datasheet figure where known, else an H100 SXM's."""
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else ""
    return next((b for fragment, b in HBM_BANDWIDTH.items() if fragment in name), H100_HBM_BANDWIDTH)


@dataclass(frozen=True)
class Run:
    """One timed call: wall seconds, generated tokens, prompt positions prefilled (None: not counted)."""

    seconds: float
    tokens: int
    prefill_positions: int | None


def make_prompts(n: int, length: int, jitter: float, vocab: int, seed: int) -> list[list[int]]:
    generator = torch.Generator().manual_seed(seed)
    low = max(1, int(length * (1 - jitter)))
    high = max(low, int(length * (1 + jitter)))
    lengths = torch.randint(low, high + 1, (n,), generator=generator).tolist()
    return [torch.randint(3, vocab, (k,), generator=generator).tolist() for k in lengths]


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


def time_backend(backend: HFBackend, prompts: list[list[int]], group_size: int, new_tokens: int) -> Run:
    """``group_size`` completions of each prompt in one ``generate`` call."""
    params = SamplingParams(n=group_size, temperature=1.0, max_new_tokens=new_tokens, ignore_eos=True, seed=0)
    prefilled = backend.prefill_positions
    sync(backend.device)
    start = time.perf_counter()
    results = backend.generate(prompts, params)
    sync(backend.device)
    elapsed = time.perf_counter() - start
    errors = [c.error for r in results for c in r if not c.ok]
    if errors:
        raise RuntimeError(f"generation failed: {errors[0]}")
    counted = backend.engine != "continuous"  # the continuous manager does not report its prefill
    return Run(
        elapsed,
        sum(len(c.token_ids) for r in results for c in r),
        backend.prefill_positions - prefilled if counted else None,
    )


def plain_generate(model, rows: list[list[int]], new_tokens: int, pad: int, batched: bool) -> Run:
    device = model.device
    groups = [rows] if batched else [[p] for p in rows]
    sync(device)
    start = time.perf_counter()
    produced = prefilled = 0
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
            prefilled += ids.numel()
    sync(device)
    return Run(time.perf_counter() - start, produced, prefilled)


def weight_bytes(model: torch.nn.Module) -> int:
    """Bytes of the model's parameters (tied embeddings counted once)."""
    return sum(p.numel() * p.element_size() for p in model.parameters())


def kv_bytes_per_token(model: torch.nn.Module) -> int:
    """Bytes of KV cache one token of one sequence holds: keys and values of every layer."""
    config = model.config
    head_dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
    kv_heads = getattr(config, "num_key_value_heads", None) or config.num_attention_heads
    itemsize = next(model.parameters()).element_size()
    return 2 * config.num_hidden_layers * kv_heads * head_dim * itemsize


def roofline_tokens_per_s(model: torch.nn.Module, batch: int, mean_context: float, bandwidth: float) -> float:
    """The most tokens/s a memory-bound decode allows: ``batch`` tokens per read of weights + KV cache."""
    step_bytes = weight_bytes(model) + batch * mean_context * kv_bytes_per_token(model)
    return batch / (step_bytes / bandwidth)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--size", default="qwen2.5-0.5b", choices=sorted(SIZES))
    parser.add_argument("--arch", default="qwen2", choices=["qwen2", "llama"])
    parser.add_argument("--hidden-size", type=int, default=None, help="override: hidden H, MLP 4H")
    parser.add_argument("--layers", type=int, default=None, help="override: number of layers")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[1, 4, 16], help="rows per call")
    parser.add_argument(
        "--group-size", type=int, default=1, help="rows per task (G): batch / G task prompts, each G times"
    )
    parser.add_argument("--prompt-tokens", type=int, default=64)
    parser.add_argument("--jitter", type=float, default=0.25, help="ragged prompt length spread (fraction)")
    parser.add_argument(
        "--lengths", nargs="+", default=["ragged"], choices=["ragged", "same"], help="prompt length mixes"
    )
    parser.add_argument(
        "--reply-tokens",
        type=int,
        default=0,
        help="a later turn: each row's chat continues its task prompt with its own reply of this many tokens",
    )
    parser.add_argument("--new-tokens", type=int, default=16)
    parser.add_argument(
        "--engines",
        nargs="+",
        default=["padded"],
        choices=["fast", "fast-compiled", "padded", "static", "continuous"],
        help="hf engines; static = the padded engine with transformers' static cache (no prefix sharing);"
        " fast-compiled = the fast engine with torch.compile'd layers",
    )
    parser.add_argument(
        "--prefix-sharing", nargs="+", default=["on"], choices=["on", "off"], help="hf rows with it on / off"
    )
    parser.add_argument("--loop-max-batch", type=int, default=16, help="largest batch for generate:loop")
    parser.add_argument("--no-baseline", action="store_true", help="skip the plain model.generate rows")
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads")
    parser.add_argument("--warmup-runs", type=int, default=1, help="untimed runs of each method per shape")
    parser.add_argument(
        "--warmup-new-tokens",
        type=int,
        default=None,
        help="new tokens of a warm-up run (default --new-tokens; fewer keep the prompts' shape at less cost)",
    )
    parser.add_argument(
        "--repeats", type=int, default=3, help="timed runs per method (interleaved); the fastest is kept"
    )
    parser.add_argument(
        "--max-run-seconds",
        type=float,
        default=None,
        help="a method whose warm-up (scaled to --new-tokens) took longer is timed once (keeps a slow engine"
        " from eating the budget)",
    )
    parser.add_argument(
        "--hbm-bandwidth",
        type=float,
        default=None,
        help="bytes/s for the roofline (default: the datasheet figure of a known GPU, else an H100 SXM's)",
    )
    parser.add_argument("--out", type=Path, default=None, help="write the results as JSON here")
    args = parser.parse_args(argv)
    for batch in args.batch_sizes:
        if batch % args.group_size:
            parser.error(f"batch size {batch} is not a multiple of --group-size {args.group_size}")
    return args


def build_backends(model, tokenizer, args: argparse.Namespace) -> dict[tuple[str, str], HFBackend]:
    from transformers.generation.configuration_utils import ContinuousBatchingConfig

    switchable = hasattr(ContinuousBatchingConfig, "allow_block_sharing")  # not in every transformers 5.x
    backends = {}
    for engine in args.engines:
        for sharing in args.prefix_sharing:
            continuous = engine == "continuous"
            if continuous and not switchable:  # one row, with the manager's own default
                if sharing != args.prefix_sharing[0]:
                    continue
                sharing = "default"
            if engine == "static":  # transformers' static cache takes no prefix sharing
                if sharing != args.prefix_sharing[0]:
                    continue
                sharing = "-"
            on = sharing not in ("off", "-")
            backends[(engine, sharing)] = HFBackend(
                model,
                tokenizer,
                engine={"static": "padded", "fast-compiled": "fast"}.get(engine, engine),
                static_cache=engine == "static",
                fast_config={"compile": True} if engine == "fast-compiled" else None,
                max_batch_size=max(args.batch_sizes),
                share_prefixes=on,
                continuous_config={"allow_block_sharing": on} if continuous and switchable else None,
            )
    return backends


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    args = parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    if args.hbm_bandwidth is None:
        args.hbm_bandwidth = hbm_bandwidth(device)
    dtype = torch.bfloat16 if device.type == "cuda" else torch.float32
    tokenizer = build_tokenizer()
    overrides: dict[str, Any] = {}
    if args.hidden_size:
        overrides.update(hidden_size=args.hidden_size, intermediate_size=4 * args.hidden_size)
    if args.layers:
        overrides["num_hidden_layers"] = args.layers
    model = build_model(args.arch, args.size, tokenizer, dtype=dtype, device=device, **overrides)
    model.generation_config.eos_token_id = None  # every sequence runs to --new-tokens in every method
    params_b = sum(p.numel() for p in model.parameters()) / 1e9
    vocab = len(tokenizer)
    backends = build_backends(model, tokenizer, args)
    header = (
        f"# {args.arch} {args.size} {overrides or ''} ({params_b:.3f}B params, random weights)"
        f" on {device.type}"
        f" ({torch.cuda.get_device_name() if device.type == 'cuda' else platform.processor() or 'cpu'},"
        f" {torch.get_num_threads()} threads), {dtype}; G = {args.group_size};"
        f" prompts {args.prompt_tokens} tokens (ragged: ±{args.jitter:.0%}), {args.new_tokens} new tokens;"
        f" warm-up {args.warmup_runs} run(s) per shape, best of {args.repeats};"
        f" roofline: {weight_bytes(model) / 1e9:.3f} GB weights + {kv_bytes_per_token(model)} B KV/token"
        f" at {args.hbm_bandwidth:.3g} B/s;"
        f" torch {torch.__version__}, transformers {transformers.__version__}"
    )
    print(header, flush=True)
    print(
        "| batch | prompts | method | prefix sharing | seconds | tokens | tokens/s | s/task"
        " | prefill positions/task | roofline tok/s | of roofline |\n"
        "|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|",
        flush=True,
    )
    rows: list[dict[str, Any]] = []
    pad = tokenizer.pad_token_id
    for lengths in args.lengths:
        for batch in args.batch_sizes:
            tasks = make_prompts(
                batch // args.group_size,
                args.prompt_tokens,
                args.jitter if lengths == "ragged" else 0.0,
                vocab,
                seed=batch,
            )
            expanded = [p for p in tasks for _ in range(args.group_size)]
            calls, n = (tasks, args.group_size)
            if args.reply_tokens:  # a later turn: each of the G chats of a task has its own reply after it
                replies = make_prompts(batch, args.reply_tokens, args.jitter, vocab, seed=batch + 1)
                expanded = [p + r for p, r in zip(expanded, replies, strict=True)]
                calls, n = (expanded, 1)
            runs: list[tuple[str, str, Callable[[int], Run]]] = [
                (
                    f"hf:{engine}",
                    sharing,
                    partial(time_backend, backend, calls, n),
                )
                for (engine, sharing), backend in backends.items()
            ]
            if not args.no_baseline:
                runs.append(
                    (
                        "generate:batched",
                        "-",
                        partial(plain_generate, model, expanded, pad=pad, batched=True),
                    )
                )
                if batch <= args.loop_max_batch:
                    runs.append(
                        (
                            "generate:loop",
                            "-",
                            partial(plain_generate, model, expanded, pad=pad, batched=False),
                        )
                    )
            rows += measure(model, runs, args, batch, lengths, expanded)
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
    return rows


def measure(
    model,
    runs: list[tuple[str, str, Callable[[int], Run]]],
    args: argparse.Namespace,
    batch: int,
    lengths: str,
    expanded: list[list[int]],
) -> list[dict[str, Any]]:
    """Warm every method at this shape, time them interleaved, keep each one's fastest run, print rows."""
    repeats = {}
    for method, sharing, run in runs:
        warm = [run(args.warmup_new_tokens or args.new_tokens) for _ in range(args.warmup_runs)]
        scale = args.new_tokens / (args.warmup_new_tokens or args.new_tokens)
        slow = args.max_run_seconds is not None and warm and warm[-1].seconds * scale > args.max_run_seconds
        repeats[(method, sharing)] = 1 if slow else args.repeats
    best: dict[tuple[str, str], Run] = {}
    for repeat in range(args.repeats):
        for method, sharing, run in runs:
            if repeat >= repeats[(method, sharing)]:
                continue
            result = run(args.new_tokens)
            if (method, sharing) not in best or result.seconds < best[(method, sharing)].seconds:
                best[(method, sharing)] = result
    tasks = batch // args.group_size
    mean_context = sum(len(t) for t in expanded) / len(expanded) + args.new_tokens / 2
    roofline = roofline_tokens_per_s(model, batch, mean_context, args.hbm_bandwidth)
    out = []
    for (method, sharing), result in best.items():
        per_s = result.tokens / result.seconds
        row = {
            "batch": batch,
            "group_size": args.group_size,
            "tasks": tasks,
            "prompts": lengths,
            "method": method,
            "prefix_sharing": sharing,
            "runs": repeats[(method, sharing)],
            "seconds": result.seconds,
            "tokens": result.tokens,
            "tokens_per_s": per_s,
            "seconds_per_task": result.seconds / tasks,
            "prefill_positions_per_task": (
                None if result.prefill_positions is None else result.prefill_positions / tasks
            ),
            "roofline_tokens_per_s": roofline,
            "roofline_fraction": per_s / roofline,
        }
        out.append(row)
        prefill = (
            "-" if row["prefill_positions_per_task"] is None else f"{row['prefill_positions_per_task']:.0f}"
        )
        print(
            f"| {batch} | {lengths} | {method} | {sharing} | {result.seconds:.3f} | {result.tokens}"
            f" | {per_s:.1f} | {row['seconds_per_task']:.4f} | {prefill} | {roofline:.0f}"
            f" | {100 * row['roofline_fraction']:.3g}% |",
            flush=True,
        )
    return out


if __name__ == "__main__":
    main()
