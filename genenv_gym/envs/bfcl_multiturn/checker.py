"""BFCL's official multi-turn checker, written anew: state and response checks after every turn.

After each turn whose ground truth is not empty (bfcl-eval 2026.3.23, ``multi_turn_checker``):

1. the model must have made at least one call in the turn (``multi_turn:empty_turn_model_response``);
2. **state**: every backend the model used equals the ground-truth backend on the attributes the official
   checker compares (the public attributes, our classes' ``STATE_ATTRIBUTES``); the ground truth is the
   turn's ground-truth calls executed on its own instances, which carry the ground truth of the earlier
   turns (``multi_turn:instance_state_mismatch``);
3. **response**: each execution result of the turn's ground-truth calls must appear among the model's
   results of *all* turns so far, each model result used at most once, in any order
   (``multi_turn:execution_response_mismatch``).

A turn with an empty ground truth (the miss_func / miss_param turn where the right behaviour is to say
what is missing) is not checked; the model's calls in it still run, so later turns see their effects.
The first failing turn decides the entry; an entry whose model output has fewer turns than the ground
truth was force-terminated (``multi_turn:force_terminated``). The official irrelevance rule
(``multi_turn_irrelevance_checker``: no call at all in an empty-ground-truth turn,
``multi_turn:irrelevance_error:decoder_success``) is defined but not called by bfcl-eval 2026.3.23; here it
is :func:`irrelevance_check`, applied only when asked for (``strict_irrelevance``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from genenv_gym.envs.bfcl_multiturn.calls import (
    Call,
    keyword_call,
    make_instances,
    parse_call_string,
    parse_model_call,
    run_call,
)

EMPTY_TURN = "multi_turn:empty_turn_model_response"
STATE_MISMATCH = "multi_turn:instance_state_mismatch"
RESPONSE_MISMATCH = "multi_turn:execution_response_mismatch"
FORCE_TERMINATED = "multi_turn:force_terminated"
INFERENCE_ERROR = "multi_turn:inference_error"
IRRELEVANCE_ERROR = "multi_turn:irrelevance_error:decoder_success"


@dataclass(frozen=True)
class TurnOutcome:
    """The verdict on one turn: ``checked`` is False for an empty-ground-truth turn (never checked)."""

    turn: int
    valid: bool
    checked: bool = True
    error_type: str | None = None
    error: str | None = None
    details: Mapping[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-friendly view for ``info``."""
        out: dict[str, Any] = {"turn": self.turn, "valid": self.valid, "checked": self.checked}
        if self.error_type is not None:
            out.update(error_type=self.error_type, error=self.error, **dict(self.details))
        return out


@dataclass(frozen=True)
class EntryVerdict:
    """The verdict on a whole entry: valid iff every checked turn passed (and none was forced to end)."""

    valid: bool
    error_type: str | None
    error: str | None
    turns: tuple[TurnOutcome, ...]


def state_attributes(instance: Any) -> tuple[str, ...]:
    """The attributes the official state checker compares for a backend instance."""
    return tuple(getattr(type(instance), "STATE_ATTRIBUTES", ()))


def state_differences(
    model_instances: Mapping[str, Any], truth_instances: Mapping[str, Any]
) -> dict[str, list]:
    """Class name -> attribute names whose values differ between the model's and the ground truth's."""
    differences: dict[str, list] = {}
    for name, truth in truth_instances.items():
        model = model_instances[name]
        for attribute in state_attributes(truth):
            try:
                equal = bool(getattr(model, attribute) == getattr(truth, attribute))
            except (RecursionError, Exception):  # a cyclic file tree cannot be compared: not equal
                equal = False
            if not equal:
                differences.setdefault(name, []).append(attribute)
    return differences


def unordered_missing(expected: Sequence[str], produced: Sequence[str] | Counter) -> list[str]:
    """The items of ``expected`` not matched by distinct items of ``produced`` (order ignored; ``produced``
    may be given as its counts).

    Counted, not scanned: the official list scan costs expected x produced, and a model's replies may make
    many thousands of calls (tests/envs/bfcl_multiturn/test_bfcl_multiturn_cost.py)."""
    available = produced if isinstance(produced, Counter) else Counter(produced)
    wanted: Counter = Counter()
    missing = []
    for item in expected:
        wanted[item] += 1
        if wanted[item] > available[item]:  # the official scan finds no unused copy left
            missing.append(item)
    return missing


def is_empty_turn(steps: Sequence[Sequence[Any]]) -> bool:
    """The official ``is_empty_execute_response``: no step, or a single empty step."""
    return len(steps) == 0 or (len(steps) == 1 and len(steps[0]) == 0)


_SCALARS = (str, int, float, bool, type(None))


def _plain(value: Any) -> bool:
    """A scalar, or a list or dict of plain values (what ``run_call`` copies before a method sees it)."""
    if type(value) in _SCALARS:
        return True
    if type(value) is list:
        return all(_plain(v) for v in value)
    if type(value) is dict:
        return all(_plain(v) for v in value.values())
    return False


class GroundTruthRun:
    """The ground truth of one entry, executed turn by turn on its own backend instances."""

    def __init__(self, entry: Mapping[str, Any], long_context: bool) -> None:
        self.instances = make_instances(entry["involved_classes"], entry["initial_config"], long_context)
        #: Ground-truth call string -> its parsed call (positional arguments bound to their names, as
        #: ``run_call`` binds them on instances of the same classes), for a model run making the same
        #: call. Only calls whose arguments are all keyword and plain: ``run_call`` passes copies of plain
        #: lists and dicts, so no run can change another's arguments.
        self.parsed: dict[str, Call] = {}
        self.turns: list[list[Call]] = []
        for turn in entry["ground_truth"]:
            calls = []
            for text in turn:
                call = keyword_call(self.instances, parse_call_string(text))
                if not call.args and all(_plain(v) for v in call.kwargs.values()):
                    self.parsed[text] = call
                calls.append(call)
            self.turns.append(calls)

    def run_turn(self, turn: int) -> list[str]:
        """Execute the turn's ground-truth calls; their rendered results."""
        return [run_call(self.instances, call) for call in self.turns[turn]]


class TurnChecker:
    """Checks the model's turns of one entry as they end, in order (see the module docstring)."""

    def __init__(self, entry: Mapping[str, Any], long_context: bool) -> None:
        self.truth = GroundTruthRun(entry, long_context)
        self.all_model_results: list[str] = []
        self.result_counts: Counter = Counter()
        self.outcomes: list[TurnOutcome] = []

    @property
    def num_turns(self) -> int:
        """Number of turns of the entry."""
        return len(self.truth.turns)

    def check_turn(
        self, turn: int, model_instances: Mapping[str, Any], step_results: Sequence[Sequence[str]]
    ) -> TurnOutcome:
        """Record the model's results of ``turn`` (per call step) and judge its state and responses."""
        if turn != len(self.outcomes):
            raise ValueError(f"turn {turn} checked out of order (expected turn {len(self.outcomes)})")
        for step in step_results:
            self.all_model_results.extend(step)
            self.result_counts.update(step)
        truth_results = self.truth.run_turn(turn)
        outcome = self._judge(turn, model_instances, step_results, truth_results)
        self.outcomes.append(outcome)
        return outcome

    def _judge(
        self,
        turn: int,
        model_instances: Mapping[str, Any],
        step_results: Sequence[Sequence[str]],
        truth_results: list[str],
    ) -> TurnOutcome:
        if not self.truth.turns[turn]:
            return TurnOutcome(turn, True, checked=False)
        if is_empty_turn(step_results):
            return TurnOutcome(turn, False, True, EMPTY_TURN, f"Model response list is empty for turn {turn}")
        differences = state_differences(model_instances, self.truth.instances)
        if differences:
            name = next(iter(differences))
            return TurnOutcome(
                turn,
                False,
                True,
                STATE_MISMATCH,
                f"Model instance for {name} does not match the state with ground truth instance.",
                {"differing_attributes": differences},
            )
        missing = unordered_missing(truth_results, self.result_counts)
        if missing:
            return TurnOutcome(
                turn,
                False,
                True,
                RESPONSE_MISMATCH,
                "Model response execution results so far does not contain all the ground truth response "
                f"execution results for turn {turn}.",
                {"missing_results": len(missing)},
            )
        return TurnOutcome(turn, True)

    def verdict(self, force_terminated: bool = False) -> EntryVerdict:
        """The entry's verdict from the turns checked so far (all turns must have been checked)."""
        outcomes = tuple(self.outcomes)
        if force_terminated or len(outcomes) < self.num_turns:
            message = (
                "Model was force-terminated during inference phase. The length of the model result turns "
                f"({len(outcomes)}) does not match the length of the ground truth turns ({self.num_turns})."
            )
            return EntryVerdict(False, FORCE_TERMINATED, message, outcomes)
        failed = next((o for o in outcomes if not o.valid), None)
        if failed is None:
            return EntryVerdict(True, None, None, outcomes)
        return EntryVerdict(False, failed.error_type, failed.error, outcomes)


def irrelevance_check(
    truth_turns: Sequence[Sequence[str]], model_turns: Sequence[Sequence[Sequence[Any]]]
) -> TurnOutcome | None:
    """The official (unused) irrelevance rule: the first empty-ground-truth turn with a call, else None."""
    for turn, (truth, steps) in enumerate(zip(truth_turns, model_turns, strict=False)):
        if not truth and not is_empty_turn(steps):
            return TurnOutcome(
                turn,
                False,
                True,
                IRRELEVANCE_ERROR,
                f"Model outputs valid function calls when it should not for turn {turn}.",
            )
    return None


def check_entry(
    entry: Mapping[str, Any],
    model_turns: Sequence[Sequence[Sequence[str | Call]]],
    long_context: bool | None = None,
    strict_irrelevance: bool = False,
) -> EntryVerdict:
    """Judge a whole model run: per turn, the steps that decoded to calls, each a list of calls.

    Calls are :class:`Call` objects or call strings (read by :func:`parse_model_call`, which never raises:
    a string the official ``eval`` fails on records the official error). The model's calls run on fresh
    instances of the entry's backends, as the official checker re-executes them.
    """
    if long_context is None:
        long_context = "long_context" in str(entry.get("category", entry.get("id", "")))
    checker = TurnChecker(entry, long_context)
    if len(model_turns) != checker.num_turns:
        for turn in range(min(len(model_turns), checker.num_turns)):
            checker.outcomes.append(TurnOutcome(turn, False, False))
        return checker.verdict(force_terminated=True)
    instances = make_instances(entry["involved_classes"], entry["initial_config"], long_context)
    parsed = checker.truth.parsed
    for turn, steps in enumerate(model_turns):
        results = []
        for step in steps:
            calls = [(parsed.get(c) or parse_model_call(c)) if isinstance(c, str) else c for c in step]
            results.append([run_call(instances, c) for c in calls])
        checker.check_turn(turn, instances, results)
    verdict = checker.verdict()
    if verdict.valid and strict_irrelevance:
        failed = irrelevance_check(entry["ground_truth"], model_turns)
        if failed is not None:
            return EntryVerdict(False, failed.error_type, failed.error, verdict.turns)
    return verdict
