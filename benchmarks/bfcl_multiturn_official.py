"""Running an official bfcl-eval backend beside ours: import it, read the real configs, and compare the
two on the same seeded call sequences (shared by the ``bfcl_multiturn_*_crosscheck.py`` scripts)."""

from __future__ import annotations

import copy
import importlib.util
import json
import random
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from genenv_gym.envs.bfcl_multiturn.executor import format_result

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "benchmarks" / "bfcl"

#: Builds, for one config, the function that draws the next call: ``(rng, ours) -> (name, kwargs)``.
CallMaker = Callable[[dict], Callable[[random.Random, object], tuple[str, dict]]]


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


def render(api: object, name: str, kwargs: dict) -> str:
    """A call's result as the official loop renders it."""
    try:
        return format_result(getattr(api, name)(**kwargs))
    except Exception as e:
        return f"Error during execution: {e}"


def attribute_diff(attributes: Sequence[str]) -> Callable[[object, object], list[str]]:
    """A state comparison: the names of ``attributes`` whose values differ between the two backends."""
    return lambda official, ours: [a for a in attributes if getattr(official, a) != getattr(ours, a)]


def compare_sequences(
    new_official: Callable[[], object],
    new_ours: Callable[[], object],
    config_for: Callable[[int], dict],
    call_maker: CallMaker,
    state_diff: Callable[[object, object], list[str]],
    *,
    sequences: int,
    length: int,
    public_attributes: Sequence[str] | None = None,
    normalise: Callable[[str], str] = str,
    before_sequence: Callable[[], None] | None = None,
) -> int:
    """Play ``sequences`` seeded sequences of ``length`` calls on both backends (sequence ``s`` loads
    ``config_for(s)``, odd ones in long-context mode); print every difference of rendered result
    (the official one through ``normalise``) or state, and return their count. With
    ``public_attributes``, the official instance's public attributes must be exactly those."""
    bad = 0
    for seed in range(sequences):
        if before_sequence is not None:
            before_sequence()
        rng = random.Random(seed)
        config = config_for(seed)
        long_context = seed % 2 == 1
        official, ours = new_official(), new_ours()
        official._load_scenario(copy.deepcopy(config), long_context=long_context)
        ours._load_scenario(config, long_context=long_context)
        next_call = call_maker(config)
        for step in range(length):
            name, kwargs = next_call(rng, ours)
            a, b = normalise(render(official, name, kwargs)), render(ours, name, kwargs)
            if a != b:
                bad += 1
                print(f"seed {seed} step {step} MISMATCH {name}({kwargs}): {a[:200]!r} vs {b[:200]!r}")
            for what in state_diff(official, ours):
                bad += 1
                print(f"seed {seed} step {step} STATE MISMATCH {what} after {name}({kwargs})")
        public = {k for k in vars(official) if not k.startswith("_")}
        if public_attributes is not None and public != set(public_attributes):
            bad += 1
            print("public attributes differ from STATE_ATTRIBUTES")
    return bad
