"""Running the app: in the foreground (``genenv serve``) or on a background thread (tests, benchmarks)."""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

from genenv_gym.serve.app import ServeConfig, create_app


def uvicorn_server(
    config: ServeConfig,
    host: str = "127.0.0.1",
    port: int = 8000,
    log_level: str = "info",
    access_log: bool = False,
):
    """A ``uvicorn.Server`` for ``config``: WebSocket messages bounded like bodies, the connection limits
    of serve/connections.py, ``X-Forwarded-For`` believed only from ``config.forwarded_allow_ips``, 5 s to
    shut down, no line per request unless ``access_log``."""
    import uvicorn

    from genenv_gym.serve.connections import guarded_protocol

    limits = config.limits
    app = create_app(config)
    return uvicorn.Server(
        uvicorn.Config(
            app,
            host=host,
            port=port,
            log_level=log_level,
            access_log=access_log,
            http=guarded_protocol(
                limits.keep_alive_s,
                limits.header_timeout_s,
                limits.max_connections_per_client,
                config.identity.network,
            ),
            timeout_keep_alive=int(max(1, limits.keep_alive_s)),
            ws_max_size=limits.max_body_bytes,
            proxy_headers=config.forwarded_allow_ips is not None,
            forwarded_allow_ips=config.forwarded_allow_ips or "",
            timeout_graceful_shutdown=5,
            lifespan="on",
        )
    )


class BackgroundServer:
    """The server on a free port of 127.0.0.1, on a thread; ``with BackgroundServer(config) as url: ...``.

    Leaving the block shuts it down gracefully (every session's env closed) within ``stop_timeout_s``.
    """

    def __init__(
        self, config: ServeConfig, stop_timeout_s: float = 20.0, start_timeout_s: float = 30.0
    ) -> None:
        self.config = config
        self.stop_timeout_s = stop_timeout_s
        self.start_timeout_s = start_timeout_s
        self.server: Any = None
        self.thread: threading.Thread | None = None
        self.url = ""

    def __enter__(self) -> str:
        # proto=IPPROTO_TCP: asyncio sets TCP_NODELAY on accepted connections only for such sockets (without
        # it, every keep-alive response waits ~40 ms for a delayed ACK).
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        self.server = uvicorn_server(self.config, port=port, log_level="warning")
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]}, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + self.start_timeout_s
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the background server did not start")
            time.sleep(0.01)
        self.url = f"http://127.0.0.1:{port}"
        return self.url

    @property
    def manager(self):
        """The app's SessionManager (tests read its session count)."""
        return self.server.config.app.state.manager

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(self.stop_timeout_s)
        if self.thread.is_alive():
            raise RuntimeError(f"the background server did not stop within {self.stop_timeout_s} s")
