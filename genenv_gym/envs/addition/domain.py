"""The padded-addition domain: ``a + b`` with both operands written as 6 digits, least-significant first.

Notation (the prompt and the answer use the same one): a number is written as ``WIDTH`` (6) single digits
separated by spaces, least-significant digit first, zero-padded on the right. ``a = 314`` is
``"4 1 3 0 0 0"``. The prompt is ``"add: <a> + <b>"``; the answer is the sum in the same notation with
``WIDTH + 1`` (7) digits, the width of the largest sum (999999 + 999999 = 1999998)::

    add: 4 1 3 0 0 0 + 7 2 0 0 0 0      (314 + 27)
    1 4 3 0 0 0 0                         (341)

The difficulty knob is the operands' number of significant digits ``k`` (both operands have ``k``
digits: ``10**(k-1) <= a, b < 10**k``, and ``0 <= a, b <= 9`` for ``k = 1``). Level ``2(k - 1)`` is ``k``
digits; level ``2(k - 1) + 1`` draws ``k`` or ``k + 1`` with equal odds (a half level, so a batch can sit
between a solved and an unsolved width); 11 levels for ``k = 1..6``. A model that learns the per-position
rule (digit sum plus carry) on short operands can carry it to longer ones, since every prompt has the same
shape; how far it carries is what the curriculum-efficacy benchmark measures (docs/experiments/design3.md).

Not a published benchmark: a real Domain all the same, with a procedural generator, an exact-match
verifier, a validator and a fixed held-out set (200 tasks per whole level from a fixed seed).
"""

from __future__ import annotations

import numpy as np

from genenv_gym.domain import check_level
from genenv_gym.envs.one_line_answer import OneLineAnswerDomain
from genenv_gym.task import Task

#: Digits per operand in the prompt (zero-padded); the answer has one more.
WIDTH = 6
#: The most significant digits an operand has (levels reach ``MAX_DIGITS``-digit operands).
MAX_DIGITS = 6
HELDOUT_SEED = 20261126
HELDOUT_PER_LEVEL = 200
PREFIX = "add: "


def write_number(n: int, width: int) -> str:
    """``n`` as ``width`` space-separated digits, least-significant first (``314, 6 -> "4 1 3 0 0 0"``)."""
    return " ".join(str(n)[::-1].ljust(width, "0"))


def read_number(text: str, width: int) -> int | None:
    """The number ``write_number`` wrote as ``text`` (exactly ``width`` single digits), else None."""
    items = text.split()
    if len(items) != width or any(len(d) != 1 or d not in "0123456789" for d in items):
        return None
    return int("".join(reversed(items)))


def level_digits(level: int) -> tuple[int, ...]:
    """The operand widths (significant digits) of a level: ``(k,)`` at ``2(k - 1)``, ``(k, k + 1)`` at
    ``2(k - 1) + 1``."""
    k = level // 2 + 1
    return (k,) if level % 2 == 0 else (k, k + 1)


def significant_digits(n: int) -> int:
    """How many digits ``n`` has in ordinary notation (0 has one)."""
    return len(str(n))


class PaddedAdditionDomain(OneLineAnswerDomain):
    """``a + b`` on zero-padded little-endian 6-digit operands; 11 levels of operand width in half steps
    (see the module docstring for the notation)."""

    name = "padded-addition"
    num_levels = 2 * MAX_DIGITS - 1
    action_format = "text"
    task_id_prefix = "addition"
    heldout_seed = HELDOUT_SEED
    wrong_answer_error = (
        f"not the sum as {WIDTH + 1} single digits, least-significant first, separated by spaces"
    )

    def __init__(self, heldout_per_level: int = HELDOUT_PER_LEVEL) -> None:
        self.heldout_per_level = heldout_per_level

    def digits(self, level: int) -> tuple[int, ...]:
        """The operand widths level ``level`` draws from."""
        return level_digits(level)

    def heldout_levels(self) -> tuple[int, ...]:
        """The whole levels, each of a single operand width: 0, 2, ..., 10."""
        return tuple(range(0, self.num_levels, 2))

    def make_task(self, a: int, b: int, level: int, task_id: str, provenance: str = "procedural") -> Task:
        """The task ``a + b`` (``0 <= a, b < 10**WIDTH``) at ``level``."""
        prompt = f"{PREFIX}{write_number(a, WIDTH)} + {write_number(b, WIDTH)}"
        return Task(
            id=task_id,
            domain=self.name,
            messages=({"role": "user", "content": prompt},),
            evaluation={"answer": write_number(a + b, WIDTH + 1)},
            difficulty={"level": level, "digits": max(significant_digits(a), significant_digits(b))},
            provenance=provenance,
            category=f"level_{level}",
        )

    def generate(
        self, level: int, rng: np.random.Generator, task_id: str | None = None, provenance: str = "procedural"
    ) -> Task:
        check_level(level, self.num_levels)
        widths = self.digits(level)
        k = widths[int(rng.integers(len(widths)))] if len(widths) > 1 else widths[0]
        low = 0 if k == 1 else 10 ** (k - 1)
        a, b = (int(x) for x in rng.integers(low, 10**k, size=2))
        if task_id is None:
            task_id = self.procedural_id(level, rng)
        return self.make_task(a, b, level, task_id, provenance)

    def operands(self, task: Task) -> tuple[int, int] | None:
        """``(a, b)`` read back from the prompt, or None when it is not ``"add: <6 digits> + <6 digits>"``."""
        content = str(task.messages[0]["content"]) if task.messages else ""
        if not content.startswith(PREFIX) or content.count("+") != 1:
            return None
        left, right = content[len(PREFIX) :].split("+")
        a, b = read_number(left, WIDTH), read_number(right, WIDTH)
        return None if a is None or b is None else (a, b)

    def validate(self, task: Task) -> list[str]:
        operands = self.operands(task)
        if operands is None:
            return [f"prompt must be '{PREFIX}' and two {WIDTH}-digit little-endian numbers joined by ' + '"]
        a, b = operands
        problems = []
        if task.evaluation.get("answer") != write_number(a + b, WIDTH + 1):
            problems.append("the reference answer is not the sum")
        if not 0 <= task.level < self.num_levels:
            problems.append(f"level {task.level} is outside [0, {self.num_levels})")
            return problems
        widths = (significant_digits(a), significant_digits(b))
        allowed = " or ".join(str(k) for k in self.digits(task.level))
        if widths[0] != widths[1]:
            problems.append(
                f"the operands must have as many digits as each other, not {widths[0]} and {widths[1]}"
            )
        elif widths[0] not in self.digits(task.level):
            problems.append(f"level {task.level} has {allowed}-digit operands, not {widths[0]}-digit ones")
        return problems

    def random_action(self, task: Task, rng: np.random.Generator) -> str:
        return " ".join(str(int(d)) for d in rng.integers(0, 10, size=WIDTH + 1))
