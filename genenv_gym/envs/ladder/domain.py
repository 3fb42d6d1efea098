"""The ladder domain: a chain of secret permutations, one step per level, so that level ``k`` is the
stepping stone to level ``k + 1`` (the curriculum-efficacy designs' family, docs/experiments/design4.md and
design5.md).

``num_symbols`` symbols (``A``, ``B``, ...) and ``num_steps`` secret permutations ``pi_1 .. pi_n`` of them,
drawn from ``seed`` (a training run passes its own seed as ``run.domain_seed``, so every run climbs its own
ladder). Level ``l`` asks for the first ``l + 1`` steps from a start symbol ``x_0``: the prompt is
``climb <l + 1> from <x_0>`` and the answer writes every step with its label,
``x_k = pi_k(x_{k-1})``::

    climb 3 from B
    1D 2A 3C

Each step has its own labelled place in the answer, so solving level ``l + 1`` needs exactly what level ``l``
needs plus one lookup (``pi_{l+2}`` at one symbol): no step asks the model to generalise to a length or a
position it has not been trained on. The reward is an exact match of the whole answer.

The first ``public_steps`` permutations are public: the supervised warm start (``warmstart_action``) writes
them, and writes a uniformly random symbol at every later (secret) step, so that a warm-started agent knows
the format of every level and the public steps and is at chance (``1 / num_symbols``) on each secret step.
Only reinforcement learning on the agent's own attempts can find the secret steps.

The held-out set is exhaustive: every start symbol at every level (``num_symbols * num_steps`` tasks; 32
by default).

**Disjoint alphabets** (``disjoint=True``; the registered domain ``ladder-disjoint``: 8 symbols, 64 held-out
tasks): every step writes symbols of its own alphabet, and the start symbols are an alphabet of their own,
so ``pi_k`` maps alphabet ``k - 1`` onto alphabet ``k`` and no symbol is written at two steps. The
``num_steps + 1`` alphabets of ``num_symbols`` symbols are a partition, drawn from ``seed``, of the first
``(num_steps + 1) * num_symbols`` symbols of ``DISJOINT_POOL`` (letters, then punctuation): with shared
symbols a map learned for one step leaks into the others (docs/experiments/design5.md). Every symbol of the
pool is one token of the efficacy learner's tokenizer beside a label digit and a space (tested)::

    climb 3 from q
    1K 2; 3b
"""

from __future__ import annotations

import math
import re
import string
from collections.abc import Sequence

import numpy as np

from genenv_gym.domain import Verdict, check_level
from genenv_gym.envs.one_line_answer import OneLineAnswerDomain
from genenv_gym.task import Task

NUM_SYMBOLS = 4
#: Steps (levels); their labels are single digits, so at most 9.
NUM_STEPS = 8
PUBLIC_STEPS = 2
DEFAULT_SEED = 0
PREFIX = "climb "
PROMPT = re.compile(r"climb ([1-9]) from (\S)")
#: The symbols of the disjoint ladder: letters, then punctuation without quotes and backslash (72 = 9 x 8
#: are used at the default size).
DISJOINT_POOL = string.ascii_uppercase + string.ascii_lowercase + "!#$%&()*+,-./:;<=>?@[]^_{|}~"


def disjoint_alphabets(num_symbols: int, num_steps: int, seed: int) -> tuple[str, ...]:
    """``num_steps + 1`` disjoint alphabets of ``num_symbols`` symbols (the start's, then each step's), a
    partition of the pool's first ``(num_steps + 1) * num_symbols`` symbols drawn from ``seed``."""
    needed = (num_steps + 1) * num_symbols
    if needed > len(DISJOINT_POOL):
        raise ValueError(
            f"disjoint alphabets need (num_steps + 1) * num_symbols <= {len(DISJOINT_POOL)} symbols, got "
            f"{needed}: use fewer symbols or steps"
        )
    order = np.random.default_rng([seed, num_symbols, num_steps, 1]).permutation(needed)
    drawn = "".join(DISJOINT_POOL[int(i)] for i in order)
    return tuple(drawn[k * num_symbols : (k + 1) * num_symbols] for k in range(num_steps + 1))


def secret_permutations(num_symbols: int, num_steps: int, seed: int) -> tuple[tuple[int, ...], ...]:
    """The ladder's ``num_steps`` permutations of ``range(num_symbols)``, drawn from ``seed``; all different
    where there are enough permutations (``num_symbols! >= num_steps``), so no secret step repeats another."""
    rng = np.random.default_rng([seed, num_symbols, num_steps])
    distinct = math.factorial(num_symbols) >= num_steps
    out: list[tuple[int, ...]] = []
    while len(out) < num_steps:
        permutation = tuple(int(i) for i in rng.permutation(num_symbols))
        if not distinct or permutation not in out:
            out.append(permutation)
    return tuple(out)


class LadderDomain(OneLineAnswerDomain):
    """Level ``l``: write the ``l + 1`` labelled steps of a chain of secret permutations from a start symbol
    (see the module docstring)."""

    name = "ladder"
    action_format = "text"
    task_id_prefix = "ladder"
    wrong_answer_error = "not the ladder's steps from that symbol"
    format_error = "not one labelled step per level ('1A 2C ...': the step number, then a symbol)"

    def __init__(
        self,
        seed: int = DEFAULT_SEED,
        num_symbols: int = NUM_SYMBOLS,
        num_steps: int = NUM_STEPS,
        public_steps: int = PUBLIC_STEPS,
        disjoint: bool = False,
    ) -> None:
        if not 2 <= num_symbols <= 26:
            raise ValueError(f"num_symbols must be in [2, 26], got {num_symbols}")
        if not 1 <= num_steps <= 9:
            raise ValueError(f"num_steps must be in [1, 9] (single-digit step labels), got {num_steps}")
        if not 0 <= public_steps <= num_steps:
            raise ValueError(f"public_steps must be in [0, {num_steps}], got {public_steps}")
        self.seed = seed
        self.disjoint = disjoint
        #: the start symbols (``alphabets[0]``) and each step's (``alphabets[k]``: the symbols of step ``k``)
        self.alphabets = (
            disjoint_alphabets(num_symbols, num_steps, seed)
            if disjoint
            else (string.ascii_uppercase[:num_symbols],) * (num_steps + 1)
        )
        self.symbols = self.alphabets[0]
        self.num_levels = num_steps
        self.public_steps = public_steps
        self.permutations = secret_permutations(num_symbols, num_steps, seed)
        self.heldout_per_level = num_symbols

    # --- the chain -----------------------------------------------------------------------------------
    def chain(self, start: str, steps: int) -> list[str]:
        """The symbols ``x_1 .. x_steps`` from ``start``."""
        index, out = self.symbols.index(start), []
        for k, permutation in enumerate(self.permutations[:steps], start=1):
            index = permutation[index]
            out.append(self.alphabets[k][index])
        return out

    @staticmethod
    def write(symbols: Sequence[str]) -> str:
        """Labelled steps: ``["D", "A"] -> "1D 2A"``."""
        return " ".join(f"{k}{s}" for k, s in enumerate(symbols, start=1))

    def read(self, text: str, steps: int) -> list[str] | None:
        """The symbols of an answer with exactly ``steps`` labelled steps, else None."""
        items = text.split()
        if len(items) != steps:
            return None
        out = []
        for k, item in enumerate(items, start=1):
            beyond = k >= len(self.alphabets)  # a client's task may ask for more steps than the ladder has
            if beyond or len(item) != 2 or item[0] != str(k) or item[1] not in self.alphabets[k]:
                return None
            out.append(item[1])
        return out

    # --- tasks ---------------------------------------------------------------------------------------
    def heldout_levels(self) -> tuple[int, ...]:
        return tuple(range(self.num_levels))

    def load_tasks(self, categories: Sequence[str] | None = None, data_dir: str | None = None) -> list[Task]:
        """Every start symbol at every level (``num_symbols * num_steps`` tasks), level by level."""
        return [
            self.make_task(start, level, f"ladder-heldout-{level}-{start}", "benchmark:heldout")
            for level in self.heldout_levels()
            for start in self.symbols
            if categories is None or f"level_{level}" in categories
        ]

    def make_task(self, start: str, level: int, task_id: str, provenance: str = "procedural") -> Task:
        """The task of climbing ``level + 1`` steps from ``start``."""
        return Task(
            id=task_id,
            domain=self.name,
            messages=({"role": "user", "content": f"{PREFIX}{level + 1} from {start}"},),
            evaluation={"answer": self.write(self.chain(start, level + 1))},
            difficulty={"level": level, "steps": level + 1, "secret": max(0, level + 1 - self.public_steps)},
            provenance=provenance,
            category=f"level_{level}",
        )

    def generate(
        self, level: int, rng: np.random.Generator, task_id: str | None = None, provenance: str = "procedural"
    ) -> Task:
        check_level(level, self.num_levels)
        start = self.symbols[int(rng.integers(len(self.symbols)))]
        if task_id is None:
            task_id = self.procedural_id(level, rng)
        return self.make_task(start, level, task_id, provenance)

    def parse_prompt(self, task: Task) -> tuple[int, str] | None:
        """``(steps, start)`` of a ``climb <steps> from <start>`` prompt, else None."""
        content = str(task.messages[0]["content"]) if task.messages else ""
        match = PROMPT.fullmatch(content)
        if match is None or match.group(2) not in self.symbols:
            return None
        return int(match.group(1)), match.group(2)

    def validate(self, task: Task) -> list[str]:
        parsed = self.parse_prompt(task)
        if parsed is None:
            return [f"prompt must be '{PREFIX}<1-{self.num_levels}> from <one of {self.symbols}>'"]
        steps, start = parsed
        problems = []
        if steps > self.num_levels:
            problems.append(f"the ladder has {self.num_levels} steps, not {steps}")
        elif task.evaluation.get("answer") != self.write(self.chain(start, steps)):
            problems.append("the reference answer is not the ladder's steps")
        if task.level != steps - 1:
            problems.append(f"level {task.level} climbs {task.level + 1} steps, not {steps}")
        return problems

    def verify(self, task: Task, action: str) -> Verdict:
        """Exact match of the labelled steps; a reply that is not ``steps`` labelled symbols is
        ``wrong_format``, a well-formed wrong one ``wrong_answer``."""
        if not isinstance(action, str):
            error = f"action must be a str, got {type(action).__name__}"
            return Verdict(reward=0.0, success=False, error_type="action_error:not_text", error=error)
        expected = str(task.evaluation["answer"])
        if " ".join(action.split()) == expected:
            return Verdict(reward=1.0, success=True)
        if self.read(action, len(expected.split())) is None:
            return Verdict(reward=0.0, success=False, error_type="wrong_format", error=self.format_error)
        return Verdict(reward=0.0, success=False, error_type="wrong_answer", error=self.wrong_answer_error)

    def warmstart_action(self, task: Task, rng: np.random.Generator) -> str:
        """The public steps of the answer, and a uniformly random symbol at each secret step."""
        symbols = str(task.evaluation["answer"]).split()
        hidden = [
            item if k < self.public_steps else item[0] + self.random_symbol(k + 1, rng)
            for k, item in enumerate(symbols)
        ]
        return " ".join(hidden)

    def random_symbol(self, step: int, rng: np.random.Generator) -> str:
        """A uniformly drawn symbol of step ``step``'s alphabet."""
        alphabet = self.alphabets[step]
        return alphabet[int(rng.integers(len(alphabet)))]

    def random_action(self, task: Task, rng: np.random.Generator) -> str:
        steps = len(str(task.evaluation["answer"]).split())
        picks = rng.integers(0, len(self.symbols), size=steps)
        return self.write([self.alphabets[k][int(i)] for k, i in enumerate(picks, start=1)])


def ladder_disjoint(**kwargs: int | bool) -> LadderDomain:
    """The registered domain ``ladder-disjoint``: 8 symbols a step, each step its own alphabet (64 held-out
    tasks); ``kwargs`` override ``LadderDomain``'s arguments."""
    return LadderDomain(**{"num_symbols": 8, "disjoint": True, **kwargs})
