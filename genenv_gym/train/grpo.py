"""GRPO for the agent: group-relative advantages, the clipped ratio, a low-variance KL to a reference.

The loss follows the paper's official config (veRL): token-level aggregation over model tokens only
(prompt and environment tokens carry mask 0), ``clip_ratio`` 0.2 on ``pi / pi_old``, and the ``low_var_kl``
(k3) estimator ``exp(ref - logp) - (ref - logp) - 1`` clamped to [-10, 10], weighted by ``kl_coef``.

Shapes: ``[batch, seq]`` tensors of per-token logprobs, aligned with a ``[batch, seq]`` mask; one
advantage per sequence (``[batch]``), broadcast over its tokens.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch
import torch.utils.checkpoint

KL_CLAMP = 10.0


def group_advantages(rewards: Sequence[float], groups: Sequence[int], eps: float = 1e-6) -> torch.Tensor:
    """``(r - mean_group) / (std_group + eps)`` per sample (std unbiased, as GRPO; 0 for a group of 1).

    A group whose samples all got the same reward has advantage 0 everywhere: it carries no signal.
    """
    r = torch.as_tensor(list(rewards), dtype=torch.float32)
    g = torch.as_tensor(list(groups), dtype=torch.long)
    if r.shape != g.shape:
        raise ValueError(f"rewards ({r.shape[0]}) and groups ({g.shape[0]}) must have the same length")
    out = torch.zeros_like(r)
    for group in torch.unique(g):
        idx = g == group
        values = r[idx]
        if values.numel() < 2:
            continue
        std = values.std(unbiased=True)
        if float(std) > 0:
            out[idx] = (values - values.mean()) / (std + eps)
    return out


@dataclass(frozen=True)
class GroupSignal:
    """How much learning signal a batch of GRPO groups carries (the mechanism the alpha-curriculum targets).

    A group whose samples all got the same reward has advantage 0 everywhere and teaches nothing.
    ``reward_var`` is the mean within-group reward variance (population), ``p (1 - p)`` for 0/1 rewards:
    the factor that bounds the policy-gradient estimator's second moment (GenEnv Prop. 1), maximal at 1/2.
    """

    groups: int
    signal_groups: int
    reward_var: float

    @property
    def share(self) -> float:
        """The share of groups with a non-zero advantage (0 when there are no groups)."""
        return self.signal_groups / self.groups if self.groups else 0.0


def group_signal(rewards: Sequence[float], groups: Sequence[int]) -> GroupSignal:
    """Count the groups with a non-zero ``group_advantages`` (at least 2 samples, unequal rewards)."""
    if len(rewards) != len(groups):
        raise ValueError(f"rewards ({len(rewards)}) and groups ({len(groups)}) must have the same length")
    by_group: dict[int, list[float]] = {}
    for reward, group in zip(rewards, groups, strict=True):
        by_group.setdefault(int(group), []).append(float(reward))
    signal, variances = 0, []
    for values in by_group.values():
        mean = sum(values) / len(values)
        variances.append(sum((v - mean) ** 2 for v in values) / len(values))
        signal += int(len(values) >= 2 and max(values) > min(values))
    reward_var = sum(variances) / len(variances) if variances else 0.0
    return GroupSignal(len(by_group), signal, reward_var)


def low_var_kl(logprobs: torch.Tensor, ref_logprobs: torch.Tensor) -> torch.Tensor:
    """The k3 estimator of ``KL(pi || ref)`` per token: ``exp(ref - logp) - (ref - logp) - 1``, clamped."""
    log_ratio = ref_logprobs - logprobs
    return (torch.exp(log_ratio) - log_ratio - 1.0).clamp(-KL_CLAMP, KL_CLAMP)


def masked_mean(values: torch.Tensor, mask: torch.Tensor, denominator: float | None = None) -> torch.Tensor:
    """Sum of ``values`` where ``mask`` is 1, divided by the number of masked tokens (or ``denominator``)."""
    total = (values * mask).sum()
    count = mask.sum() if denominator is None else torch.as_tensor(denominator, dtype=values.dtype)
    return total / count.clamp(min=1.0)


@dataclass
class GRPOLossOutput:
    """The loss and its parts (detached floats for logging)."""

    loss: torch.Tensor
    pg_loss: float
    kl: float
    clip_fraction: float
    ratio_mean: float


def grpo_loss(
    logprobs: torch.Tensor,
    old_logprobs: torch.Tensor,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    ref_logprobs: torch.Tensor | None = None,
    clip_ratio: float = 0.2,
    kl_coef: float = 0.001,
    denominator: float | None = None,
    token_weights: torch.Tensor | None = None,
) -> GRPOLossOutput:
    """The clipped GRPO objective (to minimise) with a KL penalty, averaged over model tokens.

    Args:
        logprobs: current policy logprobs of the sampled tokens (with grad).
        old_logprobs: the rollout policy's logprobs of the same tokens.
        advantages: one per sequence.
        mask: 1 on model tokens, 0 on prompt / environment / padding tokens.
        ref_logprobs: the frozen reference's logprobs (None: no KL term).
        denominator: the token count to divide by (gradient accumulation over micro-batches passes the
            whole mini-batch's count so the micro-batch losses add up to the mini-batch mean).
        token_weights: a constant weight per token of the policy-gradient term (truncated importance
            sampling's ``min(p_old / p_rollout, cap)``); None: 1.
    """
    mask = mask.to(logprobs.dtype)
    adv = advantages.to(logprobs.dtype).unsqueeze(-1)
    ratio = torch.exp(logprobs - old_logprobs.detach())
    unclipped = ratio * adv
    clipped = ratio.clamp(1.0 - clip_ratio, 1.0 + clip_ratio) * adv
    pg = -torch.minimum(unclipped, clipped)
    if token_weights is not None:
        pg = pg * token_weights.detach().to(pg.dtype)
    pg_loss = masked_mean(pg, mask, denominator)
    loss = pg_loss
    kl_value = torch.zeros(())
    if ref_logprobs is not None and kl_coef > 0:
        kl_value = masked_mean(low_var_kl(logprobs, ref_logprobs.detach()), mask, denominator)
        loss = loss + kl_coef * kl_value
    with torch.no_grad():
        clip_fraction = masked_mean(((unclipped - clipped).abs() > 0).to(mask.dtype), mask)
        ratio_mean = masked_mean(ratio, mask)
    return GRPOLossOutput(
        loss, float(pg_loss.detach()), float(kl_value.detach()), float(clip_fraction), float(ratio_mean)
    )


def token_logprobs(
    model: torch.nn.Module,
    input_ids: torch.Tensor,
    attention_mask: torch.Tensor | None,
    chunk_tokens: int = 0,
    fused: bool | None = None,
    temperature: float = 1.0,
) -> torch.Tensor:
    """``[batch, seq]`` logprob of each token given the ones before it (position 0 gets 0), under the
    model's distribution at ``temperature`` (the logits divided by it, as the rollout engines sample and
    report them; 0, greedy, reads the model's own distribution as the engines do).

    Right-padded batches: ``attention_mask`` is 1 on real tokens, or None (a causal model's real tokens
    never attend to the padding after them, so their logprobs are the same). With ``chunk_tokens > 0``
    (and a model that exposes its decoder and LM head, as transformers' causal LMs do) the vocabulary
    projection runs over ``chunk_tokens`` positions at a time under activation checkpointing, so the
    ``[batch, seq, vocab]`` float logits are never held whole: the memory of long rollouts with a 150k
    vocabulary. ``fused`` (default: on a GPU) reads the logits through one ``torch.compile``d function,
    forward and backward, instead of several passes over the ``[.., vocab]`` tensor.
    """
    target = input_ids[:, 1:]
    fused = input_ids.is_cuda if fused is None else fused
    temperature = temperature if temperature > 0 else 1.0
    decoder = getattr(model, "get_decoder", lambda: None)()
    head = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None
    if chunk_tokens <= 0 or decoder is None or head is None:
        logits = model(input_ids=input_ids, attention_mask=attention_mask).logits[:, :-1]
        lp = chosen_logprobs(logits, target, fused, temperature)
    else:
        hidden = decoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state[:, :-1]
        parts = []
        for start in range(0, hidden.shape[1], chunk_tokens):
            end = start + chunk_tokens
            parts.append(
                torch.utils.checkpoint.checkpoint(
                    _head_logprobs,
                    head,
                    hidden[:, start:end],
                    target[:, start:end],
                    fused,
                    temperature,
                    use_reentrant=False,
                )
            )
        lp = torch.cat(parts, dim=1)
    return torch.cat([torch.zeros_like(lp[:, :1]), lp], dim=1)


def chosen_logprobs(
    logits: torch.Tensor, target: torch.Tensor, fused: bool = False, temperature: float = 1.0
) -> torch.Tensor:
    """``log softmax(logits / temperature)[target]`` in float32; ``fused``: through the compiled function."""
    if temperature != 1.0:
        logits = logits.float() / temperature  # in float32: a bfloat16 quotient would be rounded again
    if not fused:
        return _chosen_logprobs(logits, target)
    if "chosen" not in _COMPILED:
        _COMPILED["chosen"] = torch.compile(_chosen_logprobs, dynamic=True)
    return _COMPILED["chosen"](logits, target)


#: Compiled functions, made on first use (compiling costs seconds; most runs never need it).
_COMPILED: dict[str, Any] = {}


def _chosen_logprobs(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    logits = logits.float()
    # logit - logsumexp instead of log_softmax: no second [batch, seq, vocab] tensor is kept for backward.
    return logits.gather(-1, target.unsqueeze(-1)).squeeze(-1) - torch.logsumexp(logits, dim=-1)


def _head_logprobs(
    head: torch.nn.Module,
    hidden: torch.Tensor,
    target: torch.Tensor,
    fused: bool = False,
    temperature: float = 1.0,
) -> torch.Tensor:
    return chosen_logprobs(head(hidden), target, fused, temperature)


def pad_right(rows: Sequence[Sequence[float]], value: float, dtype: torch.dtype) -> torch.Tensor:
    """A ``[len(rows), max_len]`` tensor of ``rows`` padded on the right with ``value``."""
    width = max((len(r) for r in rows), default=0)
    out = torch.full((len(rows), width), value, dtype=dtype)
    for i, row in enumerate(rows):
        if len(row):
            out[i, : len(row)] = torch.as_tensor(list(row), dtype=dtype)
    return out
