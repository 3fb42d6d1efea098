"""Per-token probes of a trained ladder agent on its held-out references (the fifth efficacy design's
diagnostics, docs/experiments/design5.md), and the forgetting of solved held-out tasks.

Teacher-forced on each reference reply (as the warm start encodes it: per labelled step a space, the label
digit and the symbol, then the end-of-turn token), ``reference_probes`` reads:

- **the first unlearned step**: on every chain of the top level (one per start symbol), the conditional
  probability of each step's reference symbol given the prompt and the correct steps before it; the first
  step whose conditional is below ``LEARNED`` (0.5) is the chain's first unlearned step. Chance is
  ``1 / symbols``; design 4 found it far below chance (a map of another step leaking in).
- **the end token preferred**: on every reference with at least two steps, whether at some place where the
  next step should start (the reference's space) the end-of-turn token is more probable than that space: a
  greedy reply stops there, too short. Counted over all such references and over those the agent's greedy
  reply failed at the last evaluation.

``forgetting`` reads a run record's per-task gold probabilities at every evaluation (``eval_gold``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from genenv_gym.train.rwr_sft import encode_chat_example

#: A step whose teacher-forced conditional is at least this is learned.
LEARNED = 0.5
#: A held-out task is solved at a gold probability of at least ``SOLVED`` and lost below ``LOST``.
SOLVED, LOST = 0.8, 0.3


def reference_logprobs(trainer: Any, task: Any) -> tuple[list[int], torch.Tensor]:
    """The reference reply's target token ids and the log-softmax over the vocabulary before each."""
    prompt, target = encode_chat_example(trainer.tokenizer, task.messages, trainer.domain.oracle_action(task))
    device = next(trainer.model.parameters()).device
    ids = torch.tensor([prompt + target], device=device)
    with torch.no_grad():
        logits = trainer.model(input_ids=ids).logits[0].float().log_softmax(-1)
    return target, logits[len(prompt) - 1 : len(prompt) - 1 + len(target)].cpu()


def reference_probes(trainer: Any, outcomes: Sequence[int]) -> dict[str, Any]:
    """The first unlearned step of every top-level chain and the end token's preference on the held-out
    references (module docstring); ``outcomes``: the last greedy evaluation's successes, held-out order."""
    was_training = trainer.model.training
    trainer.model.eval()
    eos = trainer.tokenizer.eos_token_id
    top = trainer.domain.num_levels - 1
    chains, end_all, end_unsolved = [], [], []
    for task, solved in zip(trainer.heldout, outcomes, strict=True):
        target, logprobs = reference_logprobs(trainer, task)
        symbols = [i for i in range(len(target) - 1) if (i - 1) % 3 == 0]  # "1X 2Y": X at 1, Y at 4, ...
        boundaries = [i for i in range(len(target) - 1) if i % 3 == 2]  # the spaces before labels 2, 3, ...
        if task.level == top:
            conditionals = [float(logprobs[i, target[i]].exp()) for i in symbols]
            first = next((k for k, c in enumerate(conditionals) if c < LEARNED), None)
            chains.append(
                {
                    "conditionals": [round(c, 6) for c in conditionals],
                    "first_unlearned_step": None if first is None else first + 1,
                    "first_unlearned_conditional": None if first is None else conditionals[first],
                }
            )
        if boundaries:
            preferred = any(bool(logprobs[i, eos] > logprobs[i, target[i]]) for i in boundaries)
            end_all.append(preferred)
            if not solved:
                end_unsolved.append(preferred)
    trainer.model.train(was_training)
    firsts = [
        c["first_unlearned_conditional"] for c in chains if c["first_unlearned_conditional"] is not None
    ]
    return {
        "chance": 1.0 / len(trainer.domain.symbols),
        "chains": chains,
        "first_unlearned_median": float(np.median(firsts)) if firsts else None,
        "end_preferred": int(sum(end_all)),
        "end_preferred_of": len(end_all),
        "end_preferred_unsolved": int(sum(end_unsolved)),
        "end_preferred_unsolved_of": len(end_unsolved),
    }


def forgetting(record: dict[str, Any], levels: Sequence[int]) -> dict[str, Any]:
    """Held-out tasks (and whole levels, by their mean) that reached a gold probability >= ``SOLVED`` at some
    evaluation and ended below ``LOST``, from a run record's ``eval_gold`` (log-probabilities)."""
    gold = np.exp(np.array(record["eval_gold"], dtype=float))  # [evaluations, tasks]
    tasks = np.flatnonzero((gold.max(axis=0) >= SOLVED) & (gold[-1] < LOST))
    by_level = {
        lv: gold[:, [i for i, x in enumerate(levels) if x == lv]].mean(axis=1) for lv in sorted(set(levels))
    }
    lost_levels = [lv for lv, curve in by_level.items() if curve.max() >= SOLVED and curve[-1] < LOST]
    return {
        "tasks_lost": len(tasks),
        "tasks_ever_solved": int((gold.max(axis=0) >= SOLVED).sum()),
        "levels_lost": lost_levels,
    }
