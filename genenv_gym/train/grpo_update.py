"""The agent's GRPO update over one epoch's trajectories: mini-batches of tasks, micro-batch gradient
accumulation, and under torchrun every rank in step with the others (``grpo.py`` holds the loss itself)."""

from __future__ import annotations

from contextlib import nullcontext
from typing import Any

import numpy as np
import torch

from genenv_gym.train.config import AgentConfig
from genenv_gym.train.distributed import DistInfo, all_reduce, wrap_agent
from genenv_gym.train.grpo import group_advantages, grpo_loss, pad_right, token_logprobs
from genenv_gym.train.rollout import Trajectory


class GRPOUpdater:
    """Steps ``optimizer`` on ``model`` by the GRPO loss of an epoch's rows, with ``agent``'s settings."""

    def __init__(
        self,
        model: torch.nn.Module,
        optimizer: torch.optim.Optimizer,
        pad_token_id: int,
        device: torch.device,
        agent: AgentConfig,
        dist: DistInfo,
    ) -> None:
        self.model, self.optimizer, self.pad_token_id = model, optimizer, pad_token_id
        self.device, self.agent, self.dist = device, agent, dist
        self.train_model: torch.nn.Module | None = None  # the agent as the update sees it (DDP-wrapped)

    def update(
        self, rows: list[Trajectory], reference: torch.nn.Module | None, rng: np.random.Generator
    ) -> dict[str, float]:
        """One GRPO pass over this rank's ``rows`` (trained trajectories, ``group`` = task); ``reference``:
        the frozen model of the KL penalty (None: none yet); ``rng`` orders the mini-batches."""
        a, info = self.agent, self.dist
        if not all_reduce(len(rows), info):
            return {}
        advantages = group_advantages([t.reward for t in rows], [t.group for t in rows])
        groups = sorted({t.group for t in rows})
        if a.signal_groups_only:  # a group's advantages are all 0 or none is
            groups = sorted({t.group for t, adv in zip(rows, advantages.tolist(), strict=True) if adv != 0.0})
        stats: dict[str, list[float]] = {"pg_loss": [], "kl": [], "clip_fraction": [], "grad_norm": []}
        if self.train_model is None:  # after the warm start: DDP broadcasts rank 0's weights once
            self.train_model = wrap_agent(self.model, info)
        self.model.train()
        # Under torchrun every rank must take the same optimizer steps and backward passes: the mini-batch
        # count is the largest over the ranks, a rank short of rows runs zero-weighted passes, and the
        # permutation has its own generator so that the trainer's rng advances alike everywhere.
        batches = int(all_reduce(-(-len(groups) // a.mini_batch_size), info, op="max"))
        order_rng = rng if info.world_size == 1 else np.random.default_rng(rng.integers(1 << 31))
        for _ in range(a.ppo_epochs):
            order = [groups[i] for i in order_rng.permutation(len(groups))]
            for b in range(batches):
                chosen = set(order[b * a.mini_batch_size : (b + 1) * a.mini_batch_size])
                idx = [i for i, t in enumerate(rows) if t.group in chosen]
                tokens = all_reduce(float(sum(sum(rows[i].mask) for i in idx)), info)
                per_micro = max(1, len(idx) * a.micro_batch_size // max(1, a.mini_batch_size))
                parts = [idx[m : m + per_micro] for m in range(0, len(idx), per_micro)]
                micro_count = int(all_reduce(len(parts), info, op="max"))
                self.optimizer.zero_grad(set_to_none=True)
                for m in range(micro_count):
                    last = m == micro_count - 1
                    sync = self.train_model.no_sync() if info.world_size > 1 and not last else nullcontext()
                    with sync:
                        if m < len(parts):
                            part = parts[m]
                            out = self._micro_loss(
                                [rows[i] for i in part], advantages[part], tokens, reference
                            )
                            # DDP averages gradients over ranks: scale back to the global token mean.
                            (out.loss * info.world_size).backward()
                            stats["pg_loss"].append(out.pg_loss)
                            stats["kl"].append(out.kl)
                            stats["clip_fraction"].append(out.clip_fraction)
                        else:
                            self._zero_weighted_pass(rows)
                norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), a.grad_clip)
                stats["grad_norm"].append(float(norm))
                self.optimizer.step()
        self.model.eval()
        return {k: float(np.mean(v)) for k, v in stats.items() if v}

    def _zero_weighted_pass(self, rows: list[Trajectory]) -> None:
        """A backward pass that adds nothing: keeps this rank in step with the others' gradient syncs."""
        ids = torch.tensor([rows[0].token_ids if rows else [self.pad_token_id] * 2], device=self.device)
        lp = token_logprobs(self.train_model, ids, torch.ones_like(ids))
        (lp.sum() * 0.0).backward()

    def padded_ids(self, rows: list[Trajectory]) -> torch.Tensor:
        """The rows' token ids, right-padded, on the update's device."""
        return pad_right([t.token_ids for t in rows], self.pad_token_id, torch.long).to(self.device)

    def policy_logprobs(
        self, model: torch.nn.Module, ids: torch.Tensor, autocast: bool = True
    ) -> torch.Tensor:
        """``model``'s per-token logprobs of right-padded ``ids`` as the update reads them: at the rollout's
        ``temperature`` (the engines' "old" logprobs are the tempered distribution's),
        ``logprob_chunk_tokens`` positions at a time, under bfloat16 autocast on a GPU when ``autocast``."""
        a = self.agent
        # Right padding under causal attention: no real token attends to a pad, so no mask is needed, and
        # without one the attention runs as the fused causal kernel on a GPU.
        enabled = autocast and self.device.type == "cuda"
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=enabled):
            return token_logprobs(model, ids, None, a.logprob_chunk_tokens, temperature=a.temperature)

    def _micro_loss(
        self,
        rows: list[Trajectory],
        advantages: torch.Tensor,
        tokens: float,
        reference: torch.nn.Module | None,
    ) -> Any:
        dev, a = self.device, self.agent
        ids = self.padded_ids(rows)
        mask = pad_right([t.mask for t in rows], 0, torch.float32).to(dev)
        old = pad_right([t.logprobs for t in rows], 0.0, torch.float32).to(dev)
        ref = None
        if reference is not None and a.kl_coef > 0:
            with torch.no_grad():
                ref = self.policy_logprobs(reference, ids, autocast=False)
        lp = self.policy_logprobs(self.train_model, ids)
        return grpo_loss(lp, old, advantages.to(dev), mask, ref, a.clip_ratio, a.kl_coef, denominator=tokens)
