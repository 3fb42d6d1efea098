"""How an environment LLM writes tasks for a domain: the TaskWriter protocol, its registry, strict JSON.

A domain's TaskWriter owns three things: the prompt that asks the LLM for one new task (conditioned on
seed tasks of the domain, the agent's recent success and a target difficulty), the parser that turns the
LLM's reply (strict JSON in the domain's task schema) into a Task, and the text that near-duplicate
detection compares. Validation of the parsed Task is the domain's own (``Domain.validate``) plus the
checks every LLM-written task gets in ``LLMSimulator``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from genenv_gym.domain import Domain
from genenv_gym.registry.manifest import domain_specs, load
from genenv_gym.skill import SkillEstimate
from genenv_gym.task import Task

#: Domain name -> "module:Class" of its TaskWriter, as the benchmark manifests declare them (imported only
#: when a simulator needs one).
TASK_WRITERS: dict[str, str] = {
    name: spec.task_writer for name, spec in domain_specs().items() if spec.task_writer is not None
}

#: The longest reply parsed (characters); longer replies are rejected unread.
MAX_REPLY_CHARS = 60_000
#: The deepest JSON nesting accepted (BFCL's deepest real schema nests about 8 levels).
MAX_JSON_DEPTH = 24

_FENCED = re.compile(r"^```(?:json|JSON)?[ \t]*\n(.*)\n```$", re.DOTALL)
_THINK = re.compile(r"^<think>.*?</think>", re.DOTALL)


class TaskRejected(ValueError):
    """A reply is not an acceptable task. ``kind`` groups rejections in the statistics."""

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(f"{kind}: {reason}")
        self.kind = kind
        self.reason = reason


@dataclass(frozen=True)
class Target:
    """The difficulty a prompt asks for: a level and what the agent's record says about it."""

    level: int
    num_levels: int
    alpha: float
    success_at_level: float
    evidence_at_level: float
    recent_success: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "num_levels": self.num_levels,
            "alpha": self.alpha,
            "success_at_level": self.success_at_level,
            "evidence_at_level": self.evidence_at_level,
            "recent_success": self.recent_success,
        }


@runtime_checkable
class TaskWriter(Protocol):
    """The domain-specific half of an LLM simulator.

    A writer may also define ``semantic_problems(task) -> list[str]``: why a well-formed task is still
    wrong in meaning (its reference answer not grounded in its question, ...); the simulator rejects such
    tasks with the kind ``semantic``. ``state_keys`` (a tuple of the reply's top-level keys, default none)
    names world state the agent reads through tools (files' contents, tags): the text screen tests those
    strings as data, not as English prose.
    """

    def seed_tasks(self, n: int, rng: np.random.Generator) -> list[Task]:
        """Example tasks for prompts when the simulator is given none (e.g. procedural ones)."""
        ...

    def prompt(self, seeds: Sequence[Task], skill: SkillEstimate, target: Target) -> list[dict[str, str]]:
        """The chat asking the environment LLM for one new task."""
        ...

    def parse(self, reply: str, target: Target, provenance: str) -> Task:
        """The Task in a reply; raises TaskRejected (kind ``parse``) when it is not one."""
        ...

    def fingerprint(self, task: Task) -> tuple[str, str]:
        """``(exact key, text)``: equal keys are duplicates; similar texts are near-duplicates."""
        ...


class TaskWriterBase(TaskWriter):
    """The parts every domain's TaskWriter shares: its domain, a seeded generator for its prompts' random
    choices, and seed tasks generated procedurally over the domain's levels.

    Subclasses write ``prompt``, ``parse`` and ``fingerprint``; ``validate_seeds`` (default True) keeps
    only the seed tasks the domain validates, and ``seed_levels`` (default: every level of the domain)
    says which levels the seed tasks cycle through.
    """

    validate_seeds: bool = True

    def __init__(self, domain: Domain, seed: int = 0) -> None:
        self.domain = domain
        self.rng = np.random.default_rng(seed)

    @property
    def seed_levels(self) -> int:
        """Seed task ``i`` is generated at level ``i % seed_levels``."""
        return self.domain.num_levels

    def seed_tasks(self, n: int, rng: np.random.Generator) -> list[Task]:
        """Procedural tasks spread over the levels (the prompt's examples when the simulator has none)."""
        tasks = [self.domain.generate(i % self.seed_levels, rng) for i in range(n)]
        return [t for t in tasks if not self.domain.validate(t)] if self.validate_seeds else tasks


def get_task_writer(domain: Domain, **kwargs: Any) -> TaskWriter:
    """The TaskWriter registered for ``domain`` (a ValueError naming the domains that have one if none)."""
    entry = TASK_WRITERS.get(domain.name)
    if entry is None:
        raise ValueError(
            f"domain {domain.name!r} has no task writer, so an LLM cannot write its tasks; domains with one: "
            f"{sorted(TASK_WRITERS)} (name a TaskWriter as the domain's task_writer in its manifest.py, "
            f"or pass writer=...)"
        )
    return load(entry)(domain, **kwargs)


def describe_skill(skill: SkillEstimate, max_levels: int = 16) -> str:
    """The agent's record as prompt text: overall recent success, then success by level where seen."""
    lines = [f"Overall success on recent tasks: {skill.recent_success:.0%}."]
    seen = [
        (lvl, s, e) for lvl, (s, e) in enumerate(zip(skill.success, skill.evidence, strict=True)) if e > 0
    ]
    if seen:
        parts = [f"level {lvl}: {s:.0%} (about {e:.0f} attempts)" for lvl, s, e in seen[:max_levels]]
        lines.append("Success by difficulty level: " + "; ".join(parts) + ".")
    else:
        lines.append("No attempts recorded yet.")
    return "\n".join(lines)


def strict_json_object(reply: str) -> dict[str, Any]:
    """The single JSON object a reply consists of.

    Accepted around it: whitespace, one leading ``<think>...</think>`` block, one enclosing markdown
    ``json`` fence. Anything else (prose, several objects, a truncated object, nesting deeper than
    ``MAX_JSON_DEPTH``, numbers that do not fit) raises TaskRejected of kind ``parse``.
    """
    if len(reply) > MAX_REPLY_CHARS:
        raise TaskRejected("oversize", f"reply has {len(reply)} characters (limit {MAX_REPLY_CHARS})")
    text = _THINK.sub("", reply.strip(), count=1).strip()
    fenced = _FENCED.match(text)
    if fenced:
        text = fenced.group(1).strip()
    if not text.startswith("{"):
        raise TaskRejected("parse", "reply is not a JSON object (it must start with '{')")
    depth = _max_depth(text)
    if depth > MAX_JSON_DEPTH:
        raise TaskRejected("parse", f"JSON nests {depth} levels deep (limit {MAX_JSON_DEPTH})")
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        kind = "truncated" if exc.pos >= len(text) - 1 else "parse"
        raise TaskRejected(kind, f"invalid JSON: {exc.msg} at character {exc.pos}") from None
    except (ValueError, RecursionError) as exc:
        raise TaskRejected("parse", f"invalid JSON: {type(exc).__name__}: {str(exc)[:200]}") from None
    if not isinstance(data, dict):
        raise TaskRejected("parse", f"reply is a JSON {type(data).__name__}, not an object")
    return data


def require_keys(data: Mapping[str, Any], required: Sequence[str], optional: Sequence[str] = ()) -> None:
    """TaskRejected (kind ``parse``) unless ``data`` has every required key and no unknown one."""
    missing = [k for k in required if k not in data]
    unknown = sorted(set(data) - set(required) - set(optional))
    if missing:
        raise TaskRejected("parse", f"missing key(s) {missing}")
    if unknown:
        raise TaskRejected("parse", f"unknown key(s) {unknown[:10]}")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _max_depth(text: str) -> int:
    """Deepest bracket nesting outside strings (a cheap guard before the recursive JSON parser)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def task_digest(*parts: Any) -> str:
    """A short stable hash of JSON-able parts (for the ids of generated tasks)."""
    return hashlib.sha1(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:12]


def task_at_a_valid_level(domain: Domain, target: Target, make: Callable[[int], Task]) -> Task:
    """``make(level)`` at the target level when the domain validates it there, else at the lowest level that
    does (for writers whose reply does not name its level); TaskRejected (``invalid``) with the first
    problems found when no level does."""
    levels = [target.level] + [level for level in range(domain.num_levels) if level != target.level]
    first_problems: list[str] = []
    for level in levels:
        if not 0 <= level < domain.num_levels:
            continue
        task = make(level)
        problems = domain.validate(task)
        if not problems:
            return task
        first_problems = first_problems or problems
    raise TaskRejected("invalid", "; ".join(first_problems or ["no level accepts it"])[:500])
