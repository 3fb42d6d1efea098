"""One episode played by text actions, with what each step does to the agent's chat.

Actions are read as ``genenv eval`` reads an LLM agent's reply (``llm_agent.parse_action``: reasoning
blocks and code fences removed, native tool calls written in the domain's answer format); an env's answer
changes the chat as it changes ``LLMAgent``'s (``chat_session``): its new turns are added
(``environment_turn``), or a fresh prompt replaces the chat (``opening_messages``, when the step's info
carries ``messages``). The episode's reward is its return (the sum of its step rewards). An episode the
trainer stops before it ends counts as a failure for the curriculum. The episode owns its state: any
number of them, of the same task or of others, can be played at once in any order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from genenv_gym.agents.backends.base import Completion
from genenv_gym.agents.chat_session import environment_turn, opening_messages, starts_a_new_chat
from genenv_gym.agents.llm_agent import parse_action
from genenv_gym.envs.text_env import EpisodeRunner
from genenv_gym.integrations.live_tasks import LiveTasks
from genenv_gym.task import Task, thaw


@dataclass(frozen=True)
class EnvAnswer:
    """What one step does to the chat: ``messages`` are added to it, or replace it (``replaces_chat``)."""

    messages: list[dict[str, Any]]
    replaces_chat: bool = False


#: The answer of a step that ended the episode.
ENDED = EnvAnswer([])


class LiveEpisode:
    """``task`` played on ``tasks``' domain, one action at a time."""

    def __init__(
        self, tasks: LiveTasks, task: Task, proposal_id: str | None = None, validation: bool = False
    ) -> None:
        self.tasks = tasks
        self.task = task
        #: the curriculum's key of the episode's group (its row's proposal), and whether it is a validation
        #: rollout (recorded apart; it changes nothing)
        self.proposal_id = proposal_id
        self.validation = validation
        self._runner = EpisodeRunner()
        self._runner.start(tasks.start(task))
        self.total_reward = 0.0
        self.steps = 0
        self.done = False
        #: the env itself ended the episode (terminated or truncated), rather than ``stop``
        self.finished = False
        self.success = False
        self.recorded = False
        self.info: dict[str, Any] = {}

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The chat that opens the episode, as the env's ``reset`` opens it (``Domain.opening_chat``: the
        task's messages, system prompt included, or the state the domain shows first)."""
        return self.tasks.domain.opening_chat(self.task)

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The task's tool specs."""
        return thaw(self.task.tools)

    def action(self, reply: str, tool_calls: Sequence[Mapping[str, Any]] = ()) -> str:
        """The env action in a model reply (text and any native tool calls)."""
        domain = self.tasks.domain
        completion = Completion(text=reply, tool_calls=tuple(dict(c) for c in tool_calls))
        return parse_action(completion, domain.name, getattr(domain, "action_format", None))

    def step(self, action: str) -> EnvAnswer:
        """Play ``action``; what the env's answer does to the chat (``ENDED`` once the episode ends)."""
        if self.done:
            raise RuntimeError("the episode has ended")
        observation, reward, terminated, truncated, info = self._runner.step(action)
        self.steps += 1
        self.total_reward += float(reward)
        self.info = dict(info)
        if terminated or truncated:
            self.done = self.finished = True
            self.success = bool(info.get("success", False))
            self._end()
            return ENDED
        if starts_a_new_chat(info):
            return EnvAnswer(opening_messages(observation, info), replaces_chat=True)
        return EnvAnswer([dict(m) for m in environment_turn(observation, info)])

    def stop(self) -> float:
        """End the episode where it stands (a failure for the curriculum if it had not ended); its return."""
        if not self.done:
            self.done = True
            self._end()
        return self.total_reward

    def _end(self) -> None:
        self._runner.close()
        if not self.recorded:
            self.recorded = True
            self.tasks.record(self.task, self.success, self.proposal_id, self.validation)
