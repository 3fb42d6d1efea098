"""What the hf engines' logprobs must equal: a teacher-forced forward pass over prompt + completion."""

from __future__ import annotations

from typing import Any

import torch


def random_tokens(n: int, seed: int) -> list[int]:
    """``n`` seeded token ids below the tiny models' vocabulary (specials excluded)."""
    return torch.randint(3, 500, (n,), generator=torch.Generator().manual_seed(seed)).tolist()


def forward_logprobs(model: Any, prompt_ids: Any, completion: Any, temperature: float = 1.0) -> list[float]:
    """``log softmax(logits / T)`` of each completion token given everything before it."""
    ids = list(prompt_ids) + list(completion.token_ids)
    with torch.no_grad():
        logits = model(torch.tensor([ids], device=model.device)).logits[0].float() / temperature
    logp = torch.log_softmax(logits, dim=-1)
    start = len(prompt_ids)
    return [logp[start - 1 + j, t].item() for j, t in enumerate(completion.token_ids)]
