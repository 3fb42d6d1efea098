"""The agent's GRPO update over one epoch's trajectories: mini-batches of tasks, micro-batch gradient
accumulation, and under torchrun every rank in step with the others (``grpo.py`` holds the loss itself)."""

from __future__ import annotations

from contextlib import nullcontext

import numpy as np
import torch
from torch.nn.utils.rnn import pad_sequence

from genenv_gym.train.config import AgentConfig
from genenv_gym.train.distributed import DistInfo, all_reduce, wrap_agent
from genenv_gym.train.grpo import GRPOLossOutput, group_advantages, grpo_loss, pad_right, token_logprobs
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
        recomputed = self.recomputed_logprobs(rows) if a.tis_cap > 0 else None
        if recomputed is not None:
            stats.update(tis_statistics(rows, recomputed, a.tis_cap))
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
                                [rows[i] for i in part],
                                advantages[part],
                                tokens,
                                reference,
                                None if recomputed is None else [recomputed[i] for i in part],
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

    def recomputed_logprobs(self, rows: list[Trajectory]) -> list[torch.Tensor]:
        """Each row's sampled-token logprobs as the update reads them before its first step (the old
        policy of truncated importance sampling), ``micro_batch_size`` x G rows per forward."""
        out: list[torch.Tensor] = []
        step = max(1, self.agent.micro_batch_size * self.agent.group_size)
        with torch.no_grad():
            for start in range(0, len(rows), step):
                part = rows[start : start + step]
                lp = self.policy_logprobs(self.model, self.padded_ids(part)).float().cpu()
                out.extend(lp[i, : len(t.token_ids)] for i, t in enumerate(part))
        return out

    def _micro_loss(
        self,
        rows: list[Trajectory],
        advantages: torch.Tensor,
        tokens: float,
        reference: torch.nn.Module | None,
        recomputed: list[torch.Tensor] | None = None,
    ) -> GRPOLossOutput:
        """The micro-batch's loss; with ``recomputed`` (``tis_cap`` on), the ratio is taken against those
        logprobs and each token weighted by ``min(exp(recomputed - rollout), tis_cap)``."""
        dev, a = self.device, self.agent
        ids = self.padded_ids(rows)
        mask = pad_right([t.mask for t in rows], 0, torch.float32).to(dev)
        old = pad_right([t.logprobs for t in rows], 0.0, torch.float32).to(dev)
        weights = None
        if recomputed is not None:
            rollout, old = old, pad_sequence(recomputed, batch_first=True).to(dev)
            weights = torch.exp(old - rollout).clamp(max=a.tis_cap)
        ref = None
        if reference is not None and a.kl_coef > 0:
            with torch.no_grad():
                ref = self.policy_logprobs(reference, ids, autocast=False)
        lp = self.policy_logprobs(self.train_model, ids)
        adv = advantages.to(dev)
        return grpo_loss(lp, old, adv, mask, ref, a.clip_ratio, a.kl_coef, tokens, token_weights=weights)


def tis_statistics(
    rows: list[Trajectory], recomputed: list[torch.Tensor], cap: float
) -> dict[str, list[float]]:
    """Over the rows' model tokens: the mean truncated importance weight (``tis_weight``) and the share of
    tokens whose weight the cap cut (``tis_capped``)."""
    ratios = [
        torch.exp(r - torch.tensor(t.logprobs, dtype=torch.float32))[torch.tensor(t.mask, dtype=torch.bool)]
        for t, r in zip(rows, recomputed, strict=True)
    ]
    ratio = torch.cat(ratios) if ratios else torch.zeros(0)
    if not ratio.numel():
        return {}
    return {
        "tis_weight": [float(ratio.clamp(max=cap).mean())],
        "tis_capped": [float((ratio > cap).float().mean())],
    }
