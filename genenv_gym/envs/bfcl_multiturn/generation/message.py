"""How the generator uses ``MessageAPI``: its docs, call samplers (users and sent messages) and a random
workspace with users and an inbox."""

from __future__ import annotations

from typing import Any

import numpy as np

from genenv_gym.envs.bfcl_multiturn.generation.class_spec import STRING, ClassSpec, FunctionDoc
from genenv_gym.envs.bfcl_multiturn.generation.steps import Sampler, make_step, pick
from genenv_gym.envs.bfcl_multiturn.generation.vocabulary import NAMES, WORDS

_DOCS: dict[str, FunctionDoc] = {
    "list_users": ("All user names of the workspace.", ()),
    "get_user_id": ("The id of a user name.", (("user", STRING, "User name.", True),)),
    "send_message": (
        "Send a message to a user id.",
        (("receiver_id", STRING, "Receiver's user id.", True), ("message", STRING, "Text.", True)),
    ),
    "delete_message": (
        "Delete the latest message to a user id.",
        (("receiver_id", STRING, "User id.", True),),
    ),
    "view_messages_sent": ("Messages sent, by receiver.", ()),
    "add_contact": ("Add a user to the workspace.", (("user_name", STRING, "New user name.", True),)),
    "search_messages": ("Messages that contain a keyword.", (("keyword", STRING, "Keyword.", True),)),
}


def _samplers() -> list[Sampler]:
    def send(api, rng):
        others = sorted(i for i in api.user_map.values() if i != api.current_user)
        kwargs = {"receiver_id": pick(rng, others), "message": f"the {pick(rng, WORDS)} is ready"}
        return make_step(
            "send_message",
            kwargs,
            "send {message} to user id {receiver_id}",
            "send {message} to my colleague",
            "user id",
        )

    def user_id(api, rng):
        return make_step(
            "get_user_id", {"user": pick(rng, sorted(api.user_map))}, "find the user id of {user}"
        )

    def add(api, rng):
        free = [n for n in NAMES if n not in api.user_map]
        if not free:
            return None
        return make_step(
            "add_contact",
            {"user_name": pick(rng, free)},
            "add {user_name} as a contact",
            "add a new contact",
            "name",
        )

    def search(api, rng):
        return make_step("search_messages", {"keyword": pick(rng, WORDS)}, "search my messages for {keyword}")

    def view(api, rng):
        return make_step("view_messages_sent", {}, "show the messages I have sent")

    def delete(api, rng):
        receivers = sorted({next(iter(m)) for m in api.inbox})
        if not receivers:
            return None
        return make_step(
            "delete_message",
            {"receiver_id": pick(rng, receivers)},
            "delete my latest message to {receiver_id}",
        )

    def users(api, rng):
        return make_step("list_users", {}, "list all users of the workspace")

    return [send, user_id, add, search, view, delete, users]


def _config(rng: np.random.Generator, size: int) -> dict[str, Any]:
    names = [str(n) for n in rng.choice(NAMES, size + 2, replace=False)]
    user_map = {name: f"USR{i + 1:03d}" for i, name in enumerate(names)}
    ids = list(user_map.values())
    inbox = [
        {pick(rng, ids[1:]): f"about the {pick(rng, WORDS)}"} for _ in range(int(rng.integers(1, size + 3)))
    ]
    return {
        "user_count": len(user_map),
        "user_map": user_map,
        "inbox": inbox,
        "message_count": len(inbox),
        "current_user": ids[0],
        "random_seed": int(rng.integers(1, 10**6)),
    }


SPEC = ClassSpec(
    "MessageAPI",
    "This tool belongs to a workspace messaging system.",
    _DOCS,
    _config,
    _samplers(),
)
