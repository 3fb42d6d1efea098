"""The English words that carry no content (articles, common prepositions, forms of "be"), shared by the
checks that compare texts by their content words; each adds the words of its own domain."""

from __future__ import annotations

FUNCTION_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "with",
    ]
)
