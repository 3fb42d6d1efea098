"""The Digits domain: "reverse: 3 1 4" -> "4 1 3", with the string's length as the difficulty knob.

This is not a benchmark: it exists so the co-evolution trainer can be shown end to end on a laptop CPU
in minutes (BFCL prompts are hundreds of tokens long, far beyond what a tiny model learns that fast).
It is a real Domain all the same: procedural generation at ``num_levels`` difficulty levels, validation of
generated tasks, an exact-match verifier, and a fixed held-out set (``load_tasks``) that plays the role of
the benchmark.

Levels are half steps of length by default: level ``2k`` has ``k + 1`` digits and level ``2k + 1`` draws
``k + 1`` or ``k + 2`` digits with equal odds. The agent's success falls steeply from one length to the
next, so with whole lengths alone often no level sits near the curriculum's alpha; a mixed level sits
halfway between its two neighbours' success rates. With ``half_steps=False`` (the ``digits-lengths``
variant) level ``k`` is exactly ``k + 1`` digits: no level mixes a solved length with an unsolved one.
"""

from __future__ import annotations

import numpy as np

from genenv_gym.domain import check_level
from genenv_gym.envs.one_line_answer import OneLineAnswerDomain
from genenv_gym.suggest import check_choice
from genenv_gym.task import Task

NUM_LENGTHS = 8
HELDOUT_SEED = 20251222
HELDOUT_PER_LENGTH = 25


#: Named variants (``run.domain``): keyword arguments of ``DigitsDomain``. ``digits`` is the demo's domain;
#: ``digits-wide`` (the efficacy benchmark's) has lengths 1-10 (19 levels) and 100 held-out tasks per length
#: (1,000), so that a fixed or uniform task distribution spends most samples on solved or hopeless tasks;
#: ``digits-lengths`` (the second efficacy design's) has one length per level, 1-12, and 100 held-out tasks
#: per length (1,200).
VARIANTS: dict[str, dict[str, int | bool]] = {
    "digits": {},
    "digits-wide": {"num_lengths": 10, "heldout_per_length": 100},
    "digits-lengths": {"num_lengths": 12, "heldout_per_length": 100, "half_steps": False},
}


def _answer(digits: str) -> str:
    return " ".join(reversed(digits.split()))


def level_lengths(level: int, half_steps: bool = True) -> tuple[int, ...]:
    """The string lengths of a level: ``(k + 1,)`` at level ``2k``, ``(k + 1, k + 2)`` at ``2k + 1``; without
    half steps ``(level + 1,)``."""
    if not half_steps:
        return (level + 1,)
    shortest = level // 2 + 1
    return (shortest,) if level % 2 == 0 else (shortest, shortest + 1)


class DigitsDomain(OneLineAnswerDomain):
    """Reverse a space-separated digit string; ``2 * num_lengths - 1`` levels in half steps of length, or
    ``num_lengths`` levels of one length each (``half_steps=False``)."""

    name = "digits"
    num_levels = 2 * NUM_LENGTHS - 1
    action_format = "text"
    task_id_prefix = "digits"
    heldout_seed = HELDOUT_SEED
    wrong_answer_error = "not the digits of the prompt in reverse order, separated by single spaces"

    def __init__(
        self,
        num_lengths: int = NUM_LENGTHS,
        heldout_per_length: int = HELDOUT_PER_LENGTH,
        half_steps: bool = True,
    ) -> None:
        if num_lengths < 1:
            raise ValueError(f"num_lengths must be >= 1, got {num_lengths}")
        self.num_lengths = num_lengths
        self.half_steps = half_steps
        self.num_levels = 2 * num_lengths - 1 if half_steps else num_lengths
        self.heldout_per_level = heldout_per_length

    def lengths(self, level: int) -> tuple[int, ...]:
        """The string lengths level ``level`` draws from."""
        return level_lengths(level, self.half_steps)

    def heldout_levels(self) -> tuple[int, ...]:
        """The single-length levels (every level without half steps)."""
        return tuple(range(0, self.num_levels, 2 if self.half_steps else 1))

    def make_task(self, digits: str, level: int, task_id: str, provenance: str = "procedural") -> Task:
        """A task for the digit string ``digits`` (space separated)."""
        return Task(
            id=task_id,
            domain=self.name,
            messages=({"role": "user", "content": f"reverse: {digits}"},),
            evaluation={"answer": _answer(digits)},
            difficulty={"level": level, "length": len(digits.split())},
            provenance=provenance,
            category=f"level_{level}",
        )

    def generate(
        self, level: int, rng: np.random.Generator, task_id: str | None = None, provenance: str = "procedural"
    ) -> Task:
        check_level(level, self.num_levels)
        lengths = self.lengths(level)
        length = lengths[int(rng.integers(len(lengths)))] if len(lengths) > 1 else lengths[0]
        digits = " ".join(str(int(d)) for d in rng.integers(0, 10, size=length))
        if task_id is None:
            task_id = self.procedural_id(level, rng)
        return self.make_task(digits, level, task_id, provenance)

    def validate(self, task: Task) -> list[str]:
        problems = []
        content = str(task.messages[0]["content"]) if task.messages else ""
        if not content.startswith("reverse: "):
            return ["prompt must start with 'reverse: '"]
        digits = content[len("reverse: ") :].split()
        if not digits or any(d not in "0123456789" or len(d) != 1 for d in digits):
            problems.append("the string must be single digits separated by spaces")
        elif task.evaluation.get("answer") != _answer(" ".join(digits)):
            problems.append("the reference answer is not the reversed string")
        if not 0 <= task.level < self.num_levels:
            problems.append(f"level {task.level} is outside [0, {self.num_levels})")
        elif len(digits) not in self.lengths(task.level):
            problems.append(f"level {task.level} has {self.lengths(task.level)} digits, not {len(digits)}")
        return problems

    def random_action(self, task: Task, rng: np.random.Generator) -> str:
        length = len(str(task.evaluation["answer"]).split())
        return " ".join(str(int(d)) for d in rng.integers(0, 10, size=length))


def make_digits_domain(name: str = "digits", **kwargs: int | bool) -> DigitsDomain:
    """The Digits domain of a named variant (``VARIANTS``), ``kwargs`` overriding its arguments; a
    ValueError lists the names."""
    check_choice("Digits variant", name, sorted(VARIANTS))
    return DigitsDomain(**{**VARIANTS[name], **kwargs})


def digits_wide(**kwargs: int | bool) -> DigitsDomain:
    """The registered domain ``digits-wide`` (``VARIANTS``)."""
    return make_digits_domain("digits-wide", **kwargs)


def digits_lengths(**kwargs: int | bool) -> DigitsDomain:
    """The registered domain ``digits-lengths`` (``VARIANTS``)."""
    return make_digits_domain("digits-lengths", **kwargs)
