"""Reading BFCL v4's multi-turn entries, their ground truth and the backends' function docs.

Files (JSON Lines despite ``.json``), under ``<data dir>/bfcl/`` as the official wheel lays them out:
``BFCL_v4_multi_turn_<kind>.json`` (``question``: the user turns, ``initial_config`` per backend class,
``involved_classes``, ``missed_function`` for miss_func), ``possible_answer/BFCL_v4_multi_turn_<kind>.json``
(``ground_truth``: a list of call strings per turn) and ``multi_turn_func_doc/<file>.json`` (one function
doc per line, per backend class).

As the official loader does, an entry's ``function`` list is the docs of its involved classes, in
``involved_classes`` order, with each ``missed_function`` doc taken out of that list and kept, per turn,
in ``holdout`` (the docs given to the model at that turn). ``excluded_function`` is kept as read; the
official code (bfcl-eval 2026.3.23) does not use it either.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from genenv_gym.datasets.data_dir import benchmark_file, data_root, file_version
from genenv_gym.envs.bfcl.data import read_jsonl
from genenv_gym.suggest import unknown_choice

#: The four multi-turn categories, in the official order.
CATEGORIES: tuple[str, ...] = (
    "multi_turn_base",
    "multi_turn_miss_func",
    "multi_turn_miss_param",
    "multi_turn_long_context",
)

#: Backend class -> its function-doc file in ``multi_turn_func_doc/`` (the official mapping).
FUNC_DOC_FILES: dict[str, str] = {
    "GorillaFileSystem": "gorilla_file_system.json",
    "MathAPI": "math_api.json",
    "MessageAPI": "message_api.json",
    "TwitterAPI": "posting_api.json",
    "TicketAPI": "ticket_api.json",
    "TradingBot": "trading_bot.json",
    "TravelAPI": "travel_booking.json",
    "VehicleControlAPI": "vehicle_control.json",
}


def question_file(category: str) -> str:
    """The entries file of a category, relative to ``bfcl/``."""
    return f"BFCL_v4_{category}.json"


def answer_file(category: str) -> str:
    """The ground-truth file of a category, relative to ``bfcl/``."""
    return f"possible_answer/BFCL_v4_{category}.json"


def is_long_context(category: str) -> bool:
    """Whether the backends load in long-context mode for this category (the official test)."""
    return "long_context" in category


def _func_docs(class_name: str, root: str) -> tuple[dict[str, Any], ...]:
    if class_name not in FUNC_DOC_FILES:
        raise ValueError(unknown_choice("BFCL multi-turn backend class", class_name, FUNC_DOC_FILES))
    path = benchmark_file("bfcl", f"multi_turn_func_doc/{FUNC_DOC_FILES[class_name]}", root)
    return _read_docs(path, file_version(path))


@lru_cache(maxsize=32)
def _read_docs(path: Path, version: str) -> tuple[dict[str, Any], ...]:
    """A function-doc file's docs; ``version`` makes an edited file read again."""
    return tuple(read_jsonl(path))


def function_docs(
    involved_classes: Sequence[str], missed: dict[str, list[str]] | None, data_dir: str | None = None
) -> tuple[list[dict[str, Any]], dict[str, list[dict[str, Any]]]]:
    """The docs shown from the start and the held-out docs per turn (as strings of turn indices)."""
    root = str(data_root(data_dir))
    functions = [dict(doc) for c in involved_classes for doc in _func_docs(c, root)]
    holdout: dict[str, list[dict[str, Any]]] = {}
    for turn, names in (missed or {}).items():
        holdout[str(turn)] = []
        for name in names:
            index = next((i for i, doc in enumerate(functions) if doc.get("name") == name), None)
            if index is not None:
                holdout[str(turn)].append(functions.pop(index))
    return functions, holdout


def chosen_categories(categories: Sequence[str] | None = None) -> tuple[str, ...]:
    """The categories asked for (all four when None); ValueError for an unknown one."""
    chosen = tuple(categories) if categories else CATEGORIES
    unknown = [c for c in chosen if c not in CATEGORIES]
    if unknown:
        raise ValueError(unknown_choice("BFCL multi-turn categories", unknown, CATEGORIES))
    return chosen


def category_files(category: str, root: str) -> tuple[Path, ...]:
    """The entries and ground-truth files of a category (MissingDataError, saying where they go, if absent),
    then every function-doc file (those an entry names must exist when it is loaded)."""
    docs = data_root(root) / "bfcl" / "multi_turn_func_doc"
    return (
        benchmark_file("bfcl", question_file(category), root),
        benchmark_file("bfcl", answer_file(category), root),
        *(docs / name for name in sorted(FUNC_DOC_FILES.values())),
    )


@lru_cache(maxsize=16)
def _load_category(category: str, root: str, versions: tuple[str, ...]) -> tuple[dict[str, Any], ...]:
    """The entries of a category; ``versions`` (of its files and the doc files) make an edited file read
    again."""
    files = category_files(category, root)
    entries = read_jsonl(files[0])
    answers = {a["id"]: a["ground_truth"] for a in read_jsonl(files[1])}
    missing = [e["id"] for e in entries if e["id"] not in answers]
    if missing:
        raise ValueError(f"bfcl/{answer_file(category)} has no ground truth for {missing[:5]}")
    out = []
    for entry in entries:
        truth = answers[entry["id"]]
        if len(truth) != len(entry["question"]):
            raise ValueError(
                f"{entry['id']}: {len(entry['question'])} turns but {len(truth)} ground-truth turns"
            )
        functions, holdout = function_docs(entry["involved_classes"], entry.get("missed_function"), root)
        out.append(
            {
                **entry,
                "category": category,
                "ground_truth": truth,
                "function": functions,
                "holdout": holdout,
            }
        )
    return tuple(out)


def load_entries(
    categories: Sequence[str] | None = None, data_dir: str | None = None
) -> list[dict[str, Any]]:
    """Entries of the given categories (all four when None), each with ``category``, ``ground_truth``,
    ``function`` (docs shown from the start) and ``holdout`` (turn -> docs added at that turn).

    Raises MissingDataError (saying where the files go) when a file is absent, ValueError for an unknown
    category. The returned dicts are shared by later calls: copy before changing them.
    """
    chosen = chosen_categories(categories)
    root = str(data_root(data_dir))
    return [
        entry
        for c in chosen
        for entry in _load_category(c, root, tuple(map(file_version, category_files(c, root))))
    ]
