"""What a run's records are pinned to: the env id and its version, a fingerprint of each task's records, the
evaluator's identity, version and code, the agent and its sampling settings, and the package version.

- The env version is the newest entry of the ``## Version history`` in the env class's docstring
  (``- v0: initial version (...)``), read from the env's own package.
- A task's data fingerprint is a hash of the Task as built from its source records (its messages, tools,
  reference data, difficulty, provenance and category): an edited data file changes the fingerprints of the
  tasks it feeds and no other. A task's fingerprint is computed once per task list and kept, when a run
  first plays the task.
- The evaluator is what the benchmark's manifest declares (``Manifest.evaluator``: the official package and
  version it mirrors, or our checker's own version) plus a hash of the source of the modules that decide a
  verdict, so an edited checker is noticed even when nobody raised the declared version.

``genenv rescore`` and ``genenv compare`` read these pins back (``pin_differences``).
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, is_dataclass
from functools import cache
from pathlib import Path
from typing import Any

import gymnasium as gym

from genenv_gym.registry.manifest import Evaluator, all_manifests
from genenv_gym.task import Task

#: Hex digits kept of a fingerprint (64 bits: collisions among a benchmark's tasks are not a concern).
FINGERPRINT_CHARS = 16

_VERSION_LINE = re.compile(r"^\s*-\s*(v\d+)\s*:", re.MULTILINE)
#: Task lists whose fingerprints were asked for: ``id(list) -> (the list, its tasks by id, fingerprints)``.
_LIST_CACHE: dict[int, tuple[Sequence[Task], dict[str, Task], dict[str, str]]] = {}
_LIST_CACHE_SIZE = 8


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:FINGERPRINT_CHARS]


def env_version(env_class: type) -> str | None:
    """The newest version named in ``env_class``'s ``## Version history`` (None when it has none)."""
    doc = env_class.__doc__ or ""
    _, found, history = doc.partition("## Version history")
    if not found:
        return None
    versions = _VERSION_LINE.findall(history.split("\n## ", 1)[0])
    return max(versions, key=lambda v: int(v[1:])) if versions else None


def task_fingerprint(task: Task) -> str:
    """A hash of ``task`` as built from its source records."""
    return _digest(task.to_json().encode("utf-8"))


def _list_entry(tasks: Sequence[Task]) -> tuple[dict[str, Task], dict[str, str]]:
    """A task list's tasks by id and its kept fingerprints (filled as they are asked for)."""
    cached = _LIST_CACHE.get(id(tasks))
    if cached is None or cached[0] is not tasks:
        if len(_LIST_CACHE) >= _LIST_CACHE_SIZE:
            _LIST_CACHE.pop(next(iter(_LIST_CACHE)))
        cached = _LIST_CACHE[id(tasks)] = (tasks, {task.id: task for task in tasks}, {})
    return cached[1], cached[2]


def listed_task_fingerprint(tasks: Sequence[Task], task_id: str) -> str | None:
    """The fingerprint of the task ``task_id`` of a list, computed once per list object and kept (None
    when the list has no such task)."""
    by_id, kept = _list_entry(tasks)
    if task_id not in kept and task_id in by_id:
        kept[task_id] = task_fingerprint(by_id[task_id])
    return kept.get(task_id)


def task_list_fingerprints(tasks: Sequence[Task]) -> dict[str, str]:
    """Task id -> fingerprint for every task of a list, computed once per list object and kept."""
    by_id, kept = _list_entry(tasks)
    for task_id in by_id.keys() - kept.keys():
        kept[task_id] = task_fingerprint(by_id[task_id])
    return kept


def data_fingerprint(task_fingerprints: Iterable[tuple[str, str]]) -> str:
    """One hash of the ``(task id, fingerprint)`` pairs a run played (each task once, in any order)."""
    pairs = sorted(set(task_fingerprints))
    return _digest("\n".join(f"{task_id}\t{fp}" for task_id, fp in pairs).encode("utf-8"))


def _module_source(module: str) -> bytes:
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise ValueError(f"evaluator module {module!r} is not importable: fix the manifest's Evaluator")
    return Path(spec.origin).read_bytes()


@cache
def evaluator_code(evaluator: Evaluator) -> str:
    """A hash of the source of the modules that decide ``evaluator``'s verdicts (once per process)."""
    sha = hashlib.sha256()
    for module in evaluator.modules:
        sha.update(module.encode() + b"\0" + _module_source(module) + b"\0")
    return sha.hexdigest()[:FINGERPRINT_CHARS]


def evaluator_of(domain_name: str) -> Evaluator | None:
    """The evaluator the manifest declaring ``domain_name`` names (None when none does)."""
    for manifest in all_manifests():
        if any(spec.name == domain_name for spec in manifest.domains):
            return manifest.evaluator
    return None


def evaluator_pin(domain_name: str) -> dict[str, str | None]:
    """``{"name", "version", "code"}`` of the evaluator judging ``domain_name`` (all None when unknown)."""
    evaluator = evaluator_of(domain_name)
    if evaluator is None:
        return {"name": None, "version": None, "code": None}
    return {"name": evaluator.name, "version": evaluator.version, "code": evaluator_code(evaluator)}


def package_version() -> str:
    from genenv_gym import __version__

    return __version__


def sampling_settings(params: Any) -> dict[str, Any]:
    """An LLM agent's sampling parameters as JSON (empty for a scripted agent)."""
    if params is None:
        return {}
    return {k: v for k, v in (asdict(params) if is_dataclass(params) else dict(params)).items()}


class RunPins:
    """The pins of one ``evaluate`` run on one env: ``episode`` for each record, ``report`` for the report."""

    def __init__(
        self,
        env: gym.Env,
        env_id: str,
        agent: str,
        env_kwargs: Mapping[str, Any] | None,
        seed: int,
        samples: int,
        sampling: Mapping[str, Any],
    ) -> None:
        unwrapped = env.unwrapped
        self.tasks: Sequence[Task] | None = getattr(unwrapped, "tasks", None)
        self.common = {
            "env_id": env_id,
            "env_version": env_version(type(unwrapped)),
            "evaluator": evaluator_pin(unwrapped.domain.name),
            "agent": agent,
            "package": package_version(),
        }
        self.env_kwargs = dict(env_kwargs or {})
        self.seed, self.samples, self.sampling = seed, samples, dict(sampling)
        self.played: dict[str, str] = {}

    def episode(self, task_id: str | None, task: Task | None, sample: int) -> dict[str, Any]:
        """The pins of one episode record (``task``: the Task played, for envs without a task list)."""
        fingerprint = None
        if self.tasks is not None and task_id is not None:
            fingerprint = listed_task_fingerprint(self.tasks, task_id)
        elif task is not None:
            fingerprint = task_fingerprint(task)
        if task_id is not None and fingerprint is not None:
            self.played[task_id] = fingerprint
        sampling = dict(self.sampling)
        if sampling.get("seed") is not None:
            sampling["seed"] = sample_seed(sampling["seed"], sample)
        return {**self.common, "data": fingerprint, "sample": sample, "sampling": sampling}

    def report(self) -> dict[str, Any]:
        """The run's pins: the common ones, the data fingerprint of the tasks played, the seed schedule."""
        return {
            **self.common,
            "env_kwargs": self.env_kwargs,
            "data": data_fingerprint(self.played.items()),
            "tasks": len(self.played),
            "samples": self.samples,
            "sampling": self.sampling,
            "seed": self.seed,
            "seed_schedule": SEED_SCHEDULE,
        }


#: How a run's seeds are drawn: recorded in every report.
SEED_SCHEDULE = (
    "episode i (plan order; the plan is every task once per sample, sample after sample): scripted agents "
    "draw from numpy.random.default_rng([seed, i]); LLM agents sample sample s with seed + s; the env's "
    "first reset gets seed"
)


def sample_seed(seed: int, sample: int) -> int:
    """The sampling seed of an LLM agent's ``sample``-th try of each task."""
    return seed + sample


def pin_differences(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """One line per pin that differs between two runs' report pins on the same env (env version, evaluator
    name / version / code, data, package), ``[]`` when none does."""
    lines = []
    if old.get("env_version") != new.get("env_version"):
        lines.append(f"env version {old.get('env_version')} -> {new.get('env_version')}")
    before, after = old.get("evaluator") or {}, new.get("evaluator") or {}
    for key, what in (("name", "evaluator"), ("version", "evaluator version"), ("code", "checker code")):
        if before.get(key) != after.get(key):
            lines.append(f"{what} {before.get(key)} -> {after.get(key)}")
    if old.get("data") != new.get("data"):
        lines.append(f"data {old.get('data')} -> {new.get('data')}")
    if old.get("package") != new.get("package"):
        lines.append(f"package {old.get('package')} -> {new.get('package')}")
    return lines
