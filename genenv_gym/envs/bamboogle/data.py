"""Loading Bamboogle's FlashRAG-format question file (``bamboogle/test.jsonl``: id, question, answers)."""

from __future__ import annotations

import json
from dataclasses import dataclass

from genenv_gym.datasets.data_dir import benchmark_file

BENCHMARK = "bamboogle"
QUESTIONS_FILE = "test.jsonl"


@dataclass(frozen=True)
class Question:
    """One benchmark record."""

    id: str
    question: str
    golden_answers: tuple[str, ...]


def normalize_question(question: str) -> str:
    """The question as Search-R1's data script stores it: stripped, with a final ``?`` added if missing."""
    question = question.strip()
    if not question.endswith("?"):
        question += "?"
    return question


def load_questions(data_dir: str | None = None) -> list[Question]:
    """Every record of ``<data_dir>/bamboogle/test.jsonl``, in file order; clear errors on bad lines."""
    path = benchmark_file(BENCHMARK, QUESTIONS_FILE, data_dir)
    questions = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                answers = record["golden_answers"]
                if isinstance(answers, str):
                    answers = [answers]
                questions.append(
                    Question(str(record["id"]), str(record["question"]), tuple(map(str, answers)))
                )
            except (ValueError, KeyError, TypeError) as exc:
                raise ValueError(
                    f"{path}:{number}: not a FlashRAG record with id, question, golden_answers ({exc})"
                ) from exc
    return questions
