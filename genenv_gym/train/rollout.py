"""Batched multi-turn rollouts: many envs, G samples per task, one generation call per step for all.

``RolloutEngine.run(env_fn, tasks)`` plays every task ``group_size`` times. Up to ``max_concurrency``
episodes are live at once, each in its own env (made by ``env_fn`` and reused); at every step the engine
sends the prompts of all live episodes that wait for the model to the backend in one batched call,
parses each reply into an action, steps each env, and adds each env's answer as the next chat turn.
Finished episodes free their slot for waiting ones.

A ``Trajectory`` keeps, for token-level backends, the exact token ids of the whole chat, a mask that is
1 on model tokens and 0 on prompt and environment tokens, the model tokens' logprobs (0 elsewhere), the
per-step rewards and the env's infos. Everything that goes wrong is an outcome with a reason, never an
exception: a failed request or an env that raises ends the episode with ``finish="error"`` (reward 0 for
that step), a reply cut by ``max_new_tokens`` is still graded (``truncated_replies`` counts it), a chat
that outgrows ``max_total_tokens`` ends with ``finish="max_tokens"`` and one that runs out of turns with
``finish="max_turns"``.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym

from genenv_gym.agents.backends import Backend, Completion, SamplingParams, make_backend
from genenv_gym.agents.chat_session import ChatSession, environment_turn
from genenv_gym.agents.llm_agent import LLMAgent, env_answer_format
from genenv_gym.task import Task

logger = logging.getLogger(__name__)

FINISHES = ("terminated", "truncated", "max_turns", "max_tokens", "error")


@dataclass(frozen=True)
class RolloutConfig:
    """How rollouts are run.

    Attributes:
        group_size: samples (episodes) per task, G.
        max_turns: model turns per episode.
        max_total_tokens: the longest chat (prompt + all turns) in tokens (token-level backends).
        max_concurrency: episodes live at once (the largest generation batch).
        params: sampling params of the agent (``n`` is ignored: each episode samples its own reply).
        seed: base seed of the generation calls (None: unseeded).
        pass_tools: give the env's tool specs to the chat template.
    """

    group_size: int = 4
    max_turns: int = 8
    max_total_tokens: int = 8192
    max_concurrency: int = 256
    params: SamplingParams = field(
        default_factory=lambda: SamplingParams(temperature=1.0, max_new_tokens=512)
    )
    seed: int | None = None
    pass_tools: bool = False

    def __post_init__(self) -> None:
        if self.group_size < 1 or self.max_turns < 1 or self.max_concurrency < 1 or self.max_total_tokens < 1:
            raise ValueError("group_size, max_turns, max_concurrency and max_total_tokens must be >= 1")


@dataclass
class Trajectory:
    """One episode of one task.

    ``token_ids``/``mask``/``logprobs`` are aligned (empty for chat-only backends); ``prompt_length`` is
    the number of tokens before the first model token. ``reward`` sums the per-step ``rewards``.
    """

    task: Task
    group: int
    sample: int
    messages: list[dict[str, Any]] = field(default_factory=list)
    token_ids: list[int] = field(default_factory=list)
    mask: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    prompt_length: int = 0
    actions: list[str] = field(default_factory=list)
    rewards: list[float] = field(default_factory=list)
    infos: list[dict[str, Any]] = field(default_factory=list)
    success: bool = False
    finish: str = ""
    error: str | None = None
    truncated_replies: int = 0
    template_fallbacks: int = 0

    @property
    def task_id(self) -> str:
        return self.task.id

    @property
    def reward(self) -> float:
        return float(sum(self.rewards))

    @property
    def turns(self) -> int:
        return len(self.actions)

    @property
    def num_model_tokens(self) -> int:
        return int(sum(self.mask))


@dataclass
class _Live:
    trajectory: Trajectory
    env: gym.Env
    session: ChatSession


@dataclass
class RolloutStats:
    """Counts of the last ``run``."""

    episodes: int = 0
    steps: int = 0
    generation_calls: int = 0
    generated_tokens: int = 0
    seconds: float = 0.0
    finishes: dict[str, int] = field(default_factory=dict)


class RolloutEngine:
    """Runs episodes of an LLM agent in batches (see the module docstring).

    Args:
        backend: a Backend or spec; token-level backends give trajectories with token ids.
        config: a RolloutConfig.
        domain, action_format: how replies are parsed (default: read from the first env).
    """

    def __init__(
        self,
        backend: Backend | str,
        config: RolloutConfig | None = None,
        domain: str | None = None,
        action_format: str | None = None,
    ) -> None:
        self.backend = make_backend(backend)
        self.config = config or RolloutConfig()
        self.domain = domain
        self.action_format = action_format
        self.stats = RolloutStats()
        self._envs: list[gym.Env] = []

    def run(self, env_fn: Callable[[], gym.Env], tasks: Sequence[Task]) -> list[Trajectory]:
        """``group_size`` trajectories per task, ordered by task then sample."""
        cfg = self.config
        start = time.perf_counter()
        self.stats = RolloutStats()
        queue = deque((g, s) for g in range(len(tasks)) for s in range(cfg.group_size))
        results: dict[tuple[int, int], Trajectory] = {}
        free = list(self._envs)
        live: list[_Live] = []
        agent: LLMAgent | None = None
        call = 0
        while queue or live:
            while queue and len(live) < cfg.max_concurrency:
                group, sample = queue.popleft()
                env = free.pop() if free else self._new_env(env_fn)
                if agent is None:
                    agent = self._agent(env)
                episode = self._start(env, agent, tasks[group], group, sample)
                if episode.trajectory.finish:
                    results[(group, sample)] = episode.trajectory
                    free.append(env)
                else:
                    live.append(episode)
            if not live:
                continue
            assert agent is not None
            params = cfg.params.with_(n=1, seed=None if cfg.seed is None else cfg.seed + call)
            completions = self._generate(agent, live, params)
            call += 1
            still: list[_Live] = []
            for episode, completion in zip(live, completions, strict=True):
                self._advance(episode, completion, agent)
                if episode.trajectory.finish:
                    results[(episode.trajectory.group, episode.trajectory.sample)] = episode.trajectory
                    free.append(episode.env)
                else:
                    still.append(episode)
            live = still
        self.stats.seconds = time.perf_counter() - start
        self.stats.episodes = len(results)
        for trajectory in results.values():
            self.stats.finishes[trajectory.finish] = self.stats.finishes.get(trajectory.finish, 0) + 1
        return [results[key] for key in sorted(results)]

    def close(self) -> None:
        """Close the envs this engine made."""
        for env in self._envs:
            env.close()
        self._envs.clear()

    # ------------------------------------------------------------------------------------------------
    def _new_env(self, env_fn: Callable[[], gym.Env]) -> gym.Env:
        env = env_fn()
        self._envs.append(env)
        return env

    def _agent(self, env: gym.Env) -> LLMAgent:
        domain, action_format = env_answer_format(env)
        return LLMAgent(
            self.backend,
            self.config.params,
            domain=self.domain or domain,
            action_format=self.action_format or action_format,
            pass_tools=self.config.pass_tools,
        )

    def _start(self, env: gym.Env, agent: LLMAgent, task: Task, group: int, sample: int) -> _Live:
        trajectory = Trajectory(task=task, group=group, sample=sample)
        try:
            observation, info = env.reset(options={"task": task})
            session = agent.begin(observation, info, slot=None)
        except Exception as exc:  # a task the env cannot serve is an outcome of that episode
            trajectory.finish, trajectory.error = "error", f"reset failed: {type(exc).__name__}: {exc}"
            return _Live(trajectory, env, None)  # type: ignore[arg-type]
        trajectory.messages = session.messages
        live = _Live(trajectory, env, session)
        if session.tokens is not None and session.num_tokens >= self.config.max_total_tokens:
            trajectory.finish = "max_tokens"
            trajectory.error = (
                f"prompt has {session.num_tokens} tokens (max_total_tokens {self.config.max_total_tokens})"
            )
            self._sync_tokens(live)
        return live

    def _generate(self, agent: LLMAgent, live: list[_Live], params: SamplingParams) -> list[Completion]:
        self.stats.generation_calls += 1
        try:
            completions = agent.generate([e.session for e in live], params)
        except Exception as exc:  # the whole batch failed: every episode ends with the reason
            logger.warning("rollout: generation failed for %d episodes: %s", len(live), exc)
            return [Completion("", finish_reason="error", error=f"{type(exc).__name__}: {exc}") for _ in live]
        if len(completions) != len(live):
            return [
                Completion("", finish_reason="error", error="backend returned too few completions")
                for _ in live
            ]
        return completions

    def _advance(self, episode: _Live, completion: Completion, agent: LLMAgent) -> None:
        trajectory, session, cfg = episode.trajectory, episode.session, self.config
        self.stats.steps += 1
        self.stats.generated_tokens += len(completion.token_ids)
        session.add_completion(completion)
        if not completion.ok:
            trajectory.finish, trajectory.error = "error", completion.error or "generation failed"
            trajectory.rewards.append(0.0)
            self._sync_tokens(episode)
            return
        trajectory.truncated_replies += int(completion.truncated)
        action = agent.parse(completion)
        trajectory.actions.append(action)
        try:
            observation, reward, terminated, truncated, info = episode.env.step(action)
        except Exception as exc:
            trajectory.finish, trajectory.error = "error", f"env.step raised {type(exc).__name__}: {exc}"
            trajectory.rewards.append(0.0)
            self._sync_tokens(episode)
            return
        trajectory.rewards.append(float(reward))
        trajectory.infos.append(dict(info))
        trajectory.success = bool(info.get("success", False))
        if terminated or truncated:
            trajectory.finish = "terminated" if terminated else "truncated"
        elif trajectory.turns >= cfg.max_turns:
            trajectory.finish = "max_turns"
        else:
            try:
                session.add_environment(environment_turn(observation, info))
            except Exception as exc:
                trajectory.finish, trajectory.error = "error", f"rendering the env turn failed: {exc}"
            else:
                if session.tokens is not None and session.num_tokens >= cfg.max_total_tokens:
                    trajectory.finish = "max_tokens"
        self._sync_tokens(episode)

    def _sync_tokens(self, episode: _Live) -> None:
        trajectory, session = episode.trajectory, episode.session
        if session is None:
            return
        trajectory.messages = session.messages
        trajectory.template_fallbacks = session.template_fallbacks
        if session.tokens is not None:
            tokens = session.tokens
            limit = self.config.max_total_tokens
            trajectory.token_ids = tokens.token_ids[:limit]
            trajectory.mask = tokens.mask[:limit]
            trajectory.logprobs = tokens.logprobs[:limit]
            trajectory.prompt_length = tokens.prompt_length


def sample_tasks(env: gym.Env, n: int, seed: int | None = None) -> list[Task]:
    """``n`` tasks drawn by resetting ``env`` (benchmark or simulator env), e.g. for ``RolloutEngine.run``."""
    tasks = []
    for i in range(n):
        env.reset(seed=seed if (seed is not None and i == 0) else None)
        tasks.append(env.unwrapped.task)
    return tasks
