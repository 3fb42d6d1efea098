"""Scripted episodes for the trainer adapters: the oracle's, a fixed wrong script and a random one, played in
process (the reference), through TRL's rollout function (a batch: every open rollout sampled at once, then
each stepped in turn) and through verl's agent loop (one coroutine per rollout) with scripted samplers."""

from __future__ import annotations

import asyncio
import json
import random
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from genenv_gym.agents.chat_session import environment_turn, opening_messages, starts_a_new_chat
from genenv_gym.domain import oracle_transcript
from genenv_gym.export.exporter import rows_for
from genenv_gym.integrations.live_rollout import LiveRollout, RolloutRecord, TokenBudget
from genenv_gym.integrations.live_tasks import LiveTasks
from genenv_gym.integrations.template_backend import TemplateBackend
from genenv_gym.registry.registration import ENV_ENTRIES
from genenv_gym.task import Task

#: Every registered env id (the adapters serve them all).
ALL_IDS = [entry.id for entry in ENV_ENTRIES]

#: A wrong script: text that no env accepts as a right answer, three times.
WRONG_SCRIPT = ("nothing", "nothing", "nothing")

#: No token limit worth the name.
UNLIMITED = 10**6


def oracle_script(tasks: LiveTasks, task: Task) -> list[str]:
    """The oracle's actions on a fresh episode of ``task``, to the episode's end."""
    episode = tasks.start(task)
    try:
        return json.loads(oracle_transcript(episode))
    finally:
        episode.close()


def random_script(tasks: LiveTasks, task: Task, seed: int, most: int = 6) -> list[str]:
    """The random baseline's actions on a fresh episode of ``task`` (at most ``most``)."""
    episode, rng, actions = tasks.start(task), np.random.default_rng(seed), []
    try:
        while not episode.done and len(actions) < most:
            actions.append(episode.random_action(rng))
            episode.step(actions[-1])
    finally:
        episode.close()
    return actions


@dataclass
class Recording:
    """An episode played in process: its return, whether it ended, and the chat before every model turn."""

    total_reward: float = 0.0
    finished: bool = False
    actions: list[str] = field(default_factory=list)
    chats: list[list[dict[str, Any]]] = field(default_factory=list)
    #: the turns at which a chat opens (0, and every turn after a fresh prompt replaced the chat)
    chat_starts: list[int] = field(default_factory=lambda: [0])


def record_in_process(tasks: LiveTasks, task: Task, script: list[str] | tuple[str, ...]) -> Recording:
    """Play ``script`` on the Gymnasium env itself (stopping when the episode ends), keeping the chat as
    ``LLMAgent`` keeps it (``genenv eval``): the env's turns added, a fresh prompt replacing the chat."""
    env = tasks.env
    observation, info = env.reset(options={"task": task})
    chat = opening_messages(observation, info)  # LLMAgent's opening chat: reset's info["messages"]
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
        if starts_a_new_chat(info):
            chat = opening_messages(observation, info)
            recording.chat_starts.append(len(recording.actions))
        else:
            chat.extend(dict(m) for m in environment_turn(observation, info))
    return recording


def reply_ids(tokenizer: Any, text: str) -> list[int]:
    """A reply as a model samples it: the text's ids and the end-of-turn token."""
    return [*tokenizer.encode(text, add_special_tokens=False), tokenizer.eos_token_id]


# -- TRL's schedule ------------------------------------------------------------------------------------------
def trl_rollouts(
    tasks: LiveTasks, plays: list[tuple[Task, list[str]]], tokenizer: Any, budget: TokenBudget | None = None
) -> tuple[list[RolloutRecord], list[list[list[int]]]]:
    """Play ``(task, script)`` pairs as TRL's rollout function plays a batch (all started, then per turn one
    sampling call for every open rollout and each reply played in turn): the records, and every prompt each
    rollout was sampled from."""
    from genenv_gym.integrations.trl_env import play

    backend = TemplateBackend(tokenizer)
    budget = budget or TokenBudget(UNLIMITED)
    rollouts = [LiveRollout(tasks, task, backend, budget, max_turns=len(script)) for task, script in plays]
    prompts: list[list[list[int]]] = [[] for _ in plays]

    def generate(batch: list[list[int]], max_new_tokens: int) -> tuple[list[list[int]], None]:
        open_ = [i for i, r in enumerate(rollouts) if r.open]
        assert len(open_) == len(batch)
        replies = []
        for i, prompt in zip(open_, batch, strict=True):
            prompts[i].append(list(prompt))
            replies.append(reply_ids(tokenizer, plays[i][1][rollouts[i].turns]))
        return replies, None

    return play(rollouts, generate), prompts


# -- verl's schedule -----------------------------------------------------------------------------------------
class ScriptedServer:
    """verl's LLM server for tests: replies with a script's actions as the tokenizer encodes them (ending
    with the end-of-turn token), and keeps every prompt and sampling params it was given; ``yield_every``
    hands the event loop to other coroutines before answering, as a real server's round trip does."""

    def __init__(self, tokenizer: Any, script: list[str] | tuple[str, ...], seed: int | None = None) -> None:
        self.tokenizer = tokenizer
        self.script = list(script)
        self.prompts: list[list[int]] = []
        self.params: list[dict[str, Any]] = []
        self._rng = random.Random(seed) if seed is not None else None

    async def generate(self, request_id: str, *, prompt_ids: list[int], sampling_params: dict, **_: Any):
        from verl.workers.rollout.replica import TokenOutput

        if self._rng is not None:
            for _ in range(self._rng.randint(0, 3)):
                await asyncio.sleep(0)
        action = self.script[len(self.prompts)]
        self.prompts.append(list(prompt_ids))
        self.params.append(dict(sampling_params))
        ids = reply_ids(self.tokenizer, action)
        return TokenOutput(token_ids=ids, log_probs=[-1.0] * len(ids), stop_reason="completed")


def make_verl_loop(
    server: Any,
    tokenizer: Any,
    max_turns: int,
    response_length: int = UNLIMITED,
    prompt_length: int = UNLIMITED,
    data: dict[str, Any] | None = None,
    n: int = 2,
):
    """verl's ``genenv_agent`` loop as verl's worker builds it, on ``server``."""
    from omegaconf import OmegaConf
    from verl.experimental.agent_loop.agent_loop import DictConfigWrap

    from genenv_gym.integrations.verl_agent_loop import GenEnvAgentLoop

    rollout = {
        "prompt_length": prompt_length,
        "response_length": response_length,
        "n": n,
        "multi_turn": {"max_assistant_turns": max_turns},
    }
    config = OmegaConf.create({"actor_rollout_ref": {"rollout": rollout}, "data": data or {}})
    return GenEnvAgentLoop(
        trainer_config=DictConfigWrap(config),
        server_manager=server,
        tokenizer=tokenizer,
        processor=None,
        dataset_cls=None,
        data_config=DictConfigWrap(config.data),
    )


def verl_row(env_id: str, task: Task) -> dict[str, Any]:
    """The exported verl row of ``task``."""
    row = rows_for([task], "verl", env_id, "train")[0]
    assert row["agent_name"] == "genenv_agent"
    return row


def verl_rollouts(
    env_id: str, plays: list[tuple[Task, list[str]]], tokenizer: Any, seed: int | None = None, **loop: Any
) -> tuple[list[Any], list[ScriptedServer]]:
    """Play ``(task, script)`` pairs as verl's worker plays a batch: one agent loop per rollout, all run as
    concurrent coroutines on one event loop; the loops' outputs and their servers."""
    servers = [
        ScriptedServer(tokenizer, script, None if seed is None else seed + i)
        for i, (_, script) in enumerate(plays)
    ]

    async def batch() -> list[Any]:
        runs = [
            make_verl_loop(server, tokenizer, max_turns=len(script), **loop).run(
                {"temperature": 1.0}, **verl_row(env_id, task)
            )
            for server, (task, script) in zip(servers, plays, strict=True)
        ]
        return await asyncio.gather(*runs)

    return asyncio.run(batch()), servers


def chat_ids(tokenizer: Any, messages: list[dict[str, Any]], add_generation_prompt: bool = True) -> list[int]:
    """The ids of the rendered chat (the template's text, tokenized once)."""
    text = tokenizer.apply_chat_template(
        messages, tokenize=False, add_generation_prompt=add_generation_prompt
    )
    return tokenizer.encode(text, add_special_tokens=False)


_LIVE: dict[str, LiveTasks] = {}


def live(env_id: str) -> LiveTasks:
    """One ``LiveTasks`` per id for the whole test session (groups of two rollouts), the one verl's loop uses
    in this process (so the loop and the references play on the same env)."""
    if env_id not in _LIVE:
        try:
            from genenv_gym.integrations.verl_agent_loop import live_tasks
        except ImportError:
            _LIVE[env_id] = LiveTasks(env_id, group_size=2)
        else:
            _LIVE[env_id] = live_tasks(env_id, 2)
    return _LIVE[env_id]


def first_tasks(tasks: LiveTasks, count: int = 1) -> list[Task]:
    """The env's first official tasks whose reference answer its metric accepts (the domain's
    ``reference_failures`` aside), or tasks its simulator proposes with seeds 0, 1, ..."""
    if not tasks.tasks:
        return [tasks.task_for(tasks.propose_row(seed)) for seed in range(count)]
    rejected = tasks.domain.reference_failures()
    return [t for t in tasks.tasks if t.id not in rejected][:count]


def short_tasks(tasks: LiveTasks, count: int = 1) -> list[Task]:
    """``count`` of the env's first six tasks with the shortest prompts (a test's cost is in rendering them),
    in the env's order; for a simulator id (whose proposals cost a plan each on ALFWorld), its first ones."""
    candidates = first_tasks(tasks, 6 if tasks.tasks else count)
    size = {t.id: sum(len(str(m.get("content", ""))) for m in t.messages) for t in candidates}
    shortest = {t.id for t in sorted(candidates, key=lambda t: size[t.id])[:count]}
    return [t for t in candidates if t.id in shortest]


def first_task(tasks: LiveTasks) -> Task:
    """``first_tasks(tasks, 1)[0]``."""
    return first_tasks(tasks, 1)[0]


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
