"""A token-level backend that only renders and tokenizes: generation happens in a trainer's own engine.

``ChatSession`` keeps a chat's exact token record through a backend's ``render_chat``, ``encode``,
``decode`` and ``end_of_turn_ids``; a trainer that samples with its own server (verl's agent loop) wraps
its tokenizer in this backend to keep the same record.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from genenv_gym.agents.backends.base import Backend, BackendError, Completion, Prompt, SamplingParams


class TemplateBackend(Backend):
    """``tokenizer``'s chat template and vocabulary, without a model."""

    def __init__(self, tokenizer: Any, model_name: str = "external") -> None:
        self.tokenizer = tokenizer
        self.model_name = model_name

    def generate(self, prompts: Sequence[Prompt], params: SamplingParams) -> list[list[Completion]]:
        raise BackendError("TemplateBackend does not generate: the trainer's engine samples the tokens")
