"""One BFCL multi-turn entry played step by step, as bfcl-eval's prompting loop plays it.

Each action is the model's text for one step. Text that decodes to calls (``[f(a=1), g()]``, decoded by the
safe single-turn decoder, never executed as code) runs the calls on the entry's backends; their results
come back as ``tool`` messages and the model steps again. Text that decodes to no call (plain text, ``[]``,
anything the decoder refuses) ends the model's turn (with ``action_format="json"`` the calls are JSON tool
calls, decoded by the single-turn JSON decoder): the turn is judged by the official checker (state and
responses, see :mod:`.checker`) and the next user turn is shown, or the episode ends after the last turn.
As officially, a turn may hold at most ``max_steps_per_turn + 1`` call steps: the step after the limit is
passed force-terminates the entry (a failure, ``multi_turn:force_terminated``) unless it happens in the last
turn, which is then judged as it stands.

:class:`TurnEpisode` plays one turn of an entry alone, after the ground truth of the earlier turns (the
GenEnv paper's per-turn protocol).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from genenv_gym.domain import Episode, StepResult, env_messages_since
from genenv_gym.envs.bfcl.decode_errors import DecodeError
from genenv_gym.envs.bfcl_multiturn.calls import (
    check_action_format,
    decode_calls,
    make_instances,
    render_call,
    render_calls,
    run_call,
)
from genenv_gym.envs.bfcl_multiturn.checker import EntryVerdict, TurnChecker, irrelevance_check
from genenv_gym.envs.bfcl_multiturn.prompt import first_messages, render_messages, turn_messages
from genenv_gym.envs.bfcl_multiturn.shown_results import shown_results
from genenv_gym.task import Task, thaw

#: The official ``MAXIMUM_STEP_LIMIT`` (bfcl-eval 2026.3.23).
MAXIMUM_STEP_LIMIT = 20
#: What the oracle says to end a turn (any text that is not a call would do).
ORACLE_DONE = "I have completed the request."
ORACLE_MISSING = "I cannot do this with the functions and details I have: please tell me what is missing."


class MultiTurnEpisode(Episode):
    """A multi-turn entry on live backends; the official checker judges each turn as it ends."""

    def __init__(
        self, task: Task, max_steps_per_turn: int = MAXIMUM_STEP_LIMIT, strict_irrelevance: bool = False
    ):
        evaluation = thaw(task.evaluation)
        self.entry = {
            "id": task.id,
            "involved_classes": evaluation["involved_classes"],
            "initial_config": evaluation["initial_config"],
            "ground_truth": evaluation["ground_truth"],
        }
        self.question: list[list[dict[str, str]]] = evaluation["question"]
        self.holdout: dict[str, list[dict]] = evaluation.get("holdout", {})
        self.long_context = bool(evaluation.get("long_context", False))
        #: ``"python"`` (``[f(a=1)]``) or ``"json"`` (JSON tool calls): how actions are read and written.
        self.action_format = check_action_format(evaluation.get("action_format", "python"))
        self.max_steps_per_turn = max_steps_per_turn
        self.strict_irrelevance = strict_irrelevance
        self.instances = make_instances(
            self.entry["involved_classes"], self.entry["initial_config"], self.long_context
        )
        self.checker = TurnChecker(self.entry, self.long_context)
        self.turn = 0
        self.steps_in_turn = 0
        self.turn_results: list[list[str]] = []
        self._distinct: dict[str, str] = {}
        self.model_turns: list[list[list[str]]] = []
        self.messages = first_messages(
            turn_messages(0, self.question, self.holdout), thaw(task.tools), self.action_format
        )
        #: where the messages added since the agent's last action begin (``info["turn_messages"]``)
        self.step_start = len(self.messages)
        super().__init__(task, render_messages(self.messages))

    @property
    def tool_specs(self) -> list[dict[str, Any]]:
        """The functions the agent may call now: the task's, and the held-out ones shown by the turns so far
        (miss_func)."""
        shown = [thaw(doc) for turn in range(self.turn + 1) for doc in self.holdout.get(str(turn), [])]
        return [dict(f) for f in thaw(self.task.tools)] + shown

    @property
    def num_turns(self) -> int:
        """Number of user turns of the entry."""
        return self.checker.num_turns

    def step(self, action: Any) -> StepResult:
        info: dict[str, Any] = {"turn": self.turn, "error_type": None}
        self.step_start = len(self.messages)
        calls, why = None, None
        if not isinstance(action, str):
            info.update(error_type="action_error:not_text", error="the action must be text")
            text = "" if action is None else str(type(action).__name__)
        else:
            text = action
            try:
                calls = decode_calls(action, self.action_format)
            except DecodeError as error:
                why = str(error)
        self.messages.append({"role": "assistant", "content": text})
        if calls:
            return self._call_step(calls, info)
        if why is not None:
            info["decode_error"] = why
        return self._end_turn(info, force_quit=False)

    def _call_step(self, calls: list, info: dict[str, Any]) -> StepResult:
        # equal results share one string: the checker keeps every result of the episode in full
        results = [self._distinct.setdefault(r, r) for r in (run_call(self.instances, c) for c in calls)]
        shown = shown_results(results)
        for call, result in zip(calls, shown, strict=True):
            self.messages.append({"role": "tool", "name": render_call(call), "content": result})
        self.turn_results.append(results)
        self.steps_in_turn += 1
        info.update(step=self.steps_in_turn, execution_results=shown)
        if self.steps_in_turn > self.max_steps_per_turn:
            return self._end_turn(info, force_quit=True)
        return self._result(0.0, False, info)

    def _end_turn(self, info: dict[str, Any], force_quit: bool) -> StepResult:
        outcome = self.checker.check_turn(self.turn, self.instances, self.turn_results)
        self.model_turns.append(self.turn_results)
        info["turn_verdict"] = outcome.as_dict()
        self.turn += 1
        self.turn_results, self.steps_in_turn = [], 0
        verdict = self._verdict_after_turn(force_quit)
        if verdict is not None:
            return self._finish(verdict, info)
        self.messages.extend(turn_messages(self.turn, self.question, self.holdout))
        return self._result(0.0, False, info)

    def _verdict_after_turn(self, force_quit: bool) -> EntryVerdict | None:
        """The verdict that ends the episode now that a turn has ended (``self.turn`` is the next turn), or
        None to go on: force-terminated before the last turn, judged after it."""
        if force_quit and self.turn < self.num_turns:
            return self.checker.verdict(force_terminated=True)
        if self.turn >= self.num_turns:
            return self.checker.verdict()
        return None

    def _finish(self, verdict: EntryVerdict, info: dict[str, Any]) -> StepResult:
        if verdict.valid and self.strict_irrelevance:
            failed = irrelevance_check(self.entry["ground_truth"], self.model_turns)
            if failed is not None:
                verdict = EntryVerdict(False, failed.error_type, failed.error, verdict.turns)
        self.done = True
        checked = [o for o in verdict.turns if o.checked]
        info.update(
            success=verdict.valid,
            error_type=info["error_type"] or verdict.error_type,
            turn_verdicts=[o.as_dict() for o in verdict.turns],
            metrics={
                "success": float(verdict.valid),
                "turns_passed": float(np.mean([o.valid for o in checked])) if checked else 1.0,
            },
        )
        if verdict.error is not None:
            info["error"] = verdict.error
        return self._result(float(verdict.valid), True, info)

    def _result(self, reward: float, terminated: bool, info: dict[str, Any]) -> StepResult:
        self.observation = render_messages(self.messages)
        if not terminated:
            info["turn_messages"] = env_messages_since(self.messages, self.step_start)
        return StepResult(self.observation, reward, terminated, False, info)

    def invalid_action(self, error_type: str, error: str) -> StepResult:
        """An over-long action is one step of text that decodes to no call: it ends the model's turn."""
        self.step_start = len(self.messages)
        self.messages.append({"role": "assistant", "content": ""})
        return self._end_turn({"turn": self.turn, "error_type": error_type, "error": error}, force_quit=False)

    def oracle_action(self) -> str:
        """The current turn's ground-truth calls as one step, then a text reply that ends the turn."""
        truth = self.checker.truth.turns[self.turn] if self.turn < self.num_turns else []
        if truth and not self.turn_results:
            return render_calls(truth, self.action_format)
        return ORACLE_DONE if truth else ORACLE_MISSING

    def random_action(self, rng: np.random.Generator) -> str:
        """A call of a random documented function without arguments, or a text reply."""
        names = [t["name"] for t in thaw(self.task.tools) if isinstance(t, dict) and "name" in t]
        if names and rng.random() < 0.5:
            name = names[int(rng.integers(len(names)))]
            return (
                json.dumps([{"name": name, "arguments": {}}])
                if self.action_format == "json"
                else f"[{name}()]"
            )
        return "Okay."


class TurnEpisode(MultiTurnEpisode):
    """One turn of an entry as its own episode (the GenEnv paper's per-turn protocol).

    The task's ``evaluation["turn"]`` names the turn. The earlier turns are played first, by the ground
    truth through the official loop (each turn's ground-truth calls as one call step, then
    :data:`ORACLE_DONE`, or :data:`ORACLE_MISSING` in a turn whose ground truth is empty), on fresh
    backends; their calls, results and replies stay in the conversation as the official loop records them,
    and the checker's ground-truth backends advance with them. The agent then plays only this turn (call
    steps under the same step limit, text to end it) and the episode ends with the turn's verdict: the
    official state and response checks of :class:`~.checker.TurnChecker` (the response check sees the
    results of the replayed turns too, as the official checker sees a model's earlier results). As in the
    whole-entry episode, passing the step limit force-terminates the turn (a failure) unless it is the
    entry's last turn, which is then judged as it stands.
    """

    def __init__(
        self, task: Task, max_steps_per_turn: int = MAXIMUM_STEP_LIMIT, strict_irrelevance: bool = False
    ):
        self.target_turn = int(task.evaluation["turn"])
        super().__init__(task, max_steps_per_turn, strict_irrelevance)
        if not 0 <= self.target_turn < self.num_turns:
            raise ValueError(f"{task.id}: turn {self.target_turn} is not one of its {self.num_turns} turns")
        while self.turn < self.target_turn:
            self.step(self.oracle_action())
        self.observation = render_messages(self.messages)

    def _verdict_after_turn(self, force_quit: bool) -> EntryVerdict | None:
        """None during the replay of the earlier turns; after the target turn, that turn's verdict alone."""
        if self.turn <= self.target_turn:
            return None
        outcome = self.checker.outcomes[self.target_turn]
        if force_quit and self.turn < self.num_turns:
            forced = self.checker.verdict(force_terminated=True)
            return EntryVerdict(False, forced.error_type, forced.error, (outcome,))
        return EntryVerdict(outcome.valid, outcome.error_type, outcome.error, (outcome,))

    def _finish(self, verdict: EntryVerdict, info: dict[str, Any]) -> StepResult:
        result = super()._finish(verdict, info)
        result.info["metrics"] = {
            "success": float(result.info["success"]),
            "checked": float(verdict.turns[0].checked),
        }
        return result
