"""A loopback (127.0.0.1) server that answers each POST with scripted raw bytes: misbehaving HTTP servers."""

from __future__ import annotations

import json
import socketserver
import threading
import time

_OK_BODY = json.dumps({"result": [[{"document": {"id": "1", "contents": '"T"\ntext'}, "score": 1.0}]]})


def _reply(body: bytes, status: str = "200 OK", headers: bytes = b"") -> bytes:
    head = f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n"
    return head.encode() + headers + b"\r\n" + body


#: Path -> the bytes sent back (``drip`` sends the ``ok`` reply one byte every 0.1 s).
REPLIES: dict[str, bytes] = {
    "ok": _reply(_OK_BODY.encode()),
    "bad_status": b"HTTP/1.1 abc\r\n\r\n",
    "not_http": b"\x00\x01\xffSSH-2.0-not-http\r\n\r\n",
    "huge_header": _reply(b"{}", headers=b"X-Big: " + b"a" * 70_000 + b"\r\n"),
    "many_headers": _reply(b"{}", headers=b"X-A: 1\r\n" * 101),
    "bad_chunked": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n",
    "short_body": b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n{}",
    "deep_json": _reply(b"[" * 200_000 + b"]" * 200_000),
    "nan_score": _reply(_OK_BODY.replace("1.0", "NaN").encode()),
    "redirect": b"HTTP/1.1 302 Found\r\nLocation: /ok\r\nContent-Length: 0\r\n\r\n",
    "drip": _reply(_OK_BODY.encode()),
}


class _Handler(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        self.request.settimeout(5)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = self.request.recv(65536)
            if not chunk:
                return
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        length = next(
            (int(v) for k, _, v in (h.partition(":") for h in lines[1:]) if k.lower() == "content-length"), 0
        )
        while len(body) < length:
            body += self.request.recv(65536)
        path = lines[0].split(" ")[1].strip("/")
        self.server.requests.append(path)
        reply = REPLIES[path]
        try:
            if path == "drip":
                for byte in reply:
                    self.request.sendall(bytes([byte]))
                    time.sleep(0.1)
            else:
                self.request.sendall(reply)
        except OSError:
            pass


class RawServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: list[str] = []
        threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/{path}"

    def stop(self) -> None:
        self.shutdown()
        self.server_close()
