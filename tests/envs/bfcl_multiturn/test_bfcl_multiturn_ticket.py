"""TicketAPI backend of BFCL multi-turn: official defaults, flows, errors, config isolation."""

from __future__ import annotations

from genenv_gym.envs.bfcl_multiturn.executor import execute_call
from genenv_gym.envs.bfcl_multiturn.ticket_api import TicketAPI


def _api(**config: object) -> TicketAPI:
    api = TicketAPI()
    api._load_scenario(dict(config))
    return api


def test_defaults_and_login_required() -> None:
    api = _api()
    assert (api.ticket_queue, api.ticket_counter, api.current_user) == ([], 1, None)
    assert api.create_ticket("t") == {"error": "User not authenticated. Please log in to create a ticket."}
    assert api.get_user_tickets() == [{"error": "User not authenticated. Please log in to view tickets."}]
    assert api.logout() == {"success": False}
    assert api.ticket_login("", "pw") == {"success": False}


def test_create_edit_resolve_close_flow() -> None:
    api = _api(current_user="ada", ticket_counter=7)
    ticket = api.create_ticket("Printer", "jams", 3)
    assert ticket == {
        "id": 7,
        "title": "Printer",
        "description": "jams",
        "status": "Open",
        "priority": 3,
        "created_by": "ada",
    }
    assert api.ticket_counter == 8
    assert api.create_ticket("x", priority=6) == {
        "error": "Invalid priority. Priority must be between 1 and 5."
    }
    assert api.edit_ticket(7, {"priority": 5, "title": None}) == {
        "status": "Ticket 7 has been updated successfully."
    }
    assert api.get_ticket(7)["priority"] == 5 and api.get_ticket(7)["title"] == "Printer"
    assert api.edit_ticket(7, {"owner": "b", "id": 1}) == {"error": "Invalid fields for update: id, owner"}
    assert api.resolve_ticket(7, "fixed")["status"].endswith("resolved successfully.")
    assert api.resolve_ticket(7, "again") == {"error": "Ticket with ID 7 is already resolved."}
    assert api.close_ticket(7) == {"status": "Ticket 7 has been closed successfully."}
    assert api.close_ticket(7) == {"error": "Ticket with ID 7 is already closed."}
    assert api.get_ticket(99) == {"error": "Ticket with ID 99 not found."}
    assert [t["id"] for t in api.get_user_tickets("CLOSED")] == [7]


def test_loading_copies_the_config() -> None:
    config = {"ticket_queue": [{"id": 1, "status": "Open", "created_by": "b"}]}
    api = TicketAPI()
    api._load_scenario(config)
    api.close_ticket(1)
    assert config["ticket_queue"][0]["status"] == "Open"


def test_executor_renders_lists_with_str_and_rejects_private_names() -> None:
    instances = {"TicketAPI": _api(current_user="ada")}
    assert execute_call(instances, "get_user_tickets", {}) == "[]"
    assert execute_call(instances, "_find_ticket", {"ticket_id": 1}).startswith("Error during execution: ")
    out = execute_call(instances, "edit_ticket", {"ticket_id": 1})
    assert out.startswith("Error during execution: ")
