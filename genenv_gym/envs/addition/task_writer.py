"""How an environment LLM writes padded-addition tasks: a one-line prompt and a two-key JSON reply.

A fixed system turn ``Write one addition task as JSON: {"a": 314, "b": 27}`` and a user turn::

    Level 3 of 10, 2- or 3-digit numbers; agent solves 40%.

and the reply is one strict JSON object with the two operands as ordinary integers (the domain writes them
padded and least-significant first in the prompt)::

    {"a": 52, "b": 81}

The level is not taken from the reply: it is the level at which ``Domain.validate`` accepts the operands
(the target level when that one does, else the lowest that does); operands no level accepts (different
widths, out of range) are rejected (kind ``invalid``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from genenv_gym.envs.addition.domain import WIDTH, PaddedAdditionDomain
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

#: The system turn of every prompt (it replaces the chat template's longer default one).
SYSTEM = 'Write one addition task as JSON: {"a": 314, "b": 27}'
#: The user turn: the target level, the operand widths there and the agent's success there.
REQUEST = "Level {level} of {top}, {shape}-digit numbers; agent solves {success}%."


class PaddedAdditionTaskWriter(TaskWriterBase):
    """The TaskWriter of the padded-addition domain (see the module docstring)."""

    domain: PaddedAdditionDomain
    #: The prompt shows no seed tasks; they only seed deduplication.
    validate_seeds = False

    def prompt(self, seeds: Sequence[Task], skill: SkillEstimate, target: Target) -> list[dict[str, str]]:
        """The fixed system turn and the target level with the agent's success there (to 10%); no examples."""
        success = round(10 * min(max(target.success_at_level, 0.0), 1.0)) * 10
        if 0 <= target.level < self.domain.num_levels:
            shape = " or ".join(str(k) for k in self.domain.digits(target.level))
        else:
            shape = "?"
        text = REQUEST.format(level=target.level, top=target.num_levels - 1, shape=shape, success=success)
        return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": text}]

    def parse(self, reply: str, target: Target, provenance: str) -> Task:
        """The Task of a ``{"a": int, "b": int}`` reply; TaskRejected when it is not one."""
        data = strict_json_object(reply)
        require_keys(data, ("a", "b"))
        a, b = data["a"], data["b"]
        for name, value in (("a", a), ("b", b)):
            if not isinstance(value, int) or isinstance(value, bool):
                raise TaskRejected("parse", f"{name} must be an integer, got {type(value).__name__}")
            if not 0 <= value < 10**WIDTH:
                raise TaskRejected("invalid", f"{name} = {value} is outside [0, {10**WIDTH})")
        task_id = f"addition-llm-{task_digest(a, b)}"
        return task_at_a_valid_level(
            self.domain, target, lambda level: self.domain.make_task(a, b, level, task_id, provenance)
        )

    def fingerprint(self, task: Task) -> tuple[str, str]:
        """Key: the two operands; text: them as digits (4-gram similarity over digit runs)."""
        operands = self.domain.operands(task)
        a, b = operands if operands is not None else (-1, -1)
        return f"addition:{a}+{b}", f"{a}+{b}"

    def reply_text(self, task: Task) -> str:
        """The reply that writes ``task`` (the target of the simulator's supervised warm start)."""
        operands = self.domain.operands(task)
        a, b = operands if operands is not None else (0, 0)
        return json.dumps({"a": a, "b": b})
