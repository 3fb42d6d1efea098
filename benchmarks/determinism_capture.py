"""A seeded fingerprint of every registered env id: what a refactor must leave unchanged.

For each id (on offline data: the shipped fixtures, ALFWorld's tiny room), a few seeded episodes are
played with the oracle and with the seeded random agent; every observation, reward, terminated/truncated
flag and ``info`` is hashed. Two runs on the same code give the same hashes; a refactor that changes no
behaviour gives the same hashes too.

    python benchmarks/determinism_capture.py --out before.json
    python benchmarks/determinism_capture.py --out after.json --compare before.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import genenv_gym
from genenv_gym.agents.scripted import OracleAgent, RandomAgent
from genenv_gym.fixtures import FIXTURES_DIR
from genenv_gym.registry.registration import ENV_ENTRIES
from genenv_gym.task import Task


def plain(value: Any) -> Any:
    """A JSON-able form of ``value`` that depends only on its content (no addresses)."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, Task):
        return value.to_json()
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    if hasattr(value, "items"):
        return plain(dict(value.items()))
    return f"<{type(value).__name__}>"


def make_offline(env_id: str, alfworld_root: str) -> gym.Env:
    """``gym.make`` on offline data (as tests/conftest.py's ``OfflineEnvs`` does)."""
    entry = next(e for e in ENV_ENTRIES if e.id == env_id)
    is_sim = entry.entry_point.endswith("SimulatorEnv")
    data_dir = alfworld_root if "ALFWorld" in env_id else str(FIXTURES_DIR)
    if is_sim:
        domain_kwargs = dict(entry.kwargs.get("domain_kwargs", {}))
        if "ALFWorld" in env_id:
            domain_kwargs.update(data_dir=data_dir, scene_split="valid_unseen", planner_timeout_s=60)
            return gym.make(env_id, batch_size=1, domain_kwargs=domain_kwargs)
        if "TravelPlanner" in env_id:
            domain_kwargs.update(data_dir=data_dir)
        return gym.make(env_id, domain_kwargs=domain_kwargs) if domain_kwargs else gym.make(env_id)
    return gym.make(env_id, data_dir=data_dir)


def play(env: gym.Env, agent: Any, seed: int, max_steps: int) -> list[Any]:
    obs, info = env.reset(seed=seed)
    record = [plain([obs, info])]
    for _ in range(max_steps):
        obs, reward, terminated, truncated, info = env.step(agent.act(obs, info))
        record.append(plain([obs, float(reward), bool(terminated), bool(truncated), info]))
        if terminated or truncated:
            break
    return record


def fingerprint(env_id: str, alfworld_root: str, seeds: int, max_steps: int) -> str:
    env = make_offline(env_id, alfworld_root)
    try:
        records = []
        for seed in range(seeds):
            records.append(play(env, OracleAgent(env), seed, max_steps))
            records.append(play(env, RandomAgent(env, seed=seed), seed + 1000, max_steps))
    finally:
        env.close()
    return hashlib.sha256(json.dumps(records, sort_keys=True).encode()).hexdigest()[:16]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--out", required=True, help="JSON file of id -> hash")
    parser.add_argument("--compare", help="an earlier --out file: print the ids whose hash differs")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--max-steps", type=int, default=12)
    parser.add_argument("--ids", nargs="*", help="only these ids (default: every registered one)")
    parser.add_argument(
        "--alfworld-data",
        help="a data root holding alfworld/json_2.1.1 (e.g. the real games); default: the tiny room",
    )
    args = parser.parse_args(argv)
    genenv_gym.register_envs()
    from genenv_gym.envs.alfworld.tiny import write_tiny_games

    alfworld_root = args.alfworld_data or str(write_tiny_games(tempfile.mkdtemp()))
    hashes = {}
    for env_id in args.ids or [e.id for e in ENV_ENTRIES]:
        start = time.perf_counter()
        try:
            hashes[env_id] = fingerprint(env_id, alfworld_root, args.seeds, args.max_steps)
        except Exception as error:  # reported, so that one id cannot hide the others
            hashes[env_id] = f"error: {type(error).__name__}: {error}"
        print(f"{env_id}: {hashes[env_id]} ({time.perf_counter() - start:.1f} s)", flush=True)
    Path(args.out).write_text(json.dumps(hashes, indent=1) + "\n")
    if args.compare:
        before = json.loads(Path(args.compare).read_text())
        changed = sorted(k for k in before.keys() | hashes.keys() if before.get(k) != hashes.get(k))
        print(f"{len(hashes) - len(changed)} of {len(before.keys() | hashes.keys())} ids unchanged")
        for env_id in changed:
            print(f"  changed: {env_id}: {before.get(env_id)} -> {hashes.get(env_id)}")
        return 1 if changed else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
