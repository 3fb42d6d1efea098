"""Judging a stored run again with the current evaluator, without the agent (``genenv rescore RUN_DIR``).

Every episode of the run's ``episodes.jsonl`` is replayed on a fresh env: its task is reset by id (a
simulator env's episodes from the run's seed, in order) and its recorded actions are stepped, so a
multi-turn episode whose verdict depends on state reaches that state again. The new records and reports
are pinned like a fresh run's; each changed verdict or error type is explained by the pins that differ
for its episode: the task's data, the evaluator (name, version, code) or the env version.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym

from genenv_gym.evaluation.play import episode_record, score_records
from genenv_gym.evaluation.report import EvalReport
from genenv_gym.evaluation.results_file import load_run

#: Beside the run's own files.
RESCORED_EPISODES = "episodes.rescored.jsonl"
RESCORED_REPORT = "report.rescored.json"
#: Error type of an episode whose recorded actions ran out before the env ended it.
UNFINISHED = "rescore:actions_ran_out"


@dataclass
class EnvRescore:
    """One env's rescore: what its pins say changed, and each changed verdict with its reason."""

    env_id: str
    agent: str
    report: EvalReport
    #: lines on the pins that differ from the run's (the evaluator, the env version, the package)
    pin_changes: list[str] = field(default_factory=list)
    #: task ids whose data fingerprint differs from the one recorded (or that are gone)
    data_changed: list[str] = field(default_factory=list)
    episodes: int = 0
    #: category -> Counter of ``(what changed, why)``, one count per changed episode
    changes: dict[str, Counter] = field(default_factory=dict)

    @property
    def changed(self) -> int:
        return sum(sum(c.values()) for c in self.changes.values())

    def headline(self) -> list[str]:
        """What differs in the env, data and evaluator (said before anything else), or that nothing does."""
        lines = [f"{self.env_id} ({self.agent}): {line}" for line in self.pin_changes]
        if self.data_changed:
            shown = ", ".join(self.data_changed[:5]) + (" ..." if len(self.data_changed) > 5 else "")
            lines.append(
                f"{self.env_id} ({self.agent}): data changed: {len(self.data_changed)} of the run's tasks "
                f"differ from the records the run used ({shown})"
            )
        return lines

    def lines(self) -> list[str]:
        """Per category: episodes rescored, verdicts and error types that changed, and why."""
        head = f"{self.env_id} ({self.agent}): {self.episodes} episodes rescored, "
        if not self.changed:
            return [head + "every verdict and error type reproduced"]
        out = [head + f"{self.changed} changed"]
        for category, counts in self.changes.items():
            for (what, why), n in counts.most_common():
                out.append(f"  {category}: {n} x {what} ({why})")
        return out


def rescore_run(run_dir: str | Path, show_progress: bool = False) -> list[EnvRescore]:
    """Rescore every env and agent of ``run_dir``; write ``RESCORED_EPISODES`` and ``RESCORED_REPORT``."""
    run = load_run(run_dir)
    run_dir = run.path
    results, new_records = [], []
    for (env_id, agent), group in run.records.items():
        old_pins = run.pins.get((env_id, agent)) or {}
        result, rescored = _rescore_env(env_id, agent, sorted(group, key=lambda r: r["index"]), old_pins)
        results.append(result)
        new_records += rescored
    with (run_dir / RESCORED_EPISODES).open("w", encoding="utf-8") as out:
        for record in new_records:
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    reports = [r.report.to_dict() for r in results]
    (run_dir / RESCORED_REPORT).write_text(json.dumps(reports, indent=2), encoding="utf-8")
    return results


def _rescore_env(
    env_id: str, agent: str, records: list[dict[str, Any]], old_pins: Mapping[str, Any]
) -> tuple[EnvRescore, list[dict[str, Any]]]:
    from genenv_gym.evaluation.pins import RunPins, pin_differences
    from genenv_gym.registry.registration import ENV_ENTRIES

    if env_id not in {entry.id for entry in ENV_ENTRIES}:
        raise ValueError(
            f"the run played {env_id!r}, which is not a registered env id here: see 'genenv list'"
        )
    env_kwargs = dict(old_pins.get("env_kwargs") or {})
    seed = int(old_pins.get("seed", 0))
    samples = int(old_pins.get("samples", 1))
    env = gym.make(env_id, **env_kwargs)
    try:
        simulator = getattr(env.unwrapped, "tasks", None) is None
        pins = RunPins(env, env_id, agent, env_kwargs, seed, samples, old_pins.get("sampling") or {})
        report = EvalReport(env_id, agent, simulator=simulator)
        result = EnvRescore(env_id, agent, report, episodes=len(records))
        known = {task.id for task in env.unwrapped.tasks} if not simulator else set()
        rescored = []
        for position, old in enumerate(records):
            if not simulator and old.get("task_id") not in known:
                result.data_changed.append(str(old.get("task_id")))
                continue
            options = None if simulator else {"task_id": old["task_id"]}
            reset_args = {"seed": seed if position == 0 else None, "options": options}
            played = _replay(env, reset_args, old["actions"])
            task = getattr(env.unwrapped, "task", None) if simulator else None
            old_pin = old.get("pins") or {}
            new = {"env_id": env_id, "agent": agent, "index": old["index"], **played}
            new["pins"] = pins.episode(played.get("task_id"), task, int(old_pin.get("sample", 0)))
            rescored.append(new)
            why = _why(old, new)
            if "data" in why and old.get("task_id") not in result.data_changed:
                result.data_changed.append(str(old.get("task_id")))
            what = _what_changed(old, new)
            if what:
                result.changes.setdefault(new["category"], Counter())[(", ".join(what), why)] += 1
        score_records(report, env.unwrapped.domain, rescored, samples)
        report.pins = pins.report()
        if old_pins:
            differences = pin_differences(old_pins, report.pins)
            result.pin_changes = [line for line in differences if not line.startswith("data ")]
        else:
            result.pin_changes = ["the run has no pins (recorded before pins existed): nothing to compare"]
        return result, rescored
    finally:
        env.close()


def _replay(env: gym.Env, reset_args: dict[str, Any], actions: list[str]) -> dict[str, Any]:
    """Step ``actions`` from a reset; the episode record as ``evaluate`` writes it, with ``UNFINISHED``
    when the actions ran out first (an episode the env ends earlier keeps the actions it took)."""
    _, info = env.reset(**reset_args)
    played: list[str] = []
    reward, step_info, done = 0.0, {}, False
    for action in actions:
        if done:
            break
        played.append(action)
        _, step_reward, terminated, truncated, step_info = env.step(action)
        reward += float(step_reward)
        done = terminated or truncated
    if not done:
        step_info = {
            "success": False,
            "error_type": UNFINISHED,
            "error": f"the {len(actions)} recorded actions ended before the episode did",
        }
    return episode_record(info, step_info, reward, played)


def _what_changed(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """What differs between an episode's old and new record: its task, verdict, error type (one string
    each; ``[]`` when nothing does)."""
    changes = []
    if old.get("task_id") != new.get("task_id"):
        changes.append(f"task {old.get('task_id')} -> {new.get('task_id')}")
    if bool(old.get("success")) != bool(new.get("success")):
        changes.append("pass -> fail" if old.get("success") else "fail -> pass")
    if old.get("error_type") != new.get("error_type"):
        changes.append(f"error type {old.get('error_type')} -> {new.get('error_type')}")
    return changes


def _why(old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
    """The pins that differ between an episode's old and new record, as a short reason."""
    before, after = old.get("pins") or {}, new.get("pins") or {}
    if not before:
        return "the old record has no pins"
    reasons = []
    if before.get("data") != after.get("data"):
        reasons.append("data")
    old_eval, new_eval = before.get("evaluator") or {}, after.get("evaluator") or {}
    if old_eval.get("version") != new_eval.get("version") or old_eval.get("name") != new_eval.get("name"):
        reasons.append(f"evaluator {old_eval.get('version')} -> {new_eval.get('version')}")
    elif old_eval.get("code") != new_eval.get("code"):
        reasons.append(f"checker code {old_eval.get('code')} -> {new_eval.get('code')}")
    if before.get("env_version") != after.get("env_version"):
        reasons.append(f"env {before.get('env_version')} -> {after.get('env_version')}")
    return ", ".join(reasons) or "no pin differs: the env or checker is not deterministic"
