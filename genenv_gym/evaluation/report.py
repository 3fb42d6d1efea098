"""What an evaluation reports: ``EvalReport`` (per-category and per-level pass counts, the summaries, why
episodes failed), its plain-text table and CSV rows, the overview of several envs, and what an LLM
simulator's screening decided."""

from __future__ import annotations

import csv
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from genenv_gym.evaluation.pass_at_k import sample_csv_rows, sample_lines

#: Rejection reasons of an LLM simulator shown under the table (the JSON report keeps ``TOP_REASONS_KEPT``).
TOP_REASONS_SHOWN = 5
TOP_REASONS_KEPT = 20
#: The narrowest first column of ``EvalReport.table`` (wider when a category name needs it).
NAME_WIDTH = 26
#: Error types shown under the table, most frequent first, each with one example (the JSON has them all).
TOP_FAILURES_SHOWN = 5
#: Characters of an example reply / reason shown under the table.
EXAMPLE_CHARS = 100


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
    #: What the run is pinned to (``evaluation.pins.RunPins.report``).
    pins: dict[str, Any] = field(default_factory=dict)
    #: ``--samples k`` > 1: pass@k, pass^k and the per-task success rate (``evaluation.pass_at_k``).
    samples: dict[str, Any] = field(default_factory=dict)
    #: The benchmark whose small shipped fixtures stood in for its missing data ("": the env's own data).
    on_fixtures: str = ""

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
        } | self._optional_fields()

    def _optional_fields(self) -> dict[str, Any]:
        """The JSON fields a report has only when set: screening, pins, samples, on_fixtures."""
        fields = {
            "screening": self.screening,
            "pins": self.pins,
            "samples": self.samples,
            "on_fixtures": self.on_fixtures,
        }
        return {key: value for key, value in fields.items() if value}

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
        rows += sample_lines(self.samples, width)
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
        return rows + sample_csv_rows(self.env_id, self.agent, self.samples)


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


def overview_table(
    reports: Iterable[EvalReport],
    data: Mapping[str, str] | None = None,
    not_run: Mapping[str, str] | None = None,
) -> str:
    """One row per env: episodes, overall accuracy, mean reward; with ``data`` (env id -> what it ran on) a
    last column saying so, and one row per id of ``not_run`` (env id -> why)."""
    reports, not_run = list(reports), dict(not_run or {})
    width = max([len("env"), *(len(r.env_id) for r in reports), *(len(i) for i in not_run)])
    last = "  data" if data is not None or not_run else ""
    rows = [f"{'env':<{width}}  {'agent':<20}{'episodes':>9}{'accuracy':>10}{'reward':>9}{last}"]
    for r in reports:
        reward = r.to_dict()["mean_reward"]
        note = f"  {data.get(r.env_id, '')}" if last and data else ""
        rows.append(
            f"{r.env_id:<{width}}  {r.agent[:19]:<20}{r.episodes:>9}{100 * r.overall:>9.1f}%{reward:>9.3f}"
            + note
        )
    dashes = f"{'':<20}{'-':>9}{'-':>10}{'-':>9}"
    rows += [f"{env_id:<{width}}  {dashes}  not run: {why}" for env_id, why in not_run.items()]
    return "\n".join(rows)
