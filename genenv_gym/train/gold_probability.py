"""The exact held-out metric: the probability the agent gives the reference answer, teacher-forced.

For a single-reply task, ``log P(reference | prompt)`` is the sum of the log-probabilities of the reference
reply's tokens (as the warm start encodes them, the end-of-turn token included) at temperature 1: the
chance that one sampled reply is exactly the reference in that tokenisation. Averaged over a held-out set
it is the expected sampled accuracy with no sampling noise, and it moves before greedy accuracy flips.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch

from genenv_gym.task import Task
from genenv_gym.train.grpo import token_logprobs
from genenv_gym.train.rwr_sft import encode_chat_example, make_sft_batch


def gold_logprobs(
    model: torch.nn.Module,
    tokenizer: Any,
    tasks: Sequence[Task],
    reference: Callable[[Task], str],
    batch_size: int = 64,
) -> list[float]:
    """``log P(reference(task) | task's prompt)`` per task, in order (the model's mode is left as it was)."""
    device = next(model.parameters()).device
    examples = [encode_chat_example(tokenizer, t.messages, reference(t)) for t in tasks]
    was_training = model.training
    model.eval()
    out: list[float] = []
    with torch.no_grad():
        for start in range(0, len(examples), batch_size):
            batch = make_sft_batch(
                examples[start : start + batch_size],
                [1.0] * len(examples[start : start + batch_size]),
                tokenizer.pad_token_id,
            )
            lp = token_logprobs(model, batch.input_ids.to(device), batch.attention_mask.to(device))
            out += (lp * batch.loss_mask.to(device)).sum(-1).double().cpu().tolist()
    model.train(was_training)
    return out


def gold_probability_metrics(logprobs: Sequence[float], levels: Sequence[int]) -> dict[str, float]:
    """``heldout_gold_prob`` (mean probability) and ``heldout_gold_prob_level_<l>`` per level."""
    probs = np.exp(np.asarray(logprobs, dtype=float))
    out = {"heldout_gold_prob": float(probs.mean()) if len(probs) else 0.0}
    for level in sorted(set(levels)):
        chosen = [p for p, lv in zip(probs, levels, strict=True) if lv == level]
        out[f"heldout_gold_prob_level_{level}"] = float(np.mean(chosen))
    return out
