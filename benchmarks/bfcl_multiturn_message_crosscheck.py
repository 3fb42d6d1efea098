"""Compare our MessageAPI with the official bfcl-eval ``MessageAPI`` on random call sequences.

Usage: python benchmarks/bfcl_multiturn_message_crosscheck.py PATH/TO/func_source_code/message_api.py

Both backends load the same config (official defaults, or a seeded custom one) and get the
same seeded calls; after every call the rendered results and the state must be equal.
"""

from __future__ import annotations

import random

from bfcl_multiturn_official import SequenceCheck, rng_only

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


CHECK = SequenceCheck(MessageAPI, rng_only(_random_call), configs=CONFIGS, sequences=300, length=25)

if __name__ == "__main__":
    CHECK.cli()
