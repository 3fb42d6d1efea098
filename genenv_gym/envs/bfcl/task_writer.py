"""How an environment LLM writes BFCL tasks: the prompt, the strict JSON schema, and its parser.

The LLM writes only a task's content, as one JSON object::

    {"category": "parallel",
     "question": "What is the weather in Paris and in Rome, in celsius?",
     "functions": [{"name": "weather.get_current", "description": "...",
                    "parameters": {"type": "dict",
                                   "properties": {"city": {"type": "string", "description": "..."},
                                                  "unit": {"type": "string", "description": "...",
                                                           "enum": ["celsius", "fahrenheit"]}},
                                   "required": ["city"]}}],
     "ground_truth": [{"weather.get_current": {"city": ["Paris"], "unit": ["celsius", ""]}},
                      {"weather.get_current": {"city": ["Rome"], "unit": ["celsius", ""]}}]}

The system prompt the agent sees, the task id, the provenance and the difficulty label are written by
the domain, never by the LLM. The task is then validated like a procedural one (``generator.validate_record``
through ``BFCLDomain.validate``) and its reference answer must pass the official checker.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from genenv_gym.envs.bfcl import generator
from genenv_gym.envs.bfcl.domain import BFCLDomain
from genenv_gym.envs.bfcl.task_semantics import task_problems
from genenv_gym.llm_simulator.writer import (
    Target,
    TaskRejected,
    TaskWriterBase,
    describe_skill,
    require_keys,
    strict_json_object,
    task_digest,
)
from genenv_gym.skill import SkillEstimate
from genenv_gym.task import Task, thaw

#: Categories an LLM may write (Python-syntax categories the checker grades from a possible answer).
WRITABLE_CATEGORIES: tuple[str, ...] = generator.GENERATED_CATEGORIES
#: Examples longer than this (characters of JSON) are not shown in prompts.
MAX_EXAMPLE_CHARS = 4000

SYSTEM_PROMPT = """You write new test tasks for a function-calling agent, in the format of the Berkeley \
Function Calling Leaderboard (BFCL). Reply with exactly one JSON object and nothing else: no prose, no \
markdown. Its keys:

- "category": one of {categories}.
  simple_python: one function offered, one call. multiple: two or more functions offered, one call.
  parallel: one function, called two or more times. parallel_multiple: several functions, several calls.
  irrelevance: no offered function can answer the question (no call is correct).
- "question": the user's request, in plain language. State every argument value the calls need.
- "functions": the candidate functions, each {{"name": "dotted.identifier", "description": "...",
  "parameters": {{"type": "dict", "properties": {{...}}, "required": [...]}}}}. Parameter types: string,
  integer, float, boolean, array (with "items"), dict (with "properties"), tuple, any. A parameter may have
  "enum" and "default". Every required parameter is listed in "properties".
- "ground_truth": the correct calls, a list of {{"function_name": {{"parameter": [accepted values]}}}}. Each
  required parameter lists at least one accepted value of its type; an optional one the question does not
  fix lists "" among its values (meaning it may be omitted). Use null for irrelevance.

The task is checked automatically: malformed tasks, tasks whose ground truth does not match the \
functions, and copies of the examples are discarded."""

_LEVEL_TEXT = (
    "about {n_functions} candidate function(s) ({n_distractors} of them look-alike distractors), "
    "up to {n_calls} call(s) (parallel calls in {p_parallel:.0%} of tasks), up to {n_params} parameters per "
    "function with {n_optional_stated} optional argument(s) stated, array arguments in {p_array:.0%} and "
    "nested dict arguments in {p_nested:.0%} of tasks, irrelevance tasks {p_irrelevance:.0%} of the time"
)


def task_content(task: Task) -> dict[str, Any]:
    """A BFCL task in the writer's JSON schema (what an example in a prompt looks like)."""
    user = [m for m in thaw(task.messages) if m.get("role") == "user"]
    return {
        "category": task.category,
        "question": user[-1]["content"] if user else "",
        "functions": thaw(task.tools),
        "ground_truth": thaw(task.evaluation.get("ground_truth")),
    }


class BFCLTaskWriter(TaskWriterBase):
    """The TaskWriter of the BFCL domain (see the module docstring)."""

    domain: BFCLDomain

    def prompt(self, seeds: Sequence[Task], skill: SkillEstimate, target: Target) -> list[dict[str, str]]:
        examples = []
        for seed in seeds:
            text = json.dumps(task_content(seed), ensure_ascii=False)
            if len(text) <= MAX_EXAMPLE_CHARS:
                examples.append(text)
        knobs = generator.knobs_for_level(min(target.level, generator.NUM_LEVELS - 1))
        if target.evidence_at_level > 0:
            hint = (
                f"The agent currently solves {target.success_at_level:.0%} of level-{target.level} tasks; "
                f"aim for a task it solves about {target.alpha:.0%} of the time"
                + (
                    " (a little harder than those)."
                    if target.success_at_level > target.alpha
                    else " (a little easier than those)."
                    if target.success_at_level < target.alpha
                    else "."
                )
            )
        else:
            hint = f"Aim for a task the agent solves about {target.alpha:.0%} of the time."
        parts = [
            "The agent's record:\n" + describe_skill(skill),
            f"Write a task at difficulty level {target.level} of {target.num_levels - 1}: "
            + _LEVEL_TEXT.format(**knobs)
            + ".\n"
            + hint,
        ]
        if examples:
            parts.append("Examples of the format (do not copy them):\n" + "\n".join(examples))
        parts.append("Write one new task as a single JSON object.")
        system = SYSTEM_PROMPT.format(categories=", ".join(WRITABLE_CATEGORIES))
        return [{"role": "system", "content": system}, {"role": "user", "content": "\n\n".join(parts)}]

    def parse(self, reply: str, target: Target, provenance: str) -> Task:
        data = strict_json_object(reply)
        require_keys(data, ("category", "question", "functions", "ground_truth"))
        category, question = data["category"], data["question"]
        functions, ground_truth = data["functions"], data["ground_truth"]
        if category not in WRITABLE_CATEGORIES:
            raise TaskRejected("parse", f"category {category!r} is not one of {list(WRITABLE_CATEGORIES)}")
        if not isinstance(question, str) or not question.strip():
            raise TaskRejected("parse", "question must be a non-empty string")
        if not isinstance(functions, list) or not all(isinstance(f, dict) for f in functions):
            raise TaskRejected("parse", "functions must be a list of objects")
        if len(functions) > generator.MAX_FUNCTIONS:
            raise TaskRejected("parse", f"{len(functions)} functions (limit {generator.MAX_FUNCTIONS})")
        if ground_truth is not None and (
            not isinstance(ground_truth, list) or len(ground_truth) > generator.MAX_CALLS
        ):
            raise TaskRejected(
                "parse", f"ground_truth must be null or a list of at most {generator.MAX_CALLS} calls"
            )
        digest = task_digest(category, question, functions, ground_truth)
        return self.domain.make_task(
            task_id=f"bfcl_llm_{category}_{digest}",
            category=category,
            question=[{"role": "user", "content": question}],
            functions=functions,
            ground_truth=ground_truth,
            difficulty={"level": int(target.level), "target_level": int(target.level)},
            provenance=provenance,
        )

    def semantic_problems(self, task: Task) -> list[str]:
        """Where the reference answer does not mean what the question asks (``task_semantics``)."""
        content = task_content(task)
        return task_problems(
            str(content["category"]), content["question"], content["functions"], content["ground_truth"]
        )

    def fingerprint(self, task: Task) -> tuple[str, str]:
        content = task_content(task)
        key = json.dumps(
            [content["category"], " ".join(content["question"].lower().split()), content["ground_truth"]],
            sort_keys=True,
            default=str,
        )
        return key, content["question"]
