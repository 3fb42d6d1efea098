"""One episode played by a trainer's own sampler, with the exact token record the trainer trains on.

Both adapters play through this object: TRL's rollout function (a batch of rollouts, each turn sampled for
all open ones at once, then each stepped in turn) and verl's agent loop (one coroutine per rollout). Per turn
the trainer samples a reply from ``prompt_ids()`` with at most ``max_new_tokens()`` new tokens, and
``add_reply(ids, logprobs)``:

- keeps the ids that fit in the response budget (``TokenBudget.response_length``: replies and env turns
  after the prompt); a longer reply is cut there, and only the kept ids are read, so the env never grades a
  token the trainer does not train on;
- reads the kept text as ``genenv eval`` reads a reply (``LiveEpisode.action``: the ids decoded without
  special tokens, ``<think>`` blocks and code fences removed, ``<tool_call>`` blocks written in the domain's
  answer format) and plays it;
- shapes the chat as ``LLMAgent`` does: the env's new turns are added with their own roles (user, tool), or
  a fresh prompt (TravelPlanner-Tools' every step) replaces the chat. A trainer trains one token sequence
  per rollout, so after a fresh prompt the sequence is the new chat: the replies of the chats it replaced
  were played but are not trained on (``replaced_replies`` counts them).

The episode ends when the env ends it, after ``max_turns`` replies, when the budget is spent (a failure
unless the reply that spent it ended the episode), or when a prompt leaves the model no room. A first prompt
longer than ``TokenBudget.prompt_length`` is never sampled from: the rollout is a failed row (reward 0, one
masked token) with a warning, not an error that would end the trainer's whole batch.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from genenv_gym.agents.backends.base import Backend, Completion
from genenv_gym.agents.chat_session import ChatSession
from genenv_gym.integrations.live_episode import LiveEpisode
from genenv_gym.integrations.live_tasks import LiveTasks
from genenv_gym.task import Task

logger = logging.getLogger(__name__)

#: Why a rollout ended.
ENDS = ("env", "max_turns", "budget", "context", "prompt_too_long")


@dataclass(frozen=True)
class TokenBudget:
    """The token limits of one rollout's sequence.

    Attributes:
        response_length: the most tokens after the prompt (replies and env turns; verl's
            ``rollout.response_length``, TRL's ``max_completion_length``).
        prompt_length: the most tokens of the prompt (verl's ``rollout.prompt_length``; None: no limit).
        context_length: the most tokens the model may be asked to continue plus what it samples (its
            context window; None: no limit).
        reply_length: the most tokens of one reply (as ``genenv eval``'s ``max_new_tokens``: a reply that
            reaches it is played as it stands and the episode goes on; None: what is left of the budget).
    """

    response_length: int
    prompt_length: int | None = None
    context_length: int | None = None
    reply_length: int | None = None

    def __post_init__(self) -> None:
        for name in ("response_length", "reply_length"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise ValueError(f"{name} must be >= 1, got {value}")


@dataclass
class RolloutRecord:
    """What a trainer trains on for one rollout, and what happened in it."""

    prompt_ids: list[int]
    response_ids: list[int]
    #: 1 on the sampled tokens, 0 on the env's
    response_mask: list[int]
    #: one per response token (0.0 on the env's); None when the sampler gave none
    response_logprobs: list[float] | None
    reward: float
    success: bool
    #: the env ended the episode (won, lost, or out of steps), rather than the trainer
    finished: bool
    #: replies sampled (and played)
    turns: int
    #: replies sampled in chats a fresh prompt replaced (played, not in the sequence)
    replaced_replies: int
    #: one of ``ENDS``
    end: str
    template_fallbacks: int
    #: seconds spent starting and stepping the episode
    env_seconds: float
    #: the actions the replies became, in order
    actions: list[str] = field(default_factory=list)


class LiveRollout:
    """``task`` of ``tasks`` played from the replies a trainer samples (see the module docstring).

    Args:
        tasks: the env id's ``LiveTasks``.
        task: the task the rollout plays.
        backend: renders and tokenizes the chat (``TemplateBackend`` of the trainer's tokenizer).
        budget: the sequence's token limits.
        max_turns: the most replies (None: as many as the env and the budget allow).
        proposal_id: the row's proposal (the curriculum counts its group by it).
        validation: a validation rollout (the curriculum logs it apart and learns nothing from it).
    """

    def __init__(
        self,
        tasks: LiveTasks,
        task: Task,
        backend: Backend,
        budget: TokenBudget,
        max_turns: int | None = None,
        proposal_id: str | None = None,
        validation: bool = False,
    ) -> None:
        start = time.perf_counter()
        self.episode = LiveEpisode(tasks, task, proposal_id, validation)
        self.env_seconds = time.perf_counter() - start
        self.backend = backend
        self.budget = budget
        self.max_turns = max_turns
        self.session = ChatSession(backend, self.episode.messages)
        self.turns = 0
        self.replaced_replies = 0
        self.actions: list[str] = []
        self.end: str | None = None
        self._turns_in_chat = 0
        self._fallbacks = 0
        self._with_logprobs = True
        length = self.session.tokens.prompt_length
        if budget.prompt_length is not None and length > budget.prompt_length:
            self._warn_unplayed(f"rollout.prompt_length={budget.prompt_length}", length)
            self._finish("prompt_too_long")
        elif self._room() < 1:
            self._warn_unplayed(f"the model's context of {budget.context_length}", length)
            self._finish("prompt_too_long")

    # -- the trainer's side --------------------------------------------------------------------------------
    @property
    def open(self) -> bool:
        """Whether the rollout waits for another reply."""
        return self.end is None

    def prompt_ids(self) -> list[int]:
        """The ids the next reply is sampled from: the chat so far, ending with the generation prompt."""
        return self.session.prompt_ids()

    def max_new_tokens(self) -> int:
        """The most tokens the next reply may have (what is left of the budget, at most ``reply_length``)."""
        reply = self.budget.reply_length
        return self._room() if reply is None else min(self._room(), reply)

    def add_reply(self, token_ids: Sequence[int], logprobs: Sequence[float] | None = None) -> None:
        """Play a sampled reply (see the module docstring)."""
        if not self.open:
            raise RuntimeError(f"the rollout has ended ({self.end})")
        room = self._room()
        kept = [int(t) for t in token_ids[:room]]
        cut = len(token_ids) > room
        kept_logprobs = None
        if logprobs is not None and len(logprobs) == len(token_ids):
            kept_logprobs = tuple(float(x) for x in logprobs[:room])
        else:
            self._with_logprobs = False
        text = self.backend.decode(kept, skip_special_tokens=True)
        self.session.add_completion(Completion(text=text, token_ids=tuple(kept), logprobs=kept_logprobs))
        self.turns += 1
        self._turns_in_chat += 1
        start = time.perf_counter()
        action = self.episode.action(text)
        self.actions.append(action)
        answer = self.episode.step(action)
        self.env_seconds += time.perf_counter() - start
        if self.episode.done:
            self._finish("env")
        elif cut or self._room() < 1:
            self._finish("budget")
        elif self.max_turns is not None and self.turns >= self.max_turns:
            self._finish("max_turns")
        elif answer.replaces_chat:
            self._replace_chat(answer.messages)
        else:
            self.session.add_environment(answer.messages)
            if self._response_tokens() >= self.budget.response_length:
                self._finish("budget")
            elif self._room() < 1:
                self._finish("context")

    def record(self) -> RolloutRecord:
        """The sequence to train on (the last chat), its reward and what happened (once the rollout ended)."""
        if self.open:
            raise RuntimeError("the rollout is still open")
        tokens = self.session.tokens
        start = tokens.prompt_length
        if self._turns_in_chat == 0:  # never sampled from: one masked token, so every trainer can pad the row
            context = self.budget.context_length
            keep = min(
                x for x in (self.budget.prompt_length, context and context - 1, start) if x is not None
            )
            filler = self.backend.tokenizer.eos_token_id
            filler = self.backend.tokenizer.pad_token_id if filler is None else filler
            prompt, response, mask, logprobs = (
                tokens.token_ids[start - keep : start],
                [filler or 0],
                [0],
                [0.0],
            )
        else:
            end = start + self.budget.response_length
            prompt, response = tokens.token_ids[:start], tokens.token_ids[start:end]
            mask, logprobs = tokens.mask[start:end], tokens.logprobs[start:end]
        return RolloutRecord(
            prompt_ids=list(prompt),
            response_ids=list(response),
            response_mask=list(mask),
            response_logprobs=list(logprobs) if self._with_logprobs else None,
            reward=self.episode.total_reward,
            success=self.episode.success,
            finished=self.episode.finished,
            turns=self.turns,
            replaced_replies=self.replaced_replies,
            end=str(self.end),
            template_fallbacks=self._fallbacks + self.session.template_fallbacks,
            env_seconds=self.env_seconds,
            actions=list(self.actions),
        )

    def stop(self) -> None:
        """End the rollout where it stands (the trainer gives up on it): a failure unless the env ended it."""
        if self.open:
            self._finish("max_turns")

    # -- internals -------------------------------------------------------------------------------------------
    def _response_tokens(self) -> int:
        return self.session.num_tokens - self.session.tokens.prompt_length

    def _room(self) -> int:
        room = self.budget.response_length - self._response_tokens()
        if self.budget.context_length is not None:
            room = min(room, self.budget.context_length - self.session.num_tokens)
        return room

    def _replace_chat(self, messages: list[dict]) -> None:
        session = ChatSession(self.backend, messages)
        length = session.tokens.prompt_length
        too_long = self.budget.prompt_length is not None and length > self.budget.prompt_length
        if too_long or (self.budget.context_length is not None and length >= self.budget.context_length):
            self._finish("budget")  # the fresh prompt does not fit: the last chat stays the sequence
            return
        self.replaced_replies += self._turns_in_chat
        self._fallbacks += self.session.template_fallbacks
        self.session = session
        self._turns_in_chat = 0

    def _finish(self, end: str) -> None:
        self.end = end
        self.episode.stop()

    def _warn_unplayed(self, limit: str, length: int) -> None:
        logger.warning(
            "task %s of %s: its prompt has %d tokens, more than %s; the rollout is a failed row (reward 0, "
            "nothing sampled). Raise the limit or filter overlong prompts (verl: "
            "data.filter_overlong_prompts).",
            self.episode.task.id,
            self.episode.tasks.env_id,
            length,
            limit,
        )
