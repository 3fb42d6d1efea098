"""The ``fast`` engine of the hf backend: packed prefill, a static KV cache, captured decode steps.

One call generates for a list of token-id prompts, in chunks of rows (``max_batch_size``, and what the KV
cache budget allows). For each chunk:

1. **Plan.** Rows that share a prompt prefix (the G samples of a task; the chats of a task in later turns)
   are grouped (``shared_prefix.plan_shared_prefixes``): each group's prefix is prefilled once, and each row
   keeps its own suffix (at least its last token).
2. **Prefill the prefixes**, right-padded, with causal attention and no mask (the fused kernel on a GPU), and
   write their keys and values into every row of the group.
3. **Extend each row by its suffix** at its true positions; the logits of its last token give the first
   sampled token.
4. **Decode** one token per row per step (``DecodeStep``: a replayed CUDA graph on a GPU) until every row has
   ended or ``max_new_tokens`` are out. When at most half the rows are still running, they are moved to the
   front of the cache and decoding continues with a smaller batch.

Rows are never left-padded: a row's position ids are its true positions. Sampling and logprobs follow
``backends.base`` (``sampler.next_tokens``). With a seed, results are reproducible for the same batch.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from genenv_gym.agents.backends.base import SamplingParams
from genenv_gym.agents.backends.fast.decode_step import DecodeStep
from genenv_gym.agents.backends.fast.decoder import DecoderForward
from genenv_gym.agents.backends.fast.kv_cache import StaticKVCache
from genenv_gym.agents.backends.fast.sampler import next_tokens
from genenv_gym.agents.backends.shared_prefix import SharedPrefixPlan, plan_shared_prefixes

#: Cache lengths (and the keys a decode step reads) are rounded up to a multiple of this.
LENGTH_STEP = 128
#: Rows a captured decode step is built for: the smallest bucket that holds the batch.
ROW_BUCKETS = (1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 320, 384, 448, 512)


@dataclass(frozen=True)
class Generated:
    """The raw tokens of one row: everything sampled (past an end of turn too) and their logprobs."""

    token_ids: list[int]
    logprobs: list[float]
    length_limited: bool


def row_bucket(rows: int) -> int:
    """The captured batch size that holds ``rows`` (a multiple of 128 past the table)."""
    for bucket in ROW_BUCKETS:
        if rows <= bucket:
            return bucket
    return -(-rows // 128) * 128


def length_bucket(length: int) -> int:
    return -(-length // LENGTH_STEP) * LENGTH_STEP


class FastEngine:
    """Generation for a Llama-family model (see the module docstring).

    Args:
        model: a causal LM that ``decoder.unsupported_reason`` accepts.
        max_batch_size: the most rows decoded together.
        graphs: capture decode steps as CUDA graphs (default: on a GPU).
        cache_memory_fraction: on a GPU, the share of free memory the KV cache may take; rows beyond it go
            to further chunks.
        prefill_tokens: positions per prefill forward (default 32,768 on a GPU, 4,096 on a CPU).
        share_prefixes: group rows by common prompt prefix (off: every row prefills its whole prompt).
        compile: fuse each layer's element-wise work with ``torch.compile`` (one compilation, reused by every
            layer and shape; it takes a while on the first call).
    """

    def __init__(
        self,
        model: Any,
        max_batch_size: int = 512,
        graphs: bool | None = None,
        cache_memory_fraction: float = 0.4,
        prefill_tokens: int | None = None,
        share_prefixes: bool = True,
        compile: bool = False,
    ) -> None:
        self.forward = DecoderForward(model, compile=compile)
        self.model = model
        self.max_batch_size = max_batch_size
        self.device = next(model.parameters()).device
        on_gpu = self.device.type == "cuda"
        self.graphs = on_gpu if graphs is None else graphs
        if self.graphs and not on_gpu:
            raise ValueError("CUDA graphs need the model on a GPU")
        self.cache_memory_fraction = cache_memory_fraction
        self.prefill_tokens = prefill_tokens or (32768 if on_gpu else 4096)
        self.share_prefixes = share_prefixes
        self.dtype = next(model.parameters()).dtype
        self.position_bytes = StaticKVCache.bytes_per_position(
            self.forward.num_layers, self.forward.kv_heads, self.forward.head_dim, self.dtype
        )
        #: Token positions the prefill forwards have computed (padding included).
        self.prefill_positions = 0
        #: Times the running rows were moved together into a smaller batch.
        self.compactions = 0
        self._cache: StaticKVCache | None = None
        self._step: DecodeStep | None = None

    def close(self) -> None:
        """Free the KV cache and the captured graphs (the next call allocates them again)."""
        self._cache = self._step = None
        if self.device.type == "cuda":
            torch.cuda.empty_cache()

    # ------------------------------------------------------------------------------------------------
    def generate(
        self,
        prompts: Sequence[Sequence[int]],
        params: SamplingParams,
        eos_ids: Sequence[int],
        listener: Callable[..., None] | None = None,
    ) -> list[Generated]:
        """Sampled tokens and logprobs of every prompt (one row each), in prompt order.

        ``listener(tokens=n)`` hears, after each decoding step, how many rows were still running at the
        last check (``backends.progress``).
        """
        order = sorted(range(len(prompts)), key=lambda i: (len(prompts[i]), tuple(prompts[i])))
        out: list[Generated | None] = [None] * len(prompts)
        eos = torch.tensor(sorted(set(eos_ids)) if not params.ignore_eos else [], device=self.device)
        for chunk_index, chunk in enumerate(self._chunks(order, prompts, params.max_new_tokens)):
            if params.seed is not None:
                torch.manual_seed(params.seed + chunk_index)
            generated = self._generate_chunk([list(prompts[i]) for i in chunk], params, eos, listener)
            for i, row in zip(chunk, generated, strict=True):
                out[i] = row
        return [g for g in out if g is not None]

    def _chunks(self, order: list[int], prompts: Sequence[Sequence[int]], new_tokens: int) -> list[list[int]]:
        """Rows (in length order) cut so that each chunk fits ``max_batch_size`` and the cache budget."""
        budget = None
        if self.device.type == "cuda":
            free, _ = torch.cuda.mem_get_info(self.device)
            held = 0 if self._cache is None else self._cache.rows * self._cache.length * self.position_bytes
            budget = self.cache_memory_fraction * (free + held)
        chunks: list[list[int]] = []
        current: list[int] = []
        for i in order:
            rows = row_bucket(len(current) + 1) if self.graphs else len(current) + 1
            length = length_bucket(2 * len(prompts[i]) + new_tokens)  # generous: suffix padding
            too_big = budget is not None and rows * length * self.position_bytes > budget
            if current and (len(current) >= self.max_batch_size or too_big):
                chunks.append(current)
                current = []
            current.append(i)
        if current:
            chunks.append(current)
        return chunks

    # ------------------------------------------------------------------------------------------------
    def _generate_chunk(
        self,
        prompts: list[list[int]],
        params: SamplingParams,
        eos: torch.Tensor,
        listener: Callable[..., None] | None,
    ) -> list[Generated]:
        n, new_tokens = len(prompts), params.max_new_tokens
        plan = self._plan(prompts)
        slots = sorted(range(n), key=lambda r: len(plan.suffixes[r]))  # cache row s holds prompt slots[s]
        prefix_lengths = [len(plan.prefixes[plan.row_group[r]]) for r in range(n)]
        longest = max(len(p) for p in prompts)
        rows = row_bucket(n) if self.graphs else n
        length = length_bucket(max(longest + new_tokens, max(prefix_lengths) + plan.suffix_width))
        cache, step = self._cache_for(rows, length)
        self._prefill_prefixes(cache, plan, slots)
        first, first_logprobs = self._extend_suffixes(cache, plan, slots, prefix_lengths, params)

        device = self.device
        tokens_out = torch.zeros((n + 1, new_tokens), dtype=torch.long, device=device)  # row n: spare slots
        logprobs_out = torch.zeros((n + 1, new_tokens), dtype=torch.float32, device=device)
        slot_rows = torch.full((rows,), n, dtype=torch.long, device=device)
        slot_rows[:n] = torch.tensor(slots, device=device)
        step.tokens[:n] = first
        step.positions.zero_()
        step.positions[:n] = torch.tensor([len(prompts[r]) for r in slots], device=device)
        token_logprobs = torch.zeros(rows, dtype=torch.float32, device=device)
        token_logprobs[:n] = first_logprobs
        done = torch.ones(rows, dtype=torch.bool, device=device)
        done[:n] = False
        live = rows
        check_every = 8 if device.type == "cuda" else 1
        steps, running_rows = new_tokens, n
        if listener is not None:
            listener(tokens=n)
        for t in range(new_tokens):
            tokens_out[slot_rows[:live], t] = step.tokens[:live]
            logprobs_out[slot_rows[:live], t] = token_logprobs[:live]
            if eos.numel():
                done[:live] |= torch.isin(step.tokens[:live], eos)
            if t == new_tokens - 1:
                break
            if eos.numel() and (t + 1) % check_every == 0:
                running = (~done[:live]).nonzero().squeeze(1)
                if running.numel() == 0:
                    steps = t + 1
                    break
                running_rows = running.numel()
                live = self._compact(cache, step, running, live, slot_rows, done, token_logprobs, n)
            logits = step(live, length_bucket(longest + t + 1))
            step.positions[:live] += 1
            sampled, token_logprobs[:live] = next_tokens(logits, params)
            step.tokens[:live] = sampled
            if listener is not None:
                listener(tokens=running_rows)
        tokens = tokens_out[:n, :steps].tolist()
        logprobs = logprobs_out[:n, :steps].tolist()
        return [Generated(tokens[r], logprobs[r], steps >= new_tokens) for r in range(n)]

    def _compact(
        self,
        cache: StaticKVCache,
        step: DecodeStep,
        running: torch.Tensor,
        live: int,
        slot_rows: torch.Tensor,
        done: torch.Tensor,
        token_logprobs: torch.Tensor,
        spare: int,
    ) -> int:
        """Move the running rows to the front when that halves the batch; returns the rows now decoded."""
        count = running.numel()
        rows = row_bucket(count) if self.graphs else count
        if rows > live // 2:
            return live
        cache.keep_rows(running)
        self.compactions += 1
        for buffer in (step.tokens, step.positions, slot_rows, done, token_logprobs):
            buffer[:count] = buffer.index_select(0, running)
        slot_rows[count:rows] = spare
        done[count:rows] = True
        step.positions[count:rows] = 0
        return rows

    # ------------------------------------------------------------------------------------------------
    def _plan(self, prompts: list[list[int]]) -> SharedPrefixPlan:
        """Shared prefixes; else one group per distinct prompt (per row without sharing), last token apart."""
        plan = plan_shared_prefixes(prompts) if self.share_prefixes else None
        if plan is not None:
            return plan
        keys = [tuple(p) for p in prompts] if self.share_prefixes else list(range(len(prompts)))
        group_of: dict[Any, int] = {}
        prefixes: list[tuple[int, ...]] = []
        for key, prompt in zip(keys, prompts, strict=True):
            if key not in group_of:
                group_of[key] = len(prefixes)
                prefixes.append(tuple(prompt[:-1]))
        return SharedPrefixPlan(
            tuple(prefixes), tuple(group_of[k] for k in keys), tuple((p[-1],) for p in prompts)
        )

    def _cache_for(self, rows: int, length: int) -> tuple[StaticKVCache, DecodeStep]:
        if self._cache is None or not self._cache.fits(rows, length):
            self.close()
            f = self.forward
            if self._cache is not None:  # grow to the larger of both shapes so calls alternate less
                rows, length = max(rows, self._cache.rows), max(length, self._cache.length)
            self._cache = StaticKVCache(
                f.num_layers, rows, f.kv_heads, length, f.head_dim, self.dtype, self.device
            )
            self._step = DecodeStep(f, self._cache, self.graphs)
        assert self._step is not None
        return self._cache, self._step

    def _prefill_prefixes(self, cache: StaticKVCache, plan: SharedPrefixPlan, slots: list[int]) -> None:
        slot_of = {row: s for s, row in enumerate(slots)}
        members: dict[int, list[int]] = {}
        for row, group in enumerate(plan.row_group):
            members.setdefault(group, []).append(slot_of[row])
        groups = sorted((g for g in members if plan.prefixes[g]), key=lambda g: len(plan.prefixes[g]))
        batch: list[int] = []
        for group in [*groups, None]:
            width = len(plan.prefixes[group]) if group is not None else 0
            if batch and (group is None or (len(batch) + 1) * width > self.prefill_tokens):
                self._prefill_batch(cache, plan, batch, members)
                batch = []
            if group is not None:
                batch.append(group)

    def _prefill_batch(
        self, cache: StaticKVCache, plan: SharedPrefixPlan, groups: list[int], members: dict[int, list[int]]
    ) -> None:
        width = max(len(plan.prefixes[g]) for g in groups)
        ids = torch.zeros((len(groups), width), dtype=torch.long)
        rows, sources = [], []
        for j, group in enumerate(groups):
            prefix = plan.prefixes[group]
            ids[j, : len(prefix)] = torch.tensor(prefix, dtype=torch.long)
            rows += members[group]
            sources += [j] * len(members[group])
        device = self.device
        self.forward.prefill(
            cache,
            ids.to(device),
            torch.tensor(rows, device=device),
            torch.tensor(sources, device=device),
        )
        self.prefill_positions += ids.numel()

    def _extend_suffixes(
        self,
        cache: StaticKVCache,
        plan: SharedPrefixPlan,
        slots: list[int],
        prefix_lengths: list[int],
        params: SamplingParams,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Each row's suffix at its positions; the first sampled token and logprob of each cache row."""
        n, device = len(slots), self.device
        tokens = torch.zeros(n, dtype=torch.long, device=device)
        logprobs = torch.zeros(n, dtype=torch.float32, device=device)
        heads = self.forward.heads
        start = 0
        while start < n:  # blocks of rows whose padded suffixes and attention scores fit the budgets
            end, width, offset = start + 1, len(plan.suffixes[slots[start]]), prefix_lengths[slots[start]]
            while end < n:
                wider = max(width, len(plan.suffixes[slots[end]]))
                further = max(offset, prefix_lengths[slots[end]])
                count = end + 1 - start
                if (
                    count * wider > self.prefill_tokens
                    or count * heads * wider * (further + wider) * 4 > 2**30
                ):
                    break
                end, width, offset = end + 1, wider, further
            block = slots[start:end]
            ids = torch.zeros((len(block), width), dtype=torch.long)
            for j, row in enumerate(block):
                suffix = plan.suffixes[row]
                ids[j, : len(suffix)] = torch.tensor(suffix, dtype=torch.long)
            offsets = torch.tensor([prefix_lengths[row] for row in block], dtype=torch.long)
            positions = (offsets.unsqueeze(1) + torch.arange(width)).to(device)
            reach = int(offsets.max()) + width
            hidden = self.forward.extend(cache, start, ids.to(device), positions, reach)
            last = torch.tensor([len(plan.suffixes[row]) - 1 for row in block], device=device)
            logits = self.forward.logits(hidden[torch.arange(len(block), device=device), last])
            tokens[start:end], logprobs[start:end] = next_tokens(logits, params)
            self.prefill_positions += ids.numel()
            start = end
        return tokens, logprobs
