"""Compare our TicketAPI with the official bfcl-eval ``TicketAPI`` on random call sequences.

Usage: python benchmarks/bfcl_multiturn_ticket_crosscheck.py PATH/TO/func_source_code/ticket_api.py

Both backends start from the same config and get the same seeded calls; after every call
the rendered results and the state must be equal (edits with several invalid fields are left out:
the official message joins a set, so its order is not deterministic).
"""

from __future__ import annotations

import random

from bfcl_multiturn_official import SequenceCheck, rng_only

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


CHECK = SequenceCheck(TicketAPI, rng_only(_random_call), configs=[CONFIG], sequences=300, length=25)

if __name__ == "__main__":
    CHECK.cli()
