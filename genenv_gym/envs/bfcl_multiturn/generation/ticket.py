"""How the generator uses ``TicketAPI``: its docs, call samplers (tickets of the queue) and a random
queue of the logged-in user's and others' tickets."""

from __future__ import annotations

from typing import Any

import numpy as np

from genenv_gym.envs.bfcl_multiturn.generation.class_spec import DICT, INTEGER, STRING, ClassSpec, FunctionDoc
from genenv_gym.envs.bfcl_multiturn.generation.steps import Sampler, Step, make_step, pick
from genenv_gym.envs.bfcl_multiturn.generation.vocabulary import NAMES, WORDS

_DOCS: dict[str, FunctionDoc] = {
    "create_ticket": (
        "Create a ticket owned by the logged-in user.",
        (
            ("title", STRING, "Title.", True),
            ("description", STRING, "Description.", False),
            ("priority", INTEGER, "Priority 1-5 (default 1).", False),
        ),
    ),
    "get_ticket": ("Get a ticket by id.", (("ticket_id", INTEGER, "Ticket id.", True),)),
    "close_ticket": ("Close a ticket.", (("ticket_id", INTEGER, "Ticket id.", True),)),
    "resolve_ticket": (
        "Resolve a ticket with a resolution text.",
        (("ticket_id", INTEGER, "Ticket id.", True), ("resolution", STRING, "How it was resolved.", True)),
    ),
    "edit_ticket": (
        "Change fields (title, description, status, priority) of a ticket.",
        (("ticket_id", INTEGER, "Ticket id.", True), ("updates", DICT, "Field name -> new value.", True)),
    ),
    "get_user_tickets": (
        "The logged-in user's tickets, optionally with one status.",
        (("status", STRING, "Status to keep.", False),),
    ),
}


def _samplers() -> list[Sampler]:
    def ids(api, closed: bool = True) -> list[int]:
        return [t["id"] for t in api.ticket_queue if closed or t["status"] != "Closed"]

    def create(api, rng):
        kwargs = {
            "title": f"{pick(rng, WORDS)} {pick(rng, ('broken', 'slow', 'missing', 'request'))}",
            "description": f"the {pick(rng, WORDS)} needs attention",
            "priority": int(rng.integers(1, 6)),
        }
        return make_step(
            "create_ticket",
            kwargs,
            "open a ticket titled {title} with description {description} and priority {priority}",
            "open a ticket titled {title} with description {description} and the priority I need",
            "priority",
        )

    def get(api, rng):
        if not ids(api):
            return None
        return make_step(
            "get_ticket",
            {"ticket_id": pick(rng, ids(api))},
            "show me ticket {ticket_id}",
            "show me my ticket",
            "ticket id",
        )

    def close(api, rng):
        if not ids(api, closed=False):
            return None
        return make_step(
            "close_ticket",
            {"ticket_id": pick(rng, ids(api, False))},
            "close ticket {ticket_id}",
            "close my ticket",
            "ticket id",
        )

    def resolve(api, rng):
        if not ids(api, closed=False):
            return None
        kwargs = {"ticket_id": pick(rng, ids(api, False)), "resolution": f"fixed the {pick(rng, WORDS)}"}
        return make_step(
            "resolve_ticket",
            kwargs,
            "resolve ticket {ticket_id} with the note {resolution}",
            "resolve ticket {ticket_id}",
            "note",
        )

    def edit(api, rng):
        if not ids(api, closed=False):
            return None
        kwargs = {"ticket_id": pick(rng, ids(api, False)), "updates": {"priority": int(rng.integers(1, 6))}}
        step = make_step("edit_ticket", kwargs, "")
        phrase = f"set the priority of ticket {kwargs['ticket_id']} to {kwargs['updates']['priority']}"
        return Step(step.call, phrase)

    def mine(api, rng):
        status = pick(rng, ("Open", "Closed", "Resolved"))
        return make_step("get_user_tickets", {"status": status}, "list my tickets whose status is {status}")

    return [create, get, close, resolve, edit, mine]


def _config(rng: np.random.Generator, size: int) -> dict[str, Any]:
    user = pick(rng, NAMES)
    queue = []
    for i in range(int(rng.integers(1, 2 * size + 2))):
        queue.append(
            {
                "id": i + 1,
                "title": f"{pick(rng, WORDS)} issue",
                "description": f"the {pick(rng, WORDS)} is down",
                "status": pick(rng, ("Open", "Open", "Closed")),
                "priority": int(rng.integers(1, 6)),
                "created_by": user if rng.random() < 0.8 else pick(rng, NAMES),
            }
        )
    return {"ticket_queue": queue, "ticket_counter": len(queue) + 1, "current_user": user}


SPEC = ClassSpec(
    "TicketAPI",
    "This tool belongs to a support ticketing system.",
    _DOCS,
    _config,
    _samplers(),
)
