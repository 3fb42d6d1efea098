"""A preallocated KV cache: one ``[rows, kv_heads, length, head_dim]`` key and value tensor per layer.

Row ``r`` holds one sequence at positions ``0 .. len - 1``; nothing is concatenated or reallocated while
decoding, so a captured decode step keeps reading and writing the same memory.
"""

from __future__ import annotations

import torch


class StaticKVCache:
    """Keys ``k[layer]`` and values ``v[layer]`` of ``rows`` sequences of at most ``length`` positions."""

    def __init__(
        self,
        layers: int,
        rows: int,
        kv_heads: int,
        length: int,
        head_dim: int,
        dtype: torch.dtype,
        device: torch.device,
    ) -> None:
        shape = (rows, kv_heads, length, head_dim)
        self.k = [torch.zeros(shape, dtype=dtype, device=device) for _ in range(layers)]
        self.v = [torch.zeros(shape, dtype=dtype, device=device) for _ in range(layers)]
        self.rows, self.length = rows, length

    def fits(self, rows: int, length: int) -> bool:
        return rows <= self.rows and length <= self.length

    def keep_rows(self, kept: torch.Tensor) -> None:
        """Move rows ``kept`` (ascending) to the front, in order: the live sequences after others finished."""
        n = kept.numel()
        for tensors in (self.k, self.v):
            for layer in tensors:
                layer[:n] = layer.index_select(0, kept)

    @staticmethod
    def bytes_per_position(layers: int, kv_heads: int, head_dim: int, dtype: torch.dtype) -> int:
        """Bytes one position of one row takes over every layer (keys and values)."""
        return 2 * layers * kv_heads * head_dim * torch.empty((), dtype=dtype).element_size()
