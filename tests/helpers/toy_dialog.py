"""A multi-turn toy domain for agent and rollout tests: say the secret word within a few turns.

Each turn the env answers ``Turn k: not yet, say the word.``; an action containing the task's secret word
ends the episode with reward 1; after ``turns`` wrong actions the episode is truncated.
"""

from __future__ import annotations

import numpy as np

from genenv_gym.domain import Domain, Episode, StepResult, Verdict
from genenv_gym.envs.benchmark_env import BenchmarkEnv
from genenv_gym.task import Task

WORDS = ("apple", "river", "stone", "cloud", "ember")


class DialogEpisode(Episode):
    def __init__(self, task: Task) -> None:
        super().__init__(task, task.messages[-1]["content"])
        self.turn = 0

    def step(self, action: str) -> StepResult:
        self.turn += 1
        word = self.task.evaluation["word"]
        if isinstance(action, str) and word in action:
            self.done = True
            return StepResult("Correct.", 1.0, True, False, {"success": True, "error_type": None})
        limit = int(self.task.evaluation["turns"])
        truncated = self.turn >= limit
        self.done = truncated
        return StepResult(
            f"Turn {self.turn}: not yet, say the word.", 0.0, False, truncated, {"success": False}
        )

    def oracle_action(self) -> str:
        return self.task.evaluation["word"]

    def random_action(self, rng: np.random.Generator) -> str:
        return str(rng.choice(WORDS))


class DialogDomain(Domain):
    name = "dialog"
    num_levels = 3

    def categories(self):
        return ("dialog",)

    def load_tasks(self, categories=None, data_dir=None):
        return [self.generate(i % self.num_levels, np.random.default_rng(i)) for i in range(6)]

    def render(self, task):
        return task.messages[-1]["content"]

    def verify(self, task, action):
        ok = isinstance(action, str) and task.evaluation["word"] in action
        return Verdict(float(ok), ok, None if ok else "wrong_word")

    def validate(self, task):
        return [] if task.evaluation.get("word") else ["no word"]

    def generate(self, level, rng):
        word = str(rng.choice(WORDS))
        turns = 2 + int(level)
        return Task(
            id=f"dialog_{level}_{word}_{int(rng.integers(1_000_000))}",
            domain=self.name,
            messages=[
                {"role": "system", "content": "You play a word game."},
                {"role": "user", "content": f"The secret word is {word}. Say it (you have {turns} turns)."},
            ],
            evaluation={"word": word, "turns": turns},
            difficulty={"level": int(level)},
            category="dialog",
        )

    def oracle_action(self, task):
        return task.evaluation["word"]

    def random_action(self, task, rng):
        return str(rng.choice(WORDS))

    def start_episode(self, task):
        return DialogEpisode(task)


def make_dialog_env() -> BenchmarkEnv:
    return BenchmarkEnv(DialogDomain())
