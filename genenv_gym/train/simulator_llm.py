"""The trainable environment LLM of the co-evolution loop (``simulator.kind: llm``).

An ``EnvironmentLLM`` owns a causal LM (a tiny locally built one, or a pretrained path), a frozen copy of
its initial weights (the KL reference: "the initial simulator") and its AdamW optimizer. It proposes tasks
through an ``LLMSimulator`` on an ``HFBackend`` over the in-memory model, so every task the agent sees is
screened (strict JSON, ``Domain.validate``, the reference answer passes the checker, no duplicates) and
the procedural generator fills any gap (counted as ``fallback``). ``update`` is the paper's environment
step: it records the agent's success on the LLM-written tasks, keeps the in-band generations and runs
RWR-SFT (``rwr_sft_step``: weights ``exp(lambda R_env)``, KL penalty ``kl_coef`` to the initial simulator,
the per-step KL cap ``max_kl``) on the (conditioning prompt -> raw reply) pairs.

``p`` of a generation is the paper's batch success, the one the Trainer logs and the ProceduralSimulator
trains on: all of one update's outcomes at a level form one batch of task variations, and
``p = sum(successes) / sum(attempts)`` over that batch (``loop.level_batch_success``). Every record of the
batch gets that ``p``, its ``R_env(p)`` and, when ``|p - alpha| <= k_min``, the weight ``exp(lambda R_env)``,
so both simulator kinds are trained on the same signal.

An optional supervised warm start (``simulator.warmstart_steps``) teaches a random tiny model the reply
format: writer prompts at random target levels -> the writer's reply for a procedural task at that level.
The KL reference is taken after it (the warm-started model is the "initial simulator"; a random one is no
meaningful anchor).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import torch

from genenv_gym.agents.backends.base import SamplingParams
from genenv_gym.curriculum import CurriculumConfig
from genenv_gym.domain import Domain
from genenv_gym.llm_simulator import LLMSimulator, Target, get_task_writer
from genenv_gym.simulator import Outcome, level_batches
from genenv_gym.skill import SkillEstimate, SkillTracker
from genenv_gym.task import Task
from genenv_gym.train.config import ModelConfig, TrainConfig
from genenv_gym.train.rwr_sft import (
    SFTBatch,
    encode_chat_example,
    full_kl,
    make_sft_batch,
    rwr_sft_step,
    sft_step,
)

#: Added to ``run.seed`` for the simulator LLM's initial weights and its random streams (not the agent's).
SEED_OFFSET = 7919
#: Rejection kinds reported one by one in the metrics (``duplicate`` includes ``near_duplicate``).
REPORTED_REJECTIONS = ("parse", "invalid", "duplicate", "truncated")


def build_simulator_llm(cfg: TrainConfig) -> tuple[torch.nn.Module, Any]:
    """The environment LLM and its tokenizer from ``cfg.simulator`` (the agent's builder, its own shape)."""
    from genenv_gym.train.loop import build_agent

    s = cfg.simulator
    model_cfg = ModelConfig(
        source=s.source,
        shape=s.shape,
        hidden_size=s.hidden_size,
        intermediate_size=s.intermediate_size,
        num_layers=s.num_layers,
        num_heads=s.num_heads,
        vocab_size=s.vocab_size,
        dtype=cfg.model.dtype,
    )
    return build_agent(replace(cfg, model=model_cfg, run=replace(cfg.run, seed=cfg.run.seed + SEED_OFFSET)))


def pool_by_level(outcomes: Sequence[Outcome]) -> list[Outcome]:
    """Each outcome with its level's pooled counts, so ``o.p`` is the batch success of its level."""
    totals = level_batches(outcomes)
    return [Outcome(o.task, *totals[o.task.level][:2], o.context) for o in outcomes]


class EnvironmentLLM:
    """The environment policy as an LLM: proposes screened tasks, learns by RWR-SFT (module docstring)."""

    def __init__(
        self,
        cfg: TrainConfig,
        domain: Domain,
        curriculum: CurriculumConfig,
        device: torch.device | str = "cpu",
        progress: bool = False,
    ) -> None:
        from genenv_gym.agents.backends.hf import HFBackend

        s = cfg.simulator
        self.cfg = s
        self.domain = domain
        self.device = torch.device(device)
        self.model, self.tokenizer = build_simulator_llm(cfg)
        self.model.to(self.device)
        self.rng = np.random.default_rng([cfg.run.seed, SEED_OFFSET])
        self.writer = get_task_writer(domain)
        name = "tiny-simulator" if s.source == "tiny" else s.source
        backend = HFBackend(
            self.model, tokenizer=self.tokenizer, engine="padded", max_batch_size=256, model_name=name
        )
        self.simulator = LLMSimulator(
            domain,
            backend,
            self.writer,
            curriculum,
            params=SamplingParams(temperature=s.temperature, max_new_tokens=s.max_new_tokens, logprobs=False),
            seeds=[],  # the prompt shows no examples; nothing to deduplicate against but accepted tasks
            seeds_per_prompt=0,
            batch_size=s.generations_per_round,
            buffer_size=s.generations_per_round,
            max_rounds=s.max_rounds,
            explore=s.explore,
            seed=int(self.rng.integers(1 << 31)),
        )
        self.warmstart_stats = self.warm_start(progress)
        self.reference = copy.deepcopy(self.model).eval()
        self.reference.requires_grad_(False)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=s.lr, weight_decay=0.0)
        self.last_proposal: dict[str, float | None] = {}

    # -------------------------------------------------------------------------------------------------
    def warm_start(self, progress: bool = False) -> dict[str, float]:
        """Supervised steps on (writer prompt at a random level -> reply of a procedural task there)."""
        s = self.cfg
        if s.warmstart_steps <= 0:
            return {}
        reply_text = getattr(self.writer, "reply_text", None)
        if reply_text is None:
            raise ValueError(
                f"simulator.warmstart_steps > 0 needs a task writer with reply_text(task); "
                f"{type(self.writer).__name__} ({self.domain.name}) has none"
            )
        from genenv_gym.progress import progress as bar

        optimizer = torch.optim.AdamW(self.model.parameters(), lr=s.warmstart_lr, weight_decay=0.0)
        skill = SkillTracker(self.domain.num_levels).estimate()
        self.model.train()
        loss = 0.0
        for _ in bar(
            range(s.warmstart_steps), total=s.warmstart_steps, desc="simulator warm start", enabled=progress
        ):
            examples = [self._warmstart_example(skill, reply_text) for _ in range(s.warmstart_batch_size)]
            batch = make_sft_batch(examples, [1.0] * len(examples), self.tokenizer.pad_token_id)
            loss = sft_step(self.model, optimizer, batch)
        self.model.eval()
        return {"warmstart_loss": loss}

    def _warmstart_example(self, skill: SkillEstimate, reply_text: Any) -> tuple[list, list]:
        """A prompt at a random level (and random agent success) -> the reply of a procedural task there."""
        level = int(self.rng.integers(self.domain.num_levels))
        target = Target(level, self.domain.num_levels, 0.5, float(self.rng.random()), 0.0, 0.0)
        messages = self.writer.prompt([], skill, target)
        return encode_chat_example(
            self.tokenizer, messages, reply_text(self.domain.generate(level, self.rng))
        )

    def propose(self, n: int, skill: SkillEstimate, rng: np.random.Generator) -> list[Task]:
        """``n`` screened tasks (LLM-written or procedural fallback); ``last_proposal`` counts them."""
        stats = self.simulator.stats
        generated, accepted, fallback = stats.generated, stats.accepted, stats.fallback
        rejected = dict(stats.rejected)
        # Each proposal's sampling stream comes from this object's generator (restored on resume), not from
        # whatever the torch RNG holds after the agent's rollouts.
        torch.manual_seed(int(self.rng.integers(1 << 62)))
        tasks = self.simulator.propose(n, skill, rng)
        generated, accepted = stats.generated - generated, stats.accepted - accepted
        written = [t.level for t in tasks if t.provenance.startswith("llm:")]
        new_rejections = {k: v - rejected.get(k, 0) for k, v in stats.rejected.items()}
        report: dict[str, float | None] = {
            "generated": float(generated),
            "accepted": float(accepted),
            "acceptance_rate": accepted / generated if generated else None,
            "fallback": float(stats.fallback - fallback),
            "written": float(len(written)),
            "mean_level": float(np.mean(written)) if written else None,
        }
        for kind in REPORTED_REJECTIONS:
            count = new_rejections.get(kind, 0)
            if kind == "duplicate":
                count += new_rejections.get("near_duplicate", 0)
            report[f"rejected_{kind}"] = float(count)
        self.last_proposal = report
        return tasks

    def update(self, outcomes: Sequence[Outcome]) -> dict[str, float | None]:
        """Record batch success of the LLM-written tasks, then RWR-SFT on the in-band ones.

        Returns ``kept`` (in-band records trained on), ``mean_r_env``, ``loss`` (weighted NLL + KL term,
        mean over steps), ``kl`` (the largest per-step KL to the pre-step model; <= ``max_kl``),
        ``step_scale`` (mean fraction of the optimizer step kept by the cap), ``sft_steps`` and ``ref_kl``
        (token-mean KL of the updated model to the initial simulator on the kept records; None if none).
        """
        recorded = self.simulator.update(pool_by_level(outcomes))
        records = self.simulator.training_records(clear=True)
        examples = [encode_chat_example(self.tokenizer, r.context["messages"], r.reply) for r in records]
        steps = self._rwr_steps(examples, [r.weight for r in records])
        return {
            "kept": float(len(records)),
            "mean_r_env": recorded["mean_r_env"],
            "sft_steps": float(len(steps)),
            "loss": float(np.mean([st["loss"] for st in steps])) if steps else 0.0,
            "kl": float(max(st["kl"] for st in steps)) if steps else 0.0,
            "step_scale": float(np.mean([st["step_scale"] for st in steps])) if steps else 0.0,
            "ref_kl": self._reference_kl(examples) if examples else None,
        }

    def _rwr_steps(self, examples: list[tuple[list, list]], weights: list[float]) -> list[dict[str, float]]:
        """``sft_epochs`` shuffled passes of ``rwr_sft_step`` over mini-batches of ``sft_batch_size``."""
        steps: list[dict[str, float]] = []
        size, pad = self.cfg.sft_batch_size, self.tokenizer.pad_token_id
        for _ in range(self.cfg.sft_epochs if examples else 0):
            order = self.rng.permutation(len(examples))
            for start in range(0, len(order), size):
                idx = order[start : start + size]
                batch = make_sft_batch([examples[i] for i in idx], [weights[i] for i in idx], pad)
                stats = rwr_sft_step(
                    self.model,
                    self.optimizer,
                    self._to_device(batch),
                    self.reference,
                    self.cfg.kl_coef,
                    self.cfg.max_kl,
                )
                steps.append(stats)
        return steps

    # -------------------------------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """Model, reference, optimizer, random streams and the LLMSimulator's state."""
        return {
            "model": self.model.state_dict(),
            "reference": self.reference.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "rng": self.rng.bit_generator.state,
            "simulator": self.simulator.state_dict(),
            "last_proposal": dict(self.last_proposal),
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore what ``state_dict`` saved."""
        self.model.load_state_dict(state["model"])
        self.reference.load_state_dict(state["reference"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.rng.bit_generator.state = state["rng"]
        self.simulator.load_state_dict(state["simulator"])
        self.last_proposal = dict(state["last_proposal"])

    def _reference_kl(self, examples: Sequence[tuple[list, list]]) -> float:
        """Token-mean ``KL(model || initial simulator)`` over the reply tokens of ``examples``."""
        batch = self._to_device(make_sft_batch(examples, [1.0] * len(examples), self.tokenizer.pad_token_id))
        with torch.no_grad():
            new = self.model(input_ids=batch.input_ids, attention_mask=batch.attention_mask).logits[:, :-1]
            old = self.reference(input_ids=batch.input_ids, attention_mask=batch.attention_mask).logits[
                :, :-1
            ]
        return full_kl(new, old, batch.loss_mask[:, 1:])

    def _to_device(self, batch: SFTBatch) -> SFTBatch:
        d = self.device
        return SFTBatch(
            batch.input_ids.to(d), batch.attention_mask.to(d), batch.loss_mask.to(d), batch.weights.to(d)
        )
