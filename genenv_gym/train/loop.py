"""The co-evolution loop (Algorithm 1 of GenEnv), reading top to bottom.

Per epoch: the simulator proposes a task batch -> the agent attempts each task G times (RolloutEngine)
-> R_agent per attempt; p and R_env per batch of task variations (the epoch's generated tasks at one
level) -> GRPO update of the agent -> one RWR update of the simulator on all the epoch's outcomes
(``ProceduralSimulator.update``: band filter per batch, weights exp(lambda R_env), KL cap) -> pools:
D_train (base data + valid traces, kept across epochs; ``agent.replay_tasks`` of its tasks join every
epoch's on-policy batch) and D_env (the in-band generations with their weights).

Baselines spend the same agent-sample budget per epoch and differ only in where tasks come from:
``alpha-curriculum`` (the trained simulator), ``random-simulator`` (the same simulator, never updated),
``static`` (a fixed augmented set built once by the untrained simulator), ``base-only`` (the base data) and
``learnability`` (``LearnabilitySampler``: levels in proportion to ``R_env`` of the running per-level success,
no band filter, nothing learned; the efficacy benchmark's positive control).

With ``simulator.kind: llm`` an environment LLM (``simulator_llm.EnvironmentLLM``) writes the generated tasks
and is updated by RWR-SFT on the same per-level batch p instead; the procedural simulator then stays idle.

What the loop runs on (the domain, the models, the rollout backend, the envs) is built by ``build.py``.
"""

from __future__ import annotations

import copy
import json
import random
import signal
import sys
import time
import warnings
from contextlib import nullcontext
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from genenv_gym.agents.backends.base import SamplingParams
from genenv_gym.atomic_write import write_atomically
from genenv_gym.curriculum import CurriculumConfig
from genenv_gym.envs.benchmark_env import BenchmarkEnv
from genenv_gym.progress import progress
from genenv_gym.samplers import SAMPLERS, build_standalone
from genenv_gym.samplers.oracle_frontier import OracleFrontierSampler
from genenv_gym.samplers.rank_trimming import RankTrimSampler
from genenv_gym.simulator import Outcome, ProceduralSimulator, level_batches
from genenv_gym.skill import SkillTracker
from genenv_gym.task import Task
from genenv_gym.train.build import build_agent_backend, build_domain, build_model, task_env
from genenv_gym.train.checkpoint import load_checkpoint, save_checkpoint
from genenv_gym.train.config import STOP_WINDOW, TrainConfig
from genenv_gym.train.distributed import all_reduce, gather, init_distributed, shard, wrap_agent
from genenv_gym.train.gold_probability import gold_logprobs, gold_probability_metrics
from genenv_gym.train.grpo import group_advantages, group_signal, grpo_loss, pad_right, token_logprobs
from genenv_gym.train.metrics import MetricsLogger
from genenv_gym.train.provenance import run_provenance
from genenv_gym.train.rollout import RolloutConfig, RolloutEngine, Trajectory
from genenv_gym.train.run_dir import RUN_RECORD, clear_run_files, remove_stale_temp_files, run_files
from genenv_gym.train.rwr_sft import encode_chat_example, make_sft_batch, sft_step

if TYPE_CHECKING:
    from genenv_gym.train.simulator_llm import EnvironmentLLM


#: The random stream of the warm start's replies (``Domain.warmstart_action``), apart from ``Trainer.rng``.
WARMSTART_REPLY_STREAM = 1


class Trainer:
    """Owns the agent, its frozen reference, the simulator, the pools and the RNGs of one run."""

    def __init__(self, cfg: TrainConfig) -> None:
        cfg.validate()
        self.cfg = cfg
        if cfg.run.threads > 0:
            torch.set_num_threads(cfg.run.threads)
        self.out_dir = Path(cfg.run.out_dir)
        self.dist = init_distributed()  # one process unless launched by torchrun
        world = self.dist.world_size
        if cfg.agent.tasks_per_epoch % world or cfg.agent.replay_tasks % world:
            raise ValueError(
                f"agent.tasks_per_epoch ({cfg.agent.tasks_per_epoch}) and agent.replay_tasks "
                f"({cfg.agent.replay_tasks}) must be multiples of the number of processes ({world})"
            )
        cuda = torch.cuda.is_available()
        self.device = torch.device("cuda", self.dist.local_rank) if cuda else torch.device("cpu")
        self.rng = np.random.default_rng(cfg.run.seed)
        random.seed(cfg.run.seed)
        self.domain = build_domain(cfg.run)
        self.model, self.tokenizer = build_model(cfg.model, cfg.run.seed)
        self.model.to(self.device)
        if cfg.agent.gradient_checkpointing:
            self.model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        self.reference: torch.nn.Module | None = None
        self._train_model: torch.nn.Module | None = None  # the agent as the update sees it (DDP-wrapped)
        self.optimizer = torch.optim.AdamW(
            self.model.parameters(), lr=cfg.agent.lr, weight_decay=cfg.agent.weight_decay
        )
        c = cfg.curriculum
        self.curriculum = CurriculumConfig(c.alpha, c.beta, c.k_min, cfg.agent.group_size, c.rwr_lambda)
        self.simulator = ProceduralSimulator(
            self.domain,
            self.curriculum,
            cfg.simulator.step_size,
            cfg.simulator.max_kl,
            cfg.simulator.min_prob,
            band_filter=cfg.run.baseline != "soft-alpha-rwr",
        )
        # --- simulator.kind == "llm": the environment LLM (its own model, reference and optimizer) ---
        self.env_llm: EnvironmentLLM | None = None
        if cfg.simulator.kind == "llm":
            from genenv_gym.train.simulator_llm import EnvironmentLLM

            self.env_llm = EnvironmentLLM(cfg, self.domain, self.curriculum, self.device, cfg.run.progress)
        self.skill = SkillTracker(self.domain.num_levels, c.alpha)
        self.scoring_samples = 0  # agent samples spent scoring tasks, not trained on (as-released)
        self.sampler = self._build_sampler()
        # D_train: base data (procedural seed tasks at low levels) and valid traces; D_env: in-band records.
        w = cfg.warmstart
        level_p = np.array([w.level_decay**level for level in range(w.max_level + 1)])
        levels = self.rng.choice(w.max_level + 1, size=w.base_tasks, p=level_p / level_p.sum())
        self.base_tasks = [self.domain.generate(int(level), self.rng) for level in levels]
        self.d_train: list[dict[str, Any]] = []
        self.d_env: list[dict[str, Any]] = []
        self.static_tasks: list[Task] = []
        if cfg.run.baseline == "static":
            self.static_tasks = self.env_policy.propose(
                cfg.simulator.static_tasks, self.skill.estimate(), self.rng
            )
        self._heldout: list[Task] | None = None
        self.last_gold_logprobs: list[float] = []
        self.epoch = 0
        self.agent_samples = 0
        self.stop_requested = False
        self.warmstart_step = 0
        self.warmstart_loss = 0.0
        self.warmstart_recent: list[float] = []  # the last STOP_WINDOW losses (warmstart.stop_loss)
        self.warm_optimizer: torch.optim.Optimizer | None = None
        self.backend = build_agent_backend(self.model, self.tokenizer, cfg.agent)
        self.engine = RolloutEngine(self.backend, RolloutConfig(group_size=cfg.agent.group_size, max_turns=1))
        self.eval_engine = RolloutEngine(self.backend, RolloutConfig(group_size=1, max_turns=1))

    # -------------------------------------------------------------------------------------------------
    @property
    def env_policy(self) -> ProceduralSimulator | EnvironmentLLM:
        """What proposes generated tasks: the environment LLM (``simulator.kind: llm``) or the procedural."""
        return self.simulator if self.env_llm is None else self.env_llm

    def env_fn(self) -> BenchmarkEnv:
        """An env that plays the tasks the rollout engine hands it."""
        return task_env(self.domain)

    def warm_start(self) -> dict[str, float]:
        """Supervised fine-tuning on the base data's reference answers (the paper's base training set).

        Stops early when a stop was requested (SIGINT/SIGTERM); ``warmstart_step`` and the warm-start
        optimizer are part of the checkpoint, so a resumed run continues exactly where it stopped.
        """
        w = self.cfg.warmstart
        if w.steps <= 0:
            return {}
        # Its own generator: a warm start resumed midway re-encodes the same replies.
        replies = np.random.default_rng([self.cfg.run.seed, WARMSTART_REPLY_STREAM])
        examples = [
            encode_chat_example(self.tokenizer, t.messages, self.domain.warmstart_action(t, replies))
            for t in self.base_tasks
        ]
        if self.warm_optimizer is None:
            self.warm_optimizer = torch.optim.AdamW(self.model.parameters(), lr=w.lr)
        self.model.train()
        todo = range(self.warmstart_step, w.steps)
        for _ in progress(todo, total=len(todo), desc="warm start", enabled=self.cfg.run.progress):
            if self.stop_requested or self._reached_stop_loss():
                break
            idx = self.rng.choice(len(examples), size=min(w.batch_size, len(examples)), replace=False)
            batch = make_sft_batch([examples[i] for i in idx], [1.0] * len(idx), self.tokenizer.pad_token_id)
            self.warmstart_loss = sft_step(self.model, self.warm_optimizer, batch)
            self.warmstart_step += 1
            self.warmstart_recent = [*self.warmstart_recent, self.warmstart_loss][-STOP_WINDOW:]
        self.model.eval()
        return {"warmstart_loss": self.warmstart_loss, "warmstart_steps": self.warmstart_step}

    def _reached_stop_loss(self) -> bool:
        """Whether the mean loss of the last ``STOP_WINDOW`` warm-start steps is at most ``stop_loss``."""
        stop, recent = self.cfg.warmstart.stop_loss, self.warmstart_recent
        if stop <= 0 or self.warmstart_step < self.cfg.warmstart.min_steps:
            return False
        return len(recent) == STOP_WINDOW and float(np.mean(recent)) <= stop

    @property
    def warm_started(self) -> bool:
        """Whether the warm start has run all its steps or reached ``warmstart.stop_loss``."""
        return self.warmstart_step >= max(self.cfg.warmstart.steps, 0) or self._reached_stop_loss()

    def _build_sampler(self) -> Any:
        """The task sampler ``run.baseline`` names (genenv_gym/samplers.py); None for the two that draw from a
        fixed pool (``static``, ``base-only``)."""
        baseline, s = self.cfg.run.baseline, self.cfg.sampler
        if baseline in ("alpha-curriculum", "soft-alpha-rwr", "random-simulator"):
            return self.env_policy
        if baseline == "learnability-task":
            return build_standalone(baseline, self.domain, self.curriculum, explore=s.task_explore)
        if baseline in ("learnability", "uniform"):
            return build_standalone(baseline, self.domain, self.curriculum)
        if baseline == "as-released":
            return RankTrimSampler(self.domain, self.score_tasks, s.pool_tasks, s.score_samples, s.trim)
        if baseline == "oracle-frontier":
            return OracleFrontierSampler(
                self.domain, self.level_gold_success, s.frontier_threshold, s.frontier_level
            )
        return None

    def propose_tasks(self, n: int) -> list[Task]:
        """The epoch's task batch, from the source the baseline names."""
        if self.sampler is not None:
            return self.sampler.propose(n, self.skill.estimate(), self.rng)
        pool = self.static_tasks if self.cfg.run.baseline == "static" else self.base_tasks
        return [pool[i] for i in self.rng.choice(len(pool), size=n, replace=len(pool) < n)]

    def score_tasks(self, tasks: list[Task], samples: int) -> list[int]:
        """Successes of ``samples`` attempts at each task by the current agent, at its temperature (not
        trained on; counted in ``scoring_samples``)."""
        a = self.cfg.agent
        params = SamplingParams(temperature=a.temperature, max_new_tokens=a.max_new_tokens)
        seed = int(self.rng.integers(1 << 31)) + self.dist.rank
        config = RolloutConfig(group_size=samples, max_turns=1, params=params, seed=seed)
        try:
            trajectories = self._run_sharded(RolloutEngine(self.backend, config), tasks)
        finally:
            self.backend.close()
        self.scoring_samples += len(trajectories)
        successes = [0] * len(tasks)
        for t in trajectories:
            successes[t.group] += int(t.success)
        return successes

    def level_gold_success(self) -> dict[int, float]:
        """The agent's exact success per level: the mean teacher-forced probability of the reference answers
        of the held-out tasks there (an oracle: the ``oracle-frontier`` schedule's reading)."""
        logprobs = gold_logprobs(self.model, self.tokenizer, self.heldout, self.domain.oracle_action)
        metrics = gold_probability_metrics(logprobs, [t.level for t in self.heldout])
        prefix = "heldout_gold_prob_level_"
        return {int(k[len(prefix) :]): v for k, v in metrics.items() if k.startswith(prefix)}

    def rollout(self, tasks: list[Task]) -> list[Trajectory]:
        a = self.cfg.agent
        params = SamplingParams(temperature=a.temperature, max_new_tokens=a.max_new_tokens)
        seed = int(self.rng.integers(1 << 31)) + self.dist.rank
        self.engine.config = replace(self.engine.config, params=params, seed=seed)
        try:
            return self._run_sharded(self.engine, tasks)
        finally:
            self.backend.close()  # continuous batching: free its KV cache and attention for the update

    def _run_sharded(self, engine: RolloutEngine, tasks: list[Task]) -> list[Trajectory]:
        """Every rank plays its share of ``tasks``; all ranks get all trajectories, ``group`` = task index."""
        rank, world = self.dist.rank, self.dist.world_size
        local = engine.run(self.env_fn, shard(tasks, self.dist))
        if world > 1:
            local = [replace(t, group=rank + t.group * world) for t in local]
        return sorted(gather(local, self.dist), key=lambda t: (t.group, t.sample))

    def _is_mine(self, trajectory: Trajectory) -> bool:
        return trajectory.group % self.dist.world_size == self.dist.rank

    def grpo_update(self, trajectories: list[Trajectory]) -> dict[str, float]:
        """One GRPO pass over the epoch's trajectories (mini-batches of tasks, micro-batch accumulation)."""
        a, info = self.cfg.agent, self.dist
        rows = [t for t in trajectories if self._is_mine(t) and t.token_ids and sum(t.mask) > 0]
        if not all_reduce(len(rows), info):
            return {}
        advantages = group_advantages([t.reward for t in rows], [t.group for t in rows])
        groups = sorted({t.group for t in rows})
        if a.signal_groups_only:  # a group's advantages are all 0 or none is
            groups = sorted({t.group for t, adv in zip(rows, advantages.tolist(), strict=True) if adv != 0.0})
        stats: dict[str, list[float]] = {"pg_loss": [], "kl": [], "clip_fraction": [], "grad_norm": []}
        if self._train_model is None:  # after the warm start: DDP broadcasts rank 0's weights once
            self._train_model = wrap_agent(self.model, info)
        self.model.train()
        # Under torchrun every rank must take the same optimizer steps and backward passes: the mini-batch
        # count is the largest over the ranks, a rank short of rows runs zero-weighted passes, and the
        # permutation has its own generator so that self.rng advances alike everywhere.
        batches = int(all_reduce(-(-len(groups) // a.mini_batch_size), info, op="max"))
        order_rng = self.rng if info.world_size == 1 else np.random.default_rng(self.rng.integers(1 << 31))
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
                    sync = self._train_model.no_sync() if info.world_size > 1 and not last else nullcontext()
                    with sync:
                        if m < len(parts):
                            part = parts[m]
                            out = self._micro_loss([rows[i] for i in part], advantages[part], tokens)
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
        ids = torch.tensor(
            [rows[0].token_ids if rows else [self.tokenizer.pad_token_id] * 2], device=self.device
        )
        lp = token_logprobs(self._train_model, ids, torch.ones_like(ids))
        (lp.sum() * 0.0).backward()

    def _micro_loss(self, rows: list[Trajectory], advantages: torch.Tensor, tokens: float) -> Any:
        dev = self.device
        ids = pad_right([t.token_ids for t in rows], self.tokenizer.pad_token_id, torch.long).to(dev)
        # Right padding under causal attention: no real token attends to a pad, so no mask is needed, and
        # without one the attention runs as the fused causal kernel on a GPU.
        attention = None
        mask = pad_right([t.mask for t in rows], 0, torch.float32).to(dev)
        old = pad_right([t.logprobs for t in rows], 0.0, torch.float32).to(dev)
        ref = None
        if self.reference is not None and self.cfg.agent.kl_coef > 0:
            with torch.no_grad():
                ref = token_logprobs(self.reference, ids, attention, self.cfg.agent.logprob_chunk_tokens)
        autocast = torch.autocast("cuda", dtype=torch.bfloat16, enabled=dev.type == "cuda")
        with autocast:
            lp = token_logprobs(self._train_model, ids, attention, self.cfg.agent.logprob_chunk_tokens)
        return grpo_loss(
            lp,
            old,
            advantages.to(dev),
            mask,
            ref,
            self.cfg.agent.clip_ratio,
            self.cfg.agent.kl_coef,
            denominator=tokens,
        )

    def probe_skill(self) -> dict[str, float]:
        """Greedy attempts on ``run.skill_probe_tasks`` procedural tasks per level, fed to the skill tracker.

        Without it the tracker starts empty and the LLM simulator's frontier starts at level 0, however much
        the warm start taught the agent. Procedural tasks (training-side data), never the held-out set.
        """
        n = self.cfg.run.skill_probe_tasks
        if n <= 0:
            return {}
        tasks = [
            self.domain.generate(level, self.rng) for level in range(self.domain.num_levels) for _ in range(n)
        ]
        params = SamplingParams(temperature=0.0, max_new_tokens=self.cfg.agent.max_new_tokens)
        self.eval_engine.config = replace(self.eval_engine.config, params=params, seed=0)
        trajectories = self._run_sharded(self.eval_engine, tasks)
        for t in trajectories:
            self.skill.update(t.task.level, t.success)
        return {
            "probe_success": float(np.mean([t.success for t in trajectories])),
            "probe_frontier": self.skill.frontier(),
        }

    @property
    def heldout(self) -> list[Task]:
        """The held-out (benchmark) tasks, every ``len // run.eval_tasks``-th one; read on first use."""
        if self._heldout is None:
            tasks = self.domain.load_tasks()
            if self.cfg.run.eval_tasks:
                tasks = tasks[:: max(1, len(tasks) // self.cfg.run.eval_tasks)]
            self._heldout = tasks
        return self._heldout

    def evaluate(self) -> dict[str, float]:
        """Greedy accuracy on the held-out (benchmark) tasks, overall and per level; with
        ``run.eval_gold_prob`` / ``run.eval_samples`` also the exact and the sampled metrics
        (``exact_metrics``)."""
        params = SamplingParams(temperature=0.0, max_new_tokens=self.cfg.agent.max_new_tokens)
        self.eval_engine.config = replace(self.eval_engine.config, params=params, seed=0)
        trajectories = self._run_sharded(self.eval_engine, self.heldout)
        result = {"heldout_acc": float(np.mean([t.success for t in trajectories]))}
        for level in range(self.domain.num_levels):
            hits = [t.success for t in trajectories if t.task.level == level]
            if hits:
                result[f"heldout_level_{level}"] = float(np.mean(hits))
        return {**result, **self.exact_metrics()}

    def exact_metrics(self) -> dict[str, float]:
        """``heldout_gold_prob`` (per level too): the teacher-forced probability of each held-out task's
        reference answer, averaged (``run.eval_gold_prob``); ``heldout_sampled_acc`` (per level too): success
        of ``run.eval_samples`` replies per task sampled at the agent's temperature (own seed: reads no
        training RNG)."""
        run, result = self.cfg.run, {}
        if run.eval_gold_prob:
            logprobs = gold_logprobs(self.model, self.tokenizer, self.heldout, self.domain.oracle_action)
            self.last_gold_logprobs = logprobs  # per held-out task, in held-out order
            result.update(gold_probability_metrics(logprobs, [t.level for t in self.heldout]))
        if run.eval_samples:
            a = self.cfg.agent
            params = SamplingParams(temperature=a.temperature, max_new_tokens=a.max_new_tokens)
            config = RolloutConfig(group_size=run.eval_samples, max_turns=1, params=params, seed=self.epoch)
            trajectories = self._run_sharded(RolloutEngine(self.backend, config), self.heldout)
            result["heldout_sampled_acc"] = float(np.mean([t.success for t in trajectories]))
            for level in sorted({t.level for t in self.heldout}):
                hits = [t.success for t in trajectories if t.task.level == level]
                result[f"heldout_sampled_level_{level}"] = float(np.mean(hits))
        return result

    # -------------------------------------------------------------------------------------------------
    def train_epoch(self) -> dict[str, Any]:
        """One epoch of Algorithm 1; returns its metrics row."""
        cfg, start = self.cfg, time.perf_counter()
        self.epoch += 1
        proposed_before = self.simulator.stats.proposed
        rejected_before = sum(self.simulator.stats.rejected.values())
        # Phase 1: online generation and interaction.
        tasks = self.propose_tasks(cfg.agent.tasks_per_epoch)
        n_generated = len(tasks)
        if cfg.agent.replay_tasks:  # D_train = base data + valid traces of earlier epochs
            nb = len(self.base_tasks)
            picks = self.rng.choice(nb + len(self.d_train), size=cfg.agent.replay_tasks)
            tasks = tasks + [self.base_tasks[i] if i < nb else self.d_train[i - nb]["task"] for i in picks]
        clock = time.perf_counter()
        trajectories = self.rollout(tasks)
        rollout_seconds = time.perf_counter() - clock
        self.agent_samples += len(trajectories)
        failed = [t for t in trajectories if t.error is not None]
        if failed:
            warnings.warn(
                f"{len(failed)} of {len(trajectories)} rollouts failed (scored 0); first: {failed[0].error}",
                stacklevel=2,
            )
        outcomes = []
        for g, task in enumerate(tasks[:n_generated]):
            group = [t for t in trajectories if t.group == g]
            successes = sum(t.success for t in group)
            for t in group:
                self.skill.update(task.level, t.success)
            outcomes.append(Outcome(task, successes, len(group), self.skill.estimate()))
        batch_p = level_batch_success(outcomes)  # the paper's p: per batch of variations at one level
        # Phase 2: dual update.
        clock = time.perf_counter()
        agent_stats = self.grpo_update(trajectories)
        update_seconds = time.perf_counter() - clock
        sim_stats: dict[str, float] = {}
        if SAMPLERS[cfg.run.baseline].learns:
            sim_stats = self.sampler.update(outcomes)
        # Phase 3: aggregation.
        for t in trajectories:
            if t.finish == "terminated" and t.error is None:
                self.d_train.append({"task": t.task, "action": t.actions[-1], "reward": t.reward})
        for o in outcomes:
            p = batch_p[o.task.level]
            if self.curriculum.in_band(p):
                self.d_env.append({"task": o.task, "p": p, "weight": self.curriculum.rwr_weight(p)})
        proposed = self.simulator.stats.proposed - proposed_before
        rejected = sum(self.simulator.stats.rejected.values()) - rejected_before
        row: dict[str, Any] = {
            "epoch": self.epoch,
            "agent_samples": self.agent_samples,
            "gen_success": sum(o.successes for o in outcomes) / sum(o.attempts for o in outcomes),
            "in_band_share": float(
                np.mean([self.curriculum.in_band(batch_p[o.task.level]) for o in outcomes])
            ),
            "r_env": float(np.mean([self.curriculum.reward(batch_p[o.task.level]) for o in outcomes])),
            "task_level": float(np.mean([t.level for t in tasks[:n_generated]])),
            "task_tokens": float(
                np.mean([len(self.tokenizer.encode(t.messages[0]["content"])) for t in tasks])
            ),
            "response_tokens": float(np.mean([t.num_model_tokens for t in trajectories])),
            "validity": 1.0 - rejected / proposed if proposed else 1.0,
            "train_reward": float(np.mean([t.reward for t in trajectories])),
            "sim_mean_level": self.simulator.mean_level(),
            "rollout_seconds": rollout_seconds,
            "rollout_tokens": sum(t.num_model_tokens for t in trajectories),
            "rollout_errors": len(failed),
            "update_seconds": update_seconds,
            "update_tokens": sum(len(t.token_ids) for t in trajectories if t.token_ids and sum(t.mask) > 0)
            * self.cfg.agent.ppo_epochs,
            "d_train": len(self.d_train) + len(self.base_tasks),
            "d_env": len(self.d_env),
            "level_p": [batch_p.get(level) for level in range(self.domain.num_levels)],
            "sim_updated": self._sampler_updated(sim_stats),
            "scoring_samples": self.scoring_samples,
            **self.mechanism_metrics(tasks, trajectories),
            **agent_stats,
            **{f"sim_{k}": v for k, v in sim_stats.items()},
        }
        if self.env_llm is not None:  # --- llm: its figures replace those of the idle procedural one ---
            row["sim_mean_level"] = None
            if cfg.run.baseline in ("alpha-curriculum", "random-simulator"):
                row["validity"] = self.env_llm.last_proposal["acceptance_rate"]
                row.update({f"sim_{k}": v for k, v in self.env_llm.last_proposal.items()})
        if (cfg.run.eval_every and self.epoch % cfg.run.eval_every == 0) or self.epoch in cfg.run.eval_epochs:
            row.update(self.evaluate())
        row["seconds"] = time.perf_counter() - start
        return row

    def _sampler_updated(self, sim_stats: dict[str, float]) -> float | None:
        """1.0 when this epoch's update moved the environment policy (an RWR step with at least one kept
        generation), 0.0 when it kept nothing, None for samplers without such an update."""
        if self.cfg.run.baseline not in ("alpha-curriculum", "soft-alpha-rwr"):
            return None
        return float(sim_stats.get("kept", 0.0) > 0)

    def mechanism_metrics(self, tasks: list[Task], trajectories: list[Trajectory]) -> dict[str, Any]:
        """What the epoch's GRPO update could learn from, and from which tasks (reads no RNG).

        ``signal_share``: share of the update's groups (tasks) with a non-zero advantage, over the same rows
        ``grpo_update`` uses; ``too_easy_share`` / ``too_hard_share``: share of those groups whose samples all
        succeeded / all failed (no signal either way); ``reward_var``: their mean within-group reward variance
        (``p (1 - p)`` for 0/1 rewards); ``train_success``: success over all the epoch's samples (generated
        and replayed tasks);
        ``train_level_counts``: trained tasks per difficulty level (index = level);
        ``train_level_success``: success per level over those samples (None where no task was trained).
        """
        rows = [t for t in trajectories if t.token_ids and sum(t.mask) > 0]
        signal = group_signal([t.reward for t in rows], [t.group for t in rows])
        levels = self.domain.num_levels
        counts = [0] * levels
        for task in tasks:
            if 0 <= task.level < levels:
                counts[task.level] += 1
        hits, tries = [0] * levels, [0] * levels
        for t in trajectories:
            if 0 <= t.task.level < levels:
                hits[t.task.level] += int(t.success)
                tries[t.task.level] += 1
        by_group: dict[int, list[bool]] = {}
        for t in rows:
            by_group.setdefault(t.group, []).append(bool(t.success))
        groups = max(1, len(by_group))
        return {
            "signal_share": signal.share,
            "signal_groups": signal.signal_groups,
            "too_easy_share": sum(len(g) >= 2 and all(g) for g in by_group.values()) / groups,
            "too_hard_share": sum(len(g) >= 2 and not any(g) for g in by_group.values()) / groups,
            "reward_var": signal.reward_var,
            "train_success": float(np.mean([t.success for t in trajectories])) if trajectories else 0.0,
            "train_level_counts": counts,
            "train_level_success": [h / n if n else None for h, n in zip(hits, tries, strict=True)],
        }

    # -------------------------------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        return {
            "epoch": self.epoch,
            "agent_samples": self.agent_samples,
            "warmstart_step": self.warmstart_step,
            "warmstart_loss": self.warmstart_loss,
            "warmstart_recent": self.warmstart_recent,
            "warm_optimizer": None if self.warm_optimizer is None else self.warm_optimizer.state_dict(),
            "model": self.model.state_dict(),
            "reference": None if self.reference is None else self.reference.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "simulator": self.simulator.state_dict(),
            "simulator_stats": copy.deepcopy(self.simulator.stats),
            "env_llm": None if self.env_llm is None else self.env_llm.state_dict(),
            "sampler": self._own_sampler_state(),
            "scoring_samples": self.scoring_samples,
            "skill": self.skill.state_dict(),
            "base_tasks": self.base_tasks,
            "static_tasks": self.static_tasks,
            "d_train": self.d_train,
            "d_env": self.d_env,
            "rng": self.rng.bit_generator.state,
            "torch_rng": torch.get_rng_state(),
            "python_rng": random.getstate(),
            "config": self.cfg.to_dict(),
        }

    def _own_sampler_state(self) -> dict[str, Any] | None:
        """The state of a sampler other than the environment policy (saved under its own key), if any."""
        if self.sampler is None or self.sampler is self.env_policy or not hasattr(self.sampler, "state_dict"):
            return None
        return self.sampler.state_dict()

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.epoch, self.agent_samples = state["epoch"], state["agent_samples"]
        self.model.load_state_dict(state["model"])
        self.warmstart_step = state.get("warmstart_step", self.cfg.warmstart.steps)
        self.warmstart_loss = state.get("warmstart_loss", 0.0)
        self.warmstart_recent = list(state.get("warmstart_recent", []))
        if state.get("warm_optimizer") is not None:
            self.warm_optimizer = torch.optim.AdamW(self.model.parameters(), lr=self.cfg.warmstart.lr)
            self.warm_optimizer.load_state_dict(state["warm_optimizer"])
        if state["reference"] is not None:
            self.reference = copy.deepcopy(self.model).eval()
            self.reference.load_state_dict(state["reference"])
            self.reference.requires_grad_(False)
        self.optimizer.load_state_dict(state["optimizer"])
        self.simulator.load_state_dict(state["simulator"])
        self.simulator.stats = state["simulator_stats"]
        if self.env_llm is not None:
            if state.get("env_llm") is None:
                raise ValueError(
                    "the checkpoint has no environment LLM (it was written with simulator.kind=procedural)"
                )
            self.env_llm.load_state_dict(state["env_llm"])
        if state.get("sampler") is not None:
            self.sampler.load_state_dict(state["sampler"])
        self.scoring_samples = state.get("scoring_samples", 0)
        self.skill.load_state_dict(state["skill"])
        self.base_tasks, self.static_tasks = state["base_tasks"], state["static_tasks"]
        self.d_train, self.d_env = state["d_train"], state["d_env"]
        self.rng.bit_generator.state = state["rng"]
        torch.set_rng_state(state["torch_rng"])
        random.setstate(state["python_rng"])

    def save(self) -> Path:
        """Write the checkpoint (rank 0 only under torchrun: every rank holds the same state)."""
        path = self.out_dir / "checkpoint.pt"
        return save_checkpoint(self.state_dict(), self.out_dir) if self.dist.is_main else path

    # -------------------------------------------------------------------------------------------------
    def run(self, resume: bool = False) -> list[dict[str, Any]]:
        """Warm start (unless resuming past it), then ``run.epochs`` epochs; returns the metrics rows logged.

        SIGINT/SIGTERM (first one) finish the current warm-start step or epoch, write a checkpoint and
        stop; ``--resume`` continues from there as if never interrupted. A fresh run first removes the
        checkpoint and metrics of whatever ran in ``run.out_dir`` before, so they can never be resumed.
        """
        cfg, main = self.cfg, self.dist.is_main
        if main:
            for stale in remove_stale_temp_files(self.out_dir):
                print(f"genenv train: removed {stale} (left by a write a kill cut short)", file=sys.stderr)
        if not resume and main:
            clear_run_files(self.out_dir)
            record = {"config": cfg.to_dict(), **run_provenance(self.model, self.tokenizer, self.device)}
            write_atomically(self.out_dir / RUN_RECORD, json.dumps(record, indent=2).encode())
        # Under torchrun every rank trains; rank 0 alone logs, plots and writes checkpoints.
        logger = MetricsLogger(self.out_dir, tensorboard=cfg.run.tensorboard, enabled=main)
        rows: list[dict[str, Any]] = []
        previous = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
        for s in previous:
            signal.signal(s, self._request_stop)
        try:
            if resume:
                self.load_state_dict(load_checkpoint(self.out_dir))
                logger.truncate_after(self.epoch)
            if not resume or not self.warm_started:
                row = self._start()
                if row is None:  # stopped during the warm start
                    self.save()
                else:
                    logger.log(row)
                    rows.append(row)
                    self.save()
            while self.epoch < cfg.run.epochs and not self.stop_requested:
                row = self.train_epoch()
                logger.log(row)
                rows.append(row)
                self.stop_requested = bool(all_reduce(self.stop_requested, self.dist, op="max"))
                if (
                    self.stop_requested
                    or self.epoch % cfg.run.checkpoint_every == 0
                    or self.epoch == cfg.run.epochs
                ):
                    self.save()
        finally:
            for s, handler in previous.items():
                signal.signal(s, handler)
            logger.close()
        if self.stop_requested and main:
            where = f"epoch {self.epoch}" if self.warm_started else f"warm-start step {self.warmstart_step}"
            print(f"genenv train: stopped after {where}; continue with --resume (run.out_dir={self.out_dir})")
        if cfg.run.plots and main and rows:
            from genenv_gym.train.plots import plot_run

            plot_run(self.out_dir, cfg.curriculum.alpha, cfg.curriculum.k_min)
        return rows

    def _start(self) -> dict[str, Any] | None:
        """The warm start, the frozen reference, the skill probe and the first evaluation (epoch 0's row);
        None when a stop request interrupted the warm start."""
        row = {"epoch": 0, "agent_samples": 0, **self.warm_start()}
        if not self.warm_started:
            return None
        if self.env_llm is not None:
            row.update({f"sim_{k}": v for k, v in self.env_llm.warmstart_stats.items()})
        self.reference = copy.deepcopy(self.model).eval()
        self.reference.requires_grad_(False)
        row.update(self.probe_skill())
        if self.cfg.run.eval_every:
            row.update(self.evaluate())
        return row

    def run_files(self) -> list[Path]:
        """The files this run has written so far (for the closing line)."""
        return run_files(self.out_dir)

    def _request_stop(self, signum: int, frame: Any) -> None:
        if self.stop_requested:  # a second signal: stop now (the last checkpoint is intact)
            raise KeyboardInterrupt
        self.stop_requested = True
        print(f"genenv train: signal {signum}: finishing the epoch, then writing a checkpoint")


def level_batch_success(outcomes: list[Outcome]) -> dict[int, float]:
    """``p`` per level: total successes / total attempts of the outcomes at that level (one batch each).

    This is how ``ProceduralSimulator.update`` groups outcomes; the metrics use the same batches, so
    ``in_band_share`` is the share of generated tasks the simulator's band filter keeps.
    """
    return {level: s / a for level, (s, a, _) in level_batches(outcomes).items() if a}


def train(cfg: TrainConfig, resume: bool = False) -> list[dict[str, Any]]:
    """Run Algorithm 1 with ``cfg``; see ``Trainer``."""
    return Trainer(cfg).run(resume=resume)
