"""One full co-evolution epoch at the paper's batch shape: rollout and update throughput, MFU, peak memory.

The agent is a random-weight model with Qwen2.5-0.5B's shape (24 layers, hidden 896, vocabulary 151936;
no download), the domain BFCL (the paper's), the simulator the ProceduralSimulator. One epoch is the
paper's batch: 64 generated tasks x G = 8 samples, up to ``--new-tokens`` response tokens each (a random
model rarely stops early, so nearly every sample runs to the limit), then one GRPO pass (mini-batches of
16 tasks) with the KL reference. The script prints, from the epoch's own timings:

- rollout tokens/s: generated tokens / rollout seconds (generation with per-token logprobs, environment
  steps and verification included);
- update tokens/s: tokens through the policy (forward + backward) and the reference (forward) / update
  seconds;
- MFU: model FLOPs per second / the GPU's dense bf16 peak. FLOPs count the matmul parameters ``N`` (the
  tied embedding counts once, as the LM head): ``2 N`` per generated token, ``8 N`` per update token
  (6 N for the policy's forward and backward, 2 N for the reference's forward); attention FLOPs are left
  out, so MFU is slightly understated;
- peak GPU memory (``torch.cuda.max_memory_allocated``).

Example (a GPU machine)::

    python benchmarks/train_epoch_gpu.py --new-tokens 512 --out runs/train_epoch_h100.json
"""

from __future__ import annotations

import argparse
import copy
import json
import time
from pathlib import Path

import torch

from genenv_gym.train.config import TrainConfig, apply_overrides
from genenv_gym.train.loop import Trainer

#: Dense bf16 peak FLOP/s by device-name fragment (NVIDIA datasheets, without sparsity).
PEAK_BF16 = {"H200": 989.4e12, "H100 PCIe": 756.0e12, "H100": 989.4e12, "A100": 312.0e12}


def peak_flops(name: str) -> float | None:
    for fragment, flops in PEAK_BF16.items():
        if fragment in name:
            return flops
    return None


def matmul_params(model: torch.nn.Module) -> int:
    """Parameters that take part in a matmul per token: all but the embedding (tied: it is the LM head)."""
    total = sum(p.numel() for p in model.parameters())
    embedding = model.get_input_embeddings().weight.numel()
    tied = model.get_output_embeddings().weight is model.get_input_embeddings().weight
    return total if tied else total - embedding


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shape", default="qwen2.5-0.5b")
    parser.add_argument("--domain", default="bfcl")
    parser.add_argument("--tasks", type=int, default=64)
    parser.add_argument("--group-size", type=int, default=8)
    parser.add_argument("--new-tokens", type=int, default=512)
    parser.add_argument("--micro-tasks", type=int, default=1, help="tasks (x G rows) per micro-batch")
    parser.add_argument("--engine", default="auto", choices=["auto", "fast", "padded", "continuous"])
    parser.add_argument("--rollout-batch", type=int, default=64, help="sequences per padded generate call")
    parser.add_argument("--epochs", type=int, default=1, help="epochs timed (the first includes warm-up)")
    parser.add_argument(
        "--compile-rollout",
        choices=["default", "on", "off"],
        default="default",
        help="the fast engine's torch.compile'd layers (default: the engine's own choice)",
    )
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("overrides", nargs="*", help="extra section.key=value config overrides")
    args = parser.parse_args()

    if not torch.cuda.is_available():
        print("note: no GPU; this runs on the CPU and takes very long at the default sizes")
    torch.backends.cuda.matmul.allow_tf32 = True
    cfg = apply_overrides(
        TrainConfig(),
        [
            f"model.shape={args.shape}",
            f"run.domain={args.domain}",
            "run.out_dir=runs/train_epoch_gpu",
            f"run.epochs={args.epochs}",
            "run.eval_every=0",
            "run.tensorboard=false",
            "run.plots=false",
            f"agent.tasks_per_epoch={args.tasks}",
            f"agent.group_size={args.group_size}",
            f"agent.max_new_tokens={args.new_tokens}",
            "agent.mini_batch_size=16",
            f"agent.micro_batch_size={args.micro_tasks}",
            f"agent.rollout_engine={args.engine}",
            f"agent.rollout_batch_size={args.rollout_batch}",
            "agent.logprob_chunk_tokens=1024",
            "agent.gradient_checkpointing=true",
            *args.overrides,
        ],
    )
    start = time.perf_counter()
    trainer = Trainer(cfg)
    build_seconds = time.perf_counter() - start
    if args.compile_rollout != "default":
        trainer.backend.fast_config["compile"] = args.compile_rollout == "on"
    n = matmul_params(trainer.model)
    device = trainer.device
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"
    peak = peak_flops(name) if device.type == "cuda" else None
    print(f"device {name}; model {args.shape}: {sum(p.numel() for p in trainer.model.parameters()):,} params")
    print(
        f"dtype {next(trainer.model.parameters()).dtype}; matmul params {n:,}; built {build_seconds:.1f}s;"
        f" rollout engine {trainer.backend.engine} (compile: {args.compile_rollout});"
        f" overrides {args.overrides}"
    )

    rows = []
    trainer.reference = copy.deepcopy(trainer.model).eval().requires_grad_(False)
    for _ in range(args.epochs):
        if device.type == "cuda":
            torch.cuda.reset_peak_memory_stats(device)
        row = trainer.train_epoch()
        rollout_tps = row["rollout_tokens"] / row["rollout_seconds"]
        update_tps = row["update_tokens"] / row["update_seconds"]
        result = {
            "epoch": row["epoch"],
            "samples": args.tasks * args.group_size,
            "rollout_tokens": row["rollout_tokens"],
            "rollout_seconds": round(row["rollout_seconds"], 2),
            "rollout_tokens_per_s": round(rollout_tps, 1),
            "update_tokens": row["update_tokens"],
            "update_seconds": round(row["update_seconds"], 2),
            "update_tokens_per_s": round(update_tps, 1),
            "epoch_seconds": round(row["seconds"], 2),
            "response_tokens_mean": round(row["response_tokens"], 1),
            "task_prompt_tokens_mean": round(row["task_tokens"], 1),
        }
        if peak:
            result["rollout_mfu"] = round(2 * n * rollout_tps / peak, 4)
            result["update_mfu"] = round(8 * n * update_tps / peak, 4)
        if device.type == "cuda":
            result["peak_memory_gib"] = round(torch.cuda.max_memory_allocated(device) / 2**30, 2)
        rows.append(result)
        print(json.dumps(result))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        meta = {
            "device": name,
            "shape": args.shape,
            "engine": trainer.backend.engine,
            "torch": torch.__version__,
            "overrides": args.overrides,
        }
        args.out.write_text(json.dumps({"meta": meta, "epochs": rows}, indent=2))


if __name__ == "__main__":
    main()
