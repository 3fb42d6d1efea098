"""Compare our GorillaFileSystem with the official bfcl-eval class on random call sequences.

Usage: python benchmarks/bfcl_multiturn_file_system_crosscheck.py \
           PATH/TO/func_source_code/gorilla_file_system.py [BFCL_DATA_DIR]

Both backends load the same real ``initial_config`` (from the BFCL multi-turn files in the
data dir, default ``../shared/benchmarks/bfcl``), half of the sequences in long-context
mode (ours then uses the official filler, read from the wheel's ``long_context.py``), and
get the same seeded calls; after every call the rendered results, the whole file tree and
the current directory path must be equal.
"""

from __future__ import annotations

import random

from bfcl_multiturn_official import SequenceCheck, render

from genenv_gym.envs.bfcl_multiturn.gorilla_file_system import GorillaFileSystem, tree_state


def _names(config: dict) -> list[str]:
    """All names in a config tree plus names that exercise the edge cases."""
    names: list[str] = []

    def walk(contents: dict) -> None:
        for name, data in contents.items():
            names.append(name)
            if data.get("type") == "directory":
                walk(data.get("contents", {}))

    for root in config.get("root", {}).values():
        walk(root.get("contents", {}))
    return [*names, ".", "..", "/", "", "new.txt", "dir2", ".hidden", "a/b", "x|y", "../..", "/etc"]


def _random_call(rng: random.Random, names: list[str], local: list[str]) -> tuple[str, dict]:
    """One random call; names come mostly from the current directory."""

    def pick() -> str:
        return rng.choice(local) if local and rng.random() < 0.6 else rng.choice(names)

    text = rng.choice(["hello\nworld\n", "b\na\nc", "", "line one\nline two\nline one", "x" * 50])
    calls = [
        ("pwd", {}),
        ("ls", {"a": rng.choice([True, False])}),
        ("cd", {"folder": rng.choice([pick(), pick(), "..", "/", ".", pick() + "/"])}),
        ("mkdir", {"dir_name": pick()}),
        ("touch", {"file_name": pick()}),
        ("echo", {"content": text, "file_name": rng.choice([pick(), None])}),
        ("cat", {"file_name": pick()}),
        ("find", {"path": rng.choice([".", "/", pick(), "../" + pick()]),
                  "name": rng.choice([None, "t", "e", pick()])}),
        ("wc", {"file_name": pick(), "mode": rng.choice(["l", "w", "c", "z"])}),
        ("sort", {"file_name": pick()}),
        ("grep", {"file_name": pick(), "pattern": rng.choice(["e", "line", "o"])}),
        ("du", {"human_readable": rng.choice([True, False])}),
        ("tail", {"file_name": pick(), "lines": rng.choice([0, 1, 2, 10, -1])}),
        ("diff", {"file_name1": pick(), "file_name2": pick()}),
        ("mv", {"source": pick(), "destination": pick()}),
        ("rm", {"file_name": pick()}),
        ("rmdir", {"dir_name": pick()}),
        ("cp", {"source": pick(), "destination": pick()}),
    ]  # fmt: skip
    return rng.choice(calls)


def _call_maker(config: dict):
    names = _names(config)
    return lambda rng, ours: _random_call(rng, names, list(ours._current_dir.contents))


def _state_diff(official: object, ours: object) -> list[str]:
    """The tree, the current directory and the long-context flag must be equal."""
    same_tree = tree_state(official.root) == tree_state(ours.root)
    same_cwd = render(official, "pwd", {}) == render(ours, "pwd", {})
    return [] if same_tree and same_cwd and official.long_context == ours.long_context else ["tree/cwd"]


CHECK = SequenceCheck(
    GorillaFileSystem,
    _call_maker,
    real_configs=True,
    default_every=10,
    long_context=True,
    state_diff=_state_diff,
)

if __name__ == "__main__":
    CHECK.cli()
