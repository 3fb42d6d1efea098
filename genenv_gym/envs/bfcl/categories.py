"""BFCL's single-turn AST categories: their files, languages and env-id names."""

from __future__ import annotations

from typing import Literal

Language = Literal["python", "java", "javascript"]

#: The single-turn categories graded by the AST checker (or the (ir)relevance rule), in BFCL v4 names.
AST_CATEGORIES: tuple[str, ...] = (
    "simple_python",
    "simple_java",
    "simple_javascript",
    "multiple",
    "parallel",
    "parallel_multiple",
    "irrelevance",
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
    "live_irrelevance",
    "live_relevance",
)

#: Categories that have no possible-answer file: graded on whether the output decodes to a call.
NO_GROUND_TRUTH: frozenset[str] = frozenset({"irrelevance", "live_irrelevance", "live_relevance"})

#: Record counts of the BFCL v4 files (bfcl-eval 2026.3.23), used to check a data directory is complete.
RECORD_COUNTS: dict[str, int] = {
    "simple_python": 400,
    "simple_java": 100,
    "simple_javascript": 50,
    "multiple": 200,
    "parallel": 200,
    "parallel_multiple": 200,
    "irrelevance": 240,
    "live_simple": 258,
    "live_multiple": 1053,
    "live_parallel": 16,
    "live_parallel_multiple": 24,
    "live_irrelevance": 884,
    "live_relevance": 16,
}


def language_of(category: str) -> Language:
    """The language whose call syntax answers are written in for this category."""
    if category == "simple_java":
        return "java"
    if category == "simple_javascript":
        return "javascript"
    return "python"


def question_file(category: str) -> str:
    return f"BFCL_v4_{category}.json"


def answer_file(category: str) -> str:
    return f"possible_answer/BFCL_v4_{category}.json"


def env_suffix(category: str) -> str:
    """CamelCase name used in env ids: ``live_parallel_multiple`` -> ``LiveParallelMultiple``."""
    return "".join(part.capitalize() for part in category.split("_"))
