"""Running an agent over an env's tasks and scoring it per category with the official metric."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym

from genenv_gym.agents.scripted import make_agent
from genenv_gym.progress import progress


@dataclass
class EvalReport:
    """Per-category pass counts of one agent on one env, and the benchmark's summary scores."""

    env_id: str
    agent: str
    passed: dict[str, int] = field(default_factory=dict)
    total: dict[str, int] = field(default_factory=dict)
    summary: dict[str, float] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)

    @property
    def accuracy(self) -> dict[str, float]:
        return {c: self.passed[c] / self.total[c] for c in self.total}

    @property
    def overall(self) -> float:
        total = sum(self.total.values())
        return sum(self.passed.values()) / total if total else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "env_id": self.env_id,
            "agent": self.agent,
            "accuracy": self.accuracy,
            "passed": self.passed,
            "total": self.total,
            "overall": self.overall,
            "summary": self.summary,
            "errors": self.errors,
        }

    def table(self) -> str:
        """A plain-text table: one row per category, then the summaries."""
        rows = [f"{'category':<26}{'passed':>8}{'total':>8}{'accuracy':>10}"]
        for category in self.total:
            rows.append(
                f"{category:<26}{self.passed[category]:>8}{self.total[category]:>8}"
                f"{100 * self.accuracy[category]:>9.1f}%"
            )
        passed, total = sum(self.passed.values()), sum(self.total.values())
        rows.append(f"{'overall':<26}{passed:>8}{total:>8}{100 * self.overall:>9.1f}%")
        rows += [f"{name:<42}{100 * value:>9.1f}%" for name, value in self.summary.items()]
        return "\n".join(rows)


def evaluate(
    env_id: str,
    agent_name: str,
    limit: int | None = None,
    episodes: int = 100,
    seed: int = 0,
    show_progress: bool = True,
    env_kwargs: dict[str, Any] | None = None,
) -> EvalReport:
    """Play ``agent_name`` (``oracle`` or ``random``) on ``env_id``.

    Benchmark envs are evaluated on every task in file order (``limit``: at most that many per category);
    envs without a fixed task list (the simulator envs) for ``episodes`` episodes.
    """
    env = gym.make(env_id, **(env_kwargs or {}))
    agent = make_agent(agent_name, env, seed)
    report = EvalReport(env_id, agent_name)
    tasks = getattr(env.unwrapped, "tasks", None)
    if tasks is not None:
        per_category: dict[str, int] = defaultdict(int)
        chosen = []
        for task in tasks:
            if limit is None or per_category[task.category] < limit:
                per_category[task.category] += 1
                chosen.append(task)
        plan = [{"task_id": t.id} for t in chosen]
    else:
        plan = [None] * episodes
    errors: dict[str, int] = defaultdict(int)
    for i, options in enumerate(
        progress(plan, total=len(plan), desc=f"{env_id} {agent_name}", enabled=show_progress)
    ):
        obs, info = env.reset(seed=seed if i == 0 else None, options=options)
        done = False
        while not done:
            obs, _, terminated, truncated, step_info = env.step(agent.act(obs, info))
            done = terminated or truncated
        category = info["category"]
        report.total[category] = report.total.get(category, 0) + 1
        report.passed[category] = report.passed.get(category, 0) + int(bool(step_info.get("success")))
        if step_info.get("error_type"):
            errors[step_info["error_type"]] += 1
    report.errors = dict(sorted(errors.items(), key=lambda kv: -kv[1]))
    report.summary = env.unwrapped.domain.summarize(report.accuracy, report.total)
    env.close()
    return report
