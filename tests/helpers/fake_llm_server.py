"""A loopback HTTP server that speaks the OpenAI-compatible and sglang-native routes, for backend tests.

Routes: ``POST /v1/chat/completions``, ``POST /v1/completions``, ``POST /generate`` (sglang native),
``GET /get_model_info``, ``POST /update_weights_from_disk``. Replies are deterministic functions of the
request; tests script failures (``fail`` statuses consumed one per request), delays, and replace any
route's handler (a handler may return ``(status, body)``). Every request is recorded.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

EOS = 2


class FakeLLMServer:
    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, Any], dict[str, str]]] = []
        self.fail: list[int | tuple[int, dict[str, str]]] = []
        self.delay = 0.0
        self.in_flight = 0
        self.max_in_flight = 0
        self.handlers: dict[str, Callable[[dict[str, Any]], Any]] = {
            "/v1/chat/completions": self.chat,
            "/v1/completions": self.completions,
            "/generate": self.generate,
            "/update_weights_from_disk": self.update_weights,
        }
        self.model_info: dict[str, Any] = {"model_path": "fake-model"}
        self.loaded: list[str] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                if self.path == "/get_model_info":
                    self._send(200, server.model_info)
                else:
                    self._send(404, {"error": {"message": "no such route"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    server.requests.append((self.path, body, dict(self.headers)))
                    failure = server.fail.pop(0) if server.fail else None
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    if server.delay:
                        time.sleep(server.delay)
                    if failure is not None:
                        status, headers = failure if isinstance(failure, tuple) else (failure, {})
                        self._send(status, {"error": {"message": f"scripted failure {status}"}}, headers)
                        return
                    handler = server.handlers.get(self.path)
                    if handler is None:
                        self._send(404, {"error": {"message": f"no route {self.path}"}})
                        return
                    result = handler(body)
                    if isinstance(result, tuple):
                        self._send(*result)
                    elif isinstance(result, bytes):
                        self._send_raw(200, result)
                    else:
                        self._send(200, result)
                finally:
                    with server._lock:
                        server.in_flight -= 1

            def _send(self, status: int, data: Any, headers: dict[str, str] | None = None) -> None:
                self._send_raw(status, json.dumps(data).encode(), headers)

            def _send_raw(self, status: int, raw: bytes, headers: dict[str, str] | None = None) -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(raw)))
                    for key, value in (headers or {}).items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(raw)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout tests)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    # Default route handlers -------------------------------------------------------------------------
    def chat(self, body: dict[str, Any]) -> dict[str, Any]:
        last = body["messages"][-1]["content"]
        choices = []
        for i in range(int(body.get("n", 1))):
            text = f"echo {i}: {last}"
            choice: dict[str, Any] = {
                "index": i,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
            }
            if body.get("logprobs"):
                choice["logprobs"] = {"content": [{"token": w, "logprob": -0.5} for w in text.split()]}
            choices.append(choice)
        return {"id": "chatcmpl-1", "object": "chat.completion", "model": body["model"], "choices": choices}

    def completions(self, body: dict[str, Any]) -> dict[str, Any]:
        prompt = body["prompt"]
        text = f" after {len(prompt)}"
        choices = []
        for i in range(int(body.get("n", 1))):
            choice: dict[str, Any] = {"index": i, "text": text, "finish_reason": "length"}
            if body.get("logprobs"):
                choice["logprobs"] = {"tokens": ["token_id:7", "token_id:8"], "token_logprobs": [-0.1, -0.2]}
            choices.append(choice)
        return {"choices": choices}

    def generate(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        return sglang_outputs(body)

    def update_weights(self, body: dict[str, Any]) -> dict[str, Any]:
        path = body["model_path"]
        if "missing" in path:
            return {"success": False, "message": f"no checkpoint at {path}"}
        self.loaded.append(path)
        return {"success": True, "message": "Succeeded to update model weights."}


def sglang_outputs(body: dict[str, Any]) -> list[dict[str, Any]]:
    """sglang's answer: the prompt's last three ids reversed, then EOS (cut at max_new_tokens)."""
    outputs = []
    for ids, params in zip(body["input_ids"], body["sampling_params"], strict=True):
        tokens = [*reversed(ids[-3:]), EOS]
        limit = params["max_new_tokens"]
        finish = (
            {"type": "stop", "matched": EOS} if len(tokens) <= limit else {"type": "length", "length": limit}
        )
        tokens = tokens[:limit]
        logprobs = [[-0.25 * (k + 1), t, None] for k, t in enumerate(tokens)]
        outputs.append(
            {
                "text": "",
                "output_ids": tokens,
                "meta_info": {
                    "finish_reason": finish,
                    "prompt_tokens": len(ids),
                    "completion_tokens": len(tokens),
                    "output_token_logprobs": logprobs if body.get("return_logprob") else None,
                },
            }
        )
    return outputs
