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

import copy
import importlib.util
import json
import random
import sys
from pathlib import Path

from genenv_gym.envs.bfcl_multiturn.executor import format_result
from genenv_gym.envs.bfcl_multiturn.gorilla_file_system import GorillaFileSystem, tree_state
from genenv_gym.envs.bfcl_multiturn.long_context import load_official_filler, reset_filler

CLASS = "GorillaFileSystem"
DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "benchmarks" / "bfcl"


def load_official(path: str, module_name: str) -> object:
    """Import an official backend module (its wheel root goes on sys.path for its imports)."""
    source = Path(path).resolve()
    sys.path.insert(0, str(source.parents[4]))
    spec = importlib.util.spec_from_file_location(module_name, source)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def real_configs(data_dir: Path, cls: str) -> list[dict]:
    """Every distinct ``initial_config[cls]`` of the multi-turn files in ``data_dir``."""
    seen: dict[str, dict] = {}
    for path in sorted(data_dir.glob("BFCL_v4_multi_turn_*.json")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                config = json.loads(line).get("initial_config", {}).get(cls)
                if config is not None:
                    seen.setdefault(json.dumps(config, sort_keys=True), config)
    return list(seen.values())


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


def render(api: object, name: str, kwargs: dict) -> str:
    """A call's result as the official loop renders it."""
    try:
        return format_result(getattr(api, name)(**kwargs))
    except Exception as e:
        return f"Error during execution: {e}"


def main(path: str, data_dir: str | None = None, sequences: int = 400, length: int = 30) -> int:
    """Run seeded sequences on both; print mismatches and return their count."""
    module = load_official(path, "official_gorilla_file_system")
    load_official_filler(Path(path).with_name("long_context.py"))
    configs = real_configs(Path(data_dir) if data_dir else DEFAULT_DATA, CLASS)
    bad = 0
    try:
        for seed in range(sequences):
            rng = random.Random(seed)
            config = configs[seed % len(configs)] if seed % 10 else {}
            long_context = seed % 2 == 1
            official, ours = module.GorillaFileSystem(), GorillaFileSystem()
            official._load_scenario(copy.deepcopy(config), long_context=long_context)
            ours._load_scenario(config, long_context=long_context)
            names = _names(config)
            for step in range(length):
                local = list(ours._current_dir.contents)
                name, kwargs = _random_call(rng, names, local)
                a, b = render(official, name, kwargs), render(ours, name, kwargs)
                if a != b:
                    bad += 1
                    print(f"seed {seed} step {step} MISMATCH {name}({kwargs}): {a[:200]!r} vs {b[:200]!r}")
                same_tree = tree_state(official.root) == tree_state(ours.root)
                same_cwd = render(official, "pwd", {}) == render(ours, "pwd", {})
                if not (same_tree and same_cwd and official.long_context == ours.long_context):
                    bad += 1
                    print(f"seed {seed} step {step} STATE MISMATCH after {name}({kwargs})")
    finally:
        reset_filler()
    print(f"{sequences} sequences x {length} calls on {len(configs)} real configs: {bad} mismatches")
    return bad


if __name__ == "__main__":
    sys.exit(1 if main(*sys.argv[1:3]) else 0)
