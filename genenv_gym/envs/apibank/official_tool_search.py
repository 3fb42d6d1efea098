"""What the official ToolSearcher returns for the API it matched: that API's present-day entry.

The official ``ToolSearcher`` formats its best match from the API classes as they are in the code
(``name``, ``description``, ``input_parameters``, ``output_parameters``; GetUserToken's entry, its search
text ``desc_for_search`` included, first when the match takes a token), while the dialogues recorded the
entries of an older version of the code: "Get the user token." where the code now says "Get the user
token by username and password.". Its rule compares the output exactly, so a reference ToolSearcher call
whose recorded entry drifted fails officially whatever the ranking (see known_defects.DESCRIPTION_DRIFT).

No official code is copied here. :data:`PRESENT_DIGESTS` holds a digest of each API's present-day entry
(official code at commit 483554e; benchmarks/apibank_crosscheck.py checks every digest against it). A
recorded entry with that digest is the present-day entry verbatim and is returned as recorded; an API with
no such recording gets an entry built from our own descriptions (signatures.py), which, like the
present-day official text, equals none of its recorded entries. Official verdicts are therefore exact;
the text the model sees for a drifted API is ours.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any

from genenv_gym.envs.apibank.signatures import SIGNATURES

#: API name -> the first 16 hex digits of the sha256 of its present-day entry (see :func:`entry_digest`).
PRESENT_DIGESTS: dict[str, str] = {
    "GetUserToken": "43b2bc479e9e1c2b",
    "RegisterUser": "f8f404ffe44e5fb5",
    "DeleteAccount": "f01edaf6932c5e7d",
    "ModifyPassword": "0619d12f8ce29f8c",
    "ForgotPassword": "65fa84a43f3d8f13",
    "AddAgenda": "1dd56b04b82d58a4",
    "DeleteAgenda": "27754774c90cadca",
    "ModifyAgenda": "073e853537d35718",
    "QueryAgenda": "9a58574eeb36de6b",
    "AddAlarm": "5725de8509687493",
    "DeleteAlarm": "06e5a16a138f2b95",
    "ModifyAlarm": "92d6dcaacd09ce3a",
    "QueryAlarm": "c7ce4f3eb3baedb4",
    "AddMeeting": "29d464d0dc7227b9",
    "DeleteMeeting": "086aefd7242874c9",
    "ModifyMeeting": "3512be674733fd75",
    "QueryMeeting": "2e75446469eb29a8",
    "AddReminder": "a08f5dc70058633b",
    "DeleteReminder": "8b8af5584241b4f2",
    "ModifyReminder": "0866148c0f63f98e",
    "QueryReminder": "9a69dcab6090c9ca",
    "AppointmentRegistration": "993c54bfc7fc6e14",
    "CancelRegistration": "f883288d5597a0db",
    "ModifyRegistration": "ad37f0aa4c2f49cd",
    "QueryRegistration": "8a862682423af87b",
    "OpenBankAccount": "93800441a1500626",
    "QueryBalance": "d8c3f629690a7989",
    "QueryStock": "f44151c1fedcf9b8",
    "RecordHealthData": "a430322743ebbf59",
    "QueryHealthData": "a62d230bdec3c59e",
    "SymptomSearch": "703108182b46e00b",
    "EmergencyKnowledge": "9e54b9d775bba669",
    "BookHotel": "878c7b12a11827e1",
    "DeleteScene": "3d0f90ba557873fa",
    "QueryScene": "332ba21d613d5e7d",
    "TimedSwitch": "696a03deb3e3d43a",
    "CancelTimedSwitch": "ee318746cf44e7bc",
    "Calculator": "f961f4e35e217877",
    "Wiki": "a663b4c60199838f",
    "SearchEngine": "6479b4ecaebca1b4",
    "Dictionary": "fcc6ec8a068c2a41",
    "Translate": "6c3a0f4792ba3838",
    "ImageCaption": "323c1db57f9b957e",
    "SpeechRecognition": "9f35f75030aacbff",
    "DocumentQA": "3ef22e8f65d8c77f",
    "QueryHistoryToday": "09f553d8be7d50fa",
    "GetToday": "63599c4ff0b950a8",
    "PlayMusic": "ed2a1f258dcd7f17",
    "SendEmail": "f4d06d1fbf34d7d6",
}
_PREFIX = "ToolSearcher"


def entry_digest(entry: Mapping[str, Any]) -> str:
    """The digest of an entry: sha256 of its JSON (keys sorted, search text left out), 16 hex digits."""
    fields = {k: v for k, v in entry.items() if k != "desc_for_search"}
    text = json.dumps(fields, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def search_summary(name: str, description: str) -> str:
    """The official search text: the class name split at capitals, lower-cased, then the description."""
    return re.sub(r"([A-Z])", lambda m: " " + m.group(1).lower(), name).strip() + description


def _recorded_entries(recordings: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    entries: list[Mapping[str, Any]] = []
    for key, recorded in recordings.items():
        if key.startswith(_PREFIX + "{") and recorded.get("exception") is None:
            output = recorded["output"]
            entries += output if isinstance(output, list) else [output]
    return entries


def present_entry(name: str, recordings: Mapping[str, Any]) -> dict[str, Any]:
    """The API's present-day entry when a recording holds it verbatim, else ours (see the module doc)."""
    digest = PRESENT_DIGESTS.get(name)
    for entry in _recorded_entries(recordings):
        if isinstance(entry, Mapping) and entry.get("name") == name and entry_digest(entry) == digest:
            return {k: v for k, v in entry.items() if k != "desc_for_search"}
    return SIGNATURES[name].describe()


def official_output(name: str, recordings: Mapping[str, Any]) -> Any:
    """What the official ToolSearcher returns when ``name`` is its best match."""
    best = present_entry(name, recordings)
    if "token" not in best["input_parameters"]:
        return best
    user_token = present_entry("GetUserToken", recordings)
    user_token["desc_for_search"] = search_summary("GetUserToken", user_token["description"])
    return [user_token, best]


def matched_name(output: Any) -> str | None:
    """The API a ToolSearcher output is about (the last entry of a list), or None."""
    entry = output[-1] if isinstance(output, list) and output else output
    name = entry.get("name") if isinstance(entry, Mapping) else None
    return name if name in SIGNATURES else None
