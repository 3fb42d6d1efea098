"""How an environment LLM writes API-Bank tasks: the prompt, the strict JSON schema, its parser, screening.

The LLM writes only a dialogue and the call that must come next, as one JSON object::

    {"dialogue": [{"user": "Set an alarm for 7 am on May 2nd 2023. I am quill, password inkpot7."},
                  {"call": {"api_name": "GetUserToken",
                            "param_dict": {"username": "quill", "password": "inkpot7"}}},
                  {"ai": "You are signed in."}],
     "answer": {"api_name": "AddAlarm",
                "param_dict": {"token": "qx1l2l3t4o5k6e7n8z", "time": "2023-05-02 07:00:00"}},
     "distractors": ["QueryStock"]}

The earlier calls are executed on the simulated APIs (their real results enter the dialogue), the answer's
reference result is computed by executing it, and the task is graded in corrected mode. Screening: every
API and parameter must exist, every earlier call and the answer must succeed, and every answer value must
appear in the dialogue's text or in an earlier call's result, and the user must ask for what the API does
(``semantic_problems``, ``task_semantics``); then the domain's
validation runs the verifier on the reference call. The task id, prompt, provenance and difficulty are
written by the domain, never by the LLM.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from genenv_gym.envs.apibank.corrected import reference_params
from genenv_gym.envs.apibank.domain import APIBankDomain
from genenv_gym.envs.apibank.generator import LEVEL_CONFIGS, NUM_LEVELS, knobs
from genenv_gym.envs.apibank.registry import CallRefused, execute
from genenv_gym.envs.apibank.signatures import SIGNATURES
from genenv_gym.envs.apibank.task_semantics import dialogue_problems
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

MAX_TURNS = 12
MAX_DISTRACTORS = 8
MAX_TEXT = 2000

SYSTEM_PROMPT = """You write new test tasks for a tool-using assistant, in the style of API-Bank. Reply \
with exactly one JSON object and nothing else: no prose, no markdown. Its keys:

- "dialogue": the conversation so far, a list of turns, each {{"user": "..."}}, {{"ai": "..."}} or
  {{"call": {{"api_name": "...", "param_dict": {{"param": "value"}}}}}} (an API call the assistant already
  made; its real result is added automatically). It starts with a user turn.
- "answer": the API call the assistant must make next, {{"api_name": "...", "param_dict": {{...}}}}.
- "distractors": names of other APIs to describe as well (may be empty).

All parameter values are strings; lists are written as Python lists in a string ("['Ada', 'Ben']").
Every value of the answer must be stated in the dialogue (by the user, or in an earlier call's result such
as a token). Times are "%Y-%m-%d %H:%M:%S", dates "%Y-%m-%d". Use only these APIs:
{catalogue}
Users, passwords and tokens must be real ones: {accounts}.
The task is checked automatically by executing the calls: failing calls, unstated values and copies of
the examples are discarded."""

_LEVEL_TEXT = {
    0: "one call the user asks for directly, no login",
    1: "a call that needs the user's token, obtained by an earlier GetUserToken call in the dialogue",
    2: "a call that needs the token and a value created by another earlier call",
    3: "a call with many parameters (one a list) and several distractor APIs",
    4: "several earlier calls and distractors; the call depends on two earlier results",
}


def _catalogue() -> str:
    lines = []
    for sig in SIGNATURES.values():
        params = ", ".join(f"{p.name}: {p.type}{'' if p.required else ' (optional)'}" for p in sig.params)
        lines.append(f"- {sig.name}({params}): {sig.description}")
    return "\n".join(lines)


def task_content(task: Task) -> dict[str, Any]:
    """A generated or written task in the writer's JSON schema (what an example in a prompt looks like)."""
    dialogue = []
    for turn in thaw(task.evaluation.get("history", [])):
        if turn["role"] == "User":
            dialogue.append({"user": turn["text"]})
        elif turn["role"] == "AI":
            dialogue.append({"ai": turn["text"]})
        else:
            dialogue.append({"call": {"api_name": turn["api_name"], "param_dict": turn["param_dict"]}})
    truth = thaw(task.evaluation["ground_truth"])
    answer = {"api_name": truth["api_name"], "param_dict": truth["param_dict"]}
    called = {t["call"]["api_name"] for t in dialogue if "call" in t} | {answer["api_name"]}
    distractors = [t["name"] for t in thaw(task.tools) if t["name"] not in called]
    return {"dialogue": dialogue, "answer": answer, "distractors": distractors}


def _call_of(value: Any, where: str) -> tuple[str, dict[str, str]]:
    if not isinstance(value, dict) or set(value) != {"api_name", "param_dict"}:
        raise TaskRejected("parse", f"{where} must be {{'api_name': ..., 'param_dict': {{...}}}}")
    name, params = value["api_name"], value["param_dict"]
    if name not in SIGNATURES or name == "ToolSearcher":
        raise TaskRejected("parse", f"{where}: unknown API {str(name)[:60]!r}")
    if not isinstance(params, dict) or not all(
        isinstance(v, str) and len(v) <= MAX_TEXT for v in params.values()
    ):
        raise TaskRejected("parse", f"{where}: param_dict must map names to strings")
    return name, params


class APIBankTaskWriter(TaskWriterBase):
    """The TaskWriter of the API-Bank domain (see the module docstring)."""

    domain: APIBankDomain
    validate_seeds = False
    #: Seed tasks leave out the top level.
    seed_levels = NUM_LEVELS - 1

    def prompt(self, seeds: Sequence[Task], skill: SkillEstimate, target: Target) -> list[dict[str, str]]:
        level = min(target.level, NUM_LEVELS - 1)
        accounts = self.domain.world().table("Account")
        listed = "; ".join(
            f"{u} / {a['password']} / token {a['token']}" for u, a in sorted(accounts.items())[:8]
        )
        examples = [
            json.dumps(task_content(s), ensure_ascii=False) for s in seeds if "history" in s.evaluation
        ]
        parts = [
            "The agent's record:\n" + describe_skill(skill),
            f"Write a task at difficulty level {level} of {NUM_LEVELS - 1}: {_LEVEL_TEXT[level]} "
            f"(knobs {dict(knobs(LEVEL_CONFIGS[level]))}). Aim for a task the agent solves about "
            f"{target.alpha:.0%} of the time.",
        ]
        if examples:
            parts.append("Examples of the format (do not copy them):\n" + "\n".join(examples[:4]))
        parts.append("Write one new task as a single JSON object.")
        system = SYSTEM_PROMPT.format(catalogue=_catalogue(), accounts=listed)
        return [{"role": "system", "content": system}, {"role": "user", "content": "\n\n".join(parts)}]

    def parse(self, reply: str, target: Target, provenance: str) -> Task:
        data = strict_json_object(reply)
        require_keys(data, ("dialogue", "answer"), ("distractors",))
        dialogue, distractors = data["dialogue"], data.get("distractors", [])
        if not isinstance(dialogue, list) or not 1 <= len(dialogue) <= MAX_TURNS:
            raise TaskRejected("parse", f"dialogue must be a list of 1..{MAX_TURNS} turns")
        if not isinstance(distractors, list) or len(distractors) > MAX_DISTRACTORS:
            raise TaskRejected("parse", f"distractors must be a list of at most {MAX_DISTRACTORS} API names")
        if any(d not in SIGNATURES or d == "ToolSearcher" for d in distractors):
            raise TaskRejected("parse", "distractors must name known APIs")
        world = self.domain.world()
        history: list[dict[str, Any]] = []
        for i, turn in enumerate(dialogue):
            if not isinstance(turn, dict) or len(turn) != 1:
                raise TaskRejected("parse", f"turn {i} must have exactly one of user / ai / call")
            ((kind, value),) = turn.items()
            if kind in ("user", "ai"):
                if not isinstance(value, str) or not value.strip() or len(value) > MAX_TEXT:
                    raise TaskRejected("parse", f"turn {i}: text must be a non-empty string")
                history.append({"role": "User" if kind == "user" else "AI", "text": value})
            elif kind == "call":
                name, params = _call_of(value, f"turn {i}")
                history.append(
                    {
                        "role": "API",
                        "api_name": name,
                        "param_dict": params,
                        "result": self._run(world, name, params, f"turn {i}"),
                    }
                )
            else:
                raise TaskRejected("parse", f"turn {i}: unknown kind {str(kind)[:20]!r}")
        if history[0]["role"] != "User":
            raise TaskRejected("parse", "the dialogue must start with a user turn")
        name, params = _call_of(data["answer"], "answer")
        result = self._run(world.fork(), name, params, "answer")
        truth = {"role": "API", "api_name": name, "param_dict": params, "result": result}
        apis = list(
            dict.fromkeys([t["api_name"] for t in history if t["role"] == "API"] + [name] + distractors)
        )
        return self.domain.make_task(
            f"apibank_llm_{task_digest(history, truth)}",
            history,
            truth,
            apis,
            evaluation={"scoring": "corrected", "history": history},
            difficulty={"level": int(target.level), "target_level": int(target.level)},
            provenance=provenance,
            category="level-1",
        )

    @staticmethod
    def _run(world: Any, name: str, params: dict[str, str], where: str) -> dict[str, Any]:
        try:
            result = execute(world, name, reference_params(name, params))
        except CallRefused as refused:
            raise TaskRejected("parse", f"{where}: {refused}") from None
        if isinstance(result["output"], Exception):  # an API that returns (not raises) its error object
            raise TaskRejected("parse", f"{where}: {result['api_name']} returned an error object")
        return result

    def semantic_problems(self, task: Task) -> list[str]:
        """Failing calls, and a dialogue that does not ask for the reference call (``task_semantics``)."""
        problems = []
        history = thaw(task.evaluation["history"])
        truth = thaw(task.evaluation["ground_truth"])
        for turn in [*(t for t in history if t["role"] == "API"), truth]:
            if turn["result"]["exception"] is not None:
                problems.append(f"{turn['api_name']} fails: {turn['result']['exception']}")
        return problems + dialogue_problems(history, truth)

    def fingerprint(self, task: Task) -> tuple[str, str]:
        content = task_content(task)
        users = " ".join(t["user"] for t in content["dialogue"] if "user" in t)
        key = json.dumps([" ".join(users.lower().split()), content["answer"]], sort_keys=True)
        return key, users
