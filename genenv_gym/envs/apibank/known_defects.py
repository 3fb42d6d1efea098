"""Official-mode gold calls the official evaluator rejects, and why (checked against the real data in tests).

Writing each reference call as a model would (render_gold_call) and grading it with the official rules
fails these samples: 52 of the 399 level-1 and 40 of the 135 level-2 API-call samples. Each reason is a
property of the official code or data, reproduced on purpose in ``scoring="official"``.
"""

from __future__ import annotations

LIST_AS_TEXT = (
    "health_data is a list, but the official tool manager passes list parameters on as text: the API walks "
    "the characters and raises 'The health data has invalid format.' where the recorded call succeeded"
)
DEVICE_ID = (
    "the recorded call names its device parameter device_id, but the API's parameter is name: the tool "
    "manager refuses it (invalid parameter name)"
)
ATTENDEES_TEXT = (
    "attendees is a list parameter kept as text, while the recorded input holds a list: the rule compares "
    "inputs exactly, so they differ"
)
MEETING_TIME_KEY = (
    "DeleteMeeting's rule reads input['time'] when both outputs are 'success', but meetings have "
    "start_time: KeyError, which the evaluator counts as incorrect"
)
SCENE_CASE = (
    "the init database stores the scene's device names in lower case, while the recorded output has them "
    "capitalised: the outputs differ"
)
FRESH_STATE = (
    "the call depends on an earlier call of the same dialogue (a password change or reset, a deleted user, "
    "a new appointment), but each sample runs on fresh init databases"
)

DESCRIPTION_DRIFT = (
    "the reference is a ToolSearcher call whose recorded output holds an older API entry: the official "
    "ToolSearcher builds its output from the present-day API classes (for a token API, GetUserToken's entry "
    "first, whose description changed too), so the exact output comparison fails whatever the ranking"
)

_L1 = "level-1-given-desc/"
_L2 = "level-2-toolsearcher/"

#: Task id -> why the official rules reject its own reference call.
OFFICIAL_GOLD_FAILURES: dict[str, str] = {
    _L1 + "AddAgenda-AddMeeting-GetUserToken-level-2-3.jsonl#1": ATTENDEES_TEXT,
    _L1 + "AddAgenda-AddMeeting-GetUserToken-level-2-3.jsonl#2": ATTENDEES_TEXT,
    _L1 + "AddMeeting-level-1-1.jsonl#2": ATTENDEES_TEXT,
    _L1 + "CancelRegistration-RecordHealthData-QueryRegistration-level-2-1.jsonl#2": LIST_AS_TEXT,
    _L1 + "CancelRegistration-RecordHealthData-QueryRegistration-level-2-2.jsonl#2": LIST_AS_TEXT,
    _L1 + "CancelRegistration-RecordHealthData-level-2-1.jsonl#2": LIST_AS_TEXT,
    _L1 + "CancelRegistration-RecordHealthData-level-2-2.jsonl#2": LIST_AS_TEXT,
    _L1 + "CancelRegistration-RecordHealthData-level-2-3.jsonl#2": LIST_AS_TEXT,
    _L1 + "CancelRegistration-RecordHealthData-level-2-4.jsonl#2": LIST_AS_TEXT,
    _L1 + "CancelTimedSwitch-level-1-1.jsonl#0": DEVICE_ID,
    _L1 + "CancelTimedSwitch-level-1-2.jsonl#0": DEVICE_ID,
    _L1 + "CancelTimedSwitch-level-1-3.jsonl#0": DEVICE_ID,
    _L1 + "CancelTimedSwitch-level-1-4.jsonl#0": DEVICE_ID,
    _L1 + "CancelTimedSwitch-level-1-5.jsonl#0": DEVICE_ID,
    _L1 + "DeleteMeeting-level-1-1.jsonl#2": MEETING_TIME_KEY,
    _L1 + "EmergencyKnowledge-ModifyRegistration-RecordHealthData-level-2-2.jsonl#4": LIST_AS_TEXT,
    _L1 + "EmergencyKnowledge-ModifyRegistration-RecordHealthData-level-2-3.jsonl#4": LIST_AS_TEXT,
    _L1 + "ForgotPassword-ModifyPassword-GetUserToken-level-2-1.jsonl#2": FRESH_STATE,
    _L1 + "ForgotPassword-RegisterUser-DeleteAccount-GetUserToken-level-2-1.jsonl#2": FRESH_STATE,
    _L1 + "ForgotPassword-RegisterUser-DeleteAccount-GetUserToken-level-2-1.jsonl#4": FRESH_STATE,
    _L1 + "ForgotPassword-RegisterUser-DeleteAccount-GetUserToken-level-2-1.jsonl#8": FRESH_STATE,
    _L1 + "ForgotPassword-level-1-1.jsonl#2": FRESH_STATE,
    _L1 + "GetMeeting-level-1-1.jsonl#2": ATTENDEES_TEXT,
    _L1 + "GetMeeting-level-1-2.jsonl#2": ATTENDEES_TEXT,
    _L1 + "GetToday-ModifyMeeting-ModifyAlarm-GetUserToken-level-2-1.jsonl#4": ATTENDEES_TEXT,
    _L1 + "GetToday-ModifyMeeting-ModifyAlarm-GetUserToken-level-2-2.jsonl#4": ATTENDEES_TEXT,
    _L1 + "ModifyMeeting-level-1-1.jsonl#2": ATTENDEES_TEXT,
    _L1 + "ModifyMeeting-level-1-2.jsonl#2": ATTENDEES_TEXT,
    _L1 + "ModifyMeeting-level-1-3.jsonl#2": ATTENDEES_TEXT,
    _L1 + "ModifyPassword-ForgotPassword-DeleteAccount-GetUserToken-level-2-3.jsonl#2": FRESH_STATE,
    _L1 + "ModifyPassword-ForgotPassword-DeleteAccount-GetUserToken-level-2-3.jsonl#4": FRESH_STATE,
    _L1 + "QueryMeeting-level-1-1.jsonl#2": ATTENDEES_TEXT,
    _L1 + "QueryRegistration-SymptomSearch-RecordHealthData-level-2-1.jsonl#4": LIST_AS_TEXT,
    _L1 + "QueryRegistration-SymptomSearch-RecordHealthData-level-2-2.jsonl#4": LIST_AS_TEXT,
    _L1 + "QueryScene-level-1-1.jsonl#0": SCENE_CASE,
    _L1 + "QueryScene-level-1-2.jsonl#0": SCENE_CASE,
    _L1 + "QueryScene-level-1-3.jsonl#0": SCENE_CASE,
    _L1 + "QueryScene-level-1-4.jsonl#0": SCENE_CASE,
    _L1 + "QueryScene-level-1-5.jsonl#0": SCENE_CASE,
    _L1 + "RecordHealthData-AppointmentRegistration-EmergencyKnowledge-level-2-1.jsonl#0": LIST_AS_TEXT,
    _L1 + "RecordHealthData-AppointmentRegistration-EmergencyKnowledge-level-2-2.jsonl#0": LIST_AS_TEXT,
    _L1 + "RecordHealthData-AppointmentRegistration-EmergencyKnowledge-level-2-3.jsonl#0": LIST_AS_TEXT,
    _L1 + "RecordHealthData-AppointmentRegistration-EmergencyKnowledge-level-2-4.jsonl#0": LIST_AS_TEXT,
    _L1 + "RecordHealthData-AppointmentRegistration-EmergencyKnowledge-level-2-5.jsonl#0": LIST_AS_TEXT,
    _L1 + "RecordHealthData-AppointmentRegistration-QueryRegistration-level-2-1.jsonl#0": LIST_AS_TEXT,
    _L1 + "RecordHealthData-AppointmentRegistration-QueryRegistration-level-2-2.jsonl#0": LIST_AS_TEXT,
    _L1 + "RecordHealthData-AppointmentRegistration-QueryRegistration-level-2-2.jsonl#4": FRESH_STATE,
    _L1 + "RecordHealthData-level-1-1.jsonl#0": LIST_AS_TEXT,
    _L1 + "RecordHealthData-level-1-2.jsonl#0": LIST_AS_TEXT,
    _L1 + "TimedSwitch-level-1-1.jsonl#0": DEVICE_ID,
    _L1 + "TimedSwitch-level-1-2.jsonl#0": DEVICE_ID,
    _L1 + "TimedSwitch-level-1-3.jsonl#0": DEVICE_ID,
    _L2 + "AddAgenda-level-3-1.jsonl#0": DESCRIPTION_DRIFT,
    _L2 + "AddAgenda-level-3-2.jsonl#0": DESCRIPTION_DRIFT,
    _L2 + "AddAlarm-level-3-1.jsonl#0": DESCRIPTION_DRIFT,
    _L2 + "AddAlarm-level-3-2.jsonl#0": DESCRIPTION_DRIFT,
    _L2 + "AddMeeting-level-3-1.jsonl#4": ATTENDEES_TEXT,
    _L2 + "AddMeeting-level-3-2.jsonl#0": DESCRIPTION_DRIFT,
    _L2 + "AddMeeting-level-3-2.jsonl#4": ATTENDEES_TEXT,
    _L2 + "AddReminder-level-3-1.jsonl#0": DESCRIPTION_DRIFT,
    _L2 + "DeleteAccount-level-3-1.jsonl#0": DESCRIPTION_DRIFT,
    _L2 + "DeleteAccount-level-3-2.jsonl#0": DESCRIPTION_DRIFT,
    _L2 + "DeleteAccount-level-3-3.jsonl#0": DESCRIPTION_DRIFT,
    _L2 + "DeleteAgenda-level-3-1.jsonl#0": DESCRIPTION_DRIFT,
    _L2 + "DeleteAgenda-level-3-2.jsonl#0": DESCRIPTION_DRIFT,
    _L2 + "DeleteAlarm-level-3-1.jsonl#0": DESCRIPTION_DRIFT,
    _L2 + "DeleteMeeting-level-3-1.jsonl#0": DESCRIPTION_DRIFT,
    _L2 + "DeleteMeeting-level-3-1.jsonl#4": MEETING_TIME_KEY,
    _L2 + "DeleteMeeting-level-3-2.jsonl#0": DESCRIPTION_DRIFT,
    _L2 + "DeleteMeeting-level-3-2.jsonl#4": MEETING_TIME_KEY,
    _L2 + "DeleteReminder-level-3-1.jsonl#0": DESCRIPTION_DRIFT,
    _L2 + "EmergencyKnowledge-level-3-1.jsonl#0": DESCRIPTION_DRIFT,
    _L2 + "ModifyAgenda-level-3-1.jsonl#0": DESCRIPTION_DRIFT,
    _L2 + "ModifyMeeting-level-3-1.jsonl#0": DESCRIPTION_DRIFT,
    _L2 + "ModifyMeeting-level-3-1.jsonl#4": ATTENDEES_TEXT,
    _L2 + "ModifyReminder-level-3-1.jsonl#0": DESCRIPTION_DRIFT,
    _L2 + "QueryAlarm-level-3-1.jsonl#0": DESCRIPTION_DRIFT,
    _L2 + "QueryHistoryToday-level-3-2.jsonl#0": DESCRIPTION_DRIFT,
    _L2 + "QueryHistoryToday-level-3-3.jsonl#0": DESCRIPTION_DRIFT,
    _L2 + "QueryMeeting-level-3-1.jsonl#0": DESCRIPTION_DRIFT,
    _L2 + "QueryMeeting-level-3-1.jsonl#4": ATTENDEES_TEXT,
    _L2 + "QueryMeeting-level-3-2.jsonl#0": DESCRIPTION_DRIFT,
    _L2 + "QueryMeeting-level-3-2.jsonl#4": ATTENDEES_TEXT,
    _L2 + "QueryRegistration-level-3-1.jsonl#0": DESCRIPTION_DRIFT,
    _L2 + "QueryRegistration-level-3-2.jsonl#0": DESCRIPTION_DRIFT,
    _L2 + "QueryStock-level-3-1.jsonl#0": DESCRIPTION_DRIFT,
    _L2 + "RecordHealthData-level-3-1.jsonl#0": DESCRIPTION_DRIFT,
    _L2 + "RecordHealthData-level-3-1.jsonl#2": LIST_AS_TEXT,
    _L2 + "RecordHealthData-level-3-2.jsonl#0": DESCRIPTION_DRIFT,
    _L2 + "RecordHealthData-level-3-2.jsonl#2": LIST_AS_TEXT,
    _L2 + "RecordHealthData-level-3-3.jsonl#0": DESCRIPTION_DRIFT,
    _L2 + "RecordHealthData-level-3-3.jsonl#2": LIST_AS_TEXT,
}
