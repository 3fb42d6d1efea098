"""The next token of every row from its logits, with the logprob the backends report.

Logprob convention (``backends.base``): ``log softmax(logits / T)`` over the whole vocabulary, before top-k /
top-p truncation, greedy counting as ``T = 1``. Sampling draws from the truncated distribution by the
exponential race (``argmax(p / E)``, ``E ~ Exp(1)``), which picks token ``i`` with probability ``p_i``.
"""

from __future__ import annotations

import torch

from genenv_gym.agents.backends.base import SamplingParams


def next_tokens(logits: torch.Tensor, params: SamplingParams) -> tuple[torch.Tensor, torch.Tensor]:
    """``(tokens [b], logprobs [b])`` for logits ``[b, vocab]``."""
    scores = logits
    if not params.greedy and params.temperature != 1.0:
        scores = logits.float() / params.temperature
    logp = torch.log_softmax(scores, dim=-1, dtype=torch.float32)
    if params.greedy:
        tokens = scores.argmax(dim=-1)
    else:
        race = torch.exp(_truncated(logp, params))
        tokens = race.div_(torch.empty_like(race).exponential_()).argmax(dim=-1)
    return tokens, logp.gather(1, tokens.unsqueeze(1)).squeeze(1)


def _truncated(logp: torch.Tensor, params: SamplingParams) -> torch.Tensor:
    """``logp`` with the tokens outside top-k / top-p at -inf (as transformers' warpers), copied if any."""
    vocab = logp.shape[-1]
    if not 0 < params.top_k < vocab and params.top_p >= 1.0:
        return logp
    out = logp.clone()
    if 0 < params.top_k < vocab:
        kth = torch.topk(out, params.top_k, dim=-1).values[:, -1:]
        out.masked_fill_(out < kth, float("-inf"))
    if params.top_p < 1.0:
        ordered, order = torch.sort(out, dim=-1, descending=False)
        cumulative = ordered.softmax(dim=-1).cumsum(dim=-1)  # renormalised after top-k
        drop = cumulative <= 1.0 - params.top_p
        drop[:, -1] = False  # the most likely token always stays
        out.masked_fill_(drop.scatter(1, order, drop), float("-inf"))
    return out
