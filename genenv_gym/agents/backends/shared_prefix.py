"""Shared-prefix layout of one micro-batch: prefill each common prompt prefix once, fan its KV cache out.

The G samples of a task start from the same prompt, and in later turns of a multi-turn episode their chats
still share the task's prompt. ``plan_shared_prefixes`` groups the rows of a micro-batch by common prefix
(a partition of the lexicographically sorted rows that maximises the prefill positions saved) and lays the
batch out in two left-padded regions: the group's prefix, right-aligned in the first ``prefix_width``
columns, and each row's own suffix (at least its last token), right-aligned in the remaining columns. The
gap between them is masked, so position ids (the attention mask's running count) and attention are those
of the plain left-padded batch.

``prefill_shared_prefixes`` runs the prefix region once per group and selects the cache rows per batch row
(``DynamicCache.batch_select_indices``); ``model.generate`` then starts from that cache and prefills only
the suffix region.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

#: Tokens compared at a time when measuring a common prefix.
_BLOCK = 256
#: The most distinct prompts one shared-prefix group spans (bounds the planning's dynamic programme).
MAX_GROUP_PROMPTS = 64


@dataclass(frozen=True)
class SharedPrefixPlan:
    """How the rows of a micro-batch share prefixes.

    Attributes:
        prefixes: the token ids of each group's shared prefix (at least one token).
        row_group: the group of each row, in row order.
        suffixes: each row's tokens after its group's prefix (at least one token).
    """

    prefixes: tuple[tuple[int, ...], ...]
    row_group: tuple[int, ...]
    suffixes: tuple[tuple[int, ...], ...]

    @property
    def prefix_width(self) -> int:
        return max(len(p) for p in self.prefixes)

    @property
    def suffix_width(self) -> int:
        return max(len(s) for s in self.suffixes)

    @property
    def width(self) -> int:
        return self.prefix_width + self.suffix_width

    @property
    def prefill_positions(self) -> int:
        """Token positions the prefill computes, padding included: each prefix once, every suffix."""
        return len(self.prefixes) * self.prefix_width + len(self.suffixes) * self.suffix_width


def padded_prefill_positions(prompts: Sequence[Sequence[int]]) -> int:
    """Token positions the plain left-padded prefill of ``prompts`` computes, padding included."""
    return len(prompts) * max(len(p) for p in prompts)


def plan_shared_prefixes(prompts: Sequence[Sequence[int]]) -> SharedPrefixPlan | None:
    """The shared-prefix layout of ``prompts`` (one micro-batch), or None when it would not save prefill.

    The distinct prompts are sorted lexicographically and cut into runs; a run of ``k`` rows whose shortest
    common prefix (capped so that every row keeps at least one token for the suffix) is ``p`` saves
    ``(k - 1) * p`` positions. The cut that saves most is found by dynamic programming over the sorted
    prompts. The plan is returned only when its padded prefill (``prefill_positions``) is below the plain
    padded batch's.
    """
    prompts = [tuple(p) for p in prompts]
    if len(prompts) < 2 or any(len(p) < 2 for p in prompts):  # every prefix and suffix needs a token
        return None
    rows_of: dict[tuple[int, ...], list[int]] = {}
    for row, prompt in enumerate(prompts):
        rows_of.setdefault(prompt, []).append(row)
    distinct = sorted(rows_of)
    m = len(distinct)
    counts = [len(rows_of[p]) for p in distinct]
    caps = [len(p) - 1 for p in distinct]
    lcp = [_common_prefix(distinct[k], distinct[k + 1]) for k in range(m - 1)]
    best = [0] * (m + 1)  # best[j]: most positions saved by the rows of distinct[:j]
    cut = [0] * (m + 1)  # cut[j]: where the last run of the best split of distinct[:j] starts
    for j in range(1, m + 1):
        shared, rows = caps[j - 1], counts[j - 1]
        best[j], cut[j] = best[j - 1] + (rows - 1) * shared, j - 1  # copies of one prompt
        for i in range(j - 2, max(j - 1 - MAX_GROUP_PROMPTS, 0) - 1, -1):  # run distinct[i:j]
            shared, rows = min(shared, lcp[i], caps[i]), rows + counts[i]
            if shared == 0:
                break
            gain = best[i] + (rows - 1) * shared
            if gain > best[j]:
                best[j], cut[j] = gain, i
    if best[m] == 0:
        return None
    runs = []
    j = m
    while j > 0:
        runs.append((cut[j], j))
        j = cut[j]
    prefixes: list[tuple[int, ...]] = []
    row_group = [0] * len(prompts)
    suffixes: list[tuple[int, ...]] = [()] * len(prompts)
    for start, end in reversed(runs):
        length = min(caps[start:end] + lcp[start : end - 1])
        prefixes.append(distinct[start][:length])
        for prompt in distinct[start:end]:
            for row in rows_of[prompt]:
                row_group[row] = len(prefixes) - 1
                suffixes[row] = prompt[length:]
    plan = SharedPrefixPlan(tuple(prefixes), tuple(row_group), tuple(suffixes))
    if plan.prefill_positions >= padded_prefill_positions(prompts):
        return None
    return plan


def batch_layout(plan: SharedPrefixPlan, pad: int) -> tuple[torch.Tensor, torch.Tensor]:
    """``(input_ids, attention_mask)`` of the rows: the prefix region, then the suffix region, left-padded."""
    prefix_width, suffix_width = plan.prefix_width, plan.suffix_width
    rows = len(plan.suffixes)
    input_ids = torch.full((rows, prefix_width + suffix_width), pad, dtype=torch.long)
    mask = torch.zeros_like(input_ids)
    for row, (group, suffix) in enumerate(zip(plan.row_group, plan.suffixes, strict=True)):
        prefix = plan.prefixes[group]
        input_ids[row, prefix_width - len(prefix) : prefix_width] = torch.tensor(prefix, dtype=torch.long)
        mask[row, prefix_width - len(prefix) : prefix_width] = 1
        input_ids[row, prefix_width + suffix_width - len(suffix) :] = torch.tensor(suffix, dtype=torch.long)
        mask[row, prefix_width + suffix_width - len(suffix) :] = 1
    return input_ids, mask


def prefill_shared_prefixes(model: Any, plan: SharedPrefixPlan, pad: int) -> Any:
    """The KV cache of the prefix region for every batch row: one forward over the groups' prefixes."""
    from transformers import DynamicCache

    width = plan.prefix_width
    input_ids = torch.full((len(plan.prefixes), width), pad, dtype=torch.long)
    mask = torch.zeros_like(input_ids)
    for group, prefix in enumerate(plan.prefixes):
        input_ids[group, width - len(prefix) :] = torch.tensor(prefix, dtype=torch.long)
        mask[group, width - len(prefix) :] = 1
    positions = (mask.cumsum(-1) - 1).masked_fill(mask == 0, 0)  # as generate derives them from the mask
    device = model.device
    cache = DynamicCache(config=model.config)
    model(
        input_ids=input_ids.to(device),
        attention_mask=mask.to(device),
        position_ids=positions.to(device),
        use_cache=True,
        logits_to_keep=1,
        **{cache_keyword(model): cache},
    )
    cache.batch_select_indices(torch.tensor(plan.row_group, device=device))
    return cache


def cache_keyword(model: Any) -> str:
    """The name under which the model's forward (and ``generate``) take a KV cache.

    transformers renamed ``past_key_values`` to ``cache`` (5.24 takes both, warning on the old name; the
    GPU image's 5.17 may know only the old one).
    """
    return "cache" if "cache" in inspect.signature(model.forward).parameters else "past_key_values"


def _common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """The length of the longest common prefix (slice comparisons, which run in C)."""
    n = min(len(a), len(b))
    low = 0
    while low < n and a[low : low + _BLOCK] == b[low : low + _BLOCK]:  # whole equal blocks
        low += _BLOCK
    if low >= n:
        return n
    high = min(low + _BLOCK, n)  # the prefix ends in this block (or the shorter prompt does): search it
    while low < high:
        mid = (low + high + 1) // 2
        if a[low:mid] == b[low:mid]:
            low = mid
        else:
            high = mid - 1
    return low
