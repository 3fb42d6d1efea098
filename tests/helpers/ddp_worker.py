"""Run by ``test_distributed.py`` under ``torch.distributed.run``: two GRPO steps of a tiny agent under DDP.

Each rank computes the GRPO loss on its shard of a fixed batch (different data per rank), steps, and saves
its final weights to ``OUT/rank{r}.pt`` for the test to compare.
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch
from micro_model import micro_qwen2
from torchrun_exit import leave_without_teardown

from genenv_gym.train.distributed import init_distributed, shard, wrap_agent
from genenv_gym.train.grpo import grpo_loss, token_logprobs


def main(out: Path) -> None:
    torch.set_num_threads(1)
    info = init_distributed("gloo")
    torch.manual_seed(0)  # the same initial weights on every rank (DDP also broadcasts rank 0's)
    model = wrap_agent(micro_qwen2(), info)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    generator = torch.Generator().manual_seed(1)
    ids = torch.randint(0, 32, (8, 6), generator=generator)
    advantages = torch.linspace(-1.0, 1.0, 8)
    rows = shard(list(range(8)), info)
    ids, advantages = ids[rows], advantages[rows]
    attention, mask = torch.ones_like(ids), torch.ones(ids.shape, dtype=torch.float32)
    for _ in range(2):
        lp = token_logprobs(model, ids, attention)
        out_loss = grpo_loss(lp, lp.detach(), advantages, mask, None, clip_ratio=0.2, kl_coef=0.0)
        optimizer.zero_grad(set_to_none=True)
        out_loss.loss.backward()
        optimizer.step()
    inner = model.module if hasattr(model, "module") else model
    torch.save({k: v.detach().clone() for k, v in inner.state_dict().items()}, out / f"rank{info.rank}.pt")
    leave_without_teardown()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
