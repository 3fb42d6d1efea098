"""Compare our TicketAPI with the official bfcl-eval ``TicketAPI`` on random call sequences.

Usage: python benchmarks/bfcl_multiturn_ticket_crosscheck.py PATH/TO/func_source_code/ticket_api.py

Both backends start from the same config and get the same seeded calls; every rendered
result and the final state must be equal (edits with several invalid fields are left out:
the official message joins a set, so its order is not deterministic).
"""

from __future__ import annotations

import copy
import importlib.util
import random
import sys

from genenv_gym.envs.bfcl_multiturn.executor import format_result
from genenv_gym.envs.bfcl_multiturn.ticket_api import TicketAPI

CONFIG = {
    "ticket_queue": [
        {"id": 1, "title": "A", "description": "", "status": "Open", "priority": 2,
         "created_by": "ada"},
        {"id": 2, "title": "B", "description": "x", "status": "Closed", "priority": 4,
         "created_by": "bob"},
    ],
    "ticket_counter": 3,
    "current_user": None,
}  # fmt: skip


def _random_call(rng: random.Random) -> tuple[str, dict]:
    """One random call with plausible and implausible arguments."""
    tid = rng.choice([1, 2, 3, 4, 9])
    return rng.choice(
        [
            ("create_ticket", {"title": "t", "priority": rng.choice([0, 1, 3, 5, 6])}),
            ("get_ticket", {"ticket_id": tid}),
            ("close_ticket", {"ticket_id": tid}),
            ("resolve_ticket", {"ticket_id": tid, "resolution": "done"}),
            ("edit_ticket", {"ticket_id": tid, "updates": rng.choice(
                [{"priority": 1}, {"status": "Open", "title": None}, {"owner": "z"}])}),
            ("ticket_login", {"username": rng.choice(["ada", "bob", ""]), "password": "p"}),
            ("ticket_get_login_status", {}),
            ("logout", {}),
            ("get_user_tickets", {"status": rng.choice([None, "open", "Closed"])}),
        ]
    )  # fmt: skip


def _render(api: object, name: str, kwargs: dict) -> str:
    try:
        return format_result(getattr(api, name)(**kwargs))
    except Exception as e:
        return f"Error during execution: {e}"


def main(path: str, sequences: int = 300, length: int = 25) -> int:
    """Run seeded sequences on both; print mismatches and return their count."""
    spec = importlib.util.spec_from_file_location("official_ticket_api", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    bad = 0
    for seed in range(sequences):
        rng = random.Random(seed)
        official, ours = module.TicketAPI(), TicketAPI()
        official._load_scenario(copy.deepcopy(CONFIG))
        ours._load_scenario(CONFIG)
        for _ in range(length):
            name, kwargs = _random_call(rng)
            a, b = _render(official, name, kwargs), _render(ours, name, kwargs)
            if a != b:
                bad += 1
                print(f"seed {seed} MISMATCH {name}({kwargs}): {a!r} vs {b!r}")
        for attr in TicketAPI.STATE_ATTRIBUTES:
            if getattr(official, attr) != getattr(ours, attr):
                bad += 1
                print(f"seed {seed} STATE MISMATCH {attr}")
    print(f"{sequences} sequences x {length} calls: {bad} mismatches")
    return bad


if __name__ == "__main__":
    sys.exit(1 if main(sys.argv[1]) else 0)
