"""The resumable results file of an evaluation: JSON Lines, one finished episode a line, appended as each
episode ends; reading it back, matching its episodes to a run's plan, and opening it for appending; a whole
run folder read back (``load_run``)."""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any


class ResumeError(RuntimeError):
    """A results file that does not belong to the run being resumed."""


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


def previous_episodes(
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


def open_results(results_path: str | Path | None) -> Any:
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


@dataclass(frozen=True)
class Run:
    """A run folder read back: episode records and the run's pins, per ``(env id, agent)``."""

    path: Path
    records: dict[tuple[str, str], list[dict[str, Any]]]
    pins: dict[tuple[str, str], dict[str, Any]]


def load_run(path: str | Path) -> Run:
    """The run in a ``genenv eval --out`` folder. Its pins come from ``report.json``; an env and agent the
    report does not hold (``report.json`` keeps the last command's envs: an earlier one resumed into the
    same folder, or an interrupted run) gets them from its first record and ``run.json``."""
    path = Path(path)
    records = read_results(path / "episodes.jsonl")
    if not records:
        raise FileNotFoundError(f"{path}/episodes.jsonl holds no episodes: give a 'genenv eval --out' folder")
    grouped: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for line, record in enumerate(records, 1):
        if not _is_episode(record):
            raise ValueError(
                f"{path}/episodes.jsonl: record {line} is not an episode as 'genenv eval' writes it "
                "(env_id, agent, index, task_id, success, actions); give a 'genenv eval --out' folder"
            )
        grouped[(record["env_id"], record["agent"])].append(record)
    report = path / "report.json"
    reports = json.loads(report.read_text(encoding="utf-8")) if report.exists() else []
    pins = {(r["env_id"], r["agent"]): r.get("pins") or {} for r in reports}
    for key, group in grouped.items():
        if not pins.get(key) and group[0].get("pins"):
            pins[key] = _pins_from_records(group, _run_settings(path))
    return Run(path, dict(grouped), pins)


def _is_episode(record: Any) -> bool:
    """Whether a results-file line has what rescoring and comparing read."""
    if not isinstance(record, dict):
        return False
    actions = record.get("actions")
    return (
        isinstance(record.get("env_id"), str)
        and isinstance(record.get("agent"), str)
        and isinstance(record.get("index"), int)
        and "task_id" in record
        and "success" in record
        and isinstance(actions, list)
        and all(isinstance(a, str) for a in actions)
        and isinstance(record.get("pins") or {}, dict)
    )


def _run_settings(path: Path) -> dict[str, Any]:
    """``run.json``: the ``genenv eval`` arguments of the folder's last command (empty when missing)."""
    try:
        return json.loads((path / "run.json").read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return {}


def _pins_from_records(records: list[dict[str, Any]], settings: dict[str, Any]) -> dict[str, Any]:
    """A run's pins rebuilt from its episode records and the command's arguments."""
    first = min(records, key=lambda r: r["index"])["pins"]
    try:
        env_kwargs = json.loads(settings.get("env_kwargs") or "{}")
    except json.JSONDecodeError:
        env_kwargs = {}
    keep = ("env_id", "env_version", "evaluator", "agent", "package")
    return {key: first.get(key) for key in keep} | {
        "env_kwargs": env_kwargs,
        "seed": int(settings.get("seed") or 0),
        "samples": 1 + max(int(r["pins"].get("sample", 0)) for r in records if r.get("pins")),
        "sampling": dict(first.get("sampling") or {}),  # the first record is sample 0: the base seed
    }
