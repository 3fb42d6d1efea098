"""The Digits domain: "reverse: 3 1 4" -> "4 1 3", with the string's length as the difficulty knob.

This is not a benchmark: it exists so the co-evolution trainer can be shown end to end on a laptop CPU
in minutes (BFCL prompts are hundreds of tokens long, far beyond what a tiny model learns that fast).
It is a real Domain all the same: procedural generation at ``num_levels`` difficulty levels (level ``l``
has ``l + 1`` digits), validation of generated tasks, an exact-match verifier, and a fixed held-out set
(``load_tasks``) that plays the role of the benchmark.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from genenv_gym.domain import Domain, Verdict
from genenv_gym.envs.benchmark_env import BenchmarkEnv
from genenv_gym.task import Task

NUM_LEVELS = 8
HELDOUT_SEED = 20251222
HELDOUT_PER_LEVEL = 25


def _answer(digits: str) -> str:
    return " ".join(reversed(digits.split()))


class DigitsDomain(Domain):
    """Reverse a space-separated digit string; level ``l`` has ``l + 1`` digits."""

    name = "digits"
    num_levels = NUM_LEVELS
    action_format = "text"

    def __init__(self, num_levels: int = NUM_LEVELS, heldout_per_level: int = HELDOUT_PER_LEVEL) -> None:
        if num_levels < 1:
            raise ValueError(f"num_levels must be >= 1, got {num_levels}")
        self.num_levels = num_levels
        self.heldout_per_level = heldout_per_level

    def categories(self) -> tuple[str, ...]:
        return tuple(f"level_{level}" for level in range(self.num_levels))

    def load_tasks(self, categories: Sequence[str] | None = None, data_dir: str | None = None) -> list[Task]:
        """The held-out set: ``heldout_per_level`` tasks per level from a fixed seed (never trained on)."""
        rng = np.random.default_rng(HELDOUT_SEED)
        tasks = []
        for level in range(self.num_levels):
            for i in range(self.heldout_per_level):
                task = self.generate(
                    level, rng, task_id=f"digits-heldout-{level}-{i}", provenance="benchmark:heldout"
                )
                if categories is None or task.category in categories:
                    tasks.append(task)
        return tasks

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
        if not 0 <= level < self.num_levels:
            raise ValueError(f"level must be in [0, {self.num_levels}), got {level}")
        digits = " ".join(str(int(d)) for d in rng.integers(0, 10, size=level + 1))
        if task_id is None:
            task_id = f"digits-{level}-{int(rng.integers(1 << 62)):x}"
        return self.make_task(digits, level, task_id, provenance)

    def render(self, task: Task) -> str:
        return str(task.messages[0]["content"])

    def verify(self, task: Task, action: str) -> Verdict:
        got = " ".join(str(action).split())
        expected = str(task.evaluation["answer"])
        if got == expected:
            return Verdict(reward=1.0, success=True)
        return Verdict(reward=0.0, success=False, error_type="wrong_answer", error=f"expected {expected!r}")

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
        if task.level != len(digits) - 1:
            problems.append(f"level {task.level} does not match the length {len(digits)}")
        return problems

    def oracle_action(self, task: Task) -> str:
        return str(task.evaluation["answer"])

    def random_action(self, task: Task, rng: np.random.Generator) -> str:
        return " ".join(str(int(d)) for d in rng.integers(0, 10, size=task.level + 1))


class DigitsEnv(BenchmarkEnv):
    """``GenEnv-Digits-v0``: the Digits held-out set (the CPU miniature's benchmark).

    Observation: ``"reverse: 3 1 4"``. Action: the reversed string (``"4 1 3"``, whitespace-insensitive).
    Reward 1 on an exact match, else 0. One step per episode.
    """

    def __init__(
        self,
        categories: Sequence[str] | None = None,
        data_dir: str | None = None,
        render_mode: str | None = None,
        **domain_kwargs: int,
    ) -> None:
        # data_dir is accepted like every benchmark env's and ignored: the held-out set is generated
        # from a fixed seed, no files are read.
        super().__init__(DigitsDomain(**domain_kwargs), categories, None, render_mode=render_mode)
