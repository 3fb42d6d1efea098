"""What the server and a session's process say to each other: JSON messages, each behind its length.

Both directions are JSON (never pickle): a session process runs env code on a client's input, and what it
sends back is data the server reads, not objects it rebuilds. Strings travel ASCII-escaped, so text with
lone surrogates (which UTF-8 cannot carry) crosses unchanged.
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


def send(sock: socket.socket, message: Any) -> None:
    """Write one frame on a blocking socket."""
    sock.sendall(encode(message))


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


async def read(reader: asyncio.StreamReader) -> Any:
    """Read one frame from an asyncio stream; FrameError at its end or on a bad length."""
    try:
        (length,) = _LENGTH.unpack(await reader.readexactly(_LENGTH.size))
        if length > MAX_FRAME_BYTES:
            raise FrameError(f"a frame of {length} bytes announced")
        return json.loads(await reader.readexactly(length))
    except asyncio.IncompleteReadError:
        raise FrameError("the peer closed the connection") from None
    except ValueError as error:
        raise FrameError(f"not a JSON frame: {error}") from None
