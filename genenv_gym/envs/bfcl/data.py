"""Reading BFCL v4's official question and possible-answer files (JSON Lines despite ``.json``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from genenv_gym.datasets.data_dir import benchmark_file, data_root, file_version
from genenv_gym.envs.bfcl.categories import AST_CATEGORIES, NO_GROUND_TRUTH, answer_file, question_file
from genenv_gym.suggest import unknown_choice


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


@lru_cache(maxsize=64)
def _load_category(category: str, root: str, versions: tuple[str, ...]) -> tuple[dict[str, Any], ...]:
    """The records of a category; ``versions`` (its files') make an edited file read again."""
    files = category_files(category, root)
    questions = read_jsonl(files[0])
    if category in NO_GROUND_TRUTH:
        return tuple({**q, "ground_truth": None} for q in questions)
    answers = {a["id"]: a["ground_truth"] for a in read_jsonl(files[1])}
    missing = [q["id"] for q in questions if q["id"] not in answers]
    if missing:
        raise ValueError(f"bfcl/{answer_file(category)} has no possible answer for {missing[:5]}")
    return tuple({**q, "ground_truth": answers[q["id"]]} for q in questions)


def chosen_categories(categories: Sequence[str] | None = None) -> tuple[str, ...]:
    """The AST categories asked for (all 13 when None); ValueError for an unknown one."""
    chosen = tuple(categories) if categories else AST_CATEGORIES
    unknown = [c for c in chosen if c not in AST_CATEGORIES]
    if unknown:
        raise ValueError(unknown_choice("BFCL categories", unknown, AST_CATEGORIES))
    return chosen


def category_files(category: str, root: str) -> tuple[Path, ...]:
    """The files a category's records are read from (MissingDataError, saying where they go, if absent)."""
    files = [benchmark_file("bfcl", question_file(category), root)]
    if category not in NO_GROUND_TRUTH:
        files.append(benchmark_file("bfcl", answer_file(category), root))
    return tuple(files)


def load_records(
    categories: Sequence[str] | None = None, data_dir: str | None = None
) -> list[dict[str, Any]]:
    """Records of the given AST categories, each with ``category`` and ``ground_truth`` (None if none).

    Raises MissingDataError (saying where the files go) when a file is absent, ValueError for an
    unknown category.
    """
    chosen = chosen_categories(categories)
    root = str(data_root(data_dir))
    return [
        {**record, "category": c}
        for c in chosen
        for record in _load_category(c, root, tuple(map(file_version, category_files(c, root))))
    ]
