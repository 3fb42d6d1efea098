"""The LM head of a low-precision model computed in float32 (``model.float32_logits``).

A bfloat16 LM head rounds every logit to 8 significant bits: a logit near 20 moves in steps of 0.125. The
rollout engine and the GRPO update compute the same logits through different kernels (a cached decode
step, a whole-sequence forward), so their roundings differ and so do the logprobs GRPO divides: on
SmolLM2-135M in bfloat16 (CPU), by 0.05 per token on average, beyond 0.1 for 13% of tokens
(``benchmarks/logprob_gap.py``). ``Float32Head`` keeps the head's weight (the same parameter: a tied
embedding stays tied) and computes the logits in float32 from the model's hidden states, outside autocast.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F


class Float32Head(torch.nn.Module):
    """``Linear`` in float32 over ``head``'s own (low-precision) weight and bias."""

    def __init__(self, head: torch.nn.Linear) -> None:
        super().__init__()
        self.weight = head.weight
        self.bias = head.bias
        self.in_features, self.out_features = head.in_features, head.out_features

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        with torch.autocast(hidden.device.type, enabled=False):
            bias = None if self.bias is None else self.bias.float()
            return F.linear(hidden.float(), self.weight.float(), bias)


def use_float32_head(model: torch.nn.Module) -> bool:
    """Give a low-precision ``model`` a ``Float32Head`` as its output embedding; whether it did (a float32
    model, or one whose head is not a plain ``Linear``, keeps its own)."""
    head = model.get_output_embeddings()
    if type(head) is not torch.nn.Linear or head.weight.dtype == torch.float32:
        return False
    model.set_output_embeddings(Float32Head(head))
    return True
