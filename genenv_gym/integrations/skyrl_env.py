"""SkyRL-gym's ``BaseTextEnv`` on any genenv id: one env object per trajectory, as SkyRL's generator makes
them, playing one episode on the shared live core (``LiveTasks``, ``LiveEpisode``).

Register it once per process (``register_skyrl_env()``: SkyRL's ``env_class`` ``"genenv"``) and give the
trainer rows from ``skyrl_rows(tasks)``: each row's ``prompt`` is the task's chat and its extras pin the task
(``env_id``, then ``task_id`` for an official task, else the Task JSON ``task``, its ``seed`` and
``proposal_id``). ``env_config`` may set ``group_size`` (a simulator id's group, for its curriculum) and
``env_kwargs`` (``gymnasium.make``'s); the id's env is made once per process per ``(env_id, env_kwargs,
group_size)``.

Per trajectory:

- ``init(prompt)`` answers the task's own chat (the one ``genenv eval`` shows), whatever the row's prompt;
- ``step(reply)`` reads the reply as ``genenv eval`` reads an LLM agent's (``LiveEpisode.action``: reasoning
  blocks and code fences removed, ``<tool_call>`` blocks written in the domain's answer format), plays it
  and answers the env's turns as ``observations``, the step's reward (the episode's return is their sum,
  under the domain's official metric) and ``done`` when the env ends the episode or after
  ``max_turns`` replies (``env_config.max_turns``, default 50);
- a step after which the env starts a fresh chat (TravelPlanner-Tools' planning turn) answers that chat's
  messages with ``metadata["replaces_chat"]`` True: SkyRL's generator appends observations to the chat it
  keeps, so a trainer that honours the flag restarts the chat there; ``chat`` always holds the chat
  ``genenv eval`` would show next;
- a finished episode is recorded into a simulator id's curriculum (``LiveTasks.record``); ``close()`` ends
  one the trainer stopped (a failure for the curriculum).

Imports skyrl-gym (``pip install 'genenv-gym[skyrl]'``).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from typing import Any

from genenv_gym.integrations.live_episode import LiveEpisode
from genenv_gym.integrations.live_tasks import LiveTasks
from genenv_gym.registry.extras import require_extra
from genenv_gym.task import thaw

require_extra("skyrl", "genenv_gym.integrations.skyrl_env")

from skyrl_gym.envs.base_text_env import BaseTextEnv, BaseTextEnvStepOutput  # noqa: E402

#: SkyRL's ``env_class`` of the adapter.
ENV_CLASS = "genenv"
#: Replies per trajectory when ``env_config`` sets no ``max_turns``.
DEFAULT_MAX_TURNS = 50

_LIVE: dict[tuple[str, str, int], LiveTasks] = {}
_LIVE_LOCK = threading.Lock()


def register_skyrl_env() -> None:
    """Register the adapter with SkyRL-gym as ``env_class="genenv"`` (idempotent)."""
    from skyrl_gym.envs import register
    from skyrl_gym.envs.registration import registry

    if ENV_CLASS not in registry:
        register(id=ENV_CLASS, entry_point=f"{__name__}:GenEnvSkyRLEnv")


def live_tasks(env_id: str, env_kwargs: Mapping[str, Any] | None = None, group_size: int = 1) -> LiveTasks:
    """This process's ``LiveTasks`` of ``env_id`` (made on first use)."""
    key = (env_id, json.dumps(dict(env_kwargs or {}), sort_keys=True), int(group_size))
    with _LIVE_LOCK:
        if key not in _LIVE:
            _LIVE[key] = LiveTasks(env_id, group_size, env_kwargs)
        return _LIVE[key]


def skyrl_rows(tasks: LiveTasks, limit: int | None = None) -> list[dict[str, Any]]:
    """SkyRL dataset rows of a benchmark id's tasks (a simulator id: ``propose_row`` per row, then
    ``skyrl_row``): ``prompt``, ``env_class`` and the task pin as extras."""
    return [skyrl_row(tasks, row) for row in tasks.rows(limit)]


def skyrl_row(tasks: LiveTasks, row: Mapping[str, Any]) -> dict[str, Any]:
    """One ``LiveTasks`` row (``rows`` or ``propose_row``) as a SkyRL row."""
    task = tasks.task_for(row)
    official = row.get("task_id") in {t.id for t in tasks.tasks}
    pin = (
        {"task_id": task.id}
        if official
        else {"task": task.to_json(), "seed": int(row.get("seed", 0)), "proposal_id": row.get("proposal_id")}
    )
    return {"prompt": thaw(task.messages), "env_class": ENV_CLASS, "env_id": tasks.env_id, **pin}


class GenEnvSkyRLEnv(BaseTextEnv):
    """One trajectory of a genenv id (see the module docstring)."""

    def __init__(self, env_config: Mapping[str, Any] | None = None, extras: Mapping[str, Any] | None = None):
        super().__init__()
        config = dict(env_config or {})
        pin = _pin(extras or {})
        env_id = pin.get("env_id") or config.get("env_id")
        if not env_id:
            raise ValueError("the row names no env_id: build the rows with skyrl_env.skyrl_rows")
        tasks = live_tasks(env_id, config.get("env_kwargs"), int(config.get("group_size", 1)))
        self._start(tasks, pin, int(config.get("max_turns", DEFAULT_MAX_TURNS)))

    @classmethod
    def from_tasks(cls, tasks: LiveTasks, row: Mapping[str, Any], max_turns: int = DEFAULT_MAX_TURNS):
        """A trajectory of ``row``'s task on a ``LiveTasks`` the caller holds."""
        env = cls.__new__(cls)
        BaseTextEnv.__init__(env)
        env._start(tasks, _pin(row), max_turns)
        return env

    def _start(self, tasks: LiveTasks, pin: Mapping[str, Any], max_turns: int) -> None:
        self.tasks = tasks
        self.max_turns = max_turns
        self.episode = LiveEpisode(tasks, tasks.task_for(pin), pin.get("proposal_id"))
        #: the chat ``genenv eval`` would show the model next
        self.chat: list[dict[str, Any]] = self.episode.messages

    def init(self, prompt: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        return [dict(m) for m in self.chat], {"task_id": self.episode.task.id, "env_id": self.tasks.env_id}

    def step(self, action: str) -> BaseTextEnvStepOutput:
        self.turns += 1
        played = self.episode.action(action)
        before = self.episode.total_reward
        answer = self.episode.step(played)
        reward = self.episode.total_reward - before
        self.chat.append({"role": "assistant", "content": action})
        if answer.replaces_chat:
            self.chat = [dict(m) for m in answer.messages]
        else:
            self.chat.extend(dict(m) for m in answer.messages)
        if not self.episode.done and self.turns >= self.max_turns:
            self.episode.stop()
        metadata = {
            "replaces_chat": answer.replaces_chat,
            "finished": self.episode.finished,
            "success": self.episode.success,
            "return": self.episode.total_reward,
        }
        return BaseTextEnvStepOutput(
            observations=[dict(m) for m in answer.messages],
            reward=reward,
            done=self.episode.done,
            metadata=metadata,
            postprocessed_action=played,
        )

    def get_metrics(self) -> dict[str, Any]:
        episode = self.episode
        return {"return": episode.total_reward, "success": float(episode.success), "turns": self.turns}

    def close(self) -> None:
        self.episode.stop()


def _pin(extras: Mapping[str, Any]) -> dict[str, Any]:
    """The task pin of a row's extras (at the top level, or in SkyRL's ``extra_info``)."""
    inner = extras.get("extra_info")
    pin = dict(inner) if isinstance(inner, Mapping) else {}
    pin.update({k: extras[k] for k in ("env_id", "task_id", "task", "seed", "proposal_id") if k in extras})
    return pin
