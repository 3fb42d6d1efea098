"""Reward-weighted regression of the environment LLM: weighted SFT on (context -> generated task).

Each kept generation (its batch had ``|p - alpha| <= k_min``) is a supervised example weighted by
``exp(lambda * R_env(p))`` (``CurriculumConfig.rwr_weight``); out-of-band generations get weight 0. The loss
is the weighted token-mean negative log-likelihood of the generated text plus ``kl_coef`` times the
low-variance KL to the initial simulator. ``rwr_sft_step`` caps the KL of one update: the parameter step
is halved until ``KL(new || old) <= max_kl`` on the batch, the rule ``genenv_gym.rwr`` applies to the
ProceduralSimulator's categorical policy.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from genenv_gym.train.grpo import low_var_kl, pad_right, token_logprobs


def rwr_sft_loss(
    logprobs: torch.Tensor,
    mask: torch.Tensor,
    weights: torch.Tensor,
    ref_logprobs: torch.Tensor | None = None,
    kl_coef: float = 0.0,
) -> torch.Tensor:
    """``sum w_i m_it (-lp_it) / sum w_i m_it`` + ``kl_coef`` * token-mean k3 KL to the reference.

    ``logprobs``/``mask``/``ref_logprobs`` are ``[batch, seq]``; ``weights`` is ``[batch]``. A batch whose
    weights are all 0 gives a zero loss (nothing was in band).
    """
    mask = mask.to(logprobs.dtype)
    w = weights.to(logprobs.dtype).unsqueeze(-1) * mask
    denom = w.sum()
    if float(denom) <= 0:
        return (logprobs * 0.0).sum()
    loss = (w * -logprobs).sum() / denom
    if ref_logprobs is not None and kl_coef > 0:
        active = mask * (weights.to(logprobs.dtype).unsqueeze(-1) > 0)
        loss = loss + kl_coef * (low_var_kl(logprobs, ref_logprobs.detach()) * active).sum() / active.sum()
    return loss


@dataclass
class SFTBatch:
    """Right-padded token ids with the loss mask (1 on target tokens) and one weight per row."""

    input_ids: torch.Tensor
    attention_mask: torch.Tensor
    loss_mask: torch.Tensor
    weights: torch.Tensor


def make_sft_batch(
    examples: Sequence[tuple[Sequence[int], Sequence[int]]], weights: Sequence[float], pad_id: int
) -> SFTBatch:
    """A batch from ``(prompt_ids, target_ids)`` pairs: the loss covers the target tokens only."""
    ids = [list(p) + list(t) for p, t in examples]
    masks = [[0] * len(p) + [1] * len(t) for p, t in examples]
    input_ids = pad_right(ids, pad_id, torch.long)
    attention = pad_right([[1] * len(r) for r in ids], 0, torch.long)
    return SFTBatch(input_ids, attention, pad_right(masks, 0, torch.float32), torch.tensor(list(weights)))


def encode_chat_example(
    tokenizer: Any, messages: Sequence[Mapping[str, Any]], reply: str
) -> tuple[list, list]:
    """``(prompt_ids, target_ids)`` of a chat and its assistant reply (ended by the eos token)."""
    prompt = tokenizer.apply_chat_template(
        [dict(m) for m in messages], tokenize=False, add_generation_prompt=True
    )
    prompt_ids = tokenizer.encode(prompt, add_special_tokens=False)
    target_ids = [*tokenizer.encode(reply, add_special_tokens=False), tokenizer.eos_token_id]
    return prompt_ids, target_ids


def sft_step(
    model: torch.nn.Module, optimizer: torch.optim.Optimizer, batch: SFTBatch, grad_clip: float = 1.0
) -> float:
    """One weighted-SFT step without a KL cap (the agent's and the simulator's warm starts); the loss."""
    device = next(model.parameters()).device
    lp = token_logprobs(model, batch.input_ids.to(device), batch.attention_mask.to(device))
    loss = rwr_sft_loss(lp, batch.loss_mask.to(device), batch.weights.to(device))
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
    optimizer.step()
    return float(loss.detach())


def full_kl(new_logits: torch.Tensor, old_logits: torch.Tensor, mask: torch.Tensor) -> float:
    """Token-mean exact ``KL(new || old)`` over the vocabulary at the masked positions."""
    new_lp = torch.log_softmax(new_logits.float(), dim=-1)
    old_lp = torch.log_softmax(old_logits.float(), dim=-1)
    kl = (new_lp.exp() * (new_lp - old_lp)).sum(-1)
    return float((kl * mask).sum() / mask.sum().clamp(min=1.0))


def _target_logits(model: torch.nn.Module, batch: SFTBatch) -> torch.Tensor:
    return model(input_ids=batch.input_ids, attention_mask=batch.attention_mask).logits[:, :-1]


def rwr_sft_step(
    model: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    batch: SFTBatch,
    reference: torch.nn.Module | None = None,
    kl_coef: float = 0.0,
    max_kl: float = 0.05,
    grad_clip: float = 1.0,
    max_halvings: int = 10,
) -> dict[str, float]:
    """One RWR step with the KL cap; returns ``loss``, ``kl`` (to the pre-step model) and ``step_scale``."""
    if float(batch.weights.sum()) <= 0:
        return {"loss": 0.0, "kl": 0.0, "step_scale": 0.0}
    mask = batch.loss_mask[:, 1:]
    with torch.no_grad():
        old_logits = _target_logits(model, batch).detach()
        ref_lp = None
        if reference is not None and kl_coef > 0:
            ref_lp = token_logprobs(reference, batch.input_ids, batch.attention_mask)
    before = [p.detach().clone() for p in model.parameters()]
    model.train()
    optimizer.zero_grad(set_to_none=True)
    lp = token_logprobs(model, batch.input_ids, batch.attention_mask)
    loss = rwr_sft_loss(lp, batch.loss_mask, batch.weights, ref_lp, kl_coef)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
    optimizer.step()
    model.eval()
    after = [p.detach().clone() for p in model.parameters()]
    scale = 1.0
    with torch.no_grad():
        for _ in range(max_halvings + 1):
            kl = full_kl(_target_logits(model, batch), old_logits, mask)
            if kl <= max_kl:
                break
            scale /= 2.0
            for p, b, a in zip(model.parameters(), before, after, strict=True):
                p.copy_(b + scale * (a - b))
        else:  # still above the cap: reject the step
            for p, b in zip(model.parameters(), before, strict=True):
                p.copy_(b)
            kl, scale = 0.0, 0.0
    return {"loss": float(loss.detach()), "kl": kl, "step_scale": scale}
