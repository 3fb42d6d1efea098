"""A token-level backend that only renders and tokenizes: generation happens in a trainer's own engine.

``ChatSession`` keeps a chat's exact token record through a backend's ``render_chat``, ``encode``,
``decode`` and ``end_of_turn_ids``; a trainer that samples with its own engine (verl's server, TRL's
generation) wraps its tokenizer in this backend to keep the same record.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from genenv_gym.agents.backends.base import (
    Backend,
    BackendError,
    Completion,
    Messages,
    Prompt,
    SamplingParams,
)

_PROBE = "\u2063GENENV_PROBE\u2063"


class TemplateBackend(Backend):
    """``tokenizer``'s chat template and vocabulary, without a model.

    Args:
        tokenizer: a Hugging Face tokenizer with a chat template.
        model_name: recorded in provenance.
        chat_template_kwargs: passed to every ``apply_chat_template`` (verl's
            ``data.apply_chat_template_kwargs``, TRL's ``chat_template_kwargs``; e.g. ``enable_thinking``).
        end_of_turn_ids: the ids that end the model's turn besides the tokenizer's eos (a generation config's
            ``eos_token_id``, TRL's ``eos_token_ids``). The special token the chat template closes an
            assistant turn with (``<|im_end|>``, ``<|eot_id|>``, ...) is read from the template itself.
    """

    def __init__(
        self,
        tokenizer: Any,
        model_name: str = "external",
        chat_template_kwargs: Mapping[str, Any] | None = None,
        end_of_turn_ids: Iterable[int] = (),
    ) -> None:
        self.tokenizer = tokenizer
        self.model_name = model_name
        self.chat_template_kwargs = dict(chat_template_kwargs or {})
        self._end_of_turn = tuple(
            sorted({*super().end_of_turn_ids(), *(int(i) for i in end_of_turn_ids), *self._closing_ids()})
        )

    def generate(self, prompts: Sequence[Prompt], params: SamplingParams) -> list[list[Completion]]:
        raise BackendError("TemplateBackend does not generate: the trainer's engine samples the tokens")

    def render_chat(
        self,
        messages: Messages,
        tools: Sequence[Mapping[str, Any]] | None = None,
        add_generation_prompt: bool = True,
    ) -> str:
        if not getattr(self.tokenizer, "chat_template", None):
            raise BackendError(
                f"the tokenizer of {self.model_name} has no chat template; set tokenizer.chat_template"
            )
        kwargs: dict[str, Any] = {**self.chat_template_kwargs, "tokenize": False}
        kwargs["add_generation_prompt"] = add_generation_prompt
        if tools:
            kwargs["tools"] = [dict(t) for t in tools]
        return self.tokenizer.apply_chat_template([dict(m) for m in messages], **kwargs)

    def end_of_turn_ids(self) -> tuple[int, ...]:
        return self._end_of_turn

    def _closing_ids(self) -> tuple[int, ...]:
        """The special token that opens the text the template writes after an assistant message, if any."""
        try:
            text = self.render_chat(
                [{"role": "user", "content": "x"}, {"role": "assistant", "content": _PROBE}],
                add_generation_prompt=False,
            )
        except Exception:  # a template that cannot render this chat: the caller's ids and eos only
            return ()
        closing = text.split(_PROBE, 1)[1] if _PROBE in text else ""
        ids = self.encode(closing) if closing else []
        return (ids[0],) if ids and self._special(ids[0]) else ()

    def _special(self, token_id: int) -> bool:
        """Whether a token is special: named, or added as special (``<|im_end|>`` in Qwen's vocabulary)."""
        if token_id in set(getattr(self.tokenizer, "all_special_ids", ()) or ()):
            return True
        added = getattr(self.tokenizer, "added_tokens_decoder", None) or {}
        return bool(getattr(added.get(token_id), "special", False))
