"""MessageAPI: BFCL multi-turn's workspace-messaging backend, with the official behaviour.

State: ``generated_ids``, ``user_count``, ``user_map`` (name -> id), ``inbox`` (list of
one-item ``{receiver_id: message}`` dicts), ``message_count``, ``current_user``; loaded
(deep-copied) from an ``initial_config`` entry with the official defaults. Message ids come
from ``random.Random(random_seed)`` (official default seed 200191), so they match the
official ids call for call; like the official, ``message_id`` is the ``{"new_id": n}`` dict.
"""

from __future__ import annotations

import random
from typing import Any

from genenv_gym.envs.bfcl_multiturn.state_copy import copy_state

DEFAULT_STATE: dict[str, Any] = {
    "generated_ids": set(),
    "user_count": 4,
    "user_map": {"Alice": "USR001", "Bob": "USR002", "Catherine": "USR003", "Daniel": "USR004"},
    "inbox": [
        {"USR002": "My name is Alice. I want to connect."},
        {"USR003": "Could you upload the file?"},
        {"USR004": "Could you upload the file?"},
    ],
    "message_count": 3,
    "current_user": None,
}
DEFAULT_SEED = 200191
_NOT_LOGGED_IN = {"error": "No user is currently logged in."}


def _first(message: dict[str, str]) -> tuple[str, str]:
    """The (receiver, text) of a one-item inbox entry; an empty entry raises IndexError
    with the official message ("list index out of range")."""
    return list(message.items())[0]  # noqa: RUF015 (same exception as the official code)


class MessageAPI:
    """The messaging backend: users, login, sending, deleting and searching messages."""

    METHODS = (
        "list_users",
        "get_user_id",
        "message_login",
        "message_get_login_status",
        "send_message",
        "delete_message",
        "view_messages_sent",
        "add_contact",
        "search_messages",
        "get_message_stats",
    )
    STATE_ATTRIBUTES = tuple(DEFAULT_STATE)

    def __init__(self, scenario: dict | None = None, long_context: bool = False) -> None:
        """Create a backend in the official default state, or loaded from ``scenario`` (the same as
        ``_load_scenario(scenario, long_context)`` after construction)."""
        self._load_scenario(scenario or {}, long_context=long_context)
        self._api_description = (
            "This tool belongs to the Message API, which is used to manage user interactions in a workspace."
        )

    def _load_scenario(self, scenario: dict, long_context: bool = False) -> None:
        """Load state from an ``initial_config`` entry, defaulting missing keys."""
        state = copy_state({**DEFAULT_STATE, **{k: v for k, v in scenario.items() if k in DEFAULT_STATE}})
        self._random = random.Random(scenario.get("random_seed", DEFAULT_SEED))
        self.generated_ids = state["generated_ids"]
        self.user_count: int = state["user_count"]
        self.user_map: dict[str, str] = state["user_map"]
        self.inbox: list[dict[str, str]] = state["inbox"]
        self.message_count: int = state["message_count"]
        self.current_user: str | None = state["current_user"]

    def _generate_id(self) -> dict[str, int]:
        """A new five-digit id not generated before, drawn from the seeded generator."""
        new_id = self._random.randint(10000, 99999)
        while new_id in self.generated_ids:
            new_id = self._random.randint(10000, 99999)
        self.generated_ids.add(new_id)
        return {"new_id": new_id}

    def list_users(self) -> dict:
        """All user names in the workspace."""
        return {"user_list": list(self.user_map.keys())}

    def get_user_id(self, user: str) -> dict:
        """The id of a user name."""
        if user not in self.user_map:
            return {"error": f"User '{user}' not found in the workspace."}
        return {"user_id": self.user_map.get(user)}

    def message_login(self, user_id: str) -> dict:
        """Log in as an existing user id."""
        if user_id not in list(self.user_map.values()):
            return {"login_status": False, "message": f"User ID '{user_id}' not found."}
        self.current_user = user_id
        return {"login_status": True, "message": f"User '{user_id}' logged in successfully."}

    def message_get_login_status(self) -> dict:
        """Whether someone is logged in."""
        return {"login_status": bool(self.current_user)}

    def send_message(self, receiver_id: str, message: str) -> dict:
        """Send a message to a user id (appended to the inbox)."""
        if not self.current_user:
            return dict(_NOT_LOGGED_IN)
        if receiver_id not in self.user_map.values():
            return {"error": f"Receiver ID '{receiver_id}' not found."}
        message_id = self._generate_id()
        self.inbox.append({receiver_id: message})
        self.message_count += 1
        return {
            "sent_status": True,
            "message_id": message_id,
            "message": f"Message sent to '{receiver_id}' successfully.",
        }

    def delete_message(self, receiver_id: str) -> dict:
        """Delete the latest message to ``receiver_id``."""
        if not self.current_user:
            return dict(_NOT_LOGGED_IN)
        for message in self.inbox[::-1]:
            receiver, _ = _first(message)
            if receiver == receiver_id:
                self.inbox.remove(message)
                return {
                    "deleted_status": True,
                    "receiver_id": receiver,
                    "message": f"Receiver {receiver_id}'s latest message deleted successfully.",
                }
        return {"error": f"Receiver ID {receiver_id} not found."}

    def view_messages_sent(self) -> dict:
        """Messages in the inbox grouped by receiver."""
        if not self.current_user:
            return dict(_NOT_LOGGED_IN)
        sent: dict[str, list[str]] = {}
        for message in self.inbox:
            receiver, content = _first(message)
            sent.setdefault(receiver, []).append(content)
        return {"messages": sent}

    def add_contact(self, user_name: str) -> dict:
        """Add a user with the next ``USRnnn`` id."""
        if user_name in self.user_map:
            return {"error": f"User name '{user_name}' already exists."}
        self.user_count += 1
        user_id = f"USR{str(self.user_count).zfill(3)}"
        if user_id in self.user_map.values():
            return {"error": f"User ID '{user_id}' already exists."}
        self.user_map[user_name] = user_id
        return {
            "added_status": True,
            "user_id": user_id,
            "message": f"Contact '{user_name}' added successfully.",
        }

    def search_messages(self, keyword: str) -> dict:
        """Messages containing ``keyword`` (case-insensitive)."""
        if not self.current_user:
            return dict(_NOT_LOGGED_IN)
        keyword_lower = keyword.lower()
        results = []
        for message in self.inbox:
            receiver, content = _first(message)
            if keyword_lower in content.lower():
                results.append({"receiver_id": receiver, "message": content})
        return {"results": results}

    def get_message_stats(self) -> dict:
        """Number of messages and of distinct receivers."""
        if not self.current_user:
            return dict(_NOT_LOGGED_IN)
        contacts = {_first(m)[0] for m in self.inbox}
        return {"stats": {"received_count": len(self.inbox), "total_contacts": len(contacts)}}
