"""Where each benchmark's data comes from, which files a complete copy holds, and how many records they have.

Every origin is the benchmark's official public release (or, where the official release is a download
script, that script's own source). BFCL ships inside the official ``bfcl-eval`` wheel on PyPI, so it is
fetched with pip and works on any machine that can install packages; the others need the open internet.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from genenv_gym.envs.bfcl.categories import NO_GROUND_TRUTH, RECORD_COUNTS

BFCL_EVAL_VERSION = "2026.3.23"


@dataclass(frozen=True)
class PipWheel:
    """Files inside a wheel on the package index: ``members`` under ``prefix`` are unpacked into place."""

    requirement: str
    prefix: str
    exclude: tuple[str, ...] = ()


@dataclass(frozen=True)
class GitHubFiles:
    """Files of a public GitHub repository at a fixed commit (listed with the git trees API)."""

    repo: str
    commit: str
    paths: tuple[str, ...]
    #: Leading folders dropped from the local paths (``api-bank/data/x`` -> ``data/x``).
    strip: tuple[str, ...] = ()


@dataclass(frozen=True)
class Urls:
    """Single files by URL -> path under the benchmark folder."""

    files: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class AlfworldScript:
    """The official ``alfworld-download`` script (installed with the ``alfworld`` extra)."""


@dataclass(frozen=True)
class Source:
    """One benchmark's data: its origin(s), licence, and what a complete copy holds."""

    name: str
    title: str
    origins: tuple[PipWheel | GitHubFiles | Urls | AlfworldScript, ...]
    licence: str
    #: Files that must exist (relative to ``<data_dir>/<name>/``), with their JSON Lines record counts
    #: where a count identifies the official release (None: presence only).
    required: dict[str, int | None] = field(default_factory=dict)
    #: Glob patterns that must each match at least this many files.
    required_globs: dict[str, int] = field(default_factory=dict)
    notes: str = ""


SOURCES: dict[str, Source] = {
    "bfcl": Source(
        "bfcl",
        "Berkeley Function Calling Leaderboard v4",
        (PipWheel(f"bfcl-eval=={BFCL_EVAL_VERSION}", "bfcl_eval/data/", ("unused_datasets/", "README.md")),),
        "Apache-2.0",
        {
            **{f"BFCL_v4_{c}.json": n for c, n in RECORD_COUNTS.items()},
            **{
                f"possible_answer/BFCL_v4_{c}.json": n
                for c, n in RECORD_COUNTS.items()
                if c not in NO_GROUND_TRUTH
            },
            **{
                f"BFCL_v4_multi_turn_{c}.json": 200
                for c in ("base", "miss_func", "miss_param", "long_context")
            },
        },
        {"multi_turn_func_doc/*.json": 8},
        f"from the official bfcl-eval {BFCL_EVAL_VERSION} wheel on PyPI (pip download; no other network)",
    ),
    "alfworld": Source(
        "alfworld",
        "ALFWorld (TextWorld games over ALFRED scenes)",
        (AlfworldScript(),),
        "MIT",
        {"logic/alfred.pddl": None, "logic/alfred.twl2": None},
        {"json_2.1.1/valid_unseen/*/*/game.tw-pddl": 134},
        "runs the official alfworld-download script (needs the alfworld extra and GitHub release assets)",
    ),
    "apibank": Source(
        "apibank",
        "API-Bank (level-1 and level-2 dialogues, init databases, API catalogue)",
        (
            GitHubFiles(
                "AlibabaResearch/DAMO-ConvAI",
                "483554eae102996f5ec1f4feab4e78ef29c2a394",
                (
                    "api-bank/lv1-lv2-samples/",
                    "api-bank/init_database/",
                    "api-bank/data/",
                    "api-bank/lv3-samples/",
                ),
                strip=("api-bank/",),
            ),
        ),
        "Apache-2.0",
        {"data/all_apis.csv": None, "data/exceptions.json": None},
        {
            "lv1-lv2-samples/level-1-given-desc/*.jsonl": 214,
            "lv1-lv2-samples/level-2-toolsearcher/*.jsonl": 50,
            "init_database/*.json": 19,
        },
        "from the official GitHub repository at a fixed commit",
    ),
    "bamboogle": Source(
        "bamboogle",
        "Bamboogle (125 two-hop questions, FlashRAG format)",
        (
            Urls(
                (
                    (
                        "https://huggingface.co/datasets/RUC-NLPIR/FlashRAG_datasets/resolve/main/bamboogle/test.jsonl",
                        "test.jsonl",
                    ),
                )
            ),
        ),
        "MIT",
        {"test.jsonl": 125},
        notes="FlashRAG's copy on the Hugging Face hub (the format Search-R1 reads)",
    ),
    "travelplanner": Source(
        "travelplanner",
        "TravelPlanner (sandbox database, train queries and reference information)",
        (
            GitHubFiles(
                "OSU-NLP-Group/TravelPlanner",
                "3038ffd4aae5266cf5595c905f8bb4011cb39f86",
                ("database/",),
            ),
            GitHubFiles(
                "OSU-NLP-Group/TravelPlanner",
                "da7c1d41d51bf1d6e8592099bc109c9368b2dfe4",
                ("database/train_ref_info.jsonl", "postprocess/example_evaluation.jsonl"),
                strip=("postprocess/",),
            ),
            # The 45 train queries with annotated plans (the HF train split as JSON Lines, in the column
            # layout of the HF CSV): what GenEnv-TravelPlanner-v0 plays.
            Urls(
                (
                    (
                        "https://raw.githubusercontent.com/JerryPlain/SwarmAgenticCode/"
                        "7179c61dbae002b41f6d19f3acd438999083ee2d/travelplanner/swarm/data/train_45.jsonl",
                        "train.jsonl",
                    ),
                )
            ),
        ),
        "MIT (code, database); CC-BY-4.0 (queries)",
        {
            "database/accommodations/clean_accommodations_2022.csv": None,
            "database/attractions/attractions.csv": None,
            "database/restaurants/clean_restaurant_2022.csv": None,
            "database/googleDistanceMatrix/distance.csv": None,
            "database/background/citySet_with_states.txt": None,
            "database/train_ref_info.jsonl": 45,
            "train.jsonl": 45,
        },
        notes="database from the official repository; the 45 train queries from a JSON Lines copy of the HF "
        "train split; the flights table and the other query splits are not in the repository "
        "(the full database zip and the osunlp/TravelPlanner dataset on the Hugging Face hub are manual "
        "downloads: see README)",
    ),
}
