"""How an environment LLM writes BFCL multi-turn entries: the prompt, the strict JSON schema, its parser.

The LLM picks backend classes, their starting state, the user's turns and the calls that serve each
turn, as one JSON object::

    {"involved_classes": ["TicketAPI", "MessageAPI"],
     "initial_config": {"TicketAPI": {"ticket_queue": [...], "ticket_counter": 3, "current_user": "Olga"}},
     "turns": [{"user": "Close ticket 2; then find the user id of 'Farid'.",
                "calls": [{"name": "close_ticket", "arguments": {"ticket_id": 2}},
                          {"name": "get_user_id", "arguments": {"user": "Farid"}}]},
               {"user": "Send 'on my way' to him.", "calls": []},
               ...]}

Only what the procedural generator builds can be written: 1-3 of its seven classes (their function docs
are ours, never the LLM's), state keys the class's generator draws, 1-4 turns of 1-3 calls, and at most one
turn with no calls, where the user leaves a value out and the next turn gives it (BFCL's missing-parameter
rule). At levels whose knobs ask for long context, the backends are padded as the procedural entries are.

The LLM never states a result: its calls are executed on fresh backends loaded from its state, and the
entry's expected states and responses are what that execution gives (the official checker replays it).
A call of an undocumented function, a bad argument or a state that does not load is a ``parse`` rejection;
a call whose execution fails (an error result) is ``reference_fails``; ``semantic_problems`` requires every
argument value to be stated by the user so far or returned by an earlier call, and a call-less turn to be
followed by the value it left out.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from genenv_gym.envs.bfcl.grounding import ungrounded_arguments
from genenv_gym.envs.bfcl_multiturn.calls import (
    Call,
    make_instances,
    parse_call_string,
    render_call,
    run_call,
)
from genenv_gym.envs.bfcl_multiturn.domain import BFCLMultiTurnDomain, entry_task
from genenv_gym.envs.bfcl_multiturn.executor import is_error_result
from genenv_gym.envs.bfcl_multiturn.generation.class_spec import (
    ARRAY,
    BOOLEAN,
    DICT,
    FLOAT,
    INTEGER,
    STRING,
)
from genenv_gym.envs.bfcl_multiturn.generation.classes import CLASSES, class_docs
from genenv_gym.envs.bfcl_multiturn.generation.levels import LEVELS, NUM_LEVELS
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

#: The most classes, plan turns and calls per turn an entry may have (the generator's top level).
MAX_CLASSES = max(level.classes for level in LEVELS)
MAX_PLAN_TURNS = max(level.turns for level in LEVELS)
MAX_CALLS = max(level.max_calls for level in LEVELS)
#: Turns without calls (a value the user leaves out, given in the next turn).
MAX_EMPTY_TURNS = 1
MAX_TEXT = 1000
#: Examples of the format shown per prompt.
EXAMPLES = 3

SYSTEM_PROMPT = """You write new multi-turn tasks for a tool-using assistant, in the style of BFCL's \
multi-turn category: a user asks for things over several turns, and the assistant serves each turn by \
calling functions of stateful backends. Reply with exactly one JSON object and nothing else. Its keys:
- "involved_classes": 1 to {max_classes} of the backend classes below.
- "initial_config": the starting state of each stateful class you use, {{"ClassName": {{key: value}}}}, \
with only the keys listed for that class (a class left out starts from its default state).
- "turns": the conversation, a list of \
{{"user": "...", "calls": [{{"name": "...", "arguments": {{...}}}}]}}: what the user says in the turn \
and the calls that serve it, in order, using only the functions below with JSON values of their \
parameter types. A turn may have "calls": [] only when its user message leaves out a \
value a call needs (the assistant should ask); the next turn then gives the value and has the calls.
Every argument value must be stated by the user (in this or an earlier turn) or returned by an earlier \
call. You never write results: the calls are executed on the state you give, and calls that fail there, \
values the user never gave, and copies of the examples are discarded.

Backend classes and their functions (parameters marked ? are optional):
{catalogue}"""


def _signature(spec_name: str) -> list[str]:
    """One line per generated function of a class: ``name(param: type, opt?: type): description``."""
    lines = []
    for name, (description, params) in CLASSES[spec_name].docs.items():
        shown = ", ".join(f"{p}{'' if required else '?'}: {kind}" for p, kind, _, required in params)
        lines.append(f"  - {name}({shown}): {description}")
    return lines


@lru_cache(maxsize=1)
def config_schema() -> dict[str, dict[str, frozenset[str]]]:
    """Class -> state key -> the JSON types its generator draws for it (stateful generated classes)."""
    rng = np.random.default_rng(0)
    schema: dict[str, dict[str, set[str]]] = {}
    for name, spec in CLASSES.items():
        if spec.config is None:
            continue
        keys: dict[str, set[str]] = {}
        for size in (1, 2, 3, 3):
            for key, value in spec.config(rng, size).items():
                keys.setdefault(key, set()).add(_json_type(value))
        schema[name] = keys
    return {name: {k: frozenset(v) for k, v in keys.items()} for name, keys in schema.items()}


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "null"


def _catalogue() -> str:
    lines = []
    schema = config_schema()
    for name, spec in CLASSES.items():
        state = ", ".join(schema[name]) if name in schema else "none (stateless)"
        lines.append(f"- {name}: {spec.intro} State keys: {state}.")
        lines += _signature(name)
    return "\n".join(lines)


def task_content(task: Task) -> dict[str, Any]:
    """An entry in the writer's JSON schema (what an example in a prompt looks like).

    Raises ValueError for entries the schema cannot hold (a missing-function turn, positional arguments).
    """
    evaluation = thaw(task.evaluation)
    if evaluation.get("holdout"):
        raise ValueError("a missing-function entry has no form in the writer's schema")
    turns = []
    for messages, truth in zip(evaluation["question"], evaluation["ground_truth"], strict=True):
        users = [m["content"] for m in messages if m.get("role") == "user"]
        if len(users) != 1:
            raise ValueError("each turn must hold one user message")
        calls = [parse_call_string(text) for text in truth]
        if any(call.args for call in calls):
            raise ValueError("positional arguments have no form in the writer's schema")
        turns.append(
            {"user": users[0], "calls": [{"name": c.name, "arguments": dict(c.kwargs)} for c in calls]}
        )
    return {
        "involved_classes": evaluation["involved_classes"],
        "initial_config": evaluation["initial_config"],
        "turns": turns,
    }


def structural_level(
    plan_turns: int, max_calls: int, classes: int, miss_param: bool, long_context: bool
) -> int:
    """The lowest level whose knobs reach every feature of an entry (each feature's first level, the
    highest of them)."""

    def first(test: Any) -> int:
        return next((i for i, level in enumerate(LEVELS) if test(level)), NUM_LEVELS - 1)

    return max(
        first(lambda level: level.turns >= plan_turns),
        first(lambda level: level.max_calls >= max_calls),
        first(lambda level: level.classes >= classes),
        first(lambda level: level.miss_param) if miss_param else 0,
        first(lambda level: level.long_context) if long_context else 0,
    )


def _check_value(kind: str, value: Any, items: str) -> Any:
    """``value`` as a value of the doc type ``kind`` (an integer where a float is asked becomes a float);
    ValueError when it is not one."""
    if kind == STRING and isinstance(value, str):
        return value
    if kind == INTEGER and isinstance(value, int) and not isinstance(value, bool):
        return value
    if kind == FLOAT and isinstance(value, int | float) and not isinstance(value, bool):
        try:
            return float(value)
        except OverflowError:
            raise ValueError(f"{kind} out of range") from None
    if kind == BOOLEAN and isinstance(value, bool):
        return value
    if kind == ARRAY and isinstance(value, list):
        return [_check_value(items, v, STRING) for v in value]
    if kind == DICT and isinstance(value, dict):
        return value
    raise ValueError(f"expected {kind}, got {type(value).__name__}")


class BFCLMultiTurnTaskWriter(TaskWriterBase):
    """The TaskWriter of the ``bfcl_multiturn`` domain (see the module docstring)."""

    domain: BFCLMultiTurnDomain
    #: the starting state (files' contents, tweets, tags) is data read through tools, not prose
    state_keys = ("initial_config",)

    def prompt(self, seeds: Sequence[Task], skill: SkillEstimate, target: Target) -> list[dict[str, str]]:
        level = min(max(int(target.level), 0), NUM_LEVELS - 1)
        knobs = LEVELS[level]
        examples = []
        for seed in seeds:
            try:
                examples.append(json.dumps(task_content(seed), ensure_ascii=False))
            except ValueError:
                continue
        shape = (
            f"up to {knobs.turns} turns with calls, up to {knobs.max_calls} calls per turn, "
            f"{knobs.classes} class(es)"
        )
        if knobs.miss_param:
            shape += ", and one turn that leaves a needed value out (no calls) before the turn that gives it"
        if knobs.long_context:
            shape += "; the backends will be padded with bulky distractor state (long context)"
        parts = [
            "The agent's record:\n" + describe_skill(skill),
            f"Write a task at difficulty level {level} of {NUM_LEVELS - 1}: {shape}. Aim for a task the "
            f"agent solves about {target.alpha:.0%} of the time.",
        ]
        if examples:
            parts.append("Examples of the format (do not copy them):\n" + "\n".join(examples[:EXAMPLES]))
        parts.append("Write one new task as a single JSON object.")
        system = SYSTEM_PROMPT.format(max_classes=MAX_CLASSES, catalogue=_catalogue())
        return [{"role": "system", "content": system}, {"role": "user", "content": "\n\n".join(parts)}]

    def parse(self, reply: str, target: Target, provenance: str) -> Task:
        data = strict_json_object(reply)
        require_keys(data, ("involved_classes", "turns"), ("initial_config",))
        classes = self._classes(data["involved_classes"])
        config = self._config(data.get("initial_config", {}), classes)
        turns = data["turns"]
        if not isinstance(turns, list) or not turns:
            raise TaskRejected("parse", "turns must be a non-empty list")
        docs = {doc["name"]: doc for name in classes for doc in class_docs(name)}
        texts: list[str] = []
        plan: list[list[Call]] = []
        for t, turn in enumerate(turns):
            if not isinstance(turn, dict) or set(turn) != {"user", "calls"}:
                raise TaskRejected("parse", f"turn {t} must be {{'user': ..., 'calls': [...]}}")
            text, calls = turn["user"], turn["calls"]
            if not isinstance(text, str) or not text.strip() or len(text) > MAX_TEXT:
                raise TaskRejected(
                    "parse", f"turn {t}: user must be a non-empty string of <= {MAX_TEXT} chars"
                )
            if not isinstance(calls, list) or len(calls) > MAX_CALLS:
                raise TaskRejected("parse", f"turn {t}: calls must be a list of at most {MAX_CALLS} calls")
            texts.append(text)
            plan.append([self._call(c, docs, f"turn {t} call {i}") for i, c in enumerate(calls)])
        self._check_shape(plan)
        long_context = LEVELS[min(max(int(target.level), 0), NUM_LEVELS - 1)].long_context
        for t, i, call, result in executed(classes, config, long_context, plan):
            if is_error_result(result):
                raise TaskRejected(
                    "reference_fails", f"turn {t} call {i} {render_call(call)[:120]} fails: {result[:200]}"
                )
        miss_param = any(not calls for calls in plan)
        if long_context:
            category = "multi_turn_long_context"
        elif miss_param:
            category = "multi_turn_miss_param"
        else:
            category = "multi_turn_base"
        truth = [[render_call(call) for call in calls] for calls in plan]
        plan_turns = sum(1 for calls in plan if calls)
        max_calls = max(len(calls) for calls in plan)
        level = structural_level(plan_turns, max_calls, len(classes), miss_param, long_context)
        entry = {
            "question": [[{"role": "user", "content": text}] for text in texts],
            "initial_config": config,
            "involved_classes": classes,
            "ground_truth": truth,
            "function": [doc for name in classes for doc in class_docs(name)],
            "holdout": {},
            "category": category,
        }
        return entry_task(
            entry,
            self.domain.name,
            self.domain.action_format,
            task_id=f"bfcl_multiturn_llm_{task_digest(texts, config, classes, truth)}",
            difficulty={
                "level": level,
                "plan_turns": plan_turns,
                "max_calls_per_turn": max_calls,
                "long_context": long_context,
                "miss_param": miss_param,
                "miss_func": False,
                "target_level": int(target.level),
            },
            provenance=provenance,
        )

    def semantic_problems(self, task: Task) -> list[str]:
        """Argument values nobody stated, and call-less turns whose next turn gives no value they left out."""
        evaluation = thaw(task.evaluation)
        texts = [" ".join(m["content"] for m in turn) for turn in evaluation["question"]]
        plan = [[parse_call_string(text) for text in turn] for turn in evaluation["ground_truth"]]
        results = {
            (t, i): result
            for t, i, _, result in executed(
                evaluation["involved_classes"],
                evaluation["initial_config"],
                bool(evaluation.get("long_context")),
                plan,
            )
        }
        problems = []
        for t, calls in enumerate(plan):
            said = texts[: t + 1] + [results[(u, i)] for u in range(t) for i in range(len(plan[u]))]
            for i, call in enumerate(calls):
                context = " ".join(said + [results[(t, k)] for k in range(i)])
                missing = ungrounded_arguments(context, [{call.name: _allowed(call.kwargs)}])
                missing += [
                    f"{call.name}.{key}"
                    for key, value in call.kwargs.items()
                    if _quoted(value) and not _states(context, value) and f"{call.name}.{key}" not in missing
                ]
                if missing:
                    problems.append(f"turn {t}: no one states the value of {', '.join(missing[:4])}")
            if not calls and t + 1 < len(plan) and not _gives_a_value(texts[t], texts[t + 1], plan[t + 1]):
                problems.append(
                    f"turn {t} has no calls, but turn {t + 1} gives no value that turn {t} left out"
                )
        return problems

    def fingerprint(self, task: Task) -> tuple[str, str]:
        evaluation = thaw(task.evaluation)
        key = json.dumps(
            [evaluation["involved_classes"], evaluation["initial_config"], evaluation["ground_truth"]],
            sort_keys=True,
        )
        users = " ".join(m["content"] for turn in evaluation["question"] for m in turn)
        return key, users

    # -- parsing helpers -------------------------------------------------------------------------------

    @staticmethod
    def _classes(value: Any) -> list[str]:
        if (
            not isinstance(value, list)
            or not 1 <= len(value) <= MAX_CLASSES
            or not all(isinstance(name, str) and name in CLASSES for name in value)
            or len(set(value)) != len(value)
        ):
            raise TaskRejected(
                "parse", f"involved_classes must be 1..{MAX_CLASSES} distinct names of {sorted(CLASSES)}"
            )
        return list(value)

    @staticmethod
    def _config(value: Any, classes: list[str]) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise TaskRejected("parse", "initial_config must be an object of class name -> state")
        schema = config_schema()
        for name, state in value.items():
            if name not in classes or name not in schema:
                raise TaskRejected(
                    "parse", f"initial_config: {str(name)[:40]!r} is not a stateful involved class"
                )
            if not isinstance(state, dict):
                raise TaskRejected("parse", f"initial_config[{name!r}] must be an object")
            for key, part in state.items():
                if key not in schema[name]:
                    raise TaskRejected(
                        "parse",
                        f"initial_config[{name!r}]: unknown key {str(key)[:40]!r} "
                        f"(keys: {sorted(schema[name])})",
                    )
                if _json_type(part) not in schema[name][key]:
                    raise TaskRejected(
                        "parse",
                        f"initial_config[{name!r}][{key!r}] must be {'/'.join(sorted(schema[name][key]))}",
                    )
        try:
            make_instances(classes, value, False)
        except Exception as error:  # a state the backend cannot load is not a task
            raise TaskRejected(
                "parse", f"initial_config does not load: {type(error).__name__}: {str(error)[:160]}"
            ) from None
        return value

    @staticmethod
    def _call(value: Any, docs: Mapping[str, Any], where: str) -> Call:
        if not isinstance(value, dict) or set(value) != {"name", "arguments"}:
            raise TaskRejected("parse", f"{where} must be {{'name': ..., 'arguments': {{...}}}}")
        name, arguments = value["name"], value["arguments"]
        if not isinstance(name, str) or name not in docs:
            raise TaskRejected(
                "parse", f"{where}: {str(name)[:60]!r} is not a function of the involved classes"
            )
        if not isinstance(arguments, dict):
            raise TaskRejected("parse", f"{where}: arguments must be an object")
        parameters = docs[name]["parameters"]
        properties = parameters["properties"]
        unknown = sorted(set(arguments) - set(properties))
        missing = sorted(set(parameters["required"]) - set(arguments))
        if unknown or missing:
            raise TaskRejected(
                "parse", f"{where}: {name} unknown argument(s) {unknown[:4]}, missing {missing}"
            )
        checked = {}
        for key, argument in arguments.items():
            prop = properties[key]
            try:
                checked[key] = _check_value(prop["type"], argument, prop.get("items", {}).get("type", STRING))
            except ValueError as error:
                raise TaskRejected("parse", f"{where}: {name}.{key}: {error}") from None
        call = Call(name, checked)
        try:
            parse_call_string(render_call(call))
        except (ValueError, RecursionError):
            raise TaskRejected("parse", f"{where}: {name}'s arguments cannot be written as a call") from None
        return call

    @staticmethod
    def _check_shape(plan: list[list[Call]]) -> None:
        empty = [t for t, calls in enumerate(plan) if not calls]
        plan_turns = len(plan) - len(empty)
        if not 1 <= plan_turns <= MAX_PLAN_TURNS:
            raise TaskRejected(
                "parse", f"an entry has 1..{MAX_PLAN_TURNS} turns with calls, not {plan_turns}"
            )
        if len(empty) > MAX_EMPTY_TURNS:
            raise TaskRejected("parse", f"at most {MAX_EMPTY_TURNS} turn may have no calls")
        if empty and (empty[-1] == len(plan) - 1):
            raise TaskRejected(
                "parse", "a turn without calls must be followed by the turn that gives its value"
            )


def _quoted(value: Any) -> bool:
    """A string argument (a file name, an id, a message): the user states it exactly, as BFCL's do."""
    return isinstance(value, str) and bool(value.strip())


def _allowed(kwargs: Mapping[str, Any]) -> dict[str, list[Any]]:
    """A call's arguments as BFCL's possible-answer form (one allowed value each), for the grounding check."""
    return {key: [value] for key, value in kwargs.items()}


def _gives_a_value(vague: str, clarification: str, calls: Sequence[Call]) -> bool:
    """Whether ``clarification`` states an argument value of ``calls`` that ``vague`` does not."""
    values = [value for call in calls for value in call.kwargs.values()]
    return any(_states(clarification, value) and not _states(vague, value) for value in values)


def _states(text: str, value: Any) -> bool:
    """Whether ``text`` states ``value`` literally (strings compared without case; short codes too)."""
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, str):
        return bool(value.strip()) and value.strip().lower() in text.lower()
    if isinstance(value, list | dict):
        items = list(value.values() if isinstance(value, dict) else value)
        return bool(items) and all(_states(text, item) for item in items)
    if isinstance(value, int | float):
        forms = {str(value)} | (
            {str(int(value))} if isinstance(value, float) and value.is_integer() else set()
        )
        return any(re.search(rf"(?<![\w.]){re.escape(form)}(?![\w]|\.\d)", text) for form in forms)
    return not ungrounded_arguments(text, [{"f": {"value": [value]}}])


def executed(
    classes: Sequence[str], config: Mapping[str, Any], long_context: bool, plan: Sequence[Sequence[Call]]
) -> list[tuple[int, int, Call, str]]:
    """``(turn, index, call, result)`` of every planned call, run in order on fresh backends."""
    instances = make_instances(classes, config, long_context)
    return [
        (t, i, call, run_call(instances, call))
        for t, calls in enumerate(plan)
        for i, call in enumerate(calls)
    ]
