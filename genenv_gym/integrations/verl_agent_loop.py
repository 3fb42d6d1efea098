"""verl's agent loop ``genenv_agent``: plays a genenv env turn by turn with exact token accounting.

Select it per row with the ``agent_name`` column (``genenv export --format verl`` writes
``agent_name="genenv_agent"``) and load this module in verl's agent-loop workers
(``actor_rollout_ref.rollout.agent.agent_loop_config_path`` pointing at a YAML file with
``- name: genenv_agent`` / ``_target_: genenv_gym.integrations.verl_agent_loop.GenEnvAgentLoop``, see
docs/trainers.md).

Per rollout: the row's task (its ``reward_model.ground_truth`` Task JSON, else ``extra_info.task_id`` of the
row's env id) opens the chat with the task's messages; each model turn is sampled by verl's server from the
exact token ids so far, its text is read as ``genenv eval`` reads a reply (``llm_agent.parse_action``) and
played on the env; the env's answer (``chat_session.environment_turn``) is appended as the ids of exactly
the text the chat template puts between the model's last token and the next generation prompt, never
re-tokenizing earlier text (``ChatSession``). ``response_mask`` is 1 on the sampled tokens only. The episode
ends when the env ends it, after ``multi_turn.max_assistant_turns`` replies, or when the response reaches
``response_length`` tokens (then it counts as a failure). ``reward_score`` is the episode's return under the
domain's official metric, so verl needs no reward function for these rows. For a simulator id, each
finished group of ``rollout.n`` rollouts of a task updates that worker's simulator (``LiveTasks.record``);
the tasks themselves come from the exported table.

Imports verl (``pip install 'genenv-gym[verl]'``, see docs/trainers.md for the exact install).
"""

from __future__ import annotations

import json
from typing import Any
from uuid import uuid4

from genenv_gym.agents.backends.base import Completion
from genenv_gym.agents.chat_session import ChatSession
from genenv_gym.export.exporter import VERL_AGENT_NAME
from genenv_gym.extras import require_extra
from genenv_gym.integrations.live_episode import LiveEpisode
from genenv_gym.integrations.live_tasks import LiveTasks
from genenv_gym.integrations.template_backend import TemplateBackend

require_extra("verl", "genenv_gym.integrations.verl_agent_loop")

from verl.experimental.agent_loop.agent_loop import AgentLoopBase, AgentLoopOutput, register  # noqa: E402

#: The ``agent_name`` that selects this loop (the value ``genenv export --format verl`` writes).
AGENT_NAME = VERL_AGENT_NAME

_LIVE: dict[tuple[str, int, str], LiveTasks] = {}


def live_tasks(env_id: str, group_size: int, env_kwargs: dict[str, Any] | None = None) -> LiveTasks:
    """This process's ``LiveTasks`` of an env id (one per id, shared by every rollout it runs)."""
    key = (env_id, group_size, json.dumps(env_kwargs or {}, sort_keys=True))
    if key not in _LIVE:
        _LIVE[key] = LiveTasks(env_id, group_size, env_kwargs)
    return _LIVE[key]


def row_task_pin(kwargs: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """``(env id, row)`` of a verl row: its env id and the fields that pin its task."""
    extra = dict(kwargs.get("extra_info") or {})
    reward_model = dict(kwargs.get("reward_model") or {})
    env_id = extra.get("env_id") or kwargs.get("data_source")
    if not env_id:
        raise ValueError(
            "a genenv_agent row needs extra_info.env_id or data_source (genenv export writes them)"
        )
    return str(env_id), {"task": reward_model.get("ground_truth"), "task_id": extra.get("task_id")}


@register(AGENT_NAME)
class GenEnvAgentLoop(AgentLoopBase):
    """One rollout of a genenv env (see the module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.prompt_length = int(self.rollout_config.prompt_length)
        self.response_length = int(self.rollout_config.response_length)
        multi_turn = self.rollout_config.get("multi_turn", None) or {}
        self.max_turns = multi_turn.get("max_assistant_turns", None) or 10_000
        self.group_size = int(self.rollout_config.get("n", 1) or 1)

    async def run(self, sampling_params: dict[str, Any], **kwargs: Any) -> AgentLoopOutput:
        env_id, row = row_task_pin(kwargs)
        tasks = live_tasks(env_id, self.group_size)
        episode = LiveEpisode(tasks, tasks.task_for(row))
        session = ChatSession(TemplateBackend(self.tokenizer), episode.messages)
        if session.tokens.prompt_length > self.prompt_length:
            raise ValueError(
                f"the task's prompt has {session.tokens.prompt_length} tokens, more than "
                f"rollout.prompt_length={self.prompt_length}: raise it or filter overlong prompts"
            )
        request_id = uuid4().hex
        turns = 0
        while True:
            output = await self.server_manager.generate(
                request_id=request_id, prompt_ids=session.prompt_ids(), sampling_params=sampling_params
            )
            ids = [int(t) for t in output.token_ids]
            text = self.tokenizer.decode(ids, skip_special_tokens=True)
            logprobs = tuple(output.log_probs) if output.log_probs else None
            session.add_completion(Completion(text=text, token_ids=tuple(ids), logprobs=logprobs))
            turns += 1
            new = episode.step(episode.action(text))
            full = self._response_tokens(session) >= self.response_length
            if episode.done or turns >= self.max_turns or full:
                break
            session.add_environment(new)
            if self._response_tokens(session) >= self.response_length:
                break
        reward = episode.stop()
        return self._output(session, episode, reward, turns, bool(logprobs is not None))

    @staticmethod
    def _response_tokens(session: ChatSession) -> int:
        return session.num_tokens - session.tokens.prompt_length

    def _output(
        self, session: ChatSession, episode: LiveEpisode, reward: float, turns: int, with_logprobs: bool
    ) -> AgentLoopOutput:
        record = session.tokens
        start, end = record.prompt_length, record.prompt_length + self.response_length
        return AgentLoopOutput(
            prompt_ids=record.token_ids[:start],
            response_ids=record.token_ids[start:end],
            response_mask=record.mask[start:end],
            response_logprobs=record.logprobs[start:end] if with_logprobs else None,
            reward_score=float(reward),
            num_turns=len(session.messages),
            metrics={},
            extra_fields={
                "turn_scores": [],
                "tool_rewards": [],
                "genenv_success": episode.success,
                "genenv_finished": episode.finished,
                "genenv_assistant_turns": turns,
                "genenv_template_fallbacks": session.template_fallbacks,
            },
        )
