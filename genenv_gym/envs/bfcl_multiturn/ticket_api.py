"""TicketAPI: BFCL multi-turn's support-ticket backend, with the official behaviour.

State: ``ticket_queue`` (list of ticket dicts), ``ticket_counter`` (next id) and
``current_user``; loaded from an ``initial_config`` entry (deep-copied) with the official
defaults (empty queue, counter 1, nobody logged in). Return values and error dicts match
BFCL's ``TicketAPI``.
"""

from __future__ import annotations

from typing import Any

from genenv_gym.envs.bfcl_multiturn.state_copy import copy_state

DEFAULT_STATE: dict[str, Any] = {"ticket_queue": [], "ticket_counter": 1, "current_user": None}
_EDITABLE = {"title", "description", "status", "priority"}


class TicketAPI:
    """The ticketing-system backend: log in, create, view, edit, resolve and close tickets."""

    METHODS = (
        "create_ticket",
        "get_ticket",
        "close_ticket",
        "resolve_ticket",
        "edit_ticket",
        "ticket_login",
        "ticket_get_login_status",
        "logout",
        "get_user_tickets",
    )
    STATE_ATTRIBUTES = ("ticket_queue", "ticket_counter", "current_user")

    def __init__(self, scenario: dict | None = None, long_context: bool = False) -> None:
        """Create a backend in the official default state, or loaded from ``scenario`` (the same as
        ``_load_scenario(scenario, long_context)`` after construction)."""
        self._load_scenario(scenario or {}, long_context=long_context)
        self._api_description = (
            "This tool belongs to the ticketing system that is part of a company, which allows "
            "users to create, view, and manage support business tickets."
        )

    def _load_scenario(self, scenario: dict, long_context: bool = False) -> None:
        """Load state from an ``initial_config`` entry, defaulting missing keys."""
        state = copy_state({**DEFAULT_STATE, **{k: v for k, v in scenario.items() if k in DEFAULT_STATE}})
        self.ticket_queue: list[dict[str, Any]] = state["ticket_queue"]
        self.ticket_counter: int = state["ticket_counter"]
        self.current_user: str | None = state["current_user"]

    def create_ticket(self, title: str, description: str = "", priority: int = 1) -> dict:
        """Create a ticket owned by the logged-in user; returns the ticket."""
        if not self.current_user:
            return {"error": "User not authenticated. Please log in to create a ticket."}
        if priority < 1 or priority > 5:
            return {"error": "Invalid priority. Priority must be between 1 and 5."}
        ticket = {
            "id": self.ticket_counter,
            "title": title,
            "description": description,
            "status": "Open",
            "priority": priority,
            "created_by": self.current_user,
        }
        self.ticket_queue.append(ticket)
        self.ticket_counter += 1
        return ticket

    def get_ticket(self, ticket_id: int) -> dict:
        """The ticket with this id, or an error dict."""
        ticket = self._find_ticket(ticket_id)
        if not ticket:
            return {"error": f"Ticket with ID {ticket_id} not found."}
        return ticket

    def close_ticket(self, ticket_id: int) -> dict:
        """Set a ticket's status to Closed."""
        ticket = self._find_ticket(ticket_id)
        if not ticket:
            return {"error": f"Ticket with ID {ticket_id} not found."}
        if ticket["status"] == "Closed":
            return {"error": f"Ticket with ID {ticket_id} is already closed."}
        ticket["status"] = "Closed"
        return {"status": f"Ticket {ticket_id} has been closed successfully."}

    def resolve_ticket(self, ticket_id: int, resolution: str) -> dict:
        """Set a ticket's status to Resolved and record the resolution."""
        ticket = self._find_ticket(ticket_id)
        if not ticket:
            return {"error": f"Ticket with ID {ticket_id} not found."}
        if ticket["status"] == "Resolved":
            return {"error": f"Ticket with ID {ticket_id} is already resolved."}
        ticket["status"] = "Resolved"
        ticket["resolution"] = resolution
        return {"status": f"Ticket {ticket_id} has been resolved successfully."}

    def edit_ticket(self, ticket_id: int, updates: dict[str, Any]) -> dict:
        """Update title/description/status/priority (None values are skipped)."""
        ticket = self._find_ticket(ticket_id)
        if not ticket:
            return {"error": f"Ticket with ID {ticket_id} not found."}
        invalid = set(updates.keys()) - _EDITABLE
        if invalid:
            # sorted so the message is deterministic (the official set order is not)
            return {"error": f"Invalid fields for update: {', '.join(sorted(invalid))}"}
        for key, value in updates.items():
            if value is not None:
                ticket[key] = value
        return {"status": f"Ticket {ticket_id} has been updated successfully."}

    def _find_ticket(self, ticket_id: int) -> dict | None:
        """The first ticket whose id equals ``ticket_id``, else None."""
        for ticket in self.ticket_queue:
            if ticket["id"] == ticket_id:
                return ticket
        return None

    def ticket_login(self, username: str, password: str) -> dict:
        """Log in with any non-empty username and password."""
        if username and password:
            self.current_user = username
            return {"success": True}
        return {"success": False}

    def ticket_get_login_status(self) -> dict:
        """Whether someone is logged in."""
        return {"login_status": bool(self.current_user)}

    def logout(self) -> dict:
        """Log the current user out."""
        if self.current_user:
            self.current_user = None
            return {"success": True}
        return {"success": False}

    def get_user_tickets(self, status: str | None = None) -> list[dict]:
        """The logged-in user's tickets, optionally filtered by status (case-insensitive)."""
        if not self.current_user:
            return [{"error": "User not authenticated. Please log in to view tickets."}]
        tickets = [t for t in self.ticket_queue if t["created_by"] == self.current_user]
        if status:
            tickets = [t for t in tickets if t["status"].lower() == status.lower()]
        return tickets
