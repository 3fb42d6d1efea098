"""One agent's chat with one env, kept as messages and, for token-level backends, as exact token ids.

The token record is what a trainer needs: the ids the model was conditioned on and the ids it sampled,
with a mask (1 for model tokens, 0 for prompt and environment tokens) and the model tokens' logprobs.
It is built turn by turn and never re-tokenized: each model turn appends the sampled ids as they are,
and each environment turn appends the ids of exactly the text the chat template puts between the
model's last token and the next generation prompt (the end of the assistant turn, the new user or tool
turn, the assistant header). That text is found by rendering the chat with a sentinel assistant turn
with and without the new messages; templates for which appending messages does not extend the
rendered text (rare) fall back to rendering the new turn on its own, and the session notes it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from genenv_gym.agents.backends.base import Backend, Completion

_SENTINEL = "\u2063GENENV_SENTINEL\u2063"


@dataclass
class TokenRecord:
    """Token ids of a whole chat with the model/environment mask and the model tokens' logprobs."""

    token_ids: list[int] = field(default_factory=list)
    mask: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    prompt_length: int = 0

    def extend(self, ids: Sequence[int], model: bool, logprobs: Sequence[float] | None = None) -> None:
        self.token_ids.extend(int(t) for t in ids)
        self.mask.extend([1 if model else 0] * len(ids))
        if model and logprobs is not None and len(logprobs) == len(ids):
            self.logprobs.extend(float(x) for x in logprobs)
        else:
            self.logprobs.extend([0.0] * len(ids))

    def __len__(self) -> int:
        return len(self.token_ids)


def environment_turn(observation: str, info: Mapping[str, Any]) -> list[dict[str, Any]]:
    """What a multi-step env's answer adds to the chat: its ``info["turn_messages"]`` (possibly none), or
    else the observation as a user turn."""
    return info.get("turn_messages", [{"role": "user", "content": observation}])


def opening_messages(observation: str, info: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The chat an env's answer opens: its ``info["messages"]`` (a reset's, or a step's fresh prompt that
    replaces the chat), else the observation as one user turn."""
    return [dict(m) for m in info.get("messages") or []] or [{"role": "user", "content": observation}]


def starts_a_new_chat(info: Mapping[str, Any]) -> bool:
    """Whether an env's answer replaces the chat (its ``info`` carries ``messages``) instead of adding."""
    return "messages" in info


class ChatSession:
    """The chat of one episode: its messages, and its token record when the backend is token-level.

    Args:
        backend: the backend that will generate the model turns (its tokenizer renders the chat).
        messages: the opening chat (the env's ``info["messages"]``, system prompt included).
        tools: tool specs passed to the chat template (only with ``pass_tools``; BFCL's prompt already
            lists its functions).
        pass_tools: give ``tools`` to the chat template (models trained on native tool calling).
    """

    def __init__(
        self,
        backend: Backend,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None = None,
        pass_tools: bool = False,
    ) -> None:
        self.backend = backend
        self.messages: list[dict[str, Any]] = [dict(m) for m in messages]
        self.tools = [dict(t) for t in tools] if (tools and pass_tools) else None
        self.tokens: TokenRecord | None = None
        self.template_fallbacks = 0
        self._eos_id: int | None = None
        if backend.token_level:
            ids = backend.encode(backend.render_chat(self.messages, self.tools))
            self.tokens = TokenRecord()
            self.tokens.extend(ids, model=False)
            self.tokens.prompt_length = len(ids)

    @property
    def num_tokens(self) -> int:
        return len(self.tokens) if self.tokens is not None else 0

    def prompt_ids(self) -> list[int]:
        """The ids to generate the next model turn from (token-level backends)."""
        if self.tokens is None:
            raise ValueError("this session's backend is not token-level; use its messages")
        return list(self.tokens.token_ids)

    def add_completion(self, completion: Completion) -> None:
        """Record a model turn (its text as the assistant message, its ids and logprobs as model tokens)."""
        message: dict[str, Any] = {"role": "assistant", "content": completion.text}
        if completion.tool_calls:
            message["tool_calls"] = [
                {"type": "function", "function": {"name": c.get("name"), "arguments": c.get("arguments")}}
                for c in completion.tool_calls
            ]
        self.messages.append(message)
        if self.tokens is not None:
            self.tokens.extend(completion.token_ids, model=True, logprobs=completion.logprobs)
            last = completion.token_ids[-1] if completion.token_ids else None
            self._eos_id = last if last in set(self.backend.end_of_turn_ids()) else None

    def add_environment(self, new_messages: Sequence[Mapping[str, Any]]) -> None:
        """Record an environment turn (new user / tool messages) and the generation prompt after it."""
        new = [dict(m) for m in new_messages]
        if self.tokens is not None:
            self.tokens.extend(self._environment_ids(new), model=False)
        self.messages.extend(new)

    def _environment_ids(self, new: list[dict[str, Any]]) -> list[int]:
        backend = self.backend
        history = (
            self.messages[:-1]
            if self.messages and self.messages[-1]["role"] == "assistant"
            else self.messages
        )
        closed = backend.render_chat(
            [*history, {"role": "assistant", "content": _SENTINEL}], self.tools, False
        )
        extended = backend.render_chat(
            [*history, {"role": "assistant", "content": _SENTINEL}, *new], self.tools, True
        )
        closing = closed[closed.index(_SENTINEL) + len(_SENTINEL) :] if _SENTINEL in closed else ""
        if self._eos_id is not None:
            eos_text = backend.decode([self._eos_id], skip_special_tokens=False)
            if eos_text and closing.startswith(eos_text):
                closing = closing[len(eos_text) :]
        if extended.startswith(closed):
            delta = extended[len(closed) :]
        else:
            self.template_fallbacks += 1
            delta = backend.render_chat(new, self.tools, True)
        return backend.encode(closing + delta)
