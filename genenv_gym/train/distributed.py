"""Data-parallel training under ``torchrun``: process-group setup, the DDP wrapper, sharding and gathering.

``torchrun --nproc_per_node N`` sets ``RANK``/``WORLD_SIZE``/``MASTER_ADDR``; ``init_distributed`` joins
the group (NCCL on GPUs, gloo on CPU) and ``wrap_agent`` wraps the agent in DistributedDataParallel, so
each rank computes the GRPO loss on its shard of the rollouts and the gradients are averaged before the
optimizer step: every rank ends an update with the same weights. ``shard`` splits a task list across ranks,
``gather`` brings every rank's results to all of them (the simulator, the skill tracker and the pools are
then updated identically everywhere). A single process is left unwrapped and the helpers are no-ops.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import torch
import torch.distributed as dist


@dataclass(frozen=True)
class DistInfo:
    """This process's place in the group."""

    rank: int = 0
    world_size: int = 1
    local_rank: int = 0

    @property
    def is_main(self) -> bool:
        return self.rank == 0


def init_distributed(backend: str | None = None) -> DistInfo:
    """Join the process group torchrun describes in the environment; a no-op for one process."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world <= 1:
        return DistInfo()
    info = DistInfo(int(os.environ["RANK"]), world, int(os.environ.get("LOCAL_RANK", "0")))
    if not dist.is_initialized():
        backend = backend or ("nccl" if torch.cuda.is_available() else "gloo")
        if backend == "nccl":
            torch.cuda.set_device(info.local_rank)
        dist.init_process_group(backend=backend, rank=info.rank, world_size=info.world_size)
    return info


def wrap_agent(model: torch.nn.Module, info: DistInfo) -> torch.nn.Module:
    """``model`` in DistributedDataParallel when there is more than one process, else ``model``."""
    if info.world_size <= 1:
        return model
    from torch.nn.parallel import DistributedDataParallel

    device_ids = [info.local_rank] if next(model.parameters()).is_cuda else None
    return DistributedDataParallel(model, device_ids=device_ids)


def shard(items: list, info: DistInfo) -> list:
    """This rank's strided share of ``items`` (rank r takes items r, r + N, ...)."""
    return items[info.rank :: info.world_size]


def gather(items: list, info: DistInfo) -> list:
    """All ranks' ``items``, concatenated in rank order, on every rank (``items`` itself for one process)."""
    if info.world_size <= 1:
        return list(items)
    parts: list = [None] * info.world_size
    dist.all_gather_object(parts, list(items))
    return [item for part in parts for item in part]


def all_reduce(value: float, info: DistInfo, op: str = "sum") -> float:
    """``value`` summed (or ``op="max"``: maximised) over the ranks."""
    if info.world_size <= 1:
        return value
    device = torch.device("cuda", info.local_rank) if dist.get_backend() == "nccl" else torch.device("cpu")
    tensor = torch.tensor([float(value)], dtype=torch.float64, device=device)
    dist.all_reduce(tensor, op=dist.ReduceOp.SUM if op == "sum" else dist.ReduceOp.MAX)
    return float(tensor.item())
