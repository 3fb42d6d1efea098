"""Offline BM25 retrieval (bm25s) for ToolSearcher and SearchEngine queries that were never recorded."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache


def search_text(api_name: str, description: str) -> str:
    """What an API is searched by: its name split into words, then its description (as ToolSearcher does)."""
    return " ".join(re.findall(r"[A-Z][a-z]*|[a-z]+|\d+", api_name)).lower() + " " + description


class Bm25Index:
    """A BM25 index over a fixed list of texts; ``best`` returns indices, best first."""

    def __init__(self, texts: Sequence[str]) -> None:
        try:
            import bm25s
        except ImportError as error:
            raise ImportError(
                "API-Bank's offline ToolSearcher / SearchEngine rank with bm25s: "
                "pip install 'genenv-gym[apibank]' (or bm25s)"
            ) from error

        self._bm25s = bm25s
        self.size = len(texts)
        self.model = bm25s.BM25()
        self.model.index(bm25s.tokenize(list(texts), show_progress=False), show_progress=False)

    def best(self, query: str, k: int) -> list[int]:
        """Indices of the ``k`` best texts for ``query``, ties by position (in order for an empty query)."""
        k = min(k, self.size)
        tokens = self._bm25s.tokenize([query or " "], show_progress=False)
        if not tokens.vocab:
            return list(range(k))
        docs, scores = self.model.retrieve(tokens, k=k, show_progress=False)
        ranked = sorted(
            zip(docs[0].tolist(), scores[0].tolist(), strict=True), key=lambda pair: (-pair[1], pair[0])
        )
        return [int(doc) for doc, _ in ranked]


@lru_cache(maxsize=8)
def cached_index(texts: tuple[str, ...]) -> Bm25Index:
    """One index per distinct corpus, built once per process."""
    return Bm25Index(texts)
