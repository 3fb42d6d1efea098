"""Loading API-Bank: dialogues, their evaluation samples, the init databases and the recorded replies.

Layout (as officially): ``<data root>/apibank/lv1-lv2-samples/<setting>/*.jsonl`` (one dialogue per file,
one turn per line), ``<data root>/apibank/init_database/*.json``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from genenv_gym.datasets.data_dir import MissingDataError, data_root
from genenv_gym.envs.apibank.world import recording_key
from genenv_gym.suggest import unknown_choice

BENCHMARK = "apibank"
#: Level -> the official folder of its dialogues (the folder, not the file tag, decides the setting).
LEVEL_FOLDERS: dict[str, str] = {"level-1": "level-1-given-desc", "level-2": "level-2-toolsearcher"}
#: APIs whose recorded outputs are replayed offline (internet-backed or model-ranked officially).
REPLAYED_APIS = ("Dictionary", "Translate", "ToolSearcher", "SearchEngine")


@dataclass(frozen=True)
class Sample:
    """One official evaluation sample: the history before it and the turn the model must produce."""

    file: str
    index: int
    level: str
    history: tuple
    ground_truth: dict
    apis: tuple[str, ...]

    @property
    def task_id(self) -> str:
        return f"{LEVEL_FOLDERS[self.level]}/{self.file}#{self.index}"

    @property
    def kind(self) -> str:
        """``api`` for an API-call sample, ``response`` for an AI-reply sample, else the turn's role."""
        role = self.ground_truth["role"]
        return {"API": "api", "AI": "response"}.get(role, role.lower())


def _root(data_dir: str | None) -> Path:
    root = data_root(data_dir) / BENCHMARK
    if not (root / "lv1-lv2-samples").is_dir():
        raise MissingDataError(
            f"API-Bank dialogues not found under {root / 'lv1-lv2-samples'}: point data_dir (or "
            "GENENV_DATA_DIR) at a folder holding apibank/ in the official layout (see docs/apibank.md)",
            BENCHMARK,
        )
    return root


def read_dialogue(path: Path) -> list[dict[str, Any]]:
    """The turns of one dialogue file (blank lines skipped)."""
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def dialogue_apis(history: list[dict[str, Any]]) -> tuple[str, ...]:
    """The APIs a dialogue uses, in order of first use (the official code uses an unordered set)."""
    names: list[str] = []
    for turn in history:
        if turn["role"] == "API" and turn["api_name"] not in names:
            names.append(turn["api_name"])
    return tuple(names)


def dialogue_samples(file: str, level: str, history: list[dict[str, Any]]) -> list[Sample]:
    """The official samples of a dialogue: per API turn i, (history[:i] -> turn i), (history[:i+1] -> i+1)."""
    apis = dialogue_apis(history)
    samples: list[Sample] = []
    for i, turn in enumerate(history):
        if turn["role"] != "API":
            continue
        for end in (i, i + 1):
            if end < len(history):
                samples.append(Sample(file, len(samples), level, tuple(history[:end]), history[end], apis))
    return samples


@lru_cache(maxsize=8)
def _load_level(root: str, level: str) -> tuple[Sample, ...]:
    folder = Path(root) / "lv1-lv2-samples" / LEVEL_FOLDERS[level]
    samples: list[Sample] = []
    for path in sorted(folder.glob("*.jsonl")):
        samples += dialogue_samples(path.name, level, read_dialogue(path))
    return tuple(samples)


def load_samples(levels: tuple[str, ...], data_dir: str | None = None) -> list[Sample]:
    """Every official sample of the given levels, by level, file name and sample index."""
    root = _root(data_dir)
    unknown = [level for level in levels if level not in LEVEL_FOLDERS]
    if unknown:
        raise ValueError(unknown_choice("API-Bank levels", unknown, sorted(LEVEL_FOLDERS)))
    return [s for level in levels for s in _load_level(str(root), level)]


@lru_cache(maxsize=8)
def _init_databases(root: str) -> dict[str, Any]:
    folder = Path(root) / "init_database"
    if not folder.is_dir():
        raise MissingDataError(f"API-Bank init databases not found in {folder}", BENCHMARK)
    databases = {}
    for path in sorted(folder.glob("*.json")):
        with path.open(encoding="utf-8") as handle:
            databases[path.stem] = json.load(handle)
    return databases


def init_databases(data_dir: str | None = None) -> dict[str, Any]:
    """The init databases by name (shared and cached: copy before changing, as World does)."""
    return _init_databases(str(_root(data_dir)))


@lru_cache(maxsize=8)
def _recordings(root: str) -> dict[str, Any]:
    recordings: dict[str, Any] = {}
    for folder in LEVEL_FOLDERS.values():
        for path in sorted((Path(root) / "lv1-lv2-samples" / folder).glob("*.jsonl")):
            for turn in read_dialogue(path):
                if turn["role"] == "API" and turn["api_name"] in REPLAYED_APIS:
                    result = turn["result"]
                    key = recording_key(turn["api_name"], result["input"])
                    recordings.setdefault(key, {"output": result["output"], "exception": result["exception"]})
    return recordings


def recordings(data_dir: str | None = None) -> dict[str, Any]:
    """Recorded replies of the replayed APIs (see REPLAYED_APIS), keyed by API and input."""
    return _recordings(str(_root(data_dir)))


@lru_cache(maxsize=8)
def _dialogues(root: str, level: str) -> tuple[tuple[str, tuple], ...]:
    folder = Path(root) / "lv1-lv2-samples" / LEVEL_FOLDERS[level]
    return tuple((path.name, tuple(read_dialogue(path))) for path in sorted(folder.glob("*.jsonl")))


def load_dialogues(levels: tuple[str, ...], data_dir: str | None = None) -> list[tuple[str, str, list[dict]]]:
    """Every dialogue of the given levels as ``(level, file name, turns)``."""
    root = _root(data_dir)
    return [(level, name, list(turns)) for level in levels for name, turns in _dialogues(str(root), level)]
