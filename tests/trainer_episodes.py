"""Fixed scripted episodes for the trainer adapters: the oracle's and a fixed wrong script, played in process
(the reference), through TRL's environment object, and through verl's agent loop with a scripted server."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from genenv_gym.agents.chat_session import environment_turn
from genenv_gym.domain import oracle_transcript
from genenv_gym.integrations.live_tasks import LiveTasks
from genenv_gym.registration import ENV_ENTRIES
from genenv_gym.task import Task, thaw

#: Every registered env id (the adapters serve them all).
ALL_IDS = [entry.id for entry in ENV_ENTRIES]

#: A wrong script: text that no env accepts as a right answer, three times.
WRONG_SCRIPT = ("nothing", "nothing", "nothing")


def oracle_script(tasks: LiveTasks, task: Task) -> list[str]:
    """The oracle's actions on a fresh episode of ``task``, to the episode's end."""
    return json.loads(oracle_transcript(tasks.start(task)))


@dataclass
class Recording:
    """An episode played in process: its return, whether it ended, and the chat before every model turn."""

    total_reward: float = 0.0
    finished: bool = False
    actions: list[str] = field(default_factory=list)
    chats: list[list[dict[str, Any]]] = field(default_factory=list)


def record_in_process(tasks: LiveTasks, task: Task, script: list[str] | tuple[str, ...]) -> Recording:
    """Play ``script`` on the Gymnasium env itself (stopping when the episode ends): the reference."""
    env = tasks.env
    observation, info = env.reset(options={"task": task})
    chat = [dict(m) for m in thaw(task.messages)]
    recording = Recording()
    for action in script:
        recording.chats.append([dict(m) for m in chat])
        recording.actions.append(action)
        observation, reward, terminated, truncated, info = env.step(action)
        recording.total_reward += float(reward)
        chat.append({"role": "assistant", "content": action})
        if terminated or truncated:
            recording.finished = True
            break
        chat.extend(dict(m) for m in environment_turn(observation, info))
    return recording


def play_trl(environment: Any, row: dict[str, Any], script: list[str] | tuple[str, ...]) -> float:
    """Play ``script`` as a TRL rollout would: every action but the last through the ``act`` tool, the last
    as the rollout's final reply, scored by the adapter's reward function."""
    from genenv_gym.integrations.trl_env import env_reward

    environment.reset(**row)
    if hasattr(environment, "act"):
        for action in script[:-1]:
            environment.act(action)
    final = [{"role": "assistant", "content": script[-1]}]
    return env_reward([final], [environment])[0]


class ScriptedServer:
    """verl's LLM server for tests: replies with a script's actions as the tokenizer encodes them (ending
    with the end-of-turn token), and keeps every prompt it was asked to continue."""

    def __init__(self, tokenizer: Any, script: list[str] | tuple[str, ...]) -> None:
        self.tokenizer = tokenizer
        self.script = list(script)
        self.prompts: list[list[int]] = []

    async def generate(self, request_id: str, *, prompt_ids: list[int], sampling_params: dict, **_: Any):
        from verl.workers.rollout.replica import TokenOutput

        action = self.script[len(self.prompts)]
        self.prompts.append(list(prompt_ids))
        ids = [*self.tokenizer.encode(action, add_special_tokens=False), self.tokenizer.eos_token_id]
        return TokenOutput(token_ids=ids, log_probs=[-1.0] * len(ids), stop_reason="completed")


def chat_ids(tokenizer: Any, messages: list[dict[str, Any]], add_generation_prompt: bool = True) -> list[int]:
    """The ids of the rendered chat (the template's text, tokenized once)."""
    text = tokenizer.apply_chat_template(
        messages, tokenize=False, add_generation_prompt=add_generation_prompt
    )
    return tokenizer.encode(text, add_special_tokens=False)


_LIVE: dict[str, LiveTasks] = {}


def live(env_id: str) -> LiveTasks:
    """One ``LiveTasks`` per id for the whole test session (groups of two rollouts)."""
    if env_id not in _LIVE:
        _LIVE[env_id] = LiveTasks(env_id, group_size=2)
    return _LIVE[env_id]


def first_task(tasks: LiveTasks) -> Task:
    """The env's first official task whose reference answer its metric accepts (the domain's
    ``reference_failures`` aside), or a task its simulator proposes with seed 0."""
    if not tasks.tasks:
        return tasks.task_for(tasks.propose_row(0))
    rejected = tasks.domain.reference_failures()
    return next(t for t in tasks.tasks if t.id not in rejected)


def require(module: str, install: str) -> None:
    """Skip the calling test module when ``module`` is missing; under CI (``CI`` set) fail instead."""
    import importlib
    import os

    import pytest

    try:
        importlib.import_module(module)
    except ImportError as error:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"{module} is not installed ({install}): {error}", allow_module_level=True)
