"""MessageAPI backend of BFCL multi-turn: official defaults, seeded ids, errors, isolation."""

from __future__ import annotations

from genenv_gym.envs.bfcl_multiturn.executor import execute_call
from genenv_gym.envs.bfcl_multiturn.message_api import MessageAPI


def _api(**config: object) -> MessageAPI:
    api = MessageAPI()
    api._load_scenario(dict(config))
    return api


def test_defaults_login_and_errors() -> None:
    api = _api()
    assert api.list_users() == {"user_list": ["Alice", "Bob", "Catherine", "Daniel"]}
    assert api.send_message("USR002", "hi") == {"error": "No user is currently logged in."}
    assert api.message_login("USR999") == {
        "login_status": False,
        "message": "User ID 'USR999' not found.",
    }
    assert api.message_login("USR001")["login_status"] is True
    assert api.get_user_id("Zed") == {"error": "User 'Zed' not found in the workspace."}
    assert api.send_message("USR999", "x") == {"error": "Receiver ID 'USR999' not found."}


def test_seeded_message_ids_are_deterministic_and_unique() -> None:
    ids = []
    for _ in range(2):
        api = _api(current_user="USR001", random_seed=7)
        ids.append([api.send_message("USR002", str(i))["message_id"]["new_id"] for i in range(5)])
    assert ids[0] == ids[1] and len(set(ids[0])) == 5
    assert all(10000 <= i <= 99999 for i in ids[0])


def test_delete_view_search_stats_and_contacts() -> None:
    api = _api(current_user="USR001")
    api.send_message("USR003", "Second upload")
    assert api.delete_message("USR003")["receiver_id"] == "USR003"
    assert api.view_messages_sent()["messages"]["USR003"] == ["Could you upload the file?"]
    assert len(api.search_messages("UPLOAD")["results"]) == 2
    assert api.get_message_stats() == {"stats": {"received_count": 3, "total_contacts": 3}}
    assert api.delete_message("USR001") == {"error": "Receiver ID USR001 not found."}
    assert api.add_contact("Eve")["user_id"] == "USR005"
    assert api.add_contact("Eve") == {"error": "User name 'Eve' already exists."}


def test_config_is_copied_and_hostile_calls_are_outcomes() -> None:
    config = {"inbox": [{"USR002": "a"}], "current_user": "USR001"}
    api = MessageAPI()
    api._load_scenario(config)
    api.delete_message("USR002")
    assert config["inbox"] == [{"USR002": "a"}]
    instances = {"MessageAPI": api}
    for name in ["_generate_id", "__eq__", "_random"]:
        assert execute_call(instances, name, {}).startswith("Error during execution: ")
    assert execute_call(instances, "search_messages", {"keyword": 5}).startswith("Error during execution: ")
