"""The ``hf`` backend: transformers generation on CPU or GPU, batched, with token ids and logprobs.

Three engines (``engine="auto"`` picks ``fast`` on a GPU for the model families it runs, else ``padded``):

- ``fast`` (``backends.fast``): no left padding and no padding mask on the hot path. Shared prompt prefixes
  prefilled once with causal attention over right-padded prompts, each row's suffix at its true positions,
  a static KV cache and a decode step captured as a CUDA graph per bucketed shape; rows that finish early
  are dropped from the batch. Llama-family models only (``fast.SUPPORTED_MODEL_TYPES``).
- ``padded`` (the default on a CPU): prompts sorted by length, cut into micro-batches
  of ``max_batch_size``, left-padded and decoded together by ``model.generate`` with a KV cache. Rows of a
  micro-batch that share a prompt prefix (the G samples of a task; their chats in later turns) prefill it
  once and fan its KV cache out (``share_prefixes``, see ``shared_prefix``): the same tokens and logprobs,
  fewer prefill positions. ``static_cache=True`` adds transformers' static cache with ``torch.compile``d
  decoding, which pays off only when the same batch shapes recur (it recompiles per shape; no prefix sharing).
- ``continuous``: transformers' continuous-batching manager (``init_continuous_batching``): a paged KV
  cache, no padding, finished sequences replaced by waiting ones at every step, CUDA graphs on GPU. Its
  manager is kept alive between calls and rebuilt only when the temperature / top-p / top-k change; the
  attention implementation it needs (``paged|eager``, flash) is set only for the length of each call, so
  the shared model stays usable for a plain forward between calls.

Per-token logprobs follow the convention of ``backends.base``. On the padded engine they are captured by
a logits processor that keeps one ``[batch, vocab]`` tensor at a time (not the whole score history); the
continuous engine reports the logprob under its sampling distribution, which is the same as the
convention unless top-k / top-p truncate it.
"""

from __future__ import annotations

import atexit
import logging
import threading
import time
import weakref
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, GenerationConfig, LogitsProcessor
from transformers.generation.streamers import BaseStreamer

from genenv_gym.agents.backends.base import (
    HF_ENGINES,
    Backend,
    BackendError,
    Completion,
    Prompt,
    SamplingParams,
    error_completion,
    finish_tokens,
)
from genenv_gym.agents.backends.fast import FastEngine, unsupported_reason
from genenv_gym.agents.backends.progress import Listener, generation_listener
from genenv_gym.agents.backends.shared_prefix import (
    batch_layout,
    cache_keyword,
    padded_prefill_positions,
    plan_shared_prefixes,
    prefill_shared_prefixes,
)
from genenv_gym.agents.pretrained import load_model, load_tokenizer, resolve_model_source
from genenv_gym.suggest import check_choice

logger = logging.getLogger(__name__)


class _LogprobCapture(LogitsProcessor):
    """Records ``log softmax(scores / T)`` of the token chosen at each step, one step late.

    At step ``t`` the processor sees the token chosen at step ``t-1`` as the last input id, so it gathers
    that token's logprob from the distribution it stored at ``t-1``, then stores the current one. The
    last step's logprob is gathered by ``finish`` from the returned sequences.
    """

    def __init__(self, temperature: float) -> None:
        self.temperature = temperature if temperature > 0 else 1.0
        self.previous: torch.Tensor | None = None
        self.steps: list[torch.Tensor] = []

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        if self.previous is not None:
            self.steps.append(self.previous.gather(1, input_ids[:, -1:]).squeeze(1))
        self.previous = torch.log_softmax(scores.float() / self.temperature, dim=-1)
        return scores

    def finish(self, generated: torch.Tensor) -> torch.Tensor:
        """``[batch, steps]`` logprobs of the generated tokens."""
        if self.previous is not None and generated.shape[1] > len(self.steps):
            self.steps.append(self.previous.gather(1, generated[:, len(self.steps)].unsqueeze(1)).squeeze(1))
        self.previous = None
        if not self.steps:
            return torch.zeros(generated.shape[0], 0)
        return torch.stack(self.steps, dim=1)


class _TokenCounter(BaseStreamer):
    """Tells a progress listener how many tokens each decoding step produced (rows that already ended, which
    only add padding, are not counted). ``generate`` first hands over the prompt, which is skipped."""

    def __init__(self, listener: Listener, pad: int) -> None:
        self.listener = listener
        self.pad = pad
        self.prompt_seen = False

    def put(self, value: torch.Tensor) -> None:
        if not self.prompt_seen:
            self.prompt_seen = True
            return
        self.listener(tokens=int((value != self.pad).sum()))

    def end(self) -> None:
        return None


class HFBackend(Backend):
    """Generation with a transformers causal LM (a path / hub id, or a model object shared with a trainer).

    Args:
        model: a directory or hub id loaded with ``AutoModelForCausalLM``, or a loaded model (the trainer's
            own module: generation then always uses its current weights).
        tokenizer: a tokenizer object or path (default: the model's directory).
        device: ``cuda`` when available, else ``cpu``.
        dtype: ``bfloat16`` on GPU, ``float32`` on CPU.
        engine: ``auto`` (``fast`` on a GPU where the model is supported, else ``padded``), ``fast``,
            ``padded`` or ``continuous``.
        max_batch_size: sequences per micro-batch on the padded engine, rows decoded together on the fast
            engine, the most concurrent requests of the continuous engine.
        static_cache: on the padded engine, use a static KV cache with compiled decoding.
        continuous_config: extra ``ContinuousBatchingConfig`` fields (``num_blocks``, ``page_size``, ...).
        model_name: the name recorded in provenance (default: the path or the config's name).
        share_prefixes: on the padded and fast engines, prefill a prompt prefix shared by rows of a batch
            once.
        fast_config: extra ``FastEngine`` arguments (``compile``, ``graphs``, ``cache_memory_fraction``, ...).
    """

    def __init__(
        self,
        model: str | Path | torch.nn.Module,
        tokenizer: Any = None,
        device: str | torch.device | None = None,
        dtype: str | torch.dtype | None = None,
        engine: str = "auto",
        max_batch_size: int = 64,
        static_cache: bool = False,
        continuous_config: Mapping[str, Any] | None = None,
        model_name: str | None = None,
        trust_remote_code: bool = False,
        share_prefixes: bool = True,
        fast_config: Mapping[str, Any] | None = None,
    ) -> None:
        check_choice("engine", engine, HF_ENGINES)
        if max_batch_size < 1:
            raise ValueError(f"max_batch_size must be >= 1, got {max_batch_size}")
        if isinstance(model, (str, Path)):
            device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
            dtype = _dtype(dtype, device)
            path = str(model)
            try:
                source = resolve_model_source(path)
                self.model = load_model(source, dtype, trust_remote_code).to(device)
                if tokenizer is None:
                    tokenizer = load_tokenizer(source, trust_remote_code)
            except (OSError, ValueError) as exc:
                raise BackendError(f"hf: cannot load a model from {path!r}: {exc}") from exc
            self.model_name = model_name or path
            self.model.eval()
        else:
            self.model = model
            if device is not None:
                self.model.to(torch.device(device))
            if dtype is not None:
                self.model.to(_dtype(dtype, self.model.device))
            self.model_name = model_name or getattr(model.config, "name_or_path", "") or type(model).__name__
        if isinstance(tokenizer, (str, Path)):
            tokenizer = AutoTokenizer.from_pretrained(str(tokenizer), trust_remote_code=trust_remote_code)
        if tokenizer is None:
            raise BackendError("hf: pass a tokenizer with a model object")
        self.tokenizer = tokenizer
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        if engine == "fast" and (reason := unsupported_reason(self.model)) is not None:
            raise BackendError(f"hf: the fast engine cannot run {self.model_name}: {reason}")
        self.engine = _auto_engine(self.model) if engine == "auto" else engine
        self.max_batch_size = max_batch_size
        self.static_cache = static_cache
        self.continuous_config = dict(continuous_config or {})
        self.fast_config = dict(fast_config or {})
        self.share_prefixes = share_prefixes
        #: Token positions the padded engine's prefill forwards have computed (padding included).
        self.prefill_positions = 0
        self._managers: dict[tuple, Any] = {}
        self._fast: FastEngine | None = None
        self._paged_attention: str | None = None  # the attention the continuous manager switched to
        self._lock = threading.Lock()
        _LIVE_BACKENDS.add(self)

    @property
    def device(self) -> torch.device:
        """Where the model is now (a trainer sharing the model may move it)."""
        return self.model.device

    # ------------------------------------------------------------------------------------------------
    def end_of_turn_ids(self) -> tuple[int, ...]:
        ids: set[int] = set()
        for source in (
            self.tokenizer.eos_token_id,
            getattr(self.model.generation_config, "eos_token_id", None),
        ):
            if isinstance(source, int):
                ids.add(source)
            elif isinstance(source, (list, tuple)):
                ids.update(int(x) for x in source)
        return tuple(sorted(ids))

    @property
    def context_window(self) -> int | None:
        """The most positions the model was trained on (its config's ``max_position_embeddings``)."""
        window = getattr(self.model.config, "max_position_embeddings", None)
        return int(window) if isinstance(window, int) and window > 0 else None

    def generate(self, prompts: Sequence[Prompt], params: SamplingParams) -> list[list[Completion]]:
        prompt_ids = [self._prompt_ids(p) for p in prompts]
        rows = [(i, ids) for i, ids in enumerate(prompt_ids) for _ in range(params.n)]
        results: list[list[Completion]] = [[] for _ in prompts]
        window = self.context_window
        for i, ids in rows:
            if not ids:
                results[i].append(error_completion("empty prompt"))
            elif window is not None and len(ids) >= window:
                # Past its trained positions the model writes noise, slowly: an outcome, not a generation.
                results[i].append(error_completion(context_window_error(len(ids), window), ids))
        rows = [r for r in rows if r[1] and (window is None or len(r[1]) < window)]
        if not rows:
            return results
        with self._lock, torch.inference_mode():
            training = self.model.training  # a trainer's model: sample in eval mode, then restore its mode
            self.model.eval()
            try:
                if self.engine == "continuous":
                    outputs = self._generate_continuous([ids for _, ids in rows], params)
                elif self.engine == "fast":
                    outputs = self._generate_fast([ids for _, ids in rows], params)
                else:
                    outputs = self._generate_padded([ids for _, ids in rows], params)
            finally:
                self.model.train(training)
        for (i, _), completion in zip(rows, outputs, strict=True):
            results[i].append(completion)
        return results

    def update_weights(self, source: Any) -> None:
        """Load a checkpoint directory, a state dict (name -> tensor) or ``(name, tensor)`` pairs in place."""
        if isinstance(source, (str, Path)):
            loaded = AutoModelForCausalLM.from_pretrained(str(source), dtype=self.model.dtype)
            state = loaded.state_dict()
        elif isinstance(source, Mapping):
            state = dict(source)
        else:
            state = dict(source)
        _, unexpected = self.model.load_state_dict(state, strict=True)
        if unexpected:
            raise BackendError(f"hf: unexpected weights {sorted(unexpected)[:5]}")
        with self._lock:
            self.close()

    def close(self) -> None:
        """Free the engines' KV caches (the continuous manager stops); the next call allocates them again."""
        for manager in self._managers.values():
            _stop_manager(manager)
        self._managers.clear()
        if self._fast is not None:
            self._fast.close()

    # ------------------------------------------------------------------------------------------------
    def _generate_fast(self, prompts: list[list[int]], params: SamplingParams) -> list[Completion]:
        if self._fast is None or self._fast.device != self.device:
            self._fast = FastEngine(
                self.model,
                **{"max_batch_size": self.max_batch_size, "share_prefixes": self.share_prefixes}
                | self.fast_config,
            )
        engine, eos_ids = self._fast, self.end_of_turn_ids()
        before = engine.prefill_positions
        try:
            generated = engine.generate(prompts, params, eos_ids, generation_listener())
        except (RuntimeError, ValueError) as exc:  # e.g. out of memory
            engine.close()
            return [error_completion(f"hf fast engine failed: {exc}", ids) for ids in prompts]
        finally:
            self.prefill_positions += engine.prefill_positions - before
        return [
            finish_tokens(
                g.token_ids,
                g.logprobs if params.logprobs else None,
                params,
                eos_ids,
                self.decode,
                ids,
                length_limited=g.length_limited,
            )
            for g, ids in zip(generated, prompts, strict=True)
        ]

    # ------------------------------------------------------------------------------------------------
    def _generate_padded(self, prompts: list[list[int]], params: SamplingParams) -> list[Completion]:
        order = sorted(range(len(prompts)), key=lambda i: len(prompts[i]))
        out: list[Completion | None] = [None] * len(prompts)
        eos_ids = self.end_of_turn_ids()
        pad = self.tokenizer.pad_token_id
        for chunk_index, start in enumerate(range(0, len(order), self.max_batch_size)):
            chunk = order[start : start + self.max_batch_size]
            chunk_prompts = [prompts[i] for i in chunk]
            sharing = self.share_prefixes and not self.static_cache
            plan = plan_shared_prefixes(chunk_prompts) if sharing else None
            if plan is None:
                input_ids, attention = _left_padded(chunk_prompts, pad)
                self.prefill_positions += padded_prefill_positions(chunk_prompts)
            else:
                input_ids, attention = batch_layout(plan, pad)
                self.prefill_positions += plan.prefill_positions
            width = input_ids.shape[1]
            if params.seed is not None:
                torch.manual_seed(params.seed + chunk_index)
            capture = _LogprobCapture(params.temperature)
            config = self._generation_config(params, eos_ids, pad)
            kwargs: dict[str, Any] = {}
            if params.stop:
                kwargs["tokenizer"] = self.tokenizer
            listener = generation_listener()
            if listener is not None:
                kwargs["streamer"] = _TokenCounter(listener, pad)
            # transformers fills every unset field from model.generation_config (a checkpoint's
            # repetition_penalty, top_k, ...): generate against a clean one so only ``params`` apply.
            saved, self.model.generation_config = (
                self.model.generation_config,
                GenerationConfig(pad_token_id=pad),
            )
            try:
                if plan is not None:  # generate then prefills only the suffix region
                    kwargs[cache_keyword(self.model)] = prefill_shared_prefixes(self.model, plan, pad)
                sequences = self.model.generate(
                    input_ids=input_ids.to(self.device),
                    attention_mask=attention.to(self.device),
                    generation_config=config,
                    logits_processor=[capture] if params.logprobs else None,
                    **kwargs,
                )
            except (RuntimeError, ValueError) as exc:  # e.g. out of memory, prompt longer than the context
                for i in chunk:
                    out[i] = error_completion(f"hf generate failed: {exc}", prompts[i])
                continue
            finally:
                self.model.generation_config = saved
            generated = sequences[:, width:].cpu()
            logprobs = capture.finish(sequences[:, width:]).cpu() if params.logprobs else None
            for row, i in enumerate(chunk):
                out[i] = finish_tokens(
                    generated[row].tolist(),
                    None if logprobs is None else logprobs[row].tolist(),
                    params,
                    eos_ids,
                    self.decode,
                    prompts[i],
                    length_limited=generated.shape[1] >= params.max_new_tokens,
                )
        return [c if c is not None else error_completion("not generated") for c in out]

    def _generation_config(
        self, params: SamplingParams, eos_ids: Sequence[int], pad: int
    ) -> GenerationConfig:
        sample = not params.greedy
        config: dict[str, Any] = {
            "max_new_tokens": params.max_new_tokens,
            "do_sample": sample,
            "pad_token_id": pad,
            "eos_token_id": None if params.ignore_eos else list(eos_ids) or None,
            "num_beams": 1,
            "repetition_penalty": 1.0,
        }
        if sample:  # explicit values: top_k=0 is "off" (None would become transformers' default of 50)
            config.update(temperature=params.temperature, top_p=params.top_p, top_k=params.top_k)
        if params.stop:
            config["stop_strings"] = list(params.stop)
        if self.static_cache:
            config["cache_implementation"] = "static"
        return GenerationConfig(**config)

    # ------------------------------------------------------------------------------------------------
    def _generate_continuous(self, prompts: list[list[int]], params: SamplingParams) -> list[Completion]:
        # The manager switches the model to the attention it batches with (paged|eager, flash) only for
        # this call, so the model stays usable for a plain forward (a trainer's update) between calls.
        attention = self.model.config._attn_implementation
        try:
            manager = self._manager(params)
            _set_attention(self.model, self._paged_attention)
            results, pending = self._run_requests(manager, prompts, params)
            if pending:  # requests still in flight use the paged attention: stop them before switching back
                self.close()
        finally:
            _set_attention(self.model, attention)
        return self._continuous_completions(prompts, results, params)

    def _run_requests(
        self, manager: Any, prompts: list[list[int]], params: SamplingParams
    ) -> tuple[dict[str, Any], set[str]]:
        eos_ids = self.end_of_turn_ids()
        request_ids = []
        for ids in prompts:
            request_id = manager.add_request(
                ids,
                max_new_tokens=params.max_new_tokens,
                eos_token_id=-1 if params.ignore_eos else list(eos_ids),
            )
            request_ids.append(request_id)
        pending = {r for r in request_ids if r is not None}
        results: dict[str, Any] = {}
        deadline = time.monotonic() + 3600
        listener = generation_listener()
        while pending and time.monotonic() < deadline:
            result = manager.get_result(timeout=1)
            if result is None:
                if not manager.is_running():
                    break
                continue
            if result.request_id in pending and result.is_finished():
                results[result.request_id] = result
                pending.discard(result.request_id)
                if listener is not None:
                    listener(requests=1, tokens=len(result.generated_tokens))
        return {i: results.get(r) for i, r in enumerate(request_ids)}, pending

    def _continuous_completions(
        self, prompts: list[list[int]], results: dict[int, Any], params: SamplingParams
    ) -> list[Completion]:
        eos_ids = self.end_of_turn_ids()
        out = []
        for index, ids in enumerate(prompts):
            result = results.get(index)
            if result is None:
                out.append(error_completion("hf continuous batching: request was dropped or timed out", ids))
            elif result.error is not None:
                out.append(error_completion(f"hf continuous batching: {result.error}", ids))
            else:
                tokens = list(result.generated_tokens)
                out.append(
                    finish_tokens(
                        tokens,
                        list(result.logprobs) if params.logprobs and result.logprobs else None,
                        params,
                        eos_ids,
                        self.decode,
                        ids,
                        length_limited=len(tokens) >= params.max_new_tokens,
                    )
                )
        return out

    def _manager(self, params: SamplingParams) -> Any:
        from transformers.generation.configuration_utils import ContinuousBatchingConfig

        key = (params.greedy, params.temperature, params.top_p, params.top_k, params.logprobs)
        manager = self._managers.get(key)
        if manager is not None and manager.is_running():
            return manager
        self.close()
        config = self._generation_config(params.with_(stop=(), ignore_eos=False), self.end_of_turn_ids(), 0)
        config.pad_token_id = self.tokenizer.pad_token_id
        cb_fields: dict[str, Any] = {
            "return_logprobs": params.logprobs,
            "max_requests_per_batch": self.max_batch_size,
            "seed": params.seed,
        }
        if self.device.type == "cpu":  # size the paged cache explicitly: the default sizes it to host memory
            cb_fields.update(num_blocks=64, page_size=64, max_batch_tokens=2048, use_cuda_graph=False)
            cb_fields["use_async_batching"] = False
        else:  # leave room for a trainer on the same GPU (transformers' default takes 80-90% of free memory)
            cb_fields["max_memory_percent"] = 0.4
        cb_fields.update(self.continuous_config)
        saved, self.model.generation_config = (
            self.model.generation_config,
            GenerationConfig(pad_token_id=config.pad_token_id),
        )
        try:
            manager = self.model.init_continuous_batching(
                generation_config=config, continuous_batching_config=ContinuousBatchingConfig(**cb_fields)
            )
        finally:
            self.model.generation_config = saved
        self._paged_attention = self.model.config._attn_implementation
        manager.start()
        self._managers[key] = manager
        return manager


#: Backends with a continuous-batching manager to stop before the interpreter waits for its threads.
_LIVE_BACKENDS: weakref.WeakSet[HFBackend] = weakref.WeakSet()


def _close_live_backends() -> None:
    for backend in list(_LIVE_BACKENDS):
        backend.close()


# The manager's generation thread is not a daemon: without this, a script that never calls close() hangs
# at exit. threading's own exit hooks run before it joins such threads (atexit runs after: too late).
getattr(threading, "_register_atexit", atexit.register)(_close_live_backends)


def _auto_engine(model: Any) -> str:
    """``fast`` on a GPU for a model it runs, else ``padded`` (docs/llm_stack.md has the measurements)."""
    on_gpu = next(model.parameters()).device.type == "cuda"
    return "fast" if on_gpu and unsupported_reason(model) is None else "padded"


def _set_attention(model: Any, implementation: str | None) -> None:
    """Switch the model's attention implementation (a no-op when it is already the one asked for)."""
    config = model.config
    if implementation is None or config._attn_implementation == implementation:
        return
    try:
        model.set_attn_implementation(implementation)
    except (AttributeError, ValueError):
        config._attn_implementation = implementation


def _stop_manager(manager: Any) -> None:
    try:
        manager.stop(block=True, timeout=5)
    except Exception as exc:  # stopping must never mask the caller's own error
        logger.warning("hf: stopping the continuous batching manager failed: %s", exc)


def context_window_error(prompt_tokens: int, window: int) -> str:
    """The error of a completion whose prompt leaves no room in the model's context window."""
    return (
        f"prompt of {prompt_tokens} tokens does not fit the model's context window of {window} tokens "
        "(no room to generate); use a model with a longer context or a shorter prompt"
    )


def _left_padded(prompts: Sequence[Sequence[int]], pad: int) -> tuple[torch.Tensor, torch.Tensor]:
    """``(input_ids, attention_mask)`` of prompts left-padded to the longest."""
    width = max(len(p) for p in prompts)
    input_ids = torch.full((len(prompts), width), pad, dtype=torch.long)
    attention = torch.zeros((len(prompts), width), dtype=torch.long)
    for row, ids in enumerate(prompts):
        input_ids[row, width - len(ids) :] = torch.tensor(ids, dtype=torch.long)
        attention[row, width - len(ids) :] = 1
    return input_ids, attention


def _dtype(dtype: str | torch.dtype | None, device: torch.device) -> torch.dtype:
    if isinstance(dtype, torch.dtype):
        return dtype
    if dtype is None:
        return torch.bfloat16 if device.type == "cuda" else torch.float32
    try:
        return getattr(torch, dtype)
    except AttributeError:
        raise ValueError(f"unknown dtype {dtype!r}") from None
