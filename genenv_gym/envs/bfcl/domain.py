"""The BFCL domain: official AST records and generated tasks, rendered, graded and validated alike."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from genenv_gym.datasets.data_dir import data_root
from genenv_gym.datasets.task_cache import cached_tasks
from genenv_gym.domain import Domain, Verdict
from genenv_gym.envs.bfcl import generator
from genenv_gym.envs.bfcl.categories import AST_CATEGORIES, language_of
from genenv_gym.envs.bfcl.checker import grade_output
from genenv_gym.envs.bfcl.data import category_files, chosen_categories, load_records
from genenv_gym.envs.bfcl.known_defects import reference_failures
from genenv_gym.envs.bfcl.prompt import prompt_messages, render_messages
from genenv_gym.envs.bfcl.render import render_answer
from genenv_gym.envs.bfcl.summary import summary_scores
from genenv_gym.envs.bfcl.validation import REFUSAL, validate_record
from genenv_gym.suggest import check_choice
from genenv_gym.task import Task, thaw

ACTION_FORMATS = ("python", "json")
#: How many tasks' thawed functions and possible answers ``verify`` keeps (the tasks graded last).
PLAIN_RECORDS_KEPT = 4096


def redact_expected(message: str) -> str:
    """An official checker message without the allowed values it lists (``Expected one of [...]``).

    The official messages name the possible answers; in an env, ``info["error"]`` reaches the agent (and a
    simulator env serves each task several times), so the values are cut and the rest of the message kept.
    """
    head, found, _ = message.partition(" Expected one of ")
    return head + " (the allowed values are not shown)" if found else message


class BFCLDomain(Domain):
    """BFCL single-turn function calling, graded by the official AST checker.

    Args:
        action_format: ``"python"`` for BFCL's prompting format ``[f(a=1), g(b='x')]`` (the official
            default), or ``"json"`` for JSON tool calls (the "FC" style).
    """

    name = "bfcl"
    num_levels = generator.NUM_LEVELS

    def __init__(self, action_format: str = "python") -> None:
        check_choice("action_format", action_format, ACTION_FORMATS)
        self.action_format = action_format
        self._plain: dict[int, tuple[Task, list[dict[str, Any]], list[dict[str, Any]] | None]] = {}

    def categories(self) -> tuple[str, ...]:
        return AST_CATEGORIES

    def load_tasks(self, categories: Sequence[str] | None = None, data_dir: str | None = None) -> list[Task]:
        """The official records of ``categories`` (all 13 when None) as Tasks, through the task cache."""
        chosen = chosen_categories(categories)
        root = str(data_root(data_dir))
        return [task for category in chosen for task in self._category_tasks(category, root)]

    def _category_tasks(self, category: str, root: str) -> tuple[Task, ...]:
        def build() -> list[Task]:
            return [
                self.make_task(
                    task_id=record["id"],
                    category=record["category"],
                    question=record["question"][0],
                    functions=record["function"],
                    ground_truth=record["ground_truth"],
                    difficulty={},
                    provenance="benchmark:bfcl_v4",
                )
                for record in load_records([category], root)
            ]

        params = {"category": category, "action_format": self.action_format}
        return cached_tasks(self.name, category_files(category, root), build, params)

    def make_task(
        self,
        task_id: str,
        category: str,
        question: list[dict[str, str]],
        functions: list[dict[str, Any]],
        ground_truth: list[dict[str, Any]] | None,
        difficulty: dict[str, Any],
        provenance: str,
    ) -> Task:
        """A Task whose messages are the full prompt (system prompt with the functions, then the turn)."""
        features = {
            "n_functions": len(functions),
            "n_calls": len(ground_truth) if ground_truth else 0,
            **difficulty,
        }
        return Task(
            id=task_id,
            domain=self.name,
            messages=prompt_messages(question, functions, language_of(category), self.action_format),
            tools=functions,
            evaluation={"ground_truth": ground_truth, "action_format": self.action_format},
            difficulty=features,
            provenance=provenance,
            category=category,
        )

    def render(self, task: Task) -> str:
        return render_messages(thaw(task.messages))

    def verify(self, task: Task, action: str) -> Verdict:
        if not isinstance(action, str):
            return Verdict(
                0.0, False, "action_error:not_text", f"action must be a str, got {type(action).__name__}"
            )
        functions, ground_truth = self._plain_record(task)
        result = grade_output(
            action,
            functions,
            ground_truth,
            task.category,
            task.evaluation.get("action_format", self.action_format),
        )
        return Verdict(
            reward=1.0 if result.valid else 0.0,
            success=result.valid,
            error_type=result.error_type,
            error="; ".join(redact_expected(e) for e in result.errors) if result.errors else None,
            details={"category": task.category},
        )

    def _plain_record(self, task: Task) -> tuple[list[dict[str, Any]], list[dict[str, Any]] | None]:
        """The task's functions and possible answers as plain data, thawed once per task: the checker keeps
        its per-record index (``answer_index.record_index``) by the identity of these objects."""
        entry = self._plain.get(id(task))
        if entry is None or entry[0] is not task:
            ground_truth = task.evaluation.get("ground_truth")
            entry = (task, thaw(task.tools), None if ground_truth is None else thaw(ground_truth))
            if len(self._plain) >= PLAIN_RECORDS_KEPT:
                self._plain.pop(next(iter(self._plain)))
            self._plain[id(task)] = entry
        return entry[1], entry[2]

    def validate(self, task: Task) -> list[str]:
        if task.domain != self.name:
            return [f"task belongs to domain {task.domain!r}, not {self.name!r}"]
        if task.category not in AST_CATEGORIES:
            return [f"unknown category {task.category!r}"]
        question = [m for m in thaw(task.messages) if m.get("role") == "user"]
        ground_truth = task.evaluation.get("ground_truth")
        return validate_record(
            thaw(task.tools),
            None if ground_truth is None else thaw(ground_truth),
            task.category,
            question[-1]["content"] if question else "",
        )

    def generate(self, level: int, rng: np.random.Generator) -> Task:
        record = generator.generate(level, rng)
        digest = hashlib.sha1(
            json.dumps([record.question, record.functions, record.ground_truth], sort_keys=True).encode()
        ).hexdigest()[:12]
        return self.make_task(
            task_id=f"bfcl_gen_{record.category}_{digest}",
            category=record.category,
            question=[{"role": "user", "content": record.question}],
            functions=record.functions,
            ground_truth=record.ground_truth,
            difficulty={**record.knobs, "level": int(level)},
            provenance="procedural",
        )

    def reference_failures(self) -> Mapping[str, str]:
        return reference_failures(self.action_format)

    def summarize(self, accuracy: Mapping[str, float], counts: Mapping[str, int]) -> dict[str, float]:
        return summary_scores(accuracy, counts)

    def oracle_action(self, task: Task) -> str:
        ground_truth = task.evaluation.get("ground_truth")
        if task.category.endswith("irrelevance"):
            return REFUSAL
        if ground_truth is None:  # live_relevance: any call passes
            first = task.tools[0]["name"]
            return (
                json.dumps([{"name": first, "arguments": {}}])
                if self.action_format == "json"
                else f"[{first}()]"
            )
        return render_answer(
            thaw(ground_truth), thaw(task.tools), language_of(task.category), self.action_format
        )

    def random_action(self, task: Task, rng: np.random.Generator) -> str:
        functions = thaw(task.tools)
        if not functions:
            return REFUSAL
        function = functions[int(rng.integers(len(functions)))]
        properties = function.get("parameters", {}).get("properties", {})
        required = function.get("parameters", {}).get("required", [])
        call = {
            name: [random_value(properties.get(name, {}).get("type", "string"), rng)] for name in required
        }
        return render_answer(
            [{function["name"]: call}], functions, language_of(task.category), self.action_format
        )


_WORDS = ("alpha", "blue", "city", "delta", "east", "forest", "green", "house", "river", "stone")


def random_value(declared_type: str, rng: np.random.Generator) -> Any:
    """A random value of a BFCL (or Java/JavaScript) parameter type."""
    kind = declared_type.lower()
    if kind in ("integer", "int", "long", "short", "byte"):
        return int(rng.integers(0, 100))
    if kind in ("float", "double", "number"):
        return float(np.round(rng.uniform(0, 100), 2))
    if kind == "boolean":
        return bool(rng.integers(2))
    if kind in ("array", "arraylist", "tuple"):
        return [str(rng.choice(_WORDS))]
    if kind in ("dict", "hashmap", "object"):
        return {}
    return str(rng.choice(_WORDS))
