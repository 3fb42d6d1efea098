"""How an environment LLM writes Digits tasks: a one-line prompt and a one-key JSON reply.

The prompt is short on purpose (a tiny model must learn to answer it): a fixed system turn
``Write one reverse task as JSON: {"digits": "d d d"}`` and a user turn::

    Level 3 of 14, like "d d" or "d d d"; agent solves 40%.

and the reply is one strict JSON object holding the digit string only::

    {"digits": "3 1 4 1"}

The level of the task is not taken from the reply: it is the level at which ``Domain.validate`` accepts
the string (the target level when that one does, else the lowest that does), so the writer follows the
domain's level grid through its public API (``make_task``, ``validate``, ``lengths``) and never restates
it. A string no level accepts is rejected (kind ``invalid``, with the domain's reason at the target level).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from genenv_gym.domain import Domain
from genenv_gym.envs.digits.domain import DigitsDomain
from genenv_gym.llm_simulator.writer import (
    Target,
    TaskRejected,
    TaskWriterBase,
    require_keys,
    strict_json_object,
    task_at_a_valid_level,
    task_digest,
)
from genenv_gym.skill import SkillEstimate
from genenv_gym.task import Task

#: The longest digit string parsed (whitespace-separated items); longer replies are rejected unread.
MAX_ITEMS = 64
#: The system turn of every prompt (it replaces the chat template's longer default one).
SYSTEM = 'Write one reverse task as JSON: {"digits": "d d d"}'
#: The user turn: the target level, the shapes of its tasks and the agent's success there.
REQUEST = "Level {level} of {top}, like {shape}; agent solves {success}%."


class DigitsTaskWriter(TaskWriterBase):
    """The TaskWriter of the Digits domain (see the module docstring)."""

    domain: DigitsDomain
    #: The prompt shows no seed tasks; they only seed deduplication.
    validate_seeds = False

    def __init__(self, domain: DigitsDomain, seed: int = 0) -> None:
        super().__init__(domain, seed)
        self._shapes: dict[int, str] = {}

    def prompt(self, seeds: Sequence[Task], skill: SkillEstimate, target: Target) -> list[dict[str, str]]:
        """The fixed system turn and the target level with the agent's success there (to 10%); no examples."""
        success = round(10 * min(max(target.success_at_level, 0.0), 1.0)) * 10
        shape = self._shape(target.level)
        text = REQUEST.format(level=target.level, top=target.num_levels - 1, shape=shape, success=success)
        return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": text}]

    def _shape(self, level: int) -> str:
        """Every length ``level`` draws from (``DigitsDomain.lengths``) as digits masked: ``"d d d"``, or
        ``"d d d" or "d d d d"`` at a level that mixes two lengths (so written tasks mix them too)."""
        if level not in self._shapes:
            if not 0 <= level < self.domain.num_levels:
                return '"?"'
            lengths = self.domain.lengths(level)
            self._shapes[level] = " or ".join('"' + " ".join(["d"] * n) + '"' for n in lengths)
        return self._shapes[level]

    def parse(self, reply: str, target: Target, provenance: str) -> Task:
        """The Task of a ``{"digits": "..."}`` reply; TaskRejected when it is not one."""
        data = strict_json_object(reply)
        require_keys(data, ("digits",))
        value = data["digits"]
        if not isinstance(value, str):
            raise TaskRejected("parse", f"digits must be a string, got {type(value).__name__}")
        items = value.split()
        if not items:
            raise TaskRejected("parse", "digits is empty")
        if len(items) > MAX_ITEMS:
            raise TaskRejected("oversize", f"{len(items)} items (limit {MAX_ITEMS})")
        digits = " ".join(items)
        task_id = f"digits-llm-{task_digest(digits)}"
        return task_at_a_valid_level(
            self.domain, target, lambda level: self.domain.make_task(digits, level, task_id, provenance)
        )

    def fingerprint(self, task: Task) -> tuple[str, str]:
        """Key: the digit string; text: the digits without spaces (4-gram similarity over digit runs)."""
        digits = task_digits(self.domain, task)
        return f"digits:{digits}", digits.replace(" ", "")

    def reply_text(self, task: Task) -> str:
        """The reply that writes ``task`` (the target of the simulator's supervised warm start)."""
        return json.dumps({"digits": task_digits(self.domain, task)})


def task_digits(domain: Domain, task: Task) -> str:
    """The digit string of a Digits task, read back through the domain's reference answer (its reverse)."""
    return " ".join(reversed(str(domain.oracle_action(task)).split()))
