"""Compare our MessageAPI with the official bfcl-eval ``MessageAPI`` on random call sequences.

Usage: python benchmarks/bfcl_multiturn_message_crosscheck.py PATH/TO/func_source_code/message_api.py

Both backends load the same config (official defaults, or a seeded custom one) and get the
same seeded calls; every rendered result and the final state must be equal.
"""

from __future__ import annotations

import copy
import importlib.util
import random
import sys

from genenv_gym.envs.bfcl_multiturn.executor import format_result
from genenv_gym.envs.bfcl_multiturn.message_api import MessageAPI

CONFIGS = [
    {},
    {"random_seed": 11, "user_map": {"Ann": "USR001", "Ben": "USR002"}, "user_count": 2,
     "inbox": [{"USR002": "Meet at noon"}], "message_count": 1, "current_user": "USR001"},
]  # fmt: skip


def _random_call(rng: random.Random) -> tuple[str, dict]:
    """One random call with plausible and implausible arguments."""
    uid = rng.choice(["USR001", "USR002", "USR003", "USR005", "X"])
    return rng.choice(
        [
            ("list_users", {}),
            ("get_user_id", {"user": rng.choice(["Alice", "Ann", "Zed"])}),
            ("message_login", {"user_id": uid}),
            ("message_get_login_status", {}),
            ("send_message", {"receiver_id": uid, "message": rng.choice(["file", "Noon"])}),
            ("delete_message", {"receiver_id": uid}),
            ("view_messages_sent", {}),
            ("add_contact", {"user_name": rng.choice(["Eve", "Bob", "Ben"])}),
            ("search_messages", {"keyword": rng.choice(["FILE", "noon", "zz"])}),
            ("get_message_stats", {}),
        ]
    )


def _render(api: object, name: str, kwargs: dict) -> str:
    try:
        return format_result(getattr(api, name)(**kwargs))
    except Exception as e:
        return f"Error during execution: {e}"


def main(path: str, sequences: int = 300, length: int = 25) -> int:
    """Run seeded sequences on both; print mismatches and return their count."""
    spec = importlib.util.spec_from_file_location("official_message_api", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    bad = 0
    for seed in range(sequences):
        rng = random.Random(seed)
        config = CONFIGS[seed % len(CONFIGS)]
        official, ours = module.MessageAPI(), MessageAPI()
        official._load_scenario(copy.deepcopy(config))
        ours._load_scenario(config)
        for _ in range(length):
            name, kwargs = _random_call(rng)
            a, b = _render(official, name, kwargs), _render(ours, name, kwargs)
            if a != b:
                bad += 1
                print(f"seed {seed} MISMATCH {name}({kwargs}): {a!r} vs {b!r}")
        for attr in MessageAPI.STATE_ATTRIBUTES:
            if getattr(official, attr) != getattr(ours, attr):
                bad += 1
                print(f"seed {seed} STATE MISMATCH {attr}")
    print(f"{sequences} sequences x {length} calls: {bad} mismatches")
    return bad


if __name__ == "__main__":
    sys.exit(1 if main(sys.argv[1]) else 0)
