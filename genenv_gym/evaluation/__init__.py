"""Benchmarking an agent on envs with their official metrics: per-category and per-level scores, resumable.

``evaluate`` plays one agent on one env:

- benchmark envs: every task in file order (``limit``: at most that many per category);
- simulator envs (no fixed task list): ``episodes`` episodes of the curriculum, from ``reset(seed=seed)``.

Agents (``make_eval_agent``): ``oracle`` and ``random`` (the scripted baselines), or an LLM through any
backend spec (``hf:PATH``, ``openai:MODEL@URL``, ``sglang:PATH``, ``sglang-server:URL``, ``tiny:ARCH``).

Every finished episode is appended to ``results_path`` (JSON Lines) as soon as it ends, with the actions
taken. With ``resume=True`` the episodes already in that file are not played again: a benchmark task is
skipped by its index, and a simulator env gets its recorded actions replayed (cheap, no agent call) so its
curriculum reaches the same state before the run goes on. Scripted agents draw from a generator seeded
per episode, so a resumed run gives the same results as an uninterrupted one.

A simulator env whose tasks an environment LLM writes (``simulator="llm"``) also reports what its
screening decided (``EvalReport.screening``: tasks written, accepted, rejected by kind, the top reasons).

``batch_size > 1`` plays an LLM agent on several copies of a benchmark env at once, with one batched
backend call per step of all of them (the hf and sglang backends generate the batch together).
"""

from __future__ import annotations

import csv
import json
import time
from collections import defaultdict, deque
from collections.abc import Iterable, Iterator, Mapping
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from genenv_gym.agents.backends.progress import reporting_generation
from genenv_gym.agents.scripted import make_agent
from genenv_gym.progress import Progress

SCRIPTED_AGENTS = ("oracle", "random")
#: Rejection reasons of an LLM simulator shown under the table (the JSON report keeps ``TOP_REASONS_KEPT``).
TOP_REASONS_SHOWN = 5
TOP_REASONS_KEPT = 20
#: The narrowest first column of ``EvalReport.table`` (wider when a category name needs it).
NAME_WIDTH = 26
#: Error types shown under the table, most frequent first, each with one example (the JSON has them all).
TOP_FAILURES_SHOWN = 5
#: Characters of an example reply / reason shown under the table.
EXAMPLE_CHARS = 100
#: Characters of an env's error reason kept in an episode record.
ERROR_CHARS_KEPT = 1000


class ResumeError(RuntimeError):
    """A results file that does not belong to the run being resumed."""


@dataclass
class EvalReport:
    """Per-category (and, for simulator envs, per-level) pass counts of one agent on one env."""

    env_id: str
    agent: str
    passed: dict[str, int] = field(default_factory=dict)
    total: dict[str, int] = field(default_factory=dict)
    summary: dict[str, float] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    level_passed: dict[int, int] = field(default_factory=dict)
    level_total: dict[int, int] = field(default_factory=dict)
    reward_sum: float = 0.0
    steps_sum: int = 0
    resumed: int = 0
    seconds: float = 0.0
    simulator: bool = False
    #: category -> how many of the played tasks have a reference answer the official metric rejects.
    reference_failures: dict[str, int] = field(default_factory=dict)
    #: LLM agents: model requests sent, those that failed (no reply: the task counts as a wrong answer),
    #: and the first failure's reason.
    requests: int = 0
    failed_requests: int = 0
    request_error: str = ""
    #: Simulator envs with an environment LLM: its tasks written, accepted and rejected by kind, the top
    #: rejection reasons (``screening_summary``); empty for other envs.
    screening: dict[str, Any] = field(default_factory=dict)
    #: error type -> its first episode: ``{"task_id", "reply" (its last action), "error" (the env's reason)}``
    error_examples: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def accuracy(self) -> dict[str, float]:
        return {c: self.passed[c] / self.total[c] for c in self.total}

    @property
    def episodes(self) -> int:
        return sum(self.total.values())

    @property
    def overall(self) -> float:
        total = self.episodes
        return sum(self.passed.values()) / total if total else 0.0

    @property
    def level_accuracy(self) -> dict[int, float]:
        return {lvl: self.level_passed[lvl] / self.level_total[lvl] for lvl in sorted(self.level_total)}

    def add(self, record: Mapping[str, Any]) -> None:
        """Count one finished episode (a record as ``evaluate`` writes it)."""
        category, level = str(record["category"]), int(record.get("level", 0))
        success = bool(record["success"])
        self.total[category] = self.total.get(category, 0) + 1
        self.passed[category] = self.passed.get(category, 0) + int(success)
        self.level_total[level] = self.level_total.get(level, 0) + 1
        self.level_passed[level] = self.level_passed.get(level, 0) + int(success)
        self.reward_sum += float(record.get("reward", 0.0))
        self.steps_sum += int(record.get("steps", 1))
        if record.get("error_type"):
            self.errors[record["error_type"]] = self.errors.get(record["error_type"], 0) + 1
            self.error_examples.setdefault(
                record["error_type"],
                {
                    "task_id": record.get("task_id"),
                    "reply": (record.get("actions") or [""])[-1],
                    "error": record.get("error") or "",
                },
            )
        self.requests += int(record.get("requests", 0))
        self.failed_requests += int(record.get("failed_requests", 0))
        self.request_error = self.request_error or str(record.get("request_error") or "")

    def to_dict(self) -> dict[str, Any]:
        episodes = self.episodes
        return {
            "env_id": self.env_id,
            "agent": self.agent,
            "episodes": episodes,
            "accuracy": self.accuracy,
            "passed": self.passed,
            "total": self.total,
            "overall": self.overall,
            "mean_reward": self.reward_sum / episodes if episodes else 0.0,
            "mean_steps": self.steps_sum / episodes if episodes else 0.0,
            "summary": self.summary,
            "errors": dict(sorted(self.errors.items(), key=lambda kv: -kv[1])),
            "error_examples": self.error_examples,
            "levels": {
                str(lvl): {"passed": self.level_passed[lvl], "total": self.level_total[lvl]}
                for lvl in sorted(self.level_total)
            },
            "reference_failures": self.reference_failures,
            "requests": self.requests,
            "failed_requests": self.failed_requests,
            "request_error": self.request_error,
            "resumed": self.resumed,
            "seconds": self.seconds,
        } | ({"screening": self.screening} if self.screening else {})

    def table(self) -> str:
        """A plain-text table: one row per category, the overall row, the summaries; levels for simulators.
        The first column is as wide as its longest name, so long category names keep the columns aligned."""
        names = [*self.total, *(str(level) for level in self.level_total), "category", "overall"]
        width = max(NAME_WIDTH, max(len(n) for n in names) + 2)
        summary_width = max([width + 16, *(len(name) + 2 for name in self.summary)])
        rows = [f"{'category':<{width}}{'passed':>8}{'total':>8}{'accuracy':>10}"]
        for category in self.total:
            rows.append(
                f"{category:<{width}}{self.passed[category]:>8}{self.total[category]:>8}"
                f"{100 * self.accuracy[category]:>9.1f}%"
            )
        passed, total = sum(self.passed.values()), sum(self.total.values())
        rows.append(f"{'overall':<{width}}{passed:>8}{total:>8}{100 * self.overall:>9.1f}%")
        rows += [f"{name:<{summary_width}}{100 * value:>9.1f}%" for name, value in self.summary.items()]
        if self.simulator:
            rows.append(f"{'level':<{width}}{'passed':>8}{'total':>8}{'accuracy':>10}")
            for level, accuracy in self.level_accuracy.items():
                passed, total = self.level_passed[level], self.level_total[level]
                rows.append(f"{level:<{width}}{passed:>8}{total:>8}{100 * accuracy:>9.1f}%")
        if self.reference_failures:
            count = sum(self.reference_failures.values())
            where = ", ".join(f"{c} {n}" for c, n in self.reference_failures.items())
            rows.append(
                f"note: {count} of these tasks ({where}) have a reference answer that the metric in use "
                "itself rejects, so no agent passes them as scored (the oracle included); "
                "the list and the reasons: docs/benchmark_defects.md"
            )
        if self.failed_requests:
            rows.append(
                f"failed requests: {self.failed_requests} of {self.requests} model requests got no reply "
                f"(their tasks are scored as wrong answers); first error: {self.request_error}"
            )
        rows += screening_lines(self.screening)
        rows += self.failure_lines()
        return "\n".join(rows)

    def failure_lines(self) -> list[str]:
        """The most frequent error types, each with one episode's reply and the env's reason (none when no
        episode has an error type)."""
        if not self.errors:
            return []
        ranked = sorted(self.errors.items(), key=lambda kv: (-kv[1], kv[0]))
        shown = ranked[:TOP_FAILURES_SHOWN]
        more = f"; {len(ranked) - len(shown)} more in the JSON report" if len(ranked) > len(shown) else ""
        lines = [f"why episodes failed (error types, most frequent first{more}):"]
        for error_type, count in shown:
            lines.append(f"{count:>8}  {error_type}")
            example = self.error_examples.get(error_type)
            if example:
                reason = f" -> {_one_line(example['error'])}" if example.get("error") else ""
                lines.append(
                    f"{'':>10}e.g. {example['task_id']}: reply {_one_line(example['reply'])!r}{reason}"
                )
        return lines

    def csv_rows(self) -> list[dict[str, Any]]:
        """Rows for a CSV file: one per category, one overall, one per summary score (and level)."""
        rows = [
            {"env_id": self.env_id, "agent": self.agent, "group": "category", "name": c}
            | {"passed": self.passed[c], "total": self.total[c], "accuracy": self.accuracy[c]}
            for c in self.total
        ]
        rows.append(
            {"env_id": self.env_id, "agent": self.agent, "group": "overall", "name": "overall"}
            | {"passed": sum(self.passed.values()), "total": self.episodes, "accuracy": self.overall}
        )
        rows += [
            {"env_id": self.env_id, "agent": self.agent, "group": "summary", "name": name}
            | {"passed": "", "total": "", "accuracy": value}
            for name, value in self.summary.items()
        ]
        if self.simulator:
            rows += [
                {"env_id": self.env_id, "agent": self.agent, "group": "level", "name": str(level)}
                | {"passed": self.level_passed[level], "total": self.level_total[level], "accuracy": accuracy}
                for level, accuracy in self.level_accuracy.items()
            ]
        return rows


CSV_FIELDS = ("env_id", "agent", "group", "name", "passed", "total", "accuracy")


def write_csv(reports: Iterable[EvalReport], path: str | Path) -> None:
    """All reports' ``csv_rows`` in one CSV file."""
    with Path(path).open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=CSV_FIELDS)
        writer.writeheader()
        for report in reports:
            writer.writerows(report.csv_rows())


def _one_line(text: Any) -> str:
    """``text`` with its whitespace runs as single spaces, cut to ``EXAMPLE_CHARS``."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= EXAMPLE_CHARS else flat[: EXAMPLE_CHARS - 1] + "…"


def screening_summary(simulator: Any) -> dict[str, Any]:
    """What an LLM simulator's screening decided: tasks written, accepted, served by the procedural
    fallback, rejected by kind, and the most frequent rejection reasons (``[reason, count]`` pairs);
    empty for a simulator that keeps no rejection reasons (the procedural one)."""
    state = simulator.state() if callable(getattr(simulator, "state", None)) else {}
    if not isinstance(state, Mapping) or "reasons" not in state:
        return {}
    stats = state.get("stats", {})
    rejected = dict(sorted(stats.get("rejected", {}).items(), key=lambda kv: (-kv[1], kv[0])))
    reasons = sorted(state["reasons"].items(), key=lambda kv: -kv[1])[:TOP_REASONS_KEPT]
    return {
        "generated": int(stats.get("generated", 0)),
        "accepted": int(stats.get("accepted", 0)),
        "fallback": int(stats.get("fallback", 0)),
        "rejected": rejected,
        "top_reasons": [[reason, int(count)] for reason, count in reasons],
    }


def screening_lines(screening: Mapping[str, Any]) -> list[str]:
    """``screening_summary`` as lines under an env's table (none when it is empty)."""
    if not screening:
        return []
    rejected = screening["rejected"]
    by_kind = ", ".join(f"{kind} {count}" for kind, count in rejected.items())
    lines = [
        f"environment LLM: {screening['generated']} tasks written, {screening['accepted']} accepted, "
        f"{sum(rejected.values())} rejected" + (f" ({by_kind})" if by_kind else "")
    ]
    if screening["fallback"]:
        lines.append(f"  {screening['fallback']} tasks came from the procedural generator instead")
    if screening["top_reasons"]:
        lines.append("top rejection reasons:")
        lines += [f"{count:>8}  {reason}" for reason, count in screening["top_reasons"][:TOP_REASONS_SHOWN]]
    return lines


def overview_table(reports: Iterable[EvalReport]) -> str:
    """One row per env: episodes, overall accuracy, mean reward."""
    reports = list(reports)
    width = max([len("env"), *(len(r.env_id) for r in reports)])
    rows = [f"{'env':<{width}}  {'agent':<20}{'episodes':>9}{'accuracy':>10}{'reward':>9}"]
    for r in reports:
        reward = r.to_dict()["mean_reward"]
        rows.append(
            f"{r.env_id:<{width}}  {r.agent[:19]:<20}{r.episodes:>9}{100 * r.overall:>9.1f}%{reward:>9.3f}"
        )
    return "\n".join(rows)


def is_llm_agent(agent: str) -> bool:
    """Whether an agent name is a backend spec (``kind:...``) rather than a scripted agent."""
    return agent not in SCRIPTED_AGENTS and ":" in agent


def check_agent(agent: str) -> None:
    """Raise ValueError saying what is expected unless ``agent`` is a scripted agent or a backend spec."""
    if agent in SCRIPTED_AGENTS:
        return
    if ":" not in agent:
        from genenv_gym.suggest import did_you_mean

        raise ValueError(
            f"unknown agent {agent!r}{did_you_mean(agent, SCRIPTED_AGENTS)}: use oracle, random, or a "
            "backend spec (hf:PATH, openai:MODEL@URL, sglang:PATH, sglang-server:URL, tiny:ARCH)"
        )
    from genenv_gym.agents.backends import parse_spec

    parse_spec(agent)


class _Agent:
    """What ``evaluate`` plays: a scripted agent reseeded per episode, or an LLM agent."""

    def __init__(self, agent: str, env: gym.Env, seed: int, backend: Any = None, **llm_kwargs: Any) -> None:
        self.seed = seed
        if is_llm_agent(agent):
            from genenv_gym.agents.llm_agent import LLMAgent

            self.agent: Any = LLMAgent.for_env(env, backend if backend is not None else agent, **llm_kwargs)
        else:
            self.agent = make_agent(agent, env, seed)

    def start(self, episode: int) -> None:
        if hasattr(self.agent, "rng"):
            self.agent.rng = np.random.default_rng([self.seed, episode])

    def act(self, observation: str, info: Mapping[str, Any]) -> str:
        return self.agent.act(observation, info)

    def request_failure(self, slot: int = 0) -> str | None:
        """LLM agents: the reason the last request for ``slot`` failed, None if it did not fail (or none)."""
        return request_failure(self.agent, slot)


def request_failure(agent: Any, slot: int = 0) -> str | None:
    """The reason ``agent``'s last model request for ``slot`` failed (its error completion); None when that
    request got a reply or the agent sends none (scripted agents)."""
    completion = getattr(agent, "last_completions", {}).get(slot)
    if completion is None or completion.ok:
        return None
    return completion.error or "the request failed"


def make_backend_once(agent: str, **kwargs: Any) -> Any:
    """An LLM agent spec's backend, built once so several envs share one loaded model (None if scripted)."""
    if not is_llm_agent(agent):
        return None
    from genenv_gym.agents.backends import make_backend

    return make_backend(agent, **kwargs)


def read_results(path: str | Path) -> list[dict[str, Any]]:
    """The episode records of a results file (a torn last line, from an interrupted write, is dropped)."""
    path = Path(path)
    if not path.exists():
        return []
    records = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return records


def _plan(env: gym.Env, limit: int | None, episodes: int) -> list[dict[str, Any] | None]:
    tasks = getattr(env.unwrapped, "tasks", None)
    if tasks is None:
        return [None] * episodes
    per_category: dict[str, int] = defaultdict(int)
    plan: list[dict[str, Any] | None] = []
    for task in tasks:
        if limit is None or per_category[task.category] < limit:
            per_category[task.category] += 1
            plan.append({"task_id": task.id})
    return plan


def _play(env: gym.Env, agent: _Agent | None, reset_args: dict[str, Any], actions: list[str] | None) -> dict:
    """One episode: the agent acts, or (``actions`` given) the recorded actions are replayed."""
    obs, info = env.reset(**reset_args)
    played: list[str] = []
    reward_sum, done, step_info = 0.0, False, {}
    failures: list[str] = []
    while not done:
        if actions is not None:
            if len(played) >= len(actions):
                raise ResumeError("the recorded episode ended early: the results file does not fit this run")
            action = actions[len(played)]
        else:
            action = agent.act(obs, info if not played else step_info)
            failure = agent.request_failure()
            if failure is not None:
                failures.append(failure)
        played.append(action)
        obs, reward, terminated, truncated, step_info = env.step(action)
        reward_sum += float(reward)
        done = terminated or truncated
    record = _episode_record(info, step_info, reward_sum, played)
    if agent is not None and _sends_requests(agent.agent):
        record.update(_request_counts(len(played), failures))
    return record


def _sends_requests(agent: Any) -> bool:
    """Whether ``agent`` sends model requests (it keeps their completions)."""
    return hasattr(agent, "last_completions")


def _request_counts(requests: int, failures: list[str]) -> dict[str, Any]:
    """An episode record's request fields: how many requests, how many failed, the first failure's reason."""
    counts: dict[str, Any] = {"requests": requests, "failed_requests": len(failures)}
    if failures:
        counts["request_error"] = failures[0]
    return counts


def _episode_record(
    first_info: Mapping[str, Any], last_info: Mapping[str, Any], reward: float, actions: list[str]
) -> dict[str, Any]:
    """What an evaluation keeps of one finished episode (``first_info`` from its reset, ``last_info`` from
    its last step): the task, the outcome, the per-episode metrics and the actions."""
    return {
        "task_id": first_info.get("task_id"),
        "category": str(first_info.get("category", "")),
        "level": int(first_info.get("level", 0) or 0),
        "success": bool(last_info.get("success")),
        "reward": reward,
        "steps": len(actions),
        "error_type": last_info.get("error_type"),
        "error": str(last_info.get("error") or "")[:ERROR_CHARS_KEPT] or None,
        "metrics": dict(last_info.get("metrics") or {}),
        "actions": actions,
    }


def evaluate(
    env_id: str,
    agent_name: str,
    limit: int | None = None,
    episodes: int = 100,
    seed: int = 0,
    show_progress: bool = True,
    env_kwargs: dict[str, Any] | None = None,
    results_path: str | Path | None = None,
    resume: bool = False,
    backend: Any = None,
    llm_kwargs: dict[str, Any] | None = None,
    batch_size: int = 1,
) -> EvalReport:
    """Play ``agent_name`` on ``env_id`` and score it (see the module docstring).

    Args:
        env_id: a registered env id.
        agent_name: ``oracle``, ``random`` or a backend spec.
        limit: benchmark envs: at most this many tasks per category.
        episodes: simulator envs: how many episodes.
        seed: seeds the env's first reset and the scripted agents.
        show_progress: a progress bar on stderr.
        env_kwargs: passed to ``gymnasium.make``.
        results_path: JSON Lines file each finished episode is appended to (created if missing).
        resume: skip (benchmark) or replay (simulator) the episodes already in ``results_path``.
        backend: an already built backend for an LLM agent (shared across envs); default: built from the spec.
        llm_kwargs: ``LLMAgent`` options (``params``, ``pass_tools``, ``system_prompt``).
        batch_size: LLM agents on benchmark envs: episodes played at once on as many env copies, with one
            batched backend call per step (simulator envs always run one episode at a time: their
            curriculum is sequential).
    """
    check_agent(agent_name)
    start = time.monotonic()
    env = gym.make(env_id, **(env_kwargs or {}))
    try:
        agent = _Agent(agent_name, env, seed, backend, **(llm_kwargs or {}))
        report = EvalReport(env_id, agent_name, simulator=getattr(env.unwrapped, "tasks", None) is None)
        plan = _plan(env, limit, episodes)
        done = _previous(results_path, env_id, agent_name, plan) if resume and results_path else {}
        records: dict[int, dict[str, Any]] = {}
        out = _open_results(results_path)
        try:
            batched = batch_size > 1 and is_llm_agent(agent_name) and not report.simulator
            if batched:
                todo = [i for i in range(len(plan)) if i not in done]
                copies = [env] + [
                    gym.make(env_id, **(env_kwargs or {})) for _ in range(min(batch_size, len(todo)) - 1)
                ]
                episodes_iter = _batched_episodes(copies, agent.agent, plan, todo)
            else:
                episodes_iter = _sequential_episodes(
                    env, agent, plan, done, seed, report.simulator, results_path
                )
            total = len(plan) - (len(done) if batched else 0)
            bar = Progress(total, f"{env_id} {agent_name}", enabled=show_progress)
            # the bar also counts the tokens and requests of the model calls in flight: an LLM's episode on a
            # CPU takes seconds to minutes, a batch of them longer
            with reporting_generation(bar.note) if show_progress else nullcontext():
                for index, played in bar.iterate(episodes_iter):
                    if played is None:  # a finished episode of the earlier run
                        continue
                    record = {"env_id": env_id, "agent": agent_name, "index": index, **played}
                    records[index] = record
                    if out is not None:
                        out.write(json.dumps(record, ensure_ascii=False) + "\n")
                        out.flush()
            if batched:
                for copy in copies[1:]:
                    copy.close()
        finally:
            if out is not None:
                out.close()
        for index in sorted({**done, **records}):  # plan order, whatever order episodes ended in
            report.add(records.get(index) or done[index])
        report.resumed = len(done)
        domain = env.unwrapped.domain
        report.summary = domain.summarize(report.accuracy, report.total)
        ordered = [records.get(index) or done[index] for index in sorted({**done, **records})]
        report.summary.update(domain.summarize_metrics([r.get("metrics") or {} for r in ordered]))
        failures = domain.reference_failures()
        for record in ordered:
            if record.get("task_id") in failures:
                category = str(record["category"])
                report.reference_failures[category] = report.reference_failures.get(category, 0) + 1
        report.screening = screening_summary(getattr(env.unwrapped, "simulator", None))
        report.seconds = time.monotonic() - start
        return report
    finally:
        env.close()


def _sequential_episodes(
    env: gym.Env,
    agent: _Agent,
    plan: list[dict[str, Any] | None],
    done: dict[int, dict[str, Any]],
    seed: int,
    simulator: bool,
    results_path: str | Path | None,
) -> Iterator[tuple[int, dict[str, Any] | None]]:
    """``(index, episode)`` in plan order; ``None`` for an episode the earlier run finished."""
    for i in range(len(plan)):
        reset_args = {"seed": seed if i == 0 else None, "options": plan[i]}
        if i in done:
            if simulator:  # bring the curriculum to the state the recorded run left it in
                replayed = _play(env, None, reset_args, list(done[i]["actions"]))
                recorded = (done[i].get("task_id"), bool(done[i]["success"]))
                if (replayed["task_id"], replayed["success"]) != recorded:
                    raise ResumeError(
                        f"episode {i} of {env.spec.id if env.spec else 'the env'} replays differently from "
                        f"{results_path}: the file comes from another run (seed, env arguments or version)"
                    )
            yield i, None
            continue
        agent.start(i)
        yield i, _play(env, agent, reset_args, None)


def _batched_episodes(
    envs: list[gym.Env], llm: Any, plan: list[dict[str, Any] | None], todo: list[int]
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Benchmark tasks on several env copies at once, one batched LLM call per step of all of them.

    Yields ``(index, episode)`` as episodes end (not in plan order).
    """
    queue = deque(todo)
    active: dict[int, dict[str, Any]] = {}
    while queue or active:
        for slot in range(len(envs)):
            if slot not in active and queue:
                index = queue.popleft()
                obs, info = envs[slot].reset(options=plan[index])
                active[slot] = {
                    "index": index,
                    "first": info,
                    "obs": obs,
                    "info": info,
                    "actions": [],
                    "reward": 0.0,
                    "failures": [],
                }
        slots = sorted(active)
        actions = llm.act_batch([active[s]["obs"] for s in slots], [active[s]["info"] for s in slots], slots)
        for slot, action in zip(slots, actions, strict=True):
            state = active[slot]
            state["actions"].append(action)
            failure = request_failure(llm, slot)
            if failure is not None:
                state["failures"].append(failure)
            obs, reward, terminated, truncated, info = envs[slot].step(action)
            state["reward"] += float(reward)
            state["obs"], state["info"] = obs, info
            if terminated or truncated:
                del active[slot]
                record = _episode_record(state["first"], info, state["reward"], state["actions"])
                record.update(_request_counts(len(state["actions"]), state["failures"]))
                yield state["index"], record


def _previous(
    results_path: str | Path, env_id: str, agent_name: str, plan: list[dict[str, Any] | None]
) -> dict[int, dict[str, Any]]:
    """Recorded episodes of this env and agent by index, checked against the plan."""
    done: dict[int, dict[str, Any]] = {}
    for record in read_results(results_path):
        if record.get("env_id") != env_id or record.get("agent") != agent_name:
            continue
        index = int(record["index"])
        expected = plan[index] if index < len(plan) else None
        if index >= len(plan) or (expected is not None and expected["task_id"] != record.get("task_id")):
            raise ResumeError(
                f"{results_path}: episode {index} of {env_id} does not match this run's tasks "
                "(another --limit, data or env arguments?); use a new results file"
            )
        done[index] = record
    return done


def _open_results(results_path: str | Path | None) -> Any:
    """The results file opened for appending (after a newline if an interrupted write left a torn line)."""
    if results_path is None:
        return None
    path = Path(results_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    torn = path.exists() and path.stat().st_size > 0 and not path.read_bytes().endswith(b"\n")
    out = path.open("a", encoding="utf-8")
    if torn:
        out.write("\n")
    return out
