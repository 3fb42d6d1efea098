"""The co-evolution loop (Algorithm 1 of GenEnv), reading top to bottom.

Per epoch: the simulator proposes a task batch -> the agent attempts each task G times (RolloutEngine)
-> R_agent per attempt; p and R_env per batch of task variations (the epoch's generated tasks at one
level) -> GRPO update of the agent -> one RWR update of the simulator on all the epoch's outcomes
(``ProceduralSimulator.update``: band filter per batch, weights exp(lambda R_env), KL cap) -> pools:
D_train (base data + valid traces, kept across epochs; ``agent.replay_tasks`` of its tasks join every
epoch's on-policy batch) and D_env (the in-band generations with their weights).

Where the epoch's tasks come from is the task sampler ``run.sampler`` names: the trained environment policy
(``alpha-curriculum``, the method) or a baseline spending the same agent-sample budget per epoch; each is
built by its entry in the sampler table (``genenv_gym/samplers/registry.py``), which also says whether the
loop calls its ``update``.

With ``simulator.kind: llm`` an environment LLM (``simulator_llm.EnvironmentLLM``) writes the generated tasks
and is updated by RWR-SFT on the same per-level batch p instead; the procedural simulator then stays idle.

What the loop runs on (the domain, the models, the rollout backend, the envs) is built by ``build.py``; the
GRPO pass is ``grpo_update.py``, the epoch's metrics are ``epoch_metrics.py`` and ``heldout.py``, the scoring
of tasks ``scoring.py``, and what a checkpoint holds ``trainer_state.py``.
"""

from __future__ import annotations

import copy
import json
import random
import signal
import sys
import time
import warnings
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
from genenv_gym.samplers import SamplerEntry, TrainerContext, build_sampler, sampler_entry
from genenv_gym.simulator import Outcome, ProceduralSimulator, Simulator
from genenv_gym.skill import SkillTracker
from genenv_gym.task import Task
from genenv_gym.train.build import build_agent_backend, build_domain, build_model, task_env
from genenv_gym.train.checkpoint import load_checkpoint, save_checkpoint
from genenv_gym.train.config import STOP_WINDOW, TrainConfig
from genenv_gym.train.distributed import all_reduce, gather, init_distributed, shard
from genenv_gym.train.epoch_metrics import (
    generation_metrics,
    level_batch_success,
    mechanism_metrics,
    trained_rows,
)
from genenv_gym.train.gold_probability import gold_logprobs
from genenv_gym.train.grpo_update import GRPOUpdater
from genenv_gym.train.heldout import (
    gold_metrics,
    gold_success_per_level,
    greedy_metrics,
    heldout_subset,
    sampled_metrics,
)
from genenv_gym.train.master_weights import MasterWeightAdamW
from genenv_gym.train.metrics import MetricsLogger
from genenv_gym.train.provenance import run_provenance
from genenv_gym.train.rollout import RolloutConfig, RolloutEngine, Trajectory
from genenv_gym.train.run_dir import RUN_RECORD, clear_run_files, remove_stale_temp_files, run_files
from genenv_gym.train.rwr_sft import encode_chat_example, make_sft_batch, sft_step
from genenv_gym.train.scoring import score_tasks
from genenv_gym.train.trainer_state import restore_trainer_state, trainer_state

if TYPE_CHECKING:
    from genenv_gym.train.simulator_llm import EnvironmentLLM


#: The random stream of the warm start's replies (``Domain.warmstart_action``), apart from ``Trainer.rng``.
WARMSTART_REPLY_STREAM = 1

__all__ = ["Trainer", "level_batch_success", "train"]


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
        self.optimizer = MasterWeightAdamW(
            self.model.parameters(), lr=cfg.agent.lr, weight_decay=cfg.agent.weight_decay
        )
        self.updater = GRPOUpdater(
            self.model, self.optimizer, self.tokenizer.pad_token_id, self.device, cfg.agent, self.dist
        )
        c = cfg.curriculum
        self.curriculum = CurriculumConfig(c.alpha, c.beta, c.k_min, cfg.agent.group_size, c.rwr_lambda)
        self.simulator = ProceduralSimulator(
            self.domain,
            self.curriculum,
            cfg.simulator.step_size,
            cfg.simulator.max_kl,
            cfg.simulator.min_prob,
            band_filter=self.sampler_entry.band_filter,
        )
        # --- simulator.kind == "llm": the environment LLM (its own model, reference and optimizer) ---
        self.env_llm: EnvironmentLLM | None = None
        if cfg.simulator.kind == "llm":
            from genenv_gym.train.simulator_llm import EnvironmentLLM

            self.env_llm = EnvironmentLLM(cfg, self.domain, self.curriculum, self.device, cfg.run.progress)
        self.skill = SkillTracker(self.domain.num_levels, c.alpha)
        self.scoring_samples = 0  # agent samples spent scoring tasks, not trained on (as-released)
        # D_train: base data (procedural seed tasks at low levels) and valid traces; D_env: in-band records.
        w = cfg.warmstart
        level_p = np.array([w.level_decay**level for level in range(w.max_level + 1)])
        levels = self.rng.choice(w.max_level + 1, size=w.base_tasks, p=level_p / level_p.sum())
        self.base_tasks = [self.domain.generate(int(level), self.rng) for level in levels]
        self.d_train: list[dict[str, Any]] = []
        self.d_env: list[dict[str, Any]] = []
        self.static_tasks: list[Task] = []  # the static sampler's set (``static_set``)
        self.sampler = self._build_sampler()
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

    @property
    def env_policy(self) -> ProceduralSimulator | EnvironmentLLM:
        """What proposes generated tasks: the environment LLM (``simulator.kind: llm``) or the procedural."""
        return self.simulator if self.env_llm is None else self.env_llm

    def env_fn(self) -> BenchmarkEnv:
        """An env that plays the tasks the rollout engine hands it."""
        return task_env(self.domain)

    # --- Algorithm 1 ----------------------------------------------------------------------------------------
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

    def train_epoch(self) -> dict[str, Any]:
        """One epoch of Algorithm 1; returns its metrics row."""
        cfg, start, seconds = self.cfg, time.perf_counter(), {}
        self.epoch += 1
        cuda = self.device.type == "cuda"
        if cuda:
            torch.cuda.reset_peak_memory_stats(self.device)
        counts_before = self._proposal_counts()
        # Phase 1: online generation and interaction.
        generated = self.propose_tasks(cfg.agent.tasks_per_epoch)  # the task batch T_t ~ pi_env
        tasks = generated + self.replay_tasks(cfg.agent.replay_tasks)  # with replayed tasks of D_train
        clock = time.perf_counter()
        trajectories = self.rollout(tasks)  # the traces E_t, each with its R_agent (Eq. 1)
        seconds["rollout_seconds"] = time.perf_counter() - clock
        self.agent_samples += len(trajectories)
        _warn_failed(trajectories)
        outcomes = self.record_outcomes(generated, trajectories)  # each generated task's successes of G
        batch_p = level_batch_success(outcomes)  # p per batch of variations at one level (Eq. 2)
        # Phase 2: dual update.
        clock = time.perf_counter()
        agent_stats = self.grpo_update(trajectories)  # pi_agent by GRPO
        seconds["update_seconds"] = time.perf_counter() - clock
        sim_stats = (
            self.sampler.update(outcomes) if self.sampler_entry.learns else {}
        )  # pi_env by RWR (Eq. 3)
        # Phase 3: aggregation.
        self.aggregate(trajectories, outcomes, batch_p)  # D_train and D_env
        row = self._epoch_row(tasks, trajectories, outcomes, batch_p, counts_before, seconds)
        row["sim_updated"] = self._env_policy_updated(sim_stats)
        row.update({**agent_stats, **{f"sim_{k}": v for k, v in sim_stats.items()}})
        if self.env_llm is not None:  # --- llm: its figures replace those of the idle procedural one ---
            row["sim_mean_level"] = None
            if self.sampler is self.env_llm:
                row["validity"] = self.env_llm.last_proposal["acceptance_rate"]
                row.update({f"sim_{k}": v for k, v in self.env_llm.last_proposal.items()})
        if (cfg.run.eval_every and self.epoch % cfg.run.eval_every == 0) or self.epoch in cfg.run.eval_epochs:
            row.update(self.evaluate())
        row["seconds"] = time.perf_counter() - start
        row["peak_gpu_gib"] = torch.cuda.max_memory_allocated(self.device) / 2**30 if cuda else None
        return row

    def replay_tasks(self, n: int) -> list[Task]:
        """``n`` tasks of D_train (the base data and the valid traces of earlier epochs), drawn alike."""
        if not n:
            return []
        nb = len(self.base_tasks)
        picks = self.rng.choice(nb + len(self.d_train), size=n)
        return [self.base_tasks[i] if i < nb else self.d_train[i - nb]["task"] for i in picks]

    def record_outcomes(self, generated: list[Task], trajectories: list[Trajectory]) -> list[Outcome]:
        """Each generated task's successes out of its ``G`` attempts (its group), fed to the skill tracker."""
        outcomes = []
        for g, task in enumerate(generated):
            group = [t for t in trajectories if t.group == g]
            for t in group:
                self.skill.update(task.level, t.success)
            outcomes.append(Outcome(task, sum(t.success for t in group), len(group), self.skill.estimate()))
        return outcomes

    def aggregate(
        self, trajectories: list[Trajectory], outcomes: list[Outcome], batch_p: dict[int, float]
    ) -> None:
        """D_train <- D_train + the valid traces; D_env <- D_env + the in-band generations, weighted."""
        for t in trajectories:
            if t.finish == "terminated" and t.error is None:
                self.d_train.append({"task": t.task, "action": t.actions[-1], "reward": t.reward})
        for o in outcomes:
            p = batch_p[o.task.level]
            if self.curriculum.in_band(p):
                self.d_env.append({"task": o.task, "p": p, "weight": self.curriculum.rwr_weight(p)})

    def _proposal_counts(self) -> tuple[int, int]:
        """The procedural policy's proposals and rejections so far (the epoch's ``validity``)."""
        return self.simulator.stats.proposed, sum(self.simulator.stats.rejected.values())

    def _env_policy_updated(self, sim_stats: dict[str, float]) -> float | None:
        """1.0 when this epoch's update moved the environment policy (an RWR step with at least one kept
        generation), 0.0 when it kept nothing, None when the sampler is not a learning environment policy."""
        if not (self.sampler_entry.learns and self.sampler is self.env_policy):
            return None
        return float(sim_stats.get("kept", 0.0) > 0)

    def _epoch_row(
        self,
        tasks: list[Task],
        trajectories: list[Trajectory],
        outcomes: list[Outcome],
        batch_p: dict[int, float],
        counts_before: tuple[int, int],
        seconds: dict[str, float],
    ) -> dict[str, Any]:
        """The epoch's metrics row, up to the updates' statistics and the evaluation."""
        proposed, rejected = np.subtract(self._proposal_counts(), counts_before).tolist()  # this epoch's
        tokens = [len(self.tokenizer.encode(t.messages[0]["content"])) for t in tasks]
        return {
            "epoch": self.epoch,
            "agent_samples": self.agent_samples,
            **generation_metrics(outcomes, batch_p, self.curriculum),
            "task_tokens": float(np.mean(tokens)),
            "response_tokens": float(np.mean([t.num_model_tokens for t in trajectories])),
            "validity": 1.0 - rejected / proposed if proposed else 1.0,
            "train_reward": float(np.mean([t.reward for t in trajectories])),
            "sim_mean_level": self.simulator.mean_level(),
            "rollout_seconds": seconds["rollout_seconds"],
            "rollout_tokens": sum(t.num_model_tokens for t in trajectories),
            "rollout_errors": sum(t.error is not None for t in trajectories),
            "update_seconds": seconds["update_seconds"],
            "update_tokens": sum(len(t.token_ids) for t in trained_rows(trajectories))
            * self.cfg.agent.ppo_epochs,
            "d_train": len(self.d_train) + len(self.base_tasks),
            "d_env": len(self.d_env),
            "level_p": [batch_p.get(level) for level in range(self.domain.num_levels)],
            "sim_updated": None,  # set once the environment policy's update is known
            "scoring_samples": self.scoring_samples,
            **self.mechanism_metrics(tasks, trajectories),
        }

    # --- the task sampler (``run.sampler``) -----------------------------------------------------------------
    @property
    def sampler_entry(self) -> SamplerEntry:
        """The sampler table's entry for ``run.sampler``."""
        return sampler_entry(self.cfg.run.sampler)

    def _build_sampler(self) -> Simulator:
        """The task sampler ``run.sampler`` names, built by its entry with its settings from the config."""
        context = TrainerContext(
            self.env_policy,
            self.score_tasks,
            self.level_gold_success,
            lambda: self.base_tasks,
            self.static_set,
        )
        entry = self.sampler_entry
        return build_sampler(entry.name, self.domain, self.curriculum, entry.read_settings(self.cfg), context)

    def static_set(self, n: int) -> list[Task]:
        """The fixed set of the ``static`` sampler: ``n`` tasks written by the untrained environment policy
        on the first call (or loaded from the checkpoint), the same set after."""
        if not self.static_tasks:
            self.static_tasks = self.env_policy.propose(n, self.skill.estimate(), self.rng)
        return self.static_tasks

    def propose_tasks(self, n: int) -> list[Task]:
        """The epoch's task batch, from the task sampler."""
        return self.sampler.propose(n, self.skill.estimate(), self.rng)

    def score_tasks(self, tasks: list[Task], samples: int) -> list[int]:
        """Successes of ``samples`` attempts at each task by the current agent, at its temperature (not
        trained on; counted in ``scoring_samples``)."""
        seed = int(self.rng.integers(1 << 31)) + self.dist.rank
        play = lambda config, tasks: self._play(RolloutEngine(self.backend, config), tasks)  # noqa: E731
        successes, spent = score_tasks(play, self._sampling(self.cfg.agent.temperature), seed, tasks, samples)
        self.scoring_samples += spent
        return successes

    def level_gold_success(self) -> dict[int, float]:
        """The agent's exact success per level: the mean teacher-forced probability of the reference answers
        of the held-out tasks there (an oracle: the ``oracle-frontier`` schedule's reading)."""
        logprobs = gold_logprobs(self.model, self.tokenizer, self.heldout, self.domain.oracle_action)
        return gold_success_per_level(gold_metrics(logprobs, self.heldout))

    # --- the agent: warm start, rollouts, GRPO --------------------------------------------------------------
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
            self.warm_optimizer = self.make_warm_optimizer()
        self.model.train()
        todo = range(self.warmstart_step, w.steps)
        for _ in progress(todo, total=len(todo), desc="warm start", enabled=self.cfg.run.progress):
            if self.stop_requested or self._reached_stop_loss():
                break
            idx = self.rng.choice(len(examples), size=min(w.batch_size, len(examples)), replace=False)
            batch = make_sft_batch([examples[i] for i in idx], [1.0] * len(idx), self.tokenizer.pad_token_id)
            for group in self.warm_optimizer.param_groups:
                group["lr"] = w.lr_at(self.warmstart_step)
            self.warmstart_loss = sft_step(self.model, self.warm_optimizer, batch)
            self.warmstart_step += 1
            self.warmstart_recent = [*self.warmstart_recent, self.warmstart_loss][-STOP_WINDOW:]
        self.model.eval()
        return {"warmstart_loss": self.warmstart_loss, "warmstart_steps": self.warmstart_step}

    def make_warm_optimizer(self) -> MasterWeightAdamW:
        """The warm start's optimizer (its own: the GRPO optimizer's moments start after the warm start)."""
        return MasterWeightAdamW(self.model.parameters(), lr=self.cfg.warmstart.lr)

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

    def _sampling(self, temperature: float) -> SamplingParams:
        return SamplingParams(temperature=temperature, max_new_tokens=self.cfg.agent.max_new_tokens)

    def rollout(self, tasks: list[Task]) -> list[Trajectory]:
        """The agent's ``G`` attempts at each task, at its temperature (``group`` = task index)."""
        seed = int(self.rng.integers(1 << 31)) + self.dist.rank
        self.engine.config = replace(
            self.engine.config, params=self._sampling(self.cfg.agent.temperature), seed=seed
        )
        return self._play(self.engine, tasks)

    def _play(self, engine: RolloutEngine, tasks: list[Task]) -> list[Trajectory]:
        """``_run_sharded``, then the backend frees its KV cache and attention (continuous batching) for the
        update."""
        try:
            return self._run_sharded(engine, tasks)
        finally:
            self.backend.close()

    def _run_sharded(self, engine: RolloutEngine, tasks: list[Task]) -> list[Trajectory]:
        """Every rank plays its share of ``tasks``; all ranks get all trajectories, ``group`` = task index."""
        rank, world = self.dist.rank, self.dist.world_size
        local = engine.run(self.env_fn, shard(tasks, self.dist))
        if world > 1:
            local = [replace(t, group=rank + t.group * world) for t in local]
        return sorted(gather(local, self.dist), key=lambda t: (t.group, t.sample))

    def grpo_update(self, trajectories: list[Trajectory]) -> dict[str, float]:
        """One GRPO pass over the epoch's trajectories (this rank's share of those with model tokens)."""
        rows = [t for t in trained_rows(trajectories) if t.group % self.dist.world_size == self.dist.rank]
        return self.updater.update(rows, self.reference, self.rng)

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
        self.eval_engine.config = replace(self.eval_engine.config, params=self._sampling(0.0), seed=0)
        trajectories = self._run_sharded(self.eval_engine, tasks)
        for t in trajectories:
            self.skill.update(t.task.level, t.success)
        return {
            "probe_success": float(np.mean([t.success for t in trajectories])),
            "probe_frontier": self.skill.frontier(),
        }

    # --- measurements ---------------------------------------------------------------------------------------
    @property
    def heldout(self) -> list[Task]:
        """The held-out (benchmark) tasks, every ``len // run.eval_tasks``-th one; read on first use."""
        if self._heldout is None:
            self._heldout = heldout_subset(self.domain.load_tasks(), self.cfg.run.eval_tasks)
        return self._heldout

    def evaluate(self) -> dict[str, float]:
        """Greedy accuracy on the held-out (benchmark) tasks, overall and per level; with
        ``run.eval_gold_prob`` / ``run.eval_samples`` also the exact and the sampled metrics
        (``exact_metrics``)."""
        self.eval_engine.config = replace(self.eval_engine.config, params=self._sampling(0.0), seed=0)
        trajectories = self._run_sharded(self.eval_engine, self.heldout)
        return {**greedy_metrics(trajectories, self.domain.num_levels), **self.exact_metrics()}

    def exact_metrics(self) -> dict[str, float]:
        """``heldout_gold_prob`` (per level too): the teacher-forced probability of each held-out task's
        reference answer, averaged (``run.eval_gold_prob``); ``heldout_sampled_acc`` (per level too): success
        of ``run.eval_samples`` replies per task sampled at the agent's temperature (own seed: reads no
        training RNG)."""
        run, result = self.cfg.run, {}
        if run.eval_gold_prob:
            logprobs = gold_logprobs(self.model, self.tokenizer, self.heldout, self.domain.oracle_action)
            self.last_gold_logprobs = logprobs  # per held-out task, in held-out order
            result.update(gold_metrics(logprobs, self.heldout))
        if run.eval_samples:
            params = self._sampling(self.cfg.agent.temperature)
            config = RolloutConfig(group_size=run.eval_samples, max_turns=1, params=params, seed=self.epoch)
            trajectories = self._run_sharded(RolloutEngine(self.backend, config), self.heldout)
            result.update(sampled_metrics(trajectories, self.heldout))
        return result

    def mechanism_metrics(self, tasks: list[Task], trajectories: list[Trajectory]) -> dict[str, Any]:
        """What the epoch's GRPO update could learn from, and from which tasks (``epoch_metrics``)."""
        return mechanism_metrics(tasks, trajectories, self.domain.num_levels)

    # --- checkpoints and stop requests ----------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """Everything a resumed run needs (``trainer_state.py``)."""
        return trainer_state(self)

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Continue from ``state`` (a ``state_dict``)."""
        restore_trainer_state(self, state)

    def save(self) -> Path:
        """Write the checkpoint (rank 0 only under torchrun: every rank holds the same state)."""
        path = self.out_dir / "checkpoint.pt"
        return save_checkpoint(self.state_dict(), self.out_dir) if self.dist.is_main else path

    def run_files(self) -> list[Path]:
        """The files this run has written so far (for the closing line)."""
        return run_files(self.out_dir)

    def _request_stop(self, signum: int, frame: Any) -> None:
        if self.stop_requested:  # a second signal: stop now (the last checkpoint is intact)
            raise KeyboardInterrupt
        self.stop_requested = True
        print(f"genenv train: signal {signum}: finishing the epoch, then writing a checkpoint")


def _warn_failed(trajectories: list[Trajectory]) -> None:
    """Warn about rollouts that failed (they score 0)."""
    failed = [t for t in trajectories if t.error is not None]
    if failed:
        warnings.warn(
            f"{len(failed)} of {len(trajectories)} rollouts failed (scored 0); first: {failed[0].error}",
            stacklevel=3,
        )


def train(cfg: TrainConfig, resume: bool = False) -> list[dict[str, Any]]:
    """Run Algorithm 1 with ``cfg``; see ``Trainer``."""
    return Trainer(cfg).run(resume=resume)
