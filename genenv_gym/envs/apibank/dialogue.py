"""``GenEnv-APIBank-Dialogue-v0``: the agent plays the AI side of a whole recorded API-Bank dialogue.

The user's turns come from the recording. At each of its turns the agent either calls an API
(``[ApiName(key='value')]``: the simulated API answers with its real output, and state persists for the
whole episode) or replies to the user in text. A reply consumes the recording up to its next AI turn;
the user's next turns are then shown. The episode ends after the reply that exhausts the recording
(terminated) or after ``max_steps`` actions (truncated). It succeeds when every API effect of the
recording was reached: for each recorded API turn, in order, some agent call of that API returns what the
reference call returns on the state the recording reaches there, under the corrected rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from genenv_gym.domain import Episode, StepResult, env_messages_since
from genenv_gym.envs.apibank.corrected import CORRECTED_RULES, reference_params, typed_params
from genenv_gym.envs.apibank.extraction import find_call, parse_call, render_call, render_gold_call
from genenv_gym.envs.apibank.official_checks import check
from genenv_gym.envs.apibank.prompt import describe_apis, render_messages
from genenv_gym.envs.apibank.registry import CallRefused, execute
from genenv_gym.envs.apibank.world import World, output_json
from genenv_gym.task import Task, thaw

DIALOGUE_PROMPT = (
    "You are the AI assistant in this conversation. At each turn, either call one API by writing only "
    "[ApiName(key1='value1', key2='value2', ...)], or reply to the user in plain text. API results are "
    "shown to you as system turns. This year is 2023.\n\nAPI descriptions:\n"
)


def user_messages(turns: Sequence[dict], start: int) -> list[dict[str, str]]:
    """The user's consecutive turns from ``start`` on, as chat messages."""
    messages = []
    for turn in turns[start:]:
        if turn["role"] != "User":
            break
        messages.append({"role": "user", "content": turn["text"]})
    return messages


def opening_messages(turns: Sequence[dict], apis: Sequence[str]) -> list[dict[str, str]]:
    """What the agent is shown first: the instructions with the API descriptions, then the user's opening
    turns (a dialogue may open with several)."""
    return [{"role": "system", "content": DIALOGUE_PROMPT + describe_apis(apis)}, *user_messages(turns, 0)]


def expected_results(world: World, api_turns: Sequence[dict]) -> list[dict]:
    """What each recorded API turn's reference call returns on the state the recording reaches there."""
    results = []
    for turn in api_turns:
        params = reference_params(turn["api_name"], turn["param_dict"])
        results.append(execute(world.fork(), turn["api_name"], params))
        try:
            execute(world, turn["api_name"], params)
        except CallRefused:
            continue
    return results


class DialogueEpisode(Episode):
    """One recorded dialogue played by the agent on a persistent simulated world."""

    def __init__(self, task: Task, world: World, max_steps: int) -> None:
        self.turns: list[dict] = thaw(task.evaluation["turns"])
        self.world = world
        self.max_steps = max_steps
        self.steps = 0
        self.calls: list[dict] = []
        gold = [t for t in self.turns if t["role"] == "API"]
        self.gold = gold
        self.expected = expected_results(World(world._init, world.recordings), gold)
        self.messages = opening_messages(self.turns, task.evaluation["apis"])
        self.cursor = len(self.messages) - 1
        super().__init__(task, render_messages(self.messages))

    def _show_user_turns(self) -> None:
        shown = user_messages(self.turns, self.cursor)
        self.messages.extend(shown)
        self.cursor += len(shown)

    def _reached(self) -> list[bool]:
        reached, start = [], 0
        for turn, expected in zip(self.gold, self.expected, strict=True):
            hit = next(
                (
                    i
                    for i in range(start, len(self.calls))
                    if self.calls[i]["api_name"] == turn["api_name"]
                    and check(turn["api_name"], thaw(self.calls[i]), thaw(expected), CORRECTED_RULES)[0]
                ),
                None,
            )
            reached.append(hit is not None)
            if hit is not None:
                start = hit + 1
        return reached

    def _call(self, call: str) -> dict[str, Any]:
        api_name, params = parse_call(call)
        try:
            result = execute(self.world, api_name, typed_params(api_name, params))
        except CallRefused as refused:
            self.messages.append(
                {"role": "system", "content": f"{render_call(api_name, params)} Error: {refused}"}
            )
            return {"error_type": refused.bucket, "error": str(refused)}
        self.calls.append(result)
        self.messages.append(
            {"role": "system", "content": f"{render_call(api_name, params)} Response: {result['output']}"}
        )
        return {"api_output": output_json(result["output"]), "api_exception": result["exception"]}

    def _advance_after_call(self) -> None:
        """A call takes the place of a recorded API turn, or of an AI turn that itself wrote a call."""
        if self.cursor >= len(self.turns):
            return
        turn = self.turns[self.cursor]
        if turn["role"] == "API":
            self.cursor += 1
        elif turn["role"] == "AI" and find_call(turn["text"]) is not None:
            self._advance_past_ai()

    def _reply(self, text: str) -> None:
        self.messages.append({"role": "assistant", "content": text})
        self._advance_past_ai()

    def _advance_past_ai(self) -> None:
        while self.cursor < len(self.turns) and self.turns[self.cursor]["role"] != "User":
            role = self.turns[self.cursor]["role"]
            self.cursor += 1
            if role == "AI":
                break
        self._show_user_turns()

    def step(self, action: str) -> StepResult:
        self.steps += 1
        info: dict[str, Any] = {"error_type": None}
        start = len(self.messages)
        if not isinstance(action, str):
            info.update(error_type="action_error:not_text", error="the action must be text")
        else:
            call = find_call(action)
            if call is not None:
                info.update(self._call(call))
                self._advance_after_call()
            else:
                self._reply(action)
        terminated = self.cursor >= len(self.turns) and self.messages[-1]["role"] == "assistant"
        truncated = not terminated and self.steps >= self.max_steps
        self.observation = render_messages(self.messages)
        reward = 0.0
        if not (terminated or truncated):
            info["turn_messages"] = env_messages_since(self.messages, start)
        else:
            self.done = True
            reached = self._reached()
            success = all(reached)
            reward = float(success)
            info.update(
                success=success,
                metrics={"success": reward, "effects_reached": float(np.mean(reached)) if reached else 1.0},
            )
            if not success and info["error_type"] is None:
                info.update(
                    error_type="effects_missing", error=f"{reached.count(False)} API effects not reached"
                )
        return StepResult(self.observation, reward, terminated, truncated, info)

    def oracle_action(self) -> str:
        turn = next((t for t in self.turns[self.cursor :] if t["role"] != "User"), None)
        if turn is None:
            return "Is there anything else I can help you with?"
        if turn["role"] == "API":
            params = {k: v for k, v in reference_params(turn["api_name"], turn["param_dict"]).items()}
            return render_gold_call(turn["api_name"], {k: str(v) for k, v in params.items()})
        return turn["text"]

    def random_action(self, rng: np.random.Generator) -> str:
        if rng.random() < 0.5:
            names = list(self.task.evaluation["apis"]) or ["GetToday"]
            return f"[{names[int(rng.integers(len(names)))]}(token='x')]"
        return "Okay."
