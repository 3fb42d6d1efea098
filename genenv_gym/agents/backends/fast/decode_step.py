"""One decode step over the first ``rows`` rows of the cache: eager, or a CUDA graph replayed per shape.

On a GPU a decode step of a small model is hundreds of small kernels, and launching them from Python costs
more than running them. The step is captured once per ``(rows, kv_length)`` bucket and replayed: the
engine writes the step's tokens and positions into ``tokens`` / ``positions`` (fixed buffers the graph
reads) and reads the logits from the tensor the graph writes.
"""

from __future__ import annotations

from typing import Any

import torch

from genenv_gym.agents.backends.fast.decoder import DecoderForward
from genenv_gym.agents.backends.fast.kv_cache import StaticKVCache


class DecodeStep:
    """Next-token logits of cache rows ``0 .. rows - 1`` (see the module docstring)."""

    def __init__(self, forward: DecoderForward, cache: StaticKVCache, graphs: bool) -> None:
        device = cache.k[0].device
        self.forward, self.cache, self.use_graphs = forward, cache, graphs
        self.tokens = torch.zeros(cache.rows, dtype=torch.long, device=device)
        self.positions = torch.zeros(cache.rows, dtype=torch.long, device=device)
        self._graphs: dict[tuple[int, int], tuple[Any, torch.Tensor]] = {}
        self._pool = torch.cuda.graph_pool_handle() if graphs else None

    @property
    def captured(self) -> int:
        """How many shapes have a captured graph."""
        return len(self._graphs)

    def __call__(self, rows: int, kv_length: int) -> torch.Tensor:
        """Logits ``[rows, vocab]``; the step's keys and values are written at ``positions``."""
        if not self.use_graphs:
            return self._logits(rows, kv_length)
        key = (rows, kv_length)
        if key not in self._graphs:
            self._graphs[key] = self._capture(rows, kv_length)
        graph, logits = self._graphs[key]
        graph.replay()
        return logits

    def _logits(self, rows: int, kv_length: int) -> torch.Tensor:
        hidden = self.forward.extend(
            self.cache, 0, self.tokens[:rows, None], self.positions[:rows, None], kv_length
        )
        return self.forward.logits(hidden[:, -1])

    def _capture(self, rows: int, kv_length: int) -> tuple[Any, torch.Tensor]:
        # A warm-up on a side stream first (cuBLAS picks its kernels there). It writes the same keys and
        # values the replay writes, at the same positions, so running it changes nothing.
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            self._logits(rows, kv_length)
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, pool=self._pool):
            logits = self._logits(rows, kv_length)
        return graph, logits
