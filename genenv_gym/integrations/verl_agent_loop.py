"""verl's agent loop ``genenv_agent``: plays a genenv env turn by turn with exact token accounting.

Select it per row with the ``agent_name`` column (``genenv export --format verl`` writes
``agent_name="genenv_agent"``) and load this module in verl's agent-loop workers
(``actor_rollout_ref.rollout.agent.agent_loop_config_path`` pointing at a YAML file with
``- name: genenv_agent`` / ``_target_: genenv_gym.integrations.verl_agent_loop.GenEnvAgentLoop``, see
docs/trainers.md).

Per rollout: the row's task (``extra_info.task_id`` of the row's env id, else the Task JSON in
``reward_model.ground_truth``) is played through a ``LiveRollout`` (``live_rollout``): each reply is sampled
by verl's server from the exact token ids so far, with ``max_tokens`` set to what is left of
``rollout.response_length``; its text is read as ``genenv eval`` reads a reply and played on the env; the
env's answer is appended as the ids of exactly the text the chat template puts between the model's last
token and the next generation prompt (or, for a fresh prompt, replaces the chat). ``response_mask`` is 1 on
the sampled tokens only. The episode ends when the env ends it, after ``multi_turn.max_assistant_turns``
replies, or when the response budget is spent (a failure unless the reply that spent it ended the episode).
A prompt longer than ``rollout.prompt_length`` is a failed row (reward 0, nothing sampled) with a warning.
``reward_score`` is the episode's return under the domain's official metric, so verl needs no reward
function for these rows. For a simulator id, every finished rollout is recorded into a curriculum
(``LiveTasks.record``), its group counted at ``rollout.n``: the run's shared one when the row names it
(``extra_info.genenv_curriculum`` and ``proposal_id``, which ``verl_live_dataset.GenEnvLiveDataset`` writes
on the rows it proposes live), else this worker's own (rows of an exported table). Rows marked
``extra_info.genenv_validation`` are recorded as validation rollouts: logged, never counted.

The rows' env is made once per worker process per id and domain arguments (``extra_info.domain_kwargs``:
the data folder ``genenv export`` read), off the event loop; all env work (starting episodes, playing
replies, rendering the env's turns) runs on the id's own thread (``LiveTasks.executor``), so the loop keeps
sampling for the other rollouts meanwhile and an id's episodes are never stepped at the same moment.
``data.apply_chat_template_kwargs`` reach every chat render. ``metrics`` report ``generate_sequences`` (the
seconds spent waiting for the server) and ``tool_calls`` (the seconds of env work).

Imports verl (``pip install 'genenv-gym[verl]'``, see docs/trainers.md for the exact install).
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from functools import lru_cache
from typing import Any
from uuid import uuid4

from genenv_gym.export.exporter import VERL_AGENT_NAME
from genenv_gym.integrations.live_rollout import LiveRollout, TokenBudget
from genenv_gym.integrations.live_tasks import LiveTasks, env_kwargs_with
from genenv_gym.integrations.template_backend import TemplateBackend
from genenv_gym.registry.extras import require_extra

require_extra("verl", "genenv_gym.integrations.verl_agent_loop")

from verl.experimental.agent_loop.agent_loop import AgentLoopBase, AgentLoopOutput, register  # noqa: E402

#: The ``agent_name`` that selects this loop (the value ``genenv export --format verl`` writes).
AGENT_NAME = VERL_AGENT_NAME

_LIVE: dict[tuple[str, int, str, str], Future[LiveTasks]] = {}
_LIVE_LOCK = threading.Lock()
_MAKER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="genenv-make")


def _make_live(
    env_id: str, group_size: int, env_kwargs: dict[str, Any] | None, curriculum: str | None
) -> LiveTasks:
    shared = None
    if curriculum:
        from genenv_gym.curriculum_service.ray_actor import shared_curriculum

        shared = shared_curriculum(curriculum)
    return LiveTasks(env_id, group_size, env_kwargs, curriculum=shared)


def _live_future(
    env_id: str, group_size: int, env_kwargs: dict[str, Any] | None, curriculum: str | None = None
) -> Future[LiveTasks]:
    key = (env_id, group_size, json.dumps(env_kwargs or {}, sort_keys=True), curriculum or "")
    with _LIVE_LOCK:
        future = _LIVE.get(key)
        if future is None or (future.done() and future.exception() is not None):
            future = _LIVE[key] = _MAKER.submit(_make_live, env_id, group_size, env_kwargs, curriculum)
    return future


def live_tasks(
    env_id: str, group_size: int, env_kwargs: dict[str, Any] | None = None, curriculum: str | None = None
) -> LiveTasks:
    """This process's ``LiveTasks`` of an env id and its arguments (one, shared by every rollout it runs),
    recording into the shared curriculum actor named ``curriculum`` when one is named."""
    return _live_future(env_id, group_size, env_kwargs, curriculum).result()


async def live_tasks_async(
    env_id: str, group_size: int, env_kwargs: dict[str, Any] | None = None, curriculum: str | None = None
) -> LiveTasks:
    """``live_tasks`` awaited: the env is made on a thread of its own while the loop serves other rollouts."""
    return await asyncio.wrap_future(_live_future(env_id, group_size, env_kwargs, curriculum))


def row_task_pin(kwargs: dict[str, Any]) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """``(env id, row, domain kwargs)`` of a verl row: its env id, the fields that pin its task, and the
    arguments its domain was exported with (``extra_info.domain_kwargs``, a JSON object string)."""
    extra = dict(kwargs.get("extra_info") or {})
    reward_model = dict(kwargs.get("reward_model") or {})
    env_id = extra.get("env_id") or kwargs.get("data_source")
    if not env_id:
        raise ValueError(
            "a genenv_agent row needs extra_info.env_id or data_source (genenv export writes them)"
        )
    raw = extra.get("domain_kwargs") or {}
    domain_kwargs = json.loads(raw) if isinstance(raw, str) else dict(raw)
    row = {
        "task": reward_model.get("ground_truth"),
        "task_id": extra.get("task_id"),
        "proposal_id": extra.get("proposal_id"),
        "curriculum": extra.get("genenv_curriculum"),
        "validation": bool(extra.get("genenv_validation", False)),
    }
    return str(env_id), row, domain_kwargs


@lru_cache(maxsize=8)
def _generation_eos(model_path: str) -> tuple[int, ...]:
    """The ``eos_token_id`` of a local model folder's generation config (none when there is no such file)."""
    config = os.path.join(model_path, "generation_config.json")
    if not os.path.isfile(config):
        return ()
    with open(config, encoding="utf-8") as handle:
        eos = json.load(handle).get("eos_token_id")
    return tuple(eos) if isinstance(eos, list) else ((eos,) if isinstance(eos, int) else ())


@register(AGENT_NAME)
class GenEnvAgentLoop(AgentLoopBase):
    """One rollout of a genenv env (see the module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        rollout = self.rollout_config
        self.prompt_length = int(rollout.prompt_length)
        self.response_length = int(rollout.response_length)
        multi_turn = rollout.get("multi_turn", None) or {}
        self.max_turns = multi_turn.get("max_assistant_turns", None) or None
        self.group_size = int(rollout.get("n", 1) or 1)
        model = self.config.get("actor_rollout_ref", {}).get("model", None) or {}
        path = str(model.get("local_path", None) or model.get("path", None) or "")
        self.backend = TemplateBackend(
            self.tokenizer,
            chat_template_kwargs=dict(self.apply_chat_template_kwargs or {}),
            end_of_turn_ids=_generation_eos(path) if path else (),
        )
        self.budget = TokenBudget(self.response_length, self.prompt_length)

    async def run(self, sampling_params: dict[str, Any], **kwargs: Any) -> AgentLoopOutput:
        env_id, row, domain_kwargs = row_task_pin(kwargs)
        env_kwargs = env_kwargs_with(env_id, domain_kwargs)
        tasks = await live_tasks_async(env_id, self.group_size, env_kwargs, row["curriculum"])
        loop = asyncio.get_running_loop()

        def env_work(fn: Any, *args: Any) -> asyncio.Future:
            return loop.run_in_executor(tasks.executor, fn, *args)

        task = await env_work(tasks.task_for, row)
        rollout = await env_work(
            LiveRollout,
            tasks,
            task,
            self.backend,
            self.budget,
            self.max_turns,
            row["proposal_id"],
            row["validation"],
        )
        request_id = uuid4().hex
        generating, preempted = 0.0, -1
        while rollout.open:
            params = {**sampling_params, "max_tokens": rollout.max_new_tokens()}
            start = time.perf_counter()
            output = await self.server_manager.generate(
                request_id=request_id, prompt_ids=rollout.prompt_ids(), sampling_params=params
            )
            generating += time.perf_counter() - start
            if getattr(output, "num_preempted", None) is not None:
                preempted = max(preempted, 0) + int(output.num_preempted)
            logprobs = list(output.log_probs) if output.log_probs else None
            await env_work(rollout.add_reply, [int(t) for t in output.token_ids], logprobs)
        record = rollout.record()
        return AgentLoopOutput(
            prompt_ids=record.prompt_ids,
            response_ids=record.response_ids,
            response_mask=record.response_mask,
            response_logprobs=record.response_logprobs,
            reward_score=float(record.reward),
            num_turns=len(rollout.session.messages),
            metrics={
                "generate_sequences": generating,
                "tool_calls": record.env_seconds,
                "num_preempted": preempted,
            },
            extra_fields={
                "turn_scores": [],
                "tool_rewards": [],
                "genenv_success": record.success,
                "genenv_finished": record.finished,
                "genenv_assistant_turns": record.turns,
                "genenv_replaced_replies": record.replaced_replies,
                "genenv_end": record.end,
                "genenv_template_fallbacks": record.template_fallbacks,
            },
        )
