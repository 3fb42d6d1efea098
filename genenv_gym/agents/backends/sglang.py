"""The ``sglang`` backends: the offline ``sglang.Engine`` and a running sglang server's native routes.

Both send token-id prompts with per-request sampling params and ``return_logprob=True``, and read the
sampled tokens and their logprobs from ``meta_info.output_token_logprobs`` (``[logprob, token_id, text]``
triples; sglang's default logprobs are temperature-scaled, before top-k/top-p: the convention of
``backends.base``). Completions are cut and decoded client-side with the model's tokenizer, so stop
strings and end-of-turn tokens are handled exactly as by the ``hf`` backend.

Loading new weights after a training step:

- engine: ``update_weights(path)`` -> ``Engine.update_weights_from_disk``; ``update_weights(tensors)``
  (a state dict or ``(name, tensor)`` pairs) -> ``Engine.update_weights_from_tensor``.
- server: ``update_weights(path)`` -> ``POST /update_weights_from_disk {"model_path": path}``; tensors go
  through the offline engine or a checkpoint on disk (the server route for tensors needs sglang's own
  same-host serializer).

sglang is an optional extra (``genenv-gym[sglang]``) imported only by the engine backend; the server
backend needs no sglang install (transformers only to load the tokenizer, unless one is passed in).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from genenv_gym.agents.backends.base import (
    Backend,
    BackendError,
    Completion,
    Prompt,
    SamplingParams,
    error_completion,
    finish_tokens,
)
from genenv_gym.agents.backends.http import RequestFailed, RetryPolicy, get_json, post_json
from genenv_gym.agents.backends.progress import generation_listener


def sglang_sampling_params(params: SamplingParams, seed_offset: int = 0) -> dict[str, Any]:
    """The sglang ``sampling_params`` of one request (stop strings are applied client-side)."""
    fields: dict[str, Any] = {
        "max_new_tokens": params.max_new_tokens,
        "temperature": params.temperature,
        "top_p": params.top_p,
        "top_k": params.top_k if params.top_k else -1,
        "ignore_eos": params.ignore_eos,
        "skip_special_tokens": True,
    }
    if params.stop:
        fields["stop"] = list(params.stop)
        fields["no_stop_trim"] = True  # keep the tokens; finish_tokens cuts the text itself
    if params.seed is not None:
        fields["sampling_seed"] = params.seed + seed_offset
    return fields


def parse_sglang_output(
    output: Any, prompt_ids: Sequence[int], params: SamplingParams, eos_ids: Sequence[int], decode: Any
) -> Completion:
    """A Completion from one element of sglang's ``generate`` response."""
    if not isinstance(output, Mapping):
        return error_completion(f"sglang: malformed output {str(output)[:200]}", prompt_ids)
    meta = output.get("meta_info")
    meta = meta if isinstance(meta, Mapping) else {}
    finish = meta.get("finish_reason")
    finish_type = finish.get("type") if isinstance(finish, Mapping) else finish
    if finish_type == "abort":
        message = finish.get("message", "aborted") if isinstance(finish, Mapping) else "aborted"
        return error_completion(f"sglang: request aborted: {message}", prompt_ids)
    triples = meta.get("output_token_logprobs")
    tokens: list[int]
    logprobs: list[float] | None
    try:
        if isinstance(triples, list) and triples:
            tokens = [int(t[1]) for t in triples]
            logprobs = [float(t[0]) if t[0] is not None else 0.0 for t in triples]
        else:
            tokens = [int(t) for t in output.get("output_ids") or []]
            logprobs = None
    except (TypeError, ValueError, IndexError) as exc:
        return error_completion(f"sglang: malformed output_token_logprobs: {exc}", prompt_ids)
    completion = finish_tokens(
        tokens,
        logprobs if params.logprobs else None,
        params,
        eos_ids,
        decode,
        prompt_ids,
        length_limited=finish_type == "length",
    )
    return completion


class _SGLangBase(Backend):
    def _requests(
        self, prompts: Sequence[Prompt], params: SamplingParams
    ) -> list[tuple[int, list[int], dict]]:
        rows = []
        for i, prompt in enumerate(prompts):
            ids = self._prompt_ids(prompt)
            for _ in range(params.n):
                rows.append((i, ids, sglang_sampling_params(params, len(rows))))
        return rows

    def _collect(
        self, prompts: Sequence[Prompt], rows: list[tuple[int, list[int], dict]], outputs: list[Completion]
    ) -> list[list[Completion]]:
        results: list[list[Completion]] = [[] for _ in prompts]
        for (i, _, _), completion in zip(rows, outputs, strict=True):
            results[i].append(completion)
        return results


class SGLangEngineBackend(_SGLangBase):
    """The offline ``sglang.Engine`` in this process.

    Args:
        model_path: the checkpoint directory or hub id.
        tokenizer: a tokenizer object or path (default: ``model_path``).
        engine: an already built engine (anything with sglang's ``generate`` /
            ``update_weights_from_disk`` / ``update_weights_from_tensor`` / ``shutdown``).
        engine_kwargs: ``sglang.Engine`` server arguments (``tp_size``, ``mem_fraction_static``, ...).
    """

    def __init__(
        self,
        model_path: str,
        tokenizer: Any = None,
        engine: Any = None,
        model_name: str | None = None,
        **engine_kwargs: Any,
    ) -> None:
        self.model_name = model_name or model_path
        if engine is None:
            try:
                import sglang
            except ImportError as exc:
                raise BackendError(
                    "the sglang backend needs sglang: pip install 'genenv-gym[sglang]' (a CUDA machine), or "
                    "use 'sglang-server:URL' against a running server, or the 'hf' backend"
                ) from exc
            engine = sglang.Engine(model_path=model_path, **engine_kwargs)
        self.engine = engine
        self.tokenizer = _load_tokenizer(tokenizer if tokenizer is not None else model_path)

    def generate(self, prompts: Sequence[Prompt], params: SamplingParams) -> list[list[Completion]]:
        rows = self._requests(prompts, params)
        if not rows:
            return [[] for _ in prompts]
        try:
            outputs = self.engine.generate(
                input_ids=[ids for _, ids, _ in rows],
                sampling_params=[sp for _, _, sp in rows],
                return_logprob=params.logprobs,
            )
        except (RuntimeError, ValueError) as exc:
            return self._collect(
                prompts, rows, [error_completion(f"sglang engine: {exc}", ids) for _, ids, _ in rows]
            )
        if isinstance(outputs, Mapping):
            outputs = [outputs]
        eos = self.end_of_turn_ids()
        parsed = [
            parse_sglang_output(out, ids, params, eos, self.decode)
            for (_, ids, _), out in zip(rows, outputs, strict=False)
        ]
        parsed += [
            error_completion("sglang engine returned too few outputs", ids)
            for _, ids, _ in rows[len(parsed) :]
        ]
        return self._collect(prompts, rows, parsed)

    def update_weights(self, source: Any) -> None:
        if isinstance(source, str):
            result = self.engine.update_weights_from_disk(source)
        else:
            pairs = list(source.items()) if isinstance(source, Mapping) else list(source)
            result = self.engine.update_weights_from_tensor(pairs)
        _check_update(result, "sglang engine")

    def close(self) -> None:
        shutdown = getattr(self.engine, "shutdown", None)
        if shutdown is not None:
            shutdown()


class SGLangServerBackend(_SGLangBase):
    """A running sglang server, through its native ``/generate`` route (token ids in, token ids out).

    Args:
        url: ``http://host:port`` of the server (or of an sglang router in front of several).
        tokenizer: a tokenizer object or path; by default the server's ``/get_model_info`` names it.
        max_batch_size: requests per ``/generate`` call.
        max_concurrency: ``/generate`` calls in flight at once.
        timeout, retries, backoff: per HTTP call (generation of a large batch can take minutes).
        api_key_env: environment variable with the server's ``--api-key``, if it has one.
    """

    def __init__(
        self,
        url: str,
        tokenizer: Any = None,
        model_name: str | None = None,
        max_batch_size: int = 256,
        max_concurrency: int = 4,
        timeout: float = 600.0,
        retries: int = 3,
        backoff: float = 1.0,
        api_key_env: str = "SGLANG_API_KEY",
    ) -> None:
        import os

        self.url = url.rstrip("/")
        if not self.url.startswith(("http://", "https://")):
            raise BackendError(f"sglang-server: URL must start with http:// or https://, got {url!r}")
        key = os.environ.get(api_key_env)
        self._headers = {"Authorization": f"Bearer {key}"} if key else {}
        self.policy = RetryPolicy(retries=retries, backoff=backoff, timeout=timeout)
        self.max_batch_size = max_batch_size
        self._pool = ThreadPoolExecutor(max_workers=max_concurrency, thread_name_prefix="sglang-server")
        info: Mapping[str, Any] = {}
        if tokenizer is None or model_name is None:
            try:
                info = get_json(f"{self.url}/get_model_info", self._headers)
            except RequestFailed as exc:
                if tokenizer is None:
                    raise BackendError(
                        f"sglang-server: cannot reach {self.url} to find its tokenizer: {exc}"
                    ) from exc
        self.model_name = model_name or str(info.get("model_path") or self.url)
        if tokenizer is None:
            tokenizer = info.get("tokenizer_path") or info.get("model_path")
            if not tokenizer:
                raise BackendError(
                    f"sglang-server: {self.url}/get_model_info names no tokenizer; pass tokenizer="
                )
        self.tokenizer = _load_tokenizer(tokenizer)

    def generate(self, prompts: Sequence[Prompt], params: SamplingParams) -> list[list[Completion]]:
        rows = self._requests(prompts, params)
        chunks = [rows[i : i + self.max_batch_size] for i in range(0, len(rows), self.max_batch_size)]
        eos = self.end_of_turn_ids()
        listener = generation_listener()

        def run(chunk: list[tuple[int, list[int], dict]]) -> list[Completion]:
            completions = post(chunk)
            if listener is not None:
                listener(requests=len(chunk), tokens=sum(len(c.token_ids) for c in completions))
            return completions

        def post(chunk: list[tuple[int, list[int], dict]]) -> list[Completion]:
            payload = {
                "input_ids": [ids for _, ids, _ in chunk],
                "sampling_params": [sp for _, _, sp in chunk],
                "return_logprob": params.logprobs,
            }
            try:
                response = post_json(f"{self.url}/generate", payload, self._headers, self.policy)
            except RequestFailed as exc:
                return [error_completion(f"sglang-server: {exc}", ids) for _, ids, _ in chunk]
            if isinstance(response, Mapping):
                response = [response]
            if not isinstance(response, list):
                return [
                    error_completion(f"sglang-server: malformed response {str(response)[:200]}", ids)
                    for _, ids, _ in chunk
                ]
            parsed = [
                parse_sglang_output(out, ids, params, eos, self.decode)
                for (_, ids, _), out in zip(chunk, response, strict=False)
            ]
            missing = chunk[len(parsed) :]
            return parsed + [
                error_completion("sglang-server returned too few outputs", ids) for _, ids, _ in missing
            ]

        outputs = [c for part in self._pool.map(run, chunks) for c in part]
        return self._collect(prompts, rows, outputs)

    def update_weights(self, source: Any) -> None:
        if not isinstance(source, str):
            raise BackendError(
                "sglang-server: only checkpoint directories can be loaded over HTTP; save the weights "
                "(model.save_pretrained(path)) and call update_weights(path), or use the offline "
                "'sglang' engine"
            )
        try:
            result = post_json(
                f"{self.url}/update_weights_from_disk", {"model_path": source}, self._headers, self.policy
            )
        except RequestFailed as exc:
            raise BackendError(f"sglang-server: loading weights from {source!r} failed: {exc}") from exc
        _check_update(result, "sglang-server")

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


def _check_update(result: Any, who: str) -> None:
    """sglang answers a weight update with ``(success, message)`` (engine) or ``{"success", "message"}``."""
    if isinstance(result, Mapping):
        success, message = result.get("success"), result.get("message", "")
    elif isinstance(result, (tuple, list)) and result:
        success, message = result[0], result[1] if len(result) > 1 else ""
    else:
        success, message = bool(result) if result is not None else True, ""
    if not success:
        raise BackendError(f"{who}: weight update failed: {message}")


def _load_tokenizer(tokenizer: Any) -> Any:
    if not isinstance(tokenizer, str):
        return tokenizer
    try:
        from transformers import AutoTokenizer
    except ImportError as exc:
        raise BackendError("loading a tokenizer needs transformers: pip install 'genenv-gym[train]'") from exc
    return AutoTokenizer.from_pretrained(tokenizer)
