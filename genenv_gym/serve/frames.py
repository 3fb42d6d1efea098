"""What the server and a session's process say to each other, each message behind its length.

Requests (server to process) are JSON, strings ASCII-escaped (text with lone surrogates crosses
unchanged). Replies (process to server) are a kind byte and a body: ``O`` and the result as the JSON text
the client gets (the server forwards it without reading it), or ``E`` and a JSON error. While it works on a
request, a process that joined a curriculum the server hosts may send ``C`` and a JSON call of it
(serve/session_curriculum.py); the server answers that with a request-style frame and goes on waiting for
the reply. Nothing is ever pickled: a session's process runs env code on a client's input, and what it
sends back is data, not objects the server rebuilds.
"""

from __future__ import annotations

import asyncio
import json
import socket
import struct
from typing import Any

#: The largest message either side accepts (a larger length means a broken peer).
MAX_FRAME_BYTES = 256 * 1024 * 1024
_LENGTH = struct.Struct(">I")


class FrameError(ConnectionError):
    """The peer closed the connection or sent something that is not a frame."""


def encode(message: Any) -> bytes:
    """``message`` as one frame: its length, then its JSON (ASCII)."""
    data = json.dumps(message, separators=(",", ":")).encode("ascii")
    if len(data) > MAX_FRAME_BYTES:
        raise ValueError(f"a message of {len(data)} bytes is larger than {MAX_FRAME_BYTES}")
    return _LENGTH.pack(len(data)) + data


#: The kinds of a reply, and of a curriculum call a process makes before its reply.
OK, ERROR, CALL = b"O", b"E", b"C"


def encode_reply(kind: bytes, body: bytes) -> bytes:
    """A reply frame: its length, its kind, its body."""
    if len(body) + 1 > MAX_FRAME_BYTES:
        raise ValueError(f"a reply of {len(body)} bytes is larger than {MAX_FRAME_BYTES}")
    return _LENGTH.pack(len(body) + 1) + kind + body


def receive(sock: socket.socket) -> Any:
    """Read one frame from a blocking socket; FrameError at the end of the connection."""
    header = _read_exactly(sock, _LENGTH.size)
    (length,) = _LENGTH.unpack(header)
    if length > MAX_FRAME_BYTES:
        raise FrameError(f"a frame of {length} bytes announced")
    return json.loads(_read_exactly(sock, length))


def _read_exactly(sock: socket.socket, size: int) -> bytes:
    chunks, left = [], size
    while left:
        chunk = sock.recv(min(left, 1 << 20))
        if not chunk:
            raise FrameError("the peer closed the connection")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


async def read_reply(reader: asyncio.StreamReader) -> tuple[bytes, bytes]:
    """Read one reply frame from an asyncio stream: (kind, body); FrameError at its end or when broken."""
    try:
        (length,) = _LENGTH.unpack(await reader.readexactly(_LENGTH.size))
        if not 1 <= length <= MAX_FRAME_BYTES:
            raise FrameError(f"a frame of {length} bytes announced")
        frame = await reader.readexactly(length)
    except asyncio.IncompleteReadError:
        raise FrameError("the peer closed the connection") from None
    kind, body = frame[:1], frame[1:]
    if kind not in (OK, ERROR, CALL):
        raise FrameError(f"a reply of unknown kind {kind!r}")
    return kind, body
