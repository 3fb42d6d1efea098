"""Search tools for the Search-R1 loop: BM25 over a JSONL corpus (bm25s), a Search-R1 HTTP server, or none.

Every retriever returns, per query, a list of Search-R1 result items ``{"document": {"id", "contents"},
"score"}`` (``contents`` is ``"Title"\\ntext`` as in the wiki-18 corpus); ``format_passages`` renders
them exactly as Search-R1's ``_passages2string`` does. Failures raise ``RetrievalError`` with a message
fit to show the agent; the episode turns it into an outcome.
"""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import json
import math
import socket
import threading
import time
import urllib.parse
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from genenv_gym.suggest import unknown_choice

RETRIEVERS = ("bm25", "http", "none")
#: bm25s's English stop-word list and token pattern, used for both the corpus and the queries.
_STOPWORDS = "english"
#: Longest query text handed to a retriever (characters); longer queries are cut, never refused.
MAX_QUERY_CHARS = 2000


class RetrievalError(RuntimeError):
    """The search tool could not answer (server down, timed out, malformed reply, unreadable corpus)."""


class Retriever(Protocol):
    """Anything with ``search(query, topk)`` returning Search-R1 result items."""

    def search(self, query: str, topk: int) -> list[dict[str, Any]]: ...


def format_passages(results: Sequence[Mapping[str, Any]]) -> str:
    """``Doc i(Title: <first line>) <remaining lines>\\n`` per result, as Search-R1 formats them."""
    out = []
    for index, item in enumerate(results):
        contents = str(item["document"]["contents"])
        lines = contents.split("\n")
        out.append(f"Doc {index + 1}(Title: {lines[0]}) {chr(10).join(lines[1:])}\n")
    return "".join(out)


class NoRetriever:
    """Closed-book: every search returns no passages."""

    def search(self, query: str, topk: int) -> list[dict[str, Any]]:
        return []


def _bm25s():
    """The bm25s module, or an ImportError that says how to install it."""
    try:
        import bm25s
    except ImportError as exc:
        raise ImportError(
            "the bm25 retriever and GenEnv-Sim-Bamboogle-v0 need bm25s: pip install 'genenv-gym[bamboogle]'"
        ) from exc
    return bm25s


def _tokenize(texts: list[str]) -> list[list[str]]:
    bm25s = _bm25s()
    return bm25s.tokenize(texts, stopwords=_STOPWORDS, return_ids=False, show_progress=False)


class BM25Retriever:
    """BM25 (bm25s, default k1/b) over a JSONL corpus of ``{"id", "contents"}`` lines.

    The index is built on first use and cached in ``<corpus>.bm25s/`` next to the corpus (rebuilt when
    the corpus's size or modification time changes; kept in memory only when that folder is not
    writable). Passages are read from the corpus by byte offset, so the corpus is never held in memory.
    Results are the top-k documents with a positive score, ties broken by corpus order.
    """

    def __init__(self, corpus_path: str | Path, cache: bool = True) -> None:
        self.corpus_path = Path(corpus_path).expanduser()
        if not self.corpus_path.is_file():
            raise FileNotFoundError(
                f"BM25 corpus not found: {self.corpus_path}. Give corpus_path= a JSONL file of "
                '{"id", "contents": "\\"Title\\"\\ntext"} lines (Search-R1\'s wiki-18.jsonl format).'
            )
        self.index_dir = self.corpus_path.with_name(self.corpus_path.name + ".bm25s")
        self._offsets: np.ndarray
        self._documents: list[dict[str, Any]] | None = None
        self._load_or_build(cache)

    def _fingerprint(self) -> str:
        stat = self.corpus_path.stat()
        return hashlib.sha1(f"{stat.st_size}:{stat.st_mtime_ns}:{_STOPWORDS}".encode()).hexdigest()

    def _scan(self) -> tuple[list[str], np.ndarray]:
        texts, offsets, position = [], [], 0
        with self.corpus_path.open("rb") as handle:
            for number, raw in enumerate(handle, 1):
                if raw.strip():
                    try:
                        record = json.loads(raw)
                        texts.append(str(record["contents"]))
                    except (ValueError, KeyError, TypeError) as exc:
                        raise ValueError(
                            f"{self.corpus_path}:{number}: not a corpus line with a 'contents' field ({exc})"
                        ) from exc
                    offsets.append(position)
                position += len(raw)
        return texts, np.asarray(offsets, dtype=np.int64)

    def _load_or_build(self, cache: bool) -> None:
        bm25s = _bm25s()
        meta_path = self.index_dir / "genenv_meta.json"
        fingerprint = self._fingerprint()
        if cache and meta_path.is_file():
            try:
                meta = json.loads(meta_path.read_text())
                if meta.get("fingerprint") == fingerprint:
                    self.model = bm25s.BM25.load(str(self.index_dir), show_progress=False)
                    self._offsets = np.load(self.index_dir / "offsets.npy")
                    return
            except (OSError, ValueError):
                pass  # a damaged cache is rebuilt below
        texts, self._offsets = self._scan()
        self.model = bm25s.BM25()
        self.model.index(_tokenize(texts), show_progress=False)
        if cache:
            try:
                self.index_dir.mkdir(exist_ok=True)
                self.model.save(str(self.index_dir), show_progress=False)
                np.save(self.index_dir / "offsets.npy", self._offsets)
                meta_path.write_text(json.dumps({"fingerprint": fingerprint, "documents": len(texts)}))
            except OSError:
                pass  # read-only location: the in-memory index still serves

    @classmethod
    def from_documents(cls, documents: Sequence[Mapping[str, Any]]) -> BM25Retriever:
        """An in-memory index over ``{"id", "contents"}`` documents (no file, no cache)."""
        self = cls.__new__(cls)
        self._documents = [{"id": str(d["id"]), "contents": str(d["contents"])} for d in documents]
        self._offsets = np.arange(len(self._documents), dtype=np.int64)
        self.model = _bm25s().BM25()
        self.model.index(_tokenize([d["contents"] for d in self._documents]), show_progress=False)
        return self

    def __len__(self) -> int:
        return len(self._offsets)

    def _document(self, index: int) -> dict[str, Any]:
        if self._documents is not None:
            return dict(self._documents[index])
        with self.corpus_path.open("rb") as handle:
            handle.seek(int(self._offsets[index]))
            record = json.loads(handle.readline())
        return {"id": str(record.get("id", index)), "contents": str(record["contents"])}

    def search(self, query: str, topk: int) -> list[dict[str, Any]]:
        tokens = [t for t in _tokenize([query[:MAX_QUERY_CHARS]])[0] if t in self.model.vocab_dict]
        if not tokens or len(self) == 0 or topk <= 0:
            return []
        scores = np.asarray(self.model.get_scores(tokens), dtype=np.float64)
        k = min(topk, len(scores))
        candidates = np.argpartition(-scores, k - 1)[:k] if k < len(scores) else np.arange(len(scores))
        threshold = scores[candidates].min()
        tied = np.flatnonzero(scores >= threshold)  # every document that could enter the top k
        order = tied[np.lexsort((tied, -scores[tied]))][:k]
        return [
            {"document": self._document(int(i)), "score": float(scores[i])} for i in order if scores[i] > 0
        ]


class HTTPRetriever:
    """A Search-R1-compatible retrieval server: ``POST {url}`` with ``{"queries", "topk", "return_scores"}``.

    Each request must be answered in full within ``timeout`` seconds (connection, headers and body
    together: a server that drips its reply is cut off at the deadline), and is retried ``retries`` times
    (with a short back-off) on connection errors, timeouts, malformed HTTP and 5xx replies; so one search
    takes at most about ``(retries + 1) * timeout`` seconds plus the back-offs. A redirect is refused, never
    followed. A reply that is not ``{"result": [[...]]}`` with ``document.contents`` strings and finite (or
    absent) scores is an error, never trusted.
    """

    #: Largest reply body read (bytes); a longer reply is an error.
    MAX_REPLY_BYTES = 50_000_000

    def __init__(self, url: str, timeout: float = 10.0, retries: int = 2, backoff: float = 0.5) -> None:
        if not url.startswith(("http://", "https://")):
            raise ValueError(
                f"retriever_url must be an http(s) URL such as http://127.0.0.1:8000/retrieve, got {url!r}"
            )
        if timeout <= 0 or retries < 0:
            raise ValueError("timeout must be > 0 and retries >= 0")
        self.url, self.timeout, self.retries, self.backoff = url, timeout, retries, backoff
        parts = urllib.parse.urlsplit(url)
        self._https = parts.scheme == "https"
        self._host, self._port = parts.hostname or "", parts.port
        self._path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")

    def _exchange(self, data: bytes) -> tuple[int, bytes]:
        """One POST: the reply's status and body, all within ``timeout`` seconds (else TimeoutError)."""
        kind = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
        connection = kind(self._host, self._port, timeout=self.timeout)
        expired = threading.Event()

        def cut_off() -> None:  # wakes a blocked read: the reply ends at the deadline
            expired.set()
            with contextlib.suppress(OSError, AttributeError):
                connection.sock.shutdown(socket.SHUT_RDWR)

        watchdog = threading.Timer(self.timeout, cut_off)
        watchdog.daemon = True
        watchdog.start()
        try:
            connection.request("POST", self._path, data, {"Content-Type": "application/json"})
            reply = connection.getresponse()
            body = reply.read(self.MAX_REPLY_BYTES + 1)
            if reply.length:  # read(amount) returns a body cut short by the server without complaint
                raise http.client.IncompleteRead(body, reply.length)
        except (OSError, http.client.HTTPException, ValueError):
            if expired.is_set():
                raise TimeoutError(f"no complete reply within {self.timeout} s") from None
            raise
        finally:
            watchdog.cancel()
            connection.close()
        if expired.is_set():
            raise TimeoutError(f"no complete reply within {self.timeout} s")
        return reply.status, body

    def _post(self, payload: dict[str, Any]) -> Any:
        data = json.dumps(payload).encode()
        last = ""
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(self.backoff * attempt)
            try:
                status, body = self._exchange(data)
            except (TimeoutError, ConnectionError, OSError) as exc:
                last = f"{type(exc).__name__}: {exc}"
                continue
            except (http.client.HTTPException, ValueError) as exc:
                last = f"malformed HTTP reply ({type(exc).__name__}: {str(exc)[:200]})"
                continue
            if 300 <= status < 400:
                last = f"HTTP {status}: redirects are refused"
                break
            if status >= 400:
                last = f"HTTP {status}"
                if status < 500:
                    break
                continue
            if len(body) > self.MAX_REPLY_BYTES:
                last = f"the reply is larger than {self.MAX_REPLY_BYTES} bytes"
                break
            try:
                return json.loads(body)
            except (ValueError, RecursionError):
                last = "the reply is not JSON"
        raise RetrievalError(f"retrieval server {self.url} failed after {attempt + 1} attempt(s): {last}")

    def search(self, query: str, topk: int) -> list[dict[str, Any]]:
        reply = self._post({"queries": [query[:MAX_QUERY_CHARS]], "topk": topk, "return_scores": True})
        try:
            items = reply["result"][0]
            results = []
            for item in items[:topk]:
                contents = item["document"]["contents"]
                if not isinstance(contents, str):
                    raise TypeError("contents is not a string")
                score = item.get("score")
                if score is not None and (type(score) not in (int, float) or not math.isfinite(score)):
                    raise TypeError("score is not a finite number")
                results.append({"document": dict(item["document"]), "score": score})
            return results
        except (KeyError, IndexError, TypeError, AttributeError, OverflowError) as exc:
            raise RetrievalError(
                f"retrieval server {self.url} sent a reply that is not Search-R1's "
                f'{{"result": [[{{"document": {{"contents": ...}}, "score": ...}}]]}} '
                f"({type(exc).__name__}: {exc})"
            ) from None


def make_retriever(
    retriever: str,
    corpus_path: str | None = None,
    retriever_url: str | None = None,
    timeout: float = 10.0,
    retries: int = 2,
) -> Retriever:
    """The named retriever (``bm25`` needs ``corpus_path``, ``http`` needs ``retriever_url``)."""
    if retriever == "none":
        return NoRetriever()
    if retriever == "bm25":
        if not corpus_path:
            raise ValueError("retriever='bm25' needs corpus_path= (a JSONL corpus such as wiki-18.jsonl)")
        return BM25Retriever(corpus_path)
    if retriever == "http":
        if not retriever_url:
            raise ValueError("retriever='http' needs retriever_url= (e.g. http://127.0.0.1:8000/retrieve)")
        return HTTPRetriever(retriever_url, timeout, retries)
    raise ValueError(unknown_choice("retriever", retriever, RETRIEVERS))
