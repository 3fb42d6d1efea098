"""The ``openai`` backend: any OpenAI-compatible endpoint (sglang, vLLM, a hosted model) over HTTP.

``chat`` posts to ``{base_url}/chat/completions`` (native tool calls are returned in
``Completion.tool_calls``); ``generate`` posts text or token-id prompts to ``{base_url}/completions``.
Requests run concurrently (at most ``max_concurrency`` at once), each retried with exponential backoff
on timeouts, connection errors, 429 and 5xx. A request that fails for good becomes an ``error``
Completion (an outcome for the caller); a wrong key, model or URL (401/403/404) raises ``BackendError``.

The API key comes from the environment (``OPENAI_API_KEY`` unless ``api_key_env`` names another
variable); endpoints on this machine (localhost) may go without one. Logprobs are requested when the
sampling params ask for them; an endpoint that refuses them (HTTP 400 naming logprobs) is asked again
without. Token ids are known only where the server reports them (vLLM's ``return_tokens_as_token_ids``
gives ``token_id:N`` tokens); otherwise ``token_ids`` is empty and the completion is for agents and
simulators, not for token-level training.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import urllib.parse
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from genenv_gym.agents.backends.base import (
    Backend,
    BackendError,
    Completion,
    Messages,
    Prompt,
    SamplingParams,
    error_completion,
    find_stop,
)
from genenv_gym.agents.backends.http import LOCAL_HOSTS, RequestFailed, RetryPolicy, post_json
from genenv_gym.agents.backends.progress import Listener, generation_listener

DEFAULT_BASE_URL = "https://api.openai.com/v1"
#: OpenAI accepts at most this many stop strings; the rest are applied client-side.
MAX_SERVER_STOPS = 4
_TOKEN_ID = re.compile(r"^token_id:(\d+)$")


def normalize_base_url(url: str) -> str:
    """``http://host:port`` -> ``http://host:port/v1``; a URL with a path is kept as given (no trailing /)."""
    parsed = urllib.parse.urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise BackendError(f"openai: base URL must be http(s)://host[:port][/path], got {url!r}")
    path = parsed.path.rstrip("/")
    return urllib.parse.urlunparse(parsed._replace(path=path or "/v1")).rstrip("/")


class OpenAIBackend(Backend):
    """Chat and completions through an OpenAI-compatible HTTP API.

    Args:
        model: the model name the endpoint serves.
        base_url: the URL ``/chat/completions`` is appended to (a bare ``http://host:port`` gets ``/v1``).
        api_key: the key itself (prefer the environment: ``api_key_env``).
        api_key_env: the environment variable holding the key.
        max_concurrency: requests in flight at once.
        timeout: seconds per HTTP request.
        retries: further attempts after a failed one.
        backoff: first backoff delay in seconds (doubled per retry, jittered, capped at 20 s).
        extra_body: fields added to every request (``{"return_tokens_as_token_ids": True}``, ...).
        max_tokens_field: ``max_tokens`` (default) or ``max_completion_tokens`` (newer OpenAI models).
        tokenizer: an optional tokenizer, so ``encode``/``render_chat`` work client-side.
    """

    def __init__(
        self,
        model: str,
        base_url: str = DEFAULT_BASE_URL,
        api_key: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        max_concurrency: int = 8,
        timeout: float = 120.0,
        retries: int = 4,
        backoff: float = 0.5,
        extra_body: Mapping[str, Any] | None = None,
        max_tokens_field: str = "max_tokens",
        tokenizer: Any = None,
    ) -> None:
        if not model:
            raise BackendError("openai: a model name is required (spec 'openai:MODEL@URL')")
        if max_concurrency < 1:
            raise ValueError(f"max_concurrency must be >= 1, got {max_concurrency}")
        self.model_name = model
        self.base_url = normalize_base_url(base_url)
        key = api_key or os.environ.get(api_key_env)
        host = urllib.parse.urlparse(self.base_url).hostname or ""
        if not key and host not in LOCAL_HOSTS:
            raise BackendError(
                f"openai: no API key for {self.base_url}: set the {api_key_env} environment variable "
                f"(or pass api_key_env=NAME to read another variable)"
            )
        self._headers = {"Authorization": f"Bearer {key}"} if key else {}
        self.policy = RetryPolicy(retries=retries, backoff=backoff, timeout=timeout)
        self.max_concurrency = max_concurrency
        self.extra_body = dict(extra_body or {})
        self.max_tokens_field = max_tokens_field
        self.tokenizer = tokenizer
        self._logprobs_supported = True
        self._pool = ThreadPoolExecutor(max_workers=max_concurrency, thread_name_prefix="openai-backend")

    @property
    def token_level(self) -> bool:
        return False

    # ------------------------------------------------------------------------------------------------
    def chat(
        self,
        conversations: Sequence[Messages],
        params: SamplingParams,
        tools: Sequence[Mapping[str, Any]] | None = None,
    ) -> list[list[Completion]]:
        listener = generation_listener()

        def one(messages: Messages) -> list[Completion]:
            body: dict[str, Any] = {"model": self.model_name, "messages": [dict(m) for m in messages]}
            if tools:
                body["tools"] = [{"type": "function", "function": dict(t)} for t in tools]
            return _reported(
                self._sample(f"{self.base_url}/chat/completions", body, params, _chat_choice), listener
            )

        return list(self._pool.map(one, conversations))

    def generate(self, prompts: Sequence[Prompt], params: SamplingParams) -> list[list[Completion]]:
        listener = generation_listener()

        def one(prompt: Prompt) -> list[Completion]:
            body = {"model": self.model_name, "prompt": prompt if isinstance(prompt, str) else list(prompt)}
            return _reported(
                self._sample(f"{self.base_url}/completions", body, params, _text_choice), listener
            )

        return list(self._pool.map(one, prompts))

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

    # ------------------------------------------------------------------------------------------------
    def _sample(self, url: str, body: dict[str, Any], params: SamplingParams, parse: Any) -> list[Completion]:
        """``params.n`` completions of one request (asking again when the server returns fewer)."""
        out: list[Completion] = []
        for _ in range(params.n):  # a server that ignores ``n`` returns one choice per round
            wanted = params.n - len(out)
            try:
                response = self._post(url, {**body, **self._sampling_fields(params, wanted, len(out))})
            except RequestFailed as exc:
                return out + [error_completion(str(exc))] * wanted
            choices = response.get("choices") if isinstance(response, dict) else None
            if not isinstance(choices, list) or not choices:
                return (
                    out
                    + [error_completion(f"{url}: response has no choices: {str(response)[:300]}")] * wanted
                )
            for choice in choices[:wanted]:
                out.append(_apply_stops(parse(choice), params.stop))
            if len(out) >= params.n:
                break
        return out

    def _post(self, url: str, body: dict[str, Any]) -> Any:
        try:
            return post_json(url, body, self._headers, self.policy)
        except RequestFailed as exc:
            if exc.status == 400 and "logprob" in str(exc).lower() and ("logprobs" in body):
                self._logprobs_supported = False
                body = {k: v for k, v in body.items() if k not in ("logprobs", "top_logprobs")}
                return post_json(url, body, self._headers, self.policy)
            raise

    def _sampling_fields(self, params: SamplingParams, n: int, offset: int) -> dict[str, Any]:
        fields: dict[str, Any] = {
            "n": n,
            "temperature": params.temperature,
            "top_p": params.top_p,
            self.max_tokens_field: params.max_new_tokens,
        }
        if params.top_k:
            fields["top_k"] = params.top_k
        if params.stop:
            fields["stop"] = list(params.stop[:MAX_SERVER_STOPS])
        if params.seed is not None:
            fields["seed"] = params.seed + offset
        if params.ignore_eos:
            fields["ignore_eos"] = True
        if params.logprobs and self._logprobs_supported:
            fields["logprobs"] = True
        fields.update(self.extra_body)
        return fields


def _reported(completions: list[Completion], listener: Listener | None) -> list[Completion]:
    """``completions``, after telling ``listener`` that their request finished."""
    if listener is not None:
        listener(requests=1, tokens=sum(len(c.token_ids) for c in completions))
    return completions


def _finish(reason: Any) -> str:
    return "length" if reason == "length" else "stop"


def _chat_choice(choice: Mapping[str, Any]) -> Completion:
    message = choice.get("message") or {}
    content = message.get("content")
    text = content if isinstance(content, str) else ""
    calls = []
    for call in message.get("tool_calls") or []:
        function = call.get("function") if isinstance(call, Mapping) else None
        if not isinstance(function, Mapping):
            continue
        arguments: Any = function.get("arguments", {})
        if isinstance(arguments, str):
            with contextlib.suppress(json.JSONDecodeError):  # else kept raw: the env's parser reports it
                arguments = json.loads(arguments)
        calls.append({"name": str(function.get("name", "")), "arguments": arguments})
    tokens, logprobs = _chat_logprobs(choice.get("logprobs"))
    return Completion(
        text=text,
        token_ids=tokens,
        logprobs=logprobs,
        finish_reason=_finish(choice.get("finish_reason")),
        tool_calls=tuple(calls),
        meta={"finish_reason": choice.get("finish_reason")},
    )


def _chat_logprobs(data: Any) -> tuple[tuple[int, ...], tuple[float, ...] | None]:
    if not isinstance(data, Mapping) or not isinstance(data.get("content"), list):
        return (), None
    entries = [e for e in data["content"] if isinstance(e, Mapping)]
    logprobs = tuple(float(e.get("logprob", 0.0)) for e in entries)
    return _token_ids([str(e.get("token", "")) for e in entries]), logprobs


def _text_choice(choice: Mapping[str, Any]) -> Completion:
    data = choice.get("logprobs")
    tokens: tuple[int, ...] = ()
    logprobs = None
    if isinstance(data, Mapping) and isinstance(data.get("token_logprobs"), list):
        logprobs = tuple(float(x) if x is not None else 0.0 for x in data["token_logprobs"])
        tokens = _token_ids([str(t) for t in data.get("tokens") or []])
    return Completion(
        text=str(choice.get("text") or ""),
        token_ids=tokens,
        logprobs=logprobs,
        finish_reason=_finish(choice.get("finish_reason")),
        meta={"finish_reason": choice.get("finish_reason")},
    )


def _token_ids(tokens: Sequence[str]) -> tuple[int, ...]:
    """Token ids when the server names tokens ``token_id:N`` (vLLM ``return_tokens_as_token_ids``)."""
    ids = []
    for token in tokens:
        match = _TOKEN_ID.match(token)
        if match is None:
            return ()
        ids.append(int(match.group(1)))
    return tuple(ids)


def _apply_stops(completion: Completion, stops: Sequence[str]) -> Completion:
    """Apply the stop strings the server was not sent (beyond its limit) to the text."""
    extra = stops[MAX_SERVER_STOPS:]
    found = find_stop(completion.text, extra) if extra else None
    if found is None:
        return completion
    index, stop = found
    return Completion(
        text=completion.text[:index],
        token_ids=(),
        logprobs=None,
        finish_reason="stop",
        tool_calls=completion.tool_calls,
        stop_string=stop,
        meta=completion.meta,
    )
