"""Playing an agent on an env for an evaluation: the plan of episodes, one episode (played or replayed from
its recorded actions), episodes one at a time or batched over env copies, and ``evaluate`` that scores them
into an ``EvalReport`` (see the package docstring)."""

from __future__ import annotations

import json
import time
from collections import defaultdict, deque
from collections.abc import Iterator, Mapping
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import gymnasium as gym

from genenv_gym.agents.backends.progress import reporting_generation
from genenv_gym.evaluation.agents import EvalAgent, check_agent, is_llm_agent, request_failure
from genenv_gym.evaluation.pass_at_k import check_samples, sample_stats
from genenv_gym.evaluation.pins import RunPins, sampling_settings
from genenv_gym.evaluation.report import EvalReport, screening_summary
from genenv_gym.evaluation.results_file import ResumeError, open_results, previous_episodes
from genenv_gym.progress import Progress

#: Characters of an env's error reason kept in an episode record.
ERROR_CHARS_KEPT = 1000


def _plan(env: gym.Env, limit: int | None, episodes: int, samples: int = 1) -> list[dict[str, Any] | None]:
    """The reset options of every episode in order: each task once per sample, sample after sample."""
    tasks = getattr(env.unwrapped, "tasks", None)
    if tasks is None:
        return [None] * episodes
    per_category: dict[str, int] = defaultdict(int)
    plan: list[dict[str, Any] | None] = []
    for task in tasks:
        if limit is None or per_category[task.category] < limit:
            per_category[task.category] += 1
            plan.append({"task_id": task.id})
    return plan * samples


def _play(
    env: gym.Env, agent: EvalAgent | None, reset_args: dict[str, Any], actions: list[str] | None
) -> dict:
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
    record = episode_record(info, step_info, reward_sum, played)
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


def episode_record(
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
    samples: int = 1,
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
        samples: benchmark envs: independent tries of every task (``pass_at_k``: pass@k, pass^k); the
            plan plays every task once per sample, sample after sample.
    """
    check_agent(agent_name)
    check_samples(samples, [env_id])
    start = time.monotonic()
    env = gym.make(env_id, **(env_kwargs or {}))
    try:
        agent = EvalAgent(agent_name, env, seed, backend, **(llm_kwargs or {}))
        report = EvalReport(env_id, agent_name, simulator=getattr(env.unwrapped, "tasks", None) is None)
        plan = _plan(env, limit, episodes, samples)
        per_sample = len(plan) // samples
        params = (llm_kwargs or {}).get("params") if is_llm_agent(agent_name) else None
        pins = RunPins(env, env_id, agent_name, env_kwargs, seed, samples, sampling_settings(params))
        done = previous_episodes(results_path, env_id, agent_name, plan) if resume and results_path else {}
        records: dict[int, dict[str, Any]] = {}
        out = open_results(results_path)
        try:
            batched = batch_size > 1 and is_llm_agent(agent_name) and not report.simulator
            if batched:
                todo = [i for i in range(len(plan)) if i not in done]
                copies = [env] + [
                    gym.make(env_id, **(env_kwargs or {})) for _ in range(min(batch_size, len(todo)) - 1)
                ]
                episodes_iter = _batched_rounds(copies, agent, plan, todo, per_sample)
            else:
                episodes_iter = _sequential_episodes(
                    env, agent, plan, done, seed, report.simulator, results_path, per_sample
                )
            total = len(plan) - (len(done) if batched else 0)
            bar = Progress(total, f"{env_id} {agent_name}", enabled=show_progress)
            # the bar also counts the tokens and requests of the model calls in flight: an LLM's episode on a
            # CPU takes seconds to minutes, a batch of them longer
            with reporting_generation(bar.note) if show_progress else nullcontext():
                for index, played in bar.iterate(episodes_iter):
                    if played is None:  # a finished episode of the earlier run
                        continue
                    task = getattr(env.unwrapped, "task", None) if report.simulator else None
                    sample = index // per_sample
                    record = {"env_id": env_id, "agent": agent_name, "index": index, **played}
                    record["pins"] = pins.episode(played.get("task_id"), task, sample)
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
        # plan order, whatever order episodes ended in
        ordered = [records.get(index) or done[index] for index in sorted({**done, **records})]
        for record in done.values():
            if record.get("pins"):
                pins.played.setdefault(record["task_id"], record["pins"].get("data"))
        score_records(report, env.unwrapped.domain, ordered, samples)
        report.resumed = len(done)
        report.pins = pins.report()
        report.screening = screening_summary(getattr(env.unwrapped, "simulator", None))
        report.seconds = time.monotonic() - start
        return report
    finally:
        env.close()


def score_records(
    report: EvalReport, domain: Any, ordered: list[dict[str, Any]], samples: int = 1
) -> EvalReport:
    """Count episode records (in plan order) into ``report``: per category and level, the domain's
    summaries, the reference-answer defects, pass@k and pass^k when there are several samples."""
    for record in ordered:
        report.add(record)
    report.summary = domain.summarize(report.accuracy, report.total)
    report.summary.update(domain.summarize_metrics([r.get("metrics") or {} for r in ordered]))
    failures = domain.reference_failures()
    for record in ordered:
        if record.get("task_id") in failures:
            category = str(record["category"])
            report.reference_failures[category] = report.reference_failures.get(category, 0) + 1
    report.samples = sample_stats(ordered, samples) if samples > 1 else {}
    return report


def _sequential_episodes(
    env: gym.Env,
    agent: EvalAgent,
    plan: list[dict[str, Any] | None],
    done: dict[int, dict[str, Any]],
    seed: int,
    simulator: bool,
    results_path: str | Path | None,
    per_sample: int,
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
        agent.start(i, i // per_sample)
        yield i, _play(env, agent, reset_args, None)


def _batched_rounds(
    envs: list[gym.Env], agent: EvalAgent, plan: list[dict[str, Any] | None], todo: list[int], per_sample: int
) -> Iterator[tuple[int, dict[str, Any]]]:
    """``_batched_episodes`` one sample after another, each with its own sampling seed."""
    for sample in sorted({i // per_sample for i in todo}):
        agent.start_sample(sample)
        yield from _batched_episodes(envs, agent.agent, plan, [i for i in todo if i // per_sample == sample])


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
                record = episode_record(state["first"], info, state["reward"], state["actions"])
                record.update(_request_counts(len(state["actions"]), state["failures"]))
                yield state["index"], record
