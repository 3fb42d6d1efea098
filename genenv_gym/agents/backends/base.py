"""The backend interface: batched text generation with token ids and per-token logprobs.

Every backend (``hf``, ``sglang``, ``sglang-server``, ``openai``) takes a batch of prompts and a
``SamplingParams`` and returns, for each prompt, ``params.n`` ``Completion`` objects. Token-level backends
(hf, sglang) accept token-id prompts and return the sampled token ids with their logprobs; the openai
backend works on chat messages and returns what the endpoint reports.

Logprob convention (all backends that return them): the log-probability of the sampled token under
``softmax(logits / temperature)`` over the whole vocabulary, before top-k / top-p truncation (temperature
0, greedy, counts as 1). This is what sglang returns by default and what a trainer recomputes from the
policy's logits.

This module imports neither torch nor transformers.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

#: A prompt: text (already chat-formatted where needed) or token ids.
Prompt = str | Sequence[int]
#: A chat: ``[{"role": ..., "content": ...}, ...]``.
Messages = Sequence[Mapping[str, Any]]

FINISH_REASONS = ("stop", "length", "error")
#: The hf backend's generation engines (``HFBackend(engine=...)``, the trainer's ``agent.rollout_engine``).
HF_ENGINES = ("auto", "fast", "padded", "continuous")


class BackendError(RuntimeError):
    """A backend cannot serve requests at all (bad spec, missing credentials, unreachable server, ...)."""


@dataclass(frozen=True)
class SamplingParams:
    """How to sample completions.

    Attributes:
        n: completions per prompt.
        temperature: 0 means greedy decoding.
        top_p: nucleus sampling mass (1.0 = off).
        top_k: keep the k most likely tokens (0 = off).
        max_new_tokens: the most tokens generated per completion.
        stop: strings that end a completion; the text is cut before the first one found (the token ids
            keep the tokens up to and including the one that completed it).
        seed: makes a call reproducible. sglang and openai honour it per request; hf seeds torch once per
            call, so hf results are reproducible for the same batch (same prompts, order and batch size).
        ignore_eos: keep generating past end-of-sequence tokens (throughput measurements).
        logprobs: return per-token logprobs where the backend can.
    """

    n: int = 1
    temperature: float = 1.0
    top_p: float = 1.0
    top_k: int = 0
    max_new_tokens: int = 256
    stop: tuple[str, ...] = ()
    seed: int | None = None
    ignore_eos: bool = False
    logprobs: bool = True

    def __post_init__(self) -> None:
        if isinstance(self.stop, str):
            object.__setattr__(self, "stop", (self.stop,))
        else:
            object.__setattr__(self, "stop", tuple(self.stop))
        if self.n < 1:
            raise ValueError(f"n must be >= 1, got {self.n}")
        if self.temperature < 0:
            raise ValueError(f"temperature must be >= 0, got {self.temperature}")
        if not 0.0 < self.top_p <= 1.0:
            raise ValueError(f"top_p must be in (0, 1], got {self.top_p}")
        if self.top_k < 0:
            raise ValueError(f"top_k must be >= 0, got {self.top_k}")
        if self.max_new_tokens < 1:
            raise ValueError(f"max_new_tokens must be >= 1, got {self.max_new_tokens}")
        if any(not s for s in self.stop):
            raise ValueError("stop strings must be non-empty")

    @property
    def greedy(self) -> bool:
        return self.temperature == 0.0

    def with_(self, **changes: Any) -> SamplingParams:
        """A copy with some fields changed."""
        return replace(self, **changes)


@dataclass(frozen=True)
class Completion:
    """One generated completion.

    Attributes:
        text: the decoded completion, special tokens removed, cut before a matched stop string.
        token_ids: the sampled token ids (empty where the backend does not report them).
        logprobs: one logprob per token id (None where the backend does not report them).
        finish_reason: ``stop`` (end of sequence or a stop string), ``length`` (max_new_tokens) or
            ``error`` (the request failed; ``error`` says why).
        prompt_token_ids: the prompt as the model saw it (empty where unknown).
        tool_calls: native tool calls of a chat endpoint: ``({"name": ..., "arguments": {...}}, ...)``.
        stop_string: the stop string that ended the completion, if any.
        error: why the request failed.
    """

    text: str
    token_ids: tuple[int, ...] = ()
    logprobs: tuple[float, ...] | None = None
    finish_reason: str = "stop"
    prompt_token_ids: tuple[int, ...] = ()
    tool_calls: tuple[Mapping[str, Any], ...] = ()
    stop_string: str | None = None
    error: str | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.finish_reason != "error"

    @property
    def truncated(self) -> bool:
        return self.finish_reason == "length"


def error_completion(message: str, prompt_token_ids: Sequence[int] = ()) -> Completion:
    """The completion that stands for a failed request."""
    return Completion("", finish_reason="error", error=message, prompt_token_ids=tuple(prompt_token_ids))


def find_stop(text: str, stops: Sequence[str]) -> tuple[int, str] | None:
    """The earliest occurrence ``(index, stop)`` of any stop string in ``text``, or None."""
    best: tuple[int, str] | None = None
    for stop in stops:
        index = text.find(stop)
        if index >= 0 and (best is None or index < best[0]):
            best = (index, stop)
    return best


class Backend(ABC):
    """Batched generation behind one interface; see the module docstring for the conventions.

    Subclasses implement ``generate``. Token-level backends also set ``tokenizer`` (a Hugging Face
    tokenizer with a chat template), which ``chat``, ``render_chat``, ``encode`` and ``decode`` use.
    """

    #: The model's name, recorded in provenance (``llm:<model_name>``).
    model_name: str = "unknown"
    #: A Hugging Face tokenizer for token-level backends; None for chat-only backends.
    tokenizer: Any = None

    @property
    def token_level(self) -> bool:
        """Whether the backend takes token-id prompts and returns token ids and logprobs."""
        return self.tokenizer is not None

    @abstractmethod
    def generate(self, prompts: Sequence[Prompt], params: SamplingParams) -> list[list[Completion]]:
        """``params.n`` completions for each prompt (text or token ids), in prompt order."""

    def chat(
        self,
        conversations: Sequence[Messages],
        params: SamplingParams,
        tools: Sequence[Mapping[str, Any]] | None = None,
    ) -> list[list[Completion]]:
        """``params.n`` assistant replies for each conversation, rendered with the chat template."""
        prompts = [self.encode(self.render_chat(messages, tools)) for messages in conversations]
        return self.generate(prompts, params)

    def render_chat(
        self,
        messages: Messages,
        tools: Sequence[Mapping[str, Any]] | None = None,
        add_generation_prompt: bool = True,
    ) -> str:
        """The chat as prompt text, through the tokenizer's chat template."""
        tokenizer = self._require_tokenizer()
        if not getattr(tokenizer, "chat_template", None):
            raise BackendError(
                f"the tokenizer of {self.model_name} has no chat template; set tokenizer.chat_template"
            )
        kwargs: dict[str, Any] = {"tokenize": False, "add_generation_prompt": add_generation_prompt}
        if tools:
            kwargs["tools"] = [dict(t) for t in tools]
        return tokenizer.apply_chat_template([dict(m) for m in messages], **kwargs)

    def encode(self, text: str) -> list[int]:
        """Token ids of prompt text (no special tokens added: chat templates write their own)."""
        return list(self._require_tokenizer().encode(text, add_special_tokens=False))

    def decode(self, token_ids: Sequence[int], skip_special_tokens: bool = True) -> str:
        return self._require_tokenizer().decode(list(token_ids), skip_special_tokens=skip_special_tokens)

    def end_of_turn_ids(self) -> tuple[int, ...]:
        """Token ids that end a completion (the tokenizer's eos and the model's generation eos ids)."""
        tokenizer = self._require_tokenizer()
        ids = {tokenizer.eos_token_id} if tokenizer.eos_token_id is not None else set()
        return tuple(sorted(ids))

    def update_weights(self, source: Any) -> None:
        """Load new weights after a training step (a checkpoint directory, or named tensors)."""
        raise NotImplementedError(f"{type(self).__name__} cannot load new weights")

    def close(self) -> None:
        """Release the model or the connections (idempotent)."""
        return None

    def __enter__(self) -> Backend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _require_tokenizer(self) -> Any:
        if self.tokenizer is None:
            raise BackendError(
                f"{type(self).__name__} ({self.model_name}) has no tokenizer: it works on chat messages only"
            )
        return self.tokenizer

    def _prompt_ids(self, prompt: Prompt) -> list[int]:
        if isinstance(prompt, str):
            return self.encode(prompt)
        return [int(t) for t in prompt]


def finish_tokens(
    token_ids: Sequence[int],
    logprobs: Sequence[float] | None,
    params: SamplingParams,
    eos_ids: Sequence[int],
    decode: Any,
    prompt_ids: Sequence[int] = (),
    length_limited: bool = True,
) -> Completion:
    """A Completion from raw sampled tokens: cut at end-of-sequence and stop strings, decode, label.

    ``token_ids`` may run past the true end (padding after a finished row of a batch): the completion
    ends at the first eos id (kept, finish ``stop``) unless ``params.ignore_eos``, or earlier at the
    token that completes a stop string (kept; the text is cut before the stop string). Otherwise the
    finish reason is ``length`` when ``length_limited`` (the generation ran out of tokens).
    """
    tokens = [int(t) for t in token_ids]
    lps = None if logprobs is None else [float(x) for x in logprobs]
    end = len(tokens)
    hit_eos = False
    if not params.ignore_eos and eos_ids:
        eos = set(eos_ids)
        for i, token in enumerate(tokens):
            if token in eos:
                end, hit_eos = i, True
                break
    body = tokens[:end]
    text = decode(body)
    if params.stop:
        found = find_stop(text, params.stop)
        if found is not None:
            index, stop = found
            cut = _tokens_covering(body, index + len(stop), decode)
            return Completion(
                text=text[:index],
                token_ids=tuple(body[:cut]),
                logprobs=None if lps is None else tuple(lps[:cut]),
                finish_reason="stop",
                prompt_token_ids=tuple(prompt_ids),
                stop_string=stop,
            )
    if hit_eos:
        end += 1
    return Completion(
        text=text,
        token_ids=tuple(tokens[:end]),
        logprobs=None if lps is None else tuple(lps[:end]),
        finish_reason="stop" if hit_eos or not length_limited else "length",
        prompt_token_ids=tuple(prompt_ids),
    )


def _tokens_covering(tokens: Sequence[int], chars: int, decode: Any) -> int:
    """The fewest leading tokens whose decoded text has at least ``chars`` characters (binary search)."""
    low, high = 1, len(tokens)
    while low < high:
        mid = (low + high) // 2
        if len(decode(tokens[:mid])) >= chars:
            high = mid
        else:
            low = mid + 1
    return high
