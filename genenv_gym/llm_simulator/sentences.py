"""The sentences of a generated task's prose: what the off-task screen judges one at a time."""

from __future__ import annotations

import re
from collections.abc import Iterable

#: A sentence with fewer words of letters than this is a name, a value or a label, not prose.
MIN_WORDS = 3
#: Sentences longer than this (characters) are cut into pieces of it: one run-on sentence must not hide a
#: request behind a long harmless start (the encoder reads 256 tokens).
MAX_SENTENCE_CHARS = 400

_BOUNDARY = re.compile(r"(?<=[.!?;])\s+|\n+|(?<=\))\s+(?=[A-Z])")
_WORD = re.compile(r"[^\W\d_]{2,}")


def sentences(text: str) -> list[str]:
    """The prose sentences of ``text`` (at least ``MIN_WORDS`` words of letters), in order."""
    out = []
    for piece in _BOUNDARY.split(text):
        piece = piece.strip()
        while piece:
            head, piece = piece[:MAX_SENTENCE_CHARS], piece[MAX_SENTENCE_CHARS:]
            if len(_WORD.findall(head)) >= MIN_WORDS:
                out.append(head)
    return out


def prose_sentences(texts: Iterable[str]) -> list[str]:
    """Every prose sentence of ``texts``, each once, in order of first appearance."""
    return list(dict.fromkeys(s for text in texts for s in sentences(text)))
