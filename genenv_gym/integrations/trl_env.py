"""TRL's ``GRPOTrainer`` on any genenv id: the env played live by a rollout function, rewarded by the env.

``trl_environment(env_id, num_generations)`` gives what GRPOTrainer takes: the dataset, the rollout function
and the reward function::

    setup = trl_environment("GenEnv-ALFWorld-v0", num_generations=8)
    trainer = GRPOTrainer(model, reward_funcs=setup.reward_func, train_dataset=setup.dataset,
                          rollout_func=setup.rollout_func, callbacks=setup.callbacks,
                          args=GRPOConfig(num_generations=8, shuffle_dataset=False, max_steps=100, ...))

How the env is played (``GenEnvRollouts``, TRL's ``rollout_func``): TRL hands it the batch's prompts (a
group's ``num_generations`` rollouts of a task in a row); it starts one episode per prompt (each owns its
state), then, turn by turn, samples one reply for every open rollout with TRL's own generation (one call:
transformers, paged or vLLM, as the trainer is configured) and plays each reply on its episode in turn, until
every episode has ended or spent ``max_completion_length``. Every rollout is a ``LiveRollout``, as verl's:

- the chat is the chat ``genenv eval`` shows: the task's messages, then each reply as an assistant turn and
  the env's answer as its own turns (user, tool), or a fresh prompt that replaces the chat;
- a reply is the action, read as ``genenv eval`` reads it (code fences, ``<think>`` blocks, ``<tool_call>``
  blocks written in the domain's answer format), so a model acts by following the env's own instructions
  ("type one command", a call list, ``<search>`` tags) and no tool-calling chat template is needed, for
  single- and multi-turn ids alike (SmolLM2's own template works);
- TRL trains one sequence per rollout: the prompt, then replies (trained) and env turns (``env_mask`` 0);
  a reply longer than what is left of ``max_completion_length`` is cut there and only its kept tokens are
  played.

The reward (``env_reward``) is the episode's return under the domain's official metric, which the rollout
function passes to it (``genenv_reward``). Rows pin the task, so a group's rollouts play the same task:
benchmark rows name a ``task_id``; a simulator id's dataset is a stream whose rows the simulator proposes
when the trainer reads them (``task``: the generated Task, ``seed``), and each group's outcome updates the
simulator (``LiveTasks.record``). Give ``GRPOConfig(shuffle_dataset=False)`` so the stream is read as the
trainer goes. TRL's rollout function receives only the prompts, so each prompt's first message carries its
row's pin (``genenv_row``, a JSON string that chat templates never read). Rollouts played while the model
is in eval mode (TRL's evaluation) are validation rollouts: the curriculum logs them and learns nothing.
After each training batch the curriculum's diagnostics (``curriculum/signal_share``, ...) go into
GRPOTrainer's own metrics, logged with its others (by the main process only: with a shared curriculum,
records of other ranks still in flight then count in the next step). ``setup.callbacks`` saves a simulator
id's curriculum with each checkpoint and restores it when training resumes (``trl_resume``: resume with
``GRPOConfig(ignore_data_skip=True)``).

Imports ``datasets`` (TRL's dependency) when a dataset is built.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from genenv_gym.curriculum_service.protocol import TrainerCurriculum
from genenv_gym.integrations.live_rollout import LiveRollout, RolloutRecord, TokenBudget
from genenv_gym.integrations.live_tasks import LiveTasks
from genenv_gym.integrations.template_backend import TemplateBackend
from genenv_gym.registry.extras import require_extra

#: The key of a prompt's first message that holds its row's task pin (a JSON string).
ROW_KEY = "genenv_row"


def pinned(row: Mapping[str, Any], official: bool) -> dict[str, Any]:
    """``row`` whose prompt's first message carries the row's task pin (``ROW_KEY``): an official task's id,
    a generated task's content."""
    pin = (
        {"task_id": row["task_id"]}
        if official
        else {"task": row["task"], "seed": row.get("seed", 0), "proposal_id": row.get("proposal_id")}
    )
    prompt = [dict(m) for m in row["prompt"]]
    prompt[0] = {**prompt[0], ROW_KEY: json.dumps(pin)}
    return {**row, "prompt": prompt}


def row_of(prompt: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The task pin a prompt carries (see ``pinned``)."""
    raw = prompt[0].get(ROW_KEY) if prompt else None
    if not raw:
        raise ValueError(
            f"the prompt carries no {ROW_KEY!r}: train on trl_environment(...).dataset, whose rows pin "
            "their task"
        )
    return json.loads(raw)


def env_reward(
    completions: Sequence[Any], genenv_reward: Sequence[float] | None = None, **_: Any
) -> list[float]:
    """TRL reward function: each rollout's return, as the genenv rollout function played it."""
    if genenv_reward is None:
        raise ValueError(
            "env_reward reads the returns GenEnvRollouts played: pass rollout_func=setup.rollout_func"
        )
    return [float(r) for r in genenv_reward]


class GenEnvRollouts:
    """TRL's ``rollout_func`` for one env id (see the module docstring).

    Args:
        tasks: the id's ``LiveTasks``.
        max_turns: the most replies per episode (None: the env and the budget decide).
        max_reply_tokens: the most tokens of one reply (None: what is left of ``max_completion_length``).
    """

    __name__ = "genenv_rollouts"

    def __init__(
        self, tasks: LiveTasks, max_turns: int | None = None, max_reply_tokens: int | None = None
    ) -> None:
        self.tasks = tasks
        self.max_turns = max_turns
        self.max_reply_tokens = max_reply_tokens
        #: the records of the last batch played (what it sampled and what happened)
        self.records: list[RolloutRecord] = []
        #: a simulator id's curriculum diagnostics of the last batch (``CurriculumService.end_step``)
        self.diagnostics: dict[str, float] = {}
        self._backend: TemplateBackend | None = None

    def __call__(self, prompts: Sequence[Sequence[Mapping[str, Any]]], trainer: Any) -> dict[str, Any]:
        backend = self.backend(trainer)
        budget = TokenBudget(
            int(trainer.max_completion_length), None, _context_length(trainer), self.max_reply_tokens
        )
        pins = [row_of(prompt) for prompt in prompts]
        validation = not getattr(trainer.model, "training", True)
        rollouts = [
            LiveRollout(
                self.tasks,
                self.tasks.task_for(pin),
                backend,
                budget,
                self.max_turns,
                pin.get("proposal_id"),
                validation,
            )
            for pin in pins
        ]
        self.records = play(rollouts, lambda ids, n: _generate(trainer, ids, n))
        main = getattr(getattr(trainer, "accelerator", None), "is_main_process", True)
        if self.tasks.simulated and main:  # one process ends a shared curriculum's step
            self.diagnostics = self.tasks.curriculum.end_step()
            metrics = getattr(trainer, "_metrics", None)  # what GRPOTrainer logs at its next logging step
            if isinstance(metrics, dict) and not validation:
                for name, value in self.diagnostics.items():
                    metrics["train"][name].append(value)
        return rollout_output(self.records)

    def backend(self, trainer: Any) -> TemplateBackend:
        """The trainer's tokenizer as a render-only backend (its chat-template kwargs and eos ids)."""
        if self._backend is None:
            self._backend = TemplateBackend(
                trainer._tokenizer,
                chat_template_kwargs=getattr(trainer, "chat_template_kwargs", None),
                end_of_turn_ids=getattr(trainer, "eos_token_ids", ()) or (),
            )
        return self._backend


def play(
    rollouts: Sequence[LiveRollout],
    generate: Callable[[list[list[int]], int], tuple[list[list[int]], list[list[float]] | None]],
) -> list[RolloutRecord]:
    """Play a batch of rollouts to their ends: per turn one ``generate(prompt ids, max new tokens)`` call for
    every open rollout, then each reply played on its rollout in turn; their records."""
    while open_ := [r for r in rollouts if r.open]:
        ids, logprobs = generate([r.prompt_ids() for r in open_], max(r.max_new_tokens() for r in open_))
        for index, (rollout, reply) in enumerate(zip(open_, ids, strict=True)):
            rollout.add_reply(reply, logprobs[index] if logprobs is not None else None)
    return [r.record() for r in rollouts]


def rollout_output(records: Sequence[RolloutRecord]) -> dict[str, Any]:
    """What TRL's ``rollout_func`` returns for these records (the extra keys reach the reward functions)."""
    with_logprobs = all(r.response_logprobs is not None for r in records)
    return {
        "prompt_ids": [r.prompt_ids for r in records],
        "completion_ids": [r.response_ids for r in records],
        "logprobs": [r.response_logprobs for r in records] if with_logprobs else None,
        "env_mask": [r.response_mask for r in records],
        "genenv_reward": [r.reward for r in records],
        "genenv_success": [r.success for r in records],
        "genenv_turns": [r.turns for r in records],
        "genenv_end": [r.end for r in records],
    }


def _context_length(trainer: Any) -> int | None:
    if getattr(trainer, "use_vllm", False) and getattr(trainer.args, "vllm_max_model_length", None):
        return int(trainer.args.vllm_max_model_length)
    config = trainer.model.config
    config = config.get_text_config() if hasattr(config, "get_text_config") else config
    window = getattr(config, "max_position_embeddings", None)
    return int(window) if window else None


def _generate(trainer: Any, prompt_ids: list[list[int]], max_new_tokens: int) -> tuple[list, list | None]:
    """One reply per prompt from TRL's own generation path (``GRPOTrainer._generate_single_turn``, which
    serves its transformers, paged and vLLM back ends), each at most ``max_new_tokens`` long where the back
    end takes a per-call limit (transformers); longer replies are cut by the rollouts."""
    with _max_new_tokens(trainer, max_new_tokens):
        ids, logprobs = trainer._generate_single_turn(prompt_ids, None, {}, num_generations=1)
    return [list(map(int, r)) for r in ids], logprobs


@contextmanager
def _max_new_tokens(trainer: Any, limit: int) -> Iterator[None]:
    config = getattr(trainer, "generation_config", None)
    kwargs = getattr(trainer, "generation_kwargs", None)
    saved = (getattr(config, "max_new_tokens", None), dict(kwargs) if isinstance(kwargs, dict) else None)
    try:
        if config is not None and saved[0] is not None:
            config.max_new_tokens = min(int(saved[0]), int(limit))
        if isinstance(kwargs, dict) and "max_new_tokens" in kwargs:
            kwargs["max_new_tokens"] = min(int(kwargs["max_new_tokens"]), int(limit))
        yield
    finally:
        if config is not None and saved[0] is not None:
            config.max_new_tokens = saved[0]
        if isinstance(kwargs, dict) and saved[1] is not None:
            kwargs.clear()
            kwargs.update(saved[1])


@dataclass
class TRLSetup:
    """What ``GRPOTrainer`` takes for one env id (see the module docstring)."""

    dataset: Any
    rollout_func: GenEnvRollouts
    reward_func: Callable[..., list[float]]
    tasks: LiveTasks
    multi_turn: bool
    #: ``GRPOTrainer(callbacks=...)``: a simulator id's curriculum saved with each checkpoint and restored
    #: on resume (``trl_resume.CurriculumCheckpoint``; empty for a benchmark id)
    callbacks: list[Any]


def trl_environment(
    env_id: str,
    num_generations: int,
    env_kwargs: Mapping[str, Any] | None = None,
    limit: int | None = None,
    seed: int = 0,
    max_turns: int | None = None,
    max_reply_tokens: int | None = None,
    curriculum: TrainerCurriculum | None = None,
) -> TRLSetup:
    """The dataset, rollout function and reward function that train on ``env_id`` with GRPOTrainer.

    Args:
        env_id: any registered genenv id.
        num_generations: GRPO's group size (``GRPOConfig.num_generations``): a simulator id's curriculum
            is updated once per group.
        env_kwargs: ``gymnasium.make`` arguments.
        limit: at most this many benchmark tasks (in the env's order).
        seed: the first proposal seed of a simulator id's stream.
        max_turns: the most replies per episode (None: the env's own step limit and the token budget).
        max_reply_tokens: the most tokens of one reply (a reply that reaches it is played as it stands and
            the episode goes on, as ``genenv eval``'s ``max_new_tokens``; None: what is left of
            ``max_completion_length``).
        curriculum: a simulator id's curriculum (``shared_curriculum(name, env_id)``: one for every process
            of a multi-process run, which then reads the same rows and records into one curriculum; None:
            this process's own).
    """
    require_extra("trl", "trl_environment")
    import datasets

    tasks = LiveTasks(env_id, num_generations, env_kwargs, curriculum=curriculum)
    if tasks.simulated:
        dataset = datasets.IterableDataset.from_generator(_stream, gen_kwargs={"tasks": tasks, "seed": seed})
    else:
        dataset = datasets.Dataset.from_list([pinned(row, official=True) for row in tasks.rows(limit)])
    rollouts = GenEnvRollouts(tasks, max_turns, max_reply_tokens)
    callbacks: list[Any] = []
    if tasks.simulated:
        from genenv_gym.integrations.trl_resume import CurriculumCheckpoint

        callbacks.append(CurriculumCheckpoint(tasks, shared=curriculum is not None))
    return TRLSetup(dataset, rollouts, env_reward, tasks, tasks.multi_turn(), callbacks)


def _stream(tasks: LiveTasks, seed: int) -> Iterator[dict[str, Any]]:
    for row in tasks.row_stream(seed, start=tasks.stream_start):
        yield pinned(row, official=False)
