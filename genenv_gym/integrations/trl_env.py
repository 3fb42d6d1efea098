"""TRL's ``GRPOTrainer(environment_factory=...)`` on any genenv id, with the env's own reward.

``trl_environment(env_id, num_generations)`` gives the three things GRPOTrainer takes: the dataset, the
environment factory and the reward function::

    setup = trl_environment("GenEnv-Sim-Digits-v0", num_generations=8)
    trainer = GRPOTrainer(model, reward_funcs=setup.reward_func, train_dataset=setup.dataset,
                          environment_factory=setup.environment_factory, args=GRPOConfig(num_generations=8,
                          shuffle_dataset=False, max_steps=100, ...))

How an env is offered (read from the env's own episodes, never from its name):

- **single-turn** envs (one action per episode): no tools; the model's reply is the action.
- **multi-turn** envs: one tool, ``act(action)``, which plays one action and returns the env's answer
  (its new user / tool turns as text). TRL ends a rollout at the first reply without a tool call, and that
  reply is played as the episode's last action. One tool for every multi-turn env because TRL fixes a
  factory's tools for the whole run, while the functions of BFCL (multi-turn) change from task to task,
  and because a multi-turn env continues after a text reply (a BFCL turn ends with text, then the user
  speaks again), which TRL's loop cannot express with the env's own functions.

Every action (an ``act`` argument or the last reply) is read as ``genenv eval`` reads an LLM agent's reply
(``llm_agent.parse_action``), so native ``<tool_call>`` blocks in it become the domain's answer format.

The reward (``reward_func``, which TRL calls with the rollouts' ``environments``) is the episode's return
under the domain's official metric; an episode the rollout left unfinished keeps what it earned (usually
0) and counts as a failure. Rows pin the task, so the ``num_generations`` rollouts of a group play the same
task: benchmark rows name a ``task_id``; for a simulator id the dataset is a stream whose rows are proposed
by the simulator when the trainer reads them (``task``: the generated Task, ``seed``), and each group's
outcome updates the simulator (``LiveTasks.record``). Give ``GRPOConfig(shuffle_dataset=False)`` so the
stream is read as the trainer goes (a shuffle buffer would draw its rows ahead of training).

Imports ``datasets`` (TRL's dependency) when a dataset is built.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from genenv_gym.extras import require_extra
from genenv_gym.integrations.live_episode import LiveEpisode
from genenv_gym.integrations.live_tasks import LiveTasks

#: What ``act`` answers once the episode has ended.
EPISODE_ENDED = "The episode has ended."


class GenEnvEnvironment:
    """One rollout's environment for TRL (single-turn envs: no tools, the reply is the action)."""

    def __init__(self, tasks: LiveTasks) -> None:
        self._tasks = tasks
        self._episode: LiveEpisode | None = None

    @property
    def episode(self) -> LiveEpisode | None:
        """The rollout's episode (None before the first reset)."""
        return self._episode

    def reset(self, **row: Any) -> None:
        """Start the task the dataset row pins (the row's prompt already holds its chat)."""
        if self._episode is not None:
            self._episode.stop()
        self._episode = LiveEpisode(self._tasks, self._tasks.task_for(row))

    def _finish(self, reply: str | None, tool_calls: Sequence[Mapping[str, Any]] = ()) -> float:
        """Play the rollout's last reply if the episode is still open, then end it; the episode's return."""
        episode = self._require()
        if reply is not None and not episode.done:
            episode.step(episode.action(reply, tool_calls))
        return episode.stop()

    def _require(self) -> LiveEpisode:
        if self._episode is None:
            raise RuntimeError("reset() has not been called")
        return self._episode


class GenEnvToolEnvironment(GenEnvEnvironment):
    """One rollout's environment for TRL (multi-turn envs: the ``act`` tool plays one action)."""

    def act(self, action: str) -> str:
        """Play one action in the environment and read its answer.

        Args:
            action: the action as the task's instructions ask for it (a command, a list of calls, an answer).

        Returns:
            The environment's answer: its new turns as text.
        """
        episode = self._require()
        if episode.done:
            return EPISODE_ENDED
        new = episode.step(episode.action(action))
        if episode.done:
            return EPISODE_ENDED
        return "\n\n".join(str(m.get("content", "")) for m in new)


def env_reward(
    completions: Sequence[Any], environments: Sequence[GenEnvEnvironment], **_: Any
) -> list[float]:
    """TRL reward function: each rollout's last reply played as its episode's last action, then the return."""
    rewards = []
    for completion, environment in zip(completions, environments, strict=True):
        reply, calls = _last_reply(completion)
        rewards.append(environment._finish(reply, calls))
    return rewards


def _last_reply(completion: Any) -> tuple[str | None, list[dict[str, Any]]]:
    """The final assistant text of a rollout, or None when it ended on a tool call (nothing left to play)."""
    if isinstance(completion, str):
        return completion, []
    message = completion[-1] if completion else {}
    if message.get("role") != "assistant" or message.get("tool_calls"):
        return None, []
    content = message.get("content")
    if isinstance(content, list):
        content = "".join(part.get("text", "") for part in content if isinstance(part, Mapping))
    return str(content or ""), []


@dataclass
class TRLSetup:
    """What ``GRPOTrainer`` takes for one env id (see the module docstring)."""

    dataset: Any
    environment_factory: Callable[[], GenEnvEnvironment]
    reward_func: Callable[..., list[float]]
    tasks: LiveTasks
    multi_turn: bool


def trl_environment(
    env_id: str,
    num_generations: int,
    env_kwargs: Mapping[str, Any] | None = None,
    limit: int | None = None,
    seed: int = 0,
) -> TRLSetup:
    """The dataset, environment factory and reward function that train on ``env_id`` with GRPOTrainer.

    Args:
        env_id: any registered genenv id.
        num_generations: GRPO's group size (``GRPOConfig.num_generations``): a simulator id's curriculum
            is updated once per group.
        env_kwargs: ``gymnasium.make`` arguments.
        limit: at most this many benchmark tasks (in the env's order).
        seed: the first proposal seed of a simulator id's stream.
    """
    require_extra("trl", "trl_environment")
    import datasets

    tasks = LiveTasks(env_id, num_generations, env_kwargs)
    if tasks.simulated:
        dataset = datasets.IterableDataset.from_generator(_stream, gen_kwargs={"tasks": tasks, "seed": seed})
    else:
        dataset = datasets.Dataset.from_list(tasks.rows(limit))
    cls = environment_class(tasks)
    return TRLSetup(dataset, lambda: cls(tasks), env_reward, tasks, cls is GenEnvToolEnvironment)


def environment_class(tasks: LiveTasks) -> type[GenEnvEnvironment]:
    """How an env is offered to TRL, read from its episodes: the ``act`` tool for multi-turn envs."""
    return GenEnvToolEnvironment if tasks.multi_turn() else GenEnvEnvironment


def _stream(tasks: LiveTasks, seed: int):
    yield from tasks.row_stream(seed)
