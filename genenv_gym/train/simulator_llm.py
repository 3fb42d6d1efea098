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

Targeting (``simulator.targeting``): with ``success`` (the default) the level the prompts ask for is a
fractional ``center`` that starts at the skill tracker's frontier and, after each update, moves
``target_gain`` levels per logit of the gap between the success on all of the epoch's generated tasks and
alpha (at most ``target_max_step`` levels, and no further than ``TARGET_SPAN`` levels past the mean level
of the epoch's tasks; accepted tasks not yet served are discarded, they were written for the old target): a
stochastic-approximation step on the one figure the curriculum aims at, which also absorbs the written
tasks' offset from the asked level, the greedy probe's optimism and skill estimates gone stale at levels no
longer proposed. With ``frontier`` the prompts ask for the tracker's frontier level (the earlier design).
Either way one level beside it with probability ``explore``.

An optional supervised warm start (``simulator.warmstart_steps``) teaches a random tiny model the reply
format: writer prompts at random target levels -> the writer's reply for a procedural task at that level.
The KL reference is taken after it (the warm-started model is the "initial simulator"; a random one is no
meaningful anchor).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence
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
from genenv_gym.train.build import build_model
from genenv_gym.train.config import TrainConfig
from genenv_gym.train.master_weights import MasterWeightAdamW
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
#: ``targeting: success``: a step of the target level stops this many levels past the mean level the
#: latest epoch's tasks were written at (no wind-up while the written levels do not follow the target).
TARGET_SPAN = 1.0
#: Rejection kinds reported one by one in the metrics (``duplicate`` includes ``near_duplicate``).
REPORTED_REJECTIONS = ("parse", "invalid", "duplicate", "truncated")


def steer_target(
    center: float, successes: int, attempts: int, alpha: float, gain: float, max_step: float, levels: int
) -> float:
    """The next target level: ``center`` moved ``gain`` levels per logit of the measured success above
    ``alpha`` (``successes / attempts``, smoothed by half a success and half a failure), by at most
    ``max_step`` levels, kept inside ``[0, levels - 1]``."""
    p = (successes + 0.5) / (attempts + 1.0)
    gap = math.log(p / (1.0 - p)) - math.log(alpha / (1.0 - alpha))
    step = min(max(gain * gap, -max_step), max_step)
    return min(max(center + step, 0.0), levels - 1.0)


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
        self.model, self.tokenizer = build_model(s.model, cfg.run.seed + SEED_OFFSET)
        self.model.to(self.device)
        self.rng = np.random.default_rng([cfg.run.seed, SEED_OFFSET])
        self.writer = get_task_writer(domain)
        name = "tiny-simulator" if s.model.source == "tiny" else s.model.source
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
        self.optimizer = MasterWeightAdamW(self.model.parameters(), lr=s.lr, weight_decay=0.0)
        self.last_proposal: dict[str, float | None] = {}
        #: The skill tracker's frontier at the latest proposal (where ``targeting: success`` starts).
        self.proposal_frontier = 0

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

        optimizer = MasterWeightAdamW(self.model.parameters(), lr=s.warmstart_lr, weight_decay=0.0)
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
        self.proposal_frontier = skill.frontier
        tasks = self.simulator.propose(n, skill, rng)
        generated, accepted = stats.generated - generated, stats.accepted - accepted
        written = [t.level for t in tasks if t.provenance.startswith("llm:")]
        records = self.simulator.records
        targets = [records[t.id].context["target"]["level"] for t in tasks if t.id in records]
        new_rejections = {k: v - rejected.get(k, 0) for k, v in stats.rejected.items()}
        report: dict[str, float | None] = {
            "generated": float(generated),
            "accepted": float(accepted),
            "acceptance_rate": accepted / generated if generated else None,
            "fallback": float(stats.fallback - fallback),
            "written": float(len(written)),
            "mean_level": float(np.mean(written)) if written else None,
            "mean_target": float(np.mean(targets)) if targets else None,
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
        center = self._steer(outcomes)
        recorded = self.simulator.update(pool_by_level(outcomes))
        # tasks written for the old target and not served yet would serve the next epoch at the old level
        discarded = self.simulator.discard_buffer() if center is not None else 0
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
            "center": center,
            "discarded": float(discarded),
        }

    def _steer(self, outcomes: Sequence[Outcome]) -> float | None:
        """``targeting: success``: move the simulator's target level by the success on all ``outcomes``
        (the epoch's generated tasks, LLM-written and fallback), a step down stopping ``TARGET_SPAN`` below
        their mean level and a step up ``TARGET_SPAN`` above it (a step never moves the target the other
        way); starts at the frontier the proposal used. Returns the new target level (None with
        ``targeting: frontier`` or no outcomes)."""
        sim, s = self.simulator, self.cfg
        attempts = sum(o.attempts for o in outcomes)
        if s.targeting != "success" or not attempts:
            return None
        if sim.center is None:
            sim.center = float(self.proposal_frontier)
        successes = sum(o.successes for o in outcomes)
        alpha = sim.curriculum.alpha
        levels = self.domain.num_levels
        gain, step = s.target_gain, s.target_max_step
        center = steer_target(sim.center, successes, attempts, alpha, gain, step, levels)
        # no wind-up: a step stops TARGET_SPAN past the level the tasks were written at (never pushed back)
        written = float(np.mean([o.task.level for o in outcomes]))
        if center < sim.center:
            center = max(center, min(sim.center, written - TARGET_SPAN))
        elif center > sim.center:
            center = min(center, max(sim.center, written + TARGET_SPAN))
        sim.center = center
        return sim.center

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
