"""BFCL v4's four multi-turn categories as Tasks: ``BFCLMultiTurnDomain`` plays whole entries as episodes,
``BFCLMultiTurnStepDomain`` each turn of an entry as its own task (the GenEnv paper's protocol)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from genenv_gym.datasets.task_cache import cached_tasks
from genenv_gym.domain import Domain, Verdict, check_level, oracle_transcript, replay_transcript
from genenv_gym.envs.bfcl_multiturn import data, long_context
from genenv_gym.envs.bfcl_multiturn.calls import (
    check_action_format,
    make_instances,
    parse_call_string,
    run_call,
)
from genenv_gym.envs.bfcl_multiturn.episode import MAXIMUM_STEP_LIMIT, MultiTurnEpisode, TurnEpisode
from genenv_gym.envs.bfcl_multiturn.executor import is_error_result
from genenv_gym.envs.bfcl_multiturn.generation.entry import generate_entry
from genenv_gym.envs.bfcl_multiturn.generation.levels import NUM_LEVELS
from genenv_gym.envs.bfcl_multiturn.prompt import first_messages, render_messages, turn_messages
from genenv_gym.task import FrozenDict, Task, thaw


def entry_task(
    entry: Mapping[str, Any],
    domain: str = "bfcl_multiturn",
    action_format: str = "python",
    task_id: str | None = None,
    difficulty: Mapping[str, Any] | None = None,
    provenance: str | None = None,
) -> Task:
    """One official entry (as :func:`data.load_entries` gives it) as a Task whose prompt asks for calls in
    ``action_format`` (``"python"`` or ``"json"``); a generated entry passes its own id, difficulty features
    (added to the entry's) and provenance."""
    question = entry["question"]
    holdout = entry.get("holdout", {})
    truth = entry["ground_truth"]
    return Task(
        id=task_id or entry["id"],
        domain=domain,
        messages=first_messages(turn_messages(0, question, holdout), entry["function"], action_format),
        tools=entry["function"],
        evaluation={
            "question": question,
            "initial_config": entry["initial_config"],
            "involved_classes": entry["involved_classes"],
            "ground_truth": truth,
            "holdout": holdout,
            "long_context": data.is_long_context(entry["category"]),
            "path": entry.get("path", []),
            "excluded_function": entry.get("excluded_function", []),
            "action_format": check_action_format(action_format),
        },
        difficulty={
            "level": 0,
            "turns": len(truth),
            "ground_truth_calls": sum(len(t) for t in truth),
            "classes": len(entry["involved_classes"]),
            **(difficulty or {}),
        },
        provenance=provenance or f"benchmark:bfcl/{entry['category']}",
        category=entry["category"],
    )


def _category_tasks(category: str, root: str, domain: str, action_format: str = "python") -> tuple[Task, ...]:
    """The Tasks of one category (through the task cache: freezing 200 entries takes a second)."""

    def build() -> list[Task]:
        return [entry_task(e, domain, action_format) for e in data.load_entries([category], root)]

    params = {"category": category, "action_format": action_format}
    return cached_tasks(domain, data.category_files(category, root), build, params)


#: Plans drawn per ``generate`` call before it gives up (a plan fails when no call fits the state).
GENERATE_TRIES = 20


def generated_problems(task: Task) -> list[str]:
    """What is wrong with a generated entry beyond the checker: a ground-truth call that fails when
    re-executed (an error result), a call of a function not documented by its turn, an empty last turn."""
    evaluation = thaw(task.evaluation)
    problems = []
    documented = {doc["name"] for doc in thaw(task.tools)}
    instances = make_instances(
        evaluation["involved_classes"], evaluation["initial_config"], bool(evaluation.get("long_context"))
    )
    truth = evaluation["ground_truth"]
    for turn, calls in enumerate(truth):
        documented |= {doc["name"] for doc in evaluation.get("holdout", {}).get(str(turn), [])}
        for text in calls:
            call = parse_call_string(text)
            if call.name not in documented:
                problems.append(f"turn {turn}: {call.name} is not documented yet")
            if is_error_result(run_call(instances, call)):
                problems.append(f"turn {turn}: the ground-truth call {text[:80]} fails")
        if not calls and turn == len(truth) - 1:
            problems.append("the last turn has an empty ground truth")
    return problems


class BFCLMultiTurnDomain(Domain):
    """The BFCL multi-turn entries; ``verify`` grades a whole transcript (a JSON list of actions).

    ``generate(level, rng)`` writes new entries at the ten levels of :mod:`.generation` (the
    ``GenEnv-Sim-BFCL-MultiTurn-v0`` env) and ``validate`` checks any entry: the ground truth played through
    the episode must pass the checker, and for a generated entry every ground-truth call must succeed when
    re-executed and be documented by its turn.

    Args:
        max_steps_per_turn: the official step limit (20).
        strict_irrelevance: also apply the official (unused) irrelevance rule.
        action_format: ``"python"`` for BFCL's prompting format ``[f(a=1)]`` (the official default) or
            ``"json"`` for JSON tool calls; the prompt describes the chosen format.
    """

    name = "bfcl_multiturn"
    num_levels = NUM_LEVELS

    def __init__(
        self,
        max_steps_per_turn: int = MAXIMUM_STEP_LIMIT,
        strict_irrelevance: bool = False,
        action_format: str = "python",
    ) -> None:
        if not isinstance(max_steps_per_turn, int) or max_steps_per_turn < 1:
            raise ValueError(f"max_steps_per_turn must be a positive int, got {max_steps_per_turn!r}")
        self.max_steps_per_turn = max_steps_per_turn
        self.strict_irrelevance = bool(strict_irrelevance)
        self.action_format = check_action_format(action_format)

    def categories(self) -> tuple[str, ...]:
        return data.CATEGORIES

    def load_tasks(self, categories: Sequence[str] | None = None, data_dir: str | None = None) -> list[Task]:
        chosen = data.chosen_categories(categories)
        root = str(data.data_root(data_dir))
        return [
            task
            for category in chosen
            for task in _category_tasks(category, root, self.name, self.action_format)
        ]

    def render(self, task: Task) -> str:
        return render_messages(thaw(task.messages))

    def start_episode(self, task: Task) -> MultiTurnEpisode:
        return MultiTurnEpisode(task, self.max_steps_per_turn, self.strict_irrelevance)

    def verify(self, task: Task, action: str) -> Verdict:
        unfinished = Verdict(
            0.0, False, "multi_turn:force_terminated", "the transcript ended before the last turn did"
        )
        return replay_transcript(self.start_episode(task), action, unfinished)

    def validate(self, task: Task) -> list[str]:
        problems = []
        if task.domain != self.name:
            problems.append(f"task domain {task.domain!r} is not {self.name!r}")
        evaluation = task.evaluation
        for key in ("question", "initial_config", "involved_classes", "ground_truth"):
            if key not in evaluation:
                problems.append(f"evaluation lacks {key!r}")
        if problems:
            return problems
        if len(evaluation["question"]) != len(evaluation["ground_truth"]):
            return ["question and ground_truth have different numbers of turns"]
        try:
            verdict = self.verify(task, self.oracle_action(task))
        except ValueError as error:
            return [f"the ground truth cannot run: {error}"]
        if not verdict.success:
            problems.append(f"the ground truth does not pass the checker: {verdict.error_type}")
        if task.provenance == "procedural":
            problems.extend(generated_problems(task))
        return problems

    def generate(self, level: int, rng: np.random.Generator) -> Task:
        """A new entry at ``level`` (see :mod:`.generation`): random backend states, a plan of documented
        calls executed on fresh backends (only plans whose calls succeed), its turns worded from the
        plan's arguments; missing-parameter / missing-function turns and long-context mode at the top
        levels."""
        check_level(int(level), self.num_levels)
        for _ in range(GENERATE_TRIES):
            try:
                entry = generate_entry(int(level), rng)
            except RuntimeError:
                continue
            knobs = entry.pop("knobs")
            digest = hashlib.sha1(
                json.dumps(
                    [entry["question"], entry["initial_config"], entry["ground_truth"]], sort_keys=True
                ).encode()
            ).hexdigest()[:12]
            return entry_task(
                {**entry, "id": f"bfcl_multiturn_gen_L{int(level)}_{digest}"},
                self.name,
                self.action_format,
                difficulty=knobs,
                provenance="procedural",
            )
        raise RuntimeError(
            f"no BFCL multi-turn entry could be planned at level {level} in {GENERATE_TRIES} tries"
        )

    def oracle_action(self, task: Task) -> str:
        return oracle_transcript(self.start_episode(task))

    def random_action(self, task: Task, rng: np.random.Generator) -> str:
        return json.dumps([self.start_episode(task).random_action(rng)])

    def summarize_metrics(self, metrics: Sequence[Mapping[str, Any]]) -> dict[str, float]:
        passed = [m["turns_passed"] for m in metrics if "turns_passed" in m]
        return {"checked turns passed": float(np.mean(passed))} if passed else {}


#: How a turn task's id names its turn: ``multi_turn_long_context_0#turn2``.
TURN_SEPARATOR = "#turn"


def turn_task_id(entry_id: str, turn: int) -> str:
    """The id of the task of one turn of an entry."""
    return f"{entry_id}{TURN_SEPARATOR}{turn}"


def turn_tasks(entry: Task, domain: str = "bfcl_multiturn_step") -> list[Task]:
    """One Task per turn of an entry Task (as :func:`entry_task` makes it).

    The entry is played once by the ground truth through :class:`MultiTurnEpisode` (what
    :class:`TurnEpisode` replays before its turn); each turn's task has the conversation as it stands when
    the turn's user message arrives (``messages``), ``evaluation["turn"]`` and the turn's own difficulty
    features.
    """
    episode = MultiTurnEpisode(entry)
    truth = entry.evaluation["ground_truth"]
    tasks = []
    while not episode.done:
        turn = episode.turn
        task = Task(
            id=turn_task_id(entry.id, turn),
            domain=domain,
            messages=episode.messages,
            difficulty={
                **entry.difficulty,
                "turn": turn,
                "turn_calls": len(truth[turn]),
                "history_chars": sum(len(str(m.get("content", ""))) for m in episode.messages),
            },
            provenance=entry.provenance,
            category=entry.category,
        )
        # The entry's docs and evaluation are already frozen: share them (freezing them again for every
        # turn would take seconds on the real data).
        object.__setattr__(task, "tools", entry.tools)
        object.__setattr__(task, "evaluation", FrozenDict({**entry.evaluation, "turn": turn}))
        tasks.append(task)
        while not episode.done and episode.turn == turn:
            episode.step(episode.oracle_action())
    return tasks


def _category_turn_tasks(
    category: str, root: str, domain: str, filler: str, action_format: str = "python"
) -> tuple[Task, ...]:
    """The turn Tasks of one category, through the task cache (replaying the ground truth of 200 entries
    takes seconds), kept per long-context filler: the replayed results depend on it."""

    def build() -> list[Task]:
        entries = _category_tasks(category, root, BFCLMultiTurnDomain.name, action_format)
        return [task for entry in entries for task in turn_tasks(entry, domain)]

    files = data.category_files(category, root) + (() if filler == "generated" else (Path(filler),))
    params = {"category": category, "action_format": action_format, "filler": filler}
    return cached_tasks(domain, files, build, params)


class BFCLMultiTurnStepDomain(BFCLMultiTurnDomain):
    """Each turn of each BFCL multi-turn entry as its own task, after the ground truth of the earlier turns.

    A task's ``messages`` are the official prompt and the conversation up to and including the turn's user
    message, the earlier turns played by their ground truth; its episode (:class:`TurnEpisode`) replays
    them on fresh backends and lets the agent play the turn, judged by the official per-turn checks.
    ``verify`` grades the turn's step texts given as a JSON list.
    """

    name = "bfcl_multiturn_step"
    num_levels = 1

    def generate(self, level: int, rng: np.random.Generator) -> Task:
        """Not available: generated entries are played whole (``GenEnv-Sim-BFCL-MultiTurn-v0``)."""
        raise NotImplementedError("the per-turn BFCL multi-turn domain has no generator; use bfcl_multiturn")

    def load_tasks(self, categories: Sequence[str] | None = None, data_dir: str | None = None) -> list[Task]:
        chosen = data.chosen_categories(categories)
        root = str(data.data_root(data_dir))
        filler = long_context.filler_source()
        return [
            task
            for c in chosen
            for task in _category_turn_tasks(c, root, self.name, filler, self.action_format)
        ]

    def start_episode(self, task: Task) -> TurnEpisode:
        return TurnEpisode(task, self.max_steps_per_turn, self.strict_irrelevance)

    def validate(self, task: Task) -> list[str]:
        turn = task.evaluation.get("turn")
        if not isinstance(turn, int) or not 0 <= turn < len(task.evaluation.get("ground_truth", ())):
            return [f"evaluation['turn'] is not a turn of the entry: {turn!r}"]
        return super().validate(task)

    def summarize_metrics(self, metrics: Sequence[Mapping[str, Any]]) -> dict[str, float]:
        """The pass rate of the checked turns, and the share of turns not checked (empty ground truth)."""
        known = [m for m in metrics if "checked" in m]
        checked = [m["success"] for m in known if m["checked"]]
        summary = {"checked turns passed": float(np.mean(checked))} if checked else {}
        if len(checked) < len(known):
            summary["turns not checked (empty ground truth)"] = 1.0 - len(checked) / len(known)
        return summary
