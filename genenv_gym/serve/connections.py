"""Connection limits uvicorn lacks: deadlines for an idle connection and for a request's headers, and a
cap on connections per client.

uvicorn closes an idle keep-alive connection after ``timeout_keep_alive`` once it has answered a request,
but a connection that never sends anything, or drips its headers a byte at a time, stays open as long as
the client likes (its keep-alive timer stops at the first byte). ``GuardedH11Protocol`` closes a
connection that sends nothing for ``idle_timeout`` (from its opening or from the end of its last
response), gives a request's headers ``header_timeout`` from their first byte, and closes at once any
connection beyond ``per_client`` open from one client (its address's network, serve/identity.py). Bodies
have their own deadline
(``body_limit.BodyLimit``), WebSocket sessions their idle timeout.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from typing import ClassVar

from uvicorn.protocols.http.h11_impl import H11Protocol


def guarded_protocol(
    idle_timeout_s: float,
    header_timeout_s: float,
    max_per_client: int,
    network: Callable[[str | None], str] | None = None,
) -> type[H11Protocol]:
    """An ``H11Protocol`` class with these limits (uvicorn's ``http=`` setting); ``network`` names the
    client a peer address counts for (``ClientIdentity.network``: its /24 or /64; default the address)."""

    class Guarded(GuardedH11Protocol):
        idle_timeout = idle_timeout_s
        header_timeout = header_timeout_s
        per_client = max_per_client
        open_per_client: ClassVar[Counter[str]] = Counter()
        client_of = staticmethod(network or _address)

    return Guarded


def _address(address: str | None) -> str:
    return address or "unknown"


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with idle and header deadlines and a cap on connections per client (its
    address's network)."""

    client_of = staticmethod(_address)

    idle_timeout: ClassVar[float] = 30.0
    header_timeout: ClassVar[float] = 10.0
    per_client: ClassVar[int] = 256
    open_per_client: ClassVar[Counter[str]] = Counter()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._deadline: asyncio.TimerHandle | None = None
        self._waiting_for_headers = False
        self._counted = True
        self._peer = self.client_of(self.client[0] if self.client else None)
        self.open_per_client[self._peer] += 1
        if self.open_per_client[self._peer] > self.per_client:
            transport.close()
            return
        self._arm(self.idle_timeout, headers=False)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._uncount()
        super().connection_lost(exc)

    def _uncount(self) -> None:
        if self._counted:
            self._counted = False
            self.open_per_client[self._peer] -= 1
            if self.open_per_client[self._peer] <= 0:
                del self.open_per_client[self._peer]

    def data_received(self, data: bytes) -> None:
        if self._deadline is not None and not self._waiting_for_headers:
            self._arm(self.header_timeout, headers=True)  # the first byte of a request
        super().data_received(data)

    def handle_events(self) -> None:
        cycle = self.cycle
        super().handle_events()
        upgraded = self.transport.get_protocol()
        if self.cycle is not cycle or upgraded is not self:
            self._disarm()  # the headers are in (a request began, or the connection became a WebSocket)
        if upgraded is not self and not getattr(upgraded, "_genenv_counted", False):
            # a WebSocket now owns the connection: it stays counted until the WebSocket's end
            lost = upgraded.connection_lost

            def connection_lost(exc: Exception | None) -> None:
                self._uncount()
                lost(exc)

            upgraded.connection_lost = connection_lost
            upgraded._genenv_counted = True

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and (self.cycle is None or self.cycle.response_complete):
            self._arm(self.idle_timeout, headers=False)

    def _arm(self, seconds: float, headers: bool) -> None:
        self._disarm()
        self._waiting_for_headers = headers
        self._deadline = self.loop.call_later(seconds, self._expired)

    def _disarm(self) -> None:
        if getattr(self, "_deadline", None) is not None:
            self._deadline.cancel()
            self._deadline = None
        self._waiting_for_headers = False

    def _expired(self) -> None:
        self._deadline = None
        if self.cycle is None or self.cycle.response_complete:
            self.transport.close()
