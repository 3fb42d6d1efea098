"""The sentences of a generated task's prose: what the off-task screen judges one at a time."""

from __future__ import annotations

import re
from collections.abc import Iterable

#: A sentence with fewer words of letters than this (separated by spaces) is a name, a value, an
#: identifier or a label, not prose.
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
            if sum(bool(_WORD.search(token)) for token in head.split()) >= MIN_WORDS:
                out.append(head)
    return out


def prose_sentences(texts: Iterable[str]) -> list[str]:
    """Every prose sentence of ``texts``, each once, in order of first appearance."""
    return list(dict.fromkeys(s for text in texts for s in sentences(text)))


#: Structural words of the writers' JSON schemas: not part of what a task is about.
SCHEMA_WORDS = frozenset(
    [
        "type",
        "properties",
        "required",
        "description",
        "name",
        "parameters",
        "items",
        "enum",
        "default",
        "user",
        "ai",
        "call",
        "api_name",
        "param_dict",
        "calls",
        "arguments",
        "turns",
        "question",
        "functions",
        "ground_truth",
        "category",
        "dialogue",
        "answer",
        "distractors",
        "start",
        "steps",
        "answer_type",
        "candidate",
        "query",
        "org",
        "dest",
        "days",
        "date",
        "budget",
        "local_constraint",
        "people_number",
        "visiting_city_number",
        "involved_classes",
        "initial_config",
        "dict",
        "string",
        "integer",
        "float",
        "boolean",
        "array",
        "tuple",
        "any",
        "scene",
        "task_type",
        "object",
        "receptacle",
        "lamp",
        "goal",
    ]
)
#: The longest content phrase (characters): the encoder reads 256 tokens.
MAX_CONTENT_CHARS = 600

_IDENTIFIER = re.compile(r"[._]+|(?<=[a-z])(?=[A-Z])")


def content_phrase(texts: Iterable[str]) -> str:
    """What a task is about, as one phrase: its short strings (names, values, labels; identifiers split
    into words), leaving out its prose and the schema's own words. Empty when it has none."""
    parts = []
    for text in texts:
        text = text.strip()
        if not text or sentences(text) or text in SCHEMA_WORDS or not re.search(r"[^\W\d_]", text):
            continue
        parts.append(_IDENTIFIER.sub(" ", text))
    return " ".join(dict.fromkeys(parts))[:MAX_CONTENT_CHARS]
