"""The interface of every simulated API-Bank API: parameter names, types and which are required.

Names and types are those the official tool manager validates calls against (they decide the official
verdict: an unknown parameter name fails, an ``int`` parameter must be all digits, a ``bool`` is true only
for the text ``True``). The descriptions are this project's own one-line summaries; the official prompt's
descriptions are the API classes' docstring-like attributes, which are not copied here.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Param:
    """One input parameter of an API."""

    name: str
    type: str
    description: str
    required: bool = True


@dataclass(frozen=True)
class Signature:
    """One API: its name, a description, its inputs, its outputs and whether any input is free-form."""

    name: str
    description: str
    params: tuple[Param, ...]
    outputs: tuple[tuple[str, str, str], ...] = ()

    @property
    def param_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params)

    def param(self, name: str) -> Param | None:
        """The parameter called ``name`` (None when the API has none by that name)."""
        for p in self.params:
            if p.name == name:
                return p
        return None

    def describe(self) -> dict:
        """The API as the prompt shows it: name, description, input and output parameters."""
        return {
            "name": self.name,
            "description": self.description,
            "input_parameters": {p.name: {"type": p.type, "description": p.description} for p in self.params},
            "output_parameters": {n: {"type": t, "description": d} for n, t, d in self.outputs},
        }


def _p(name: str, type_: str, description: str, required: bool = True) -> Param:
    return Param(name, type_, description, required)


_TOKEN = _p("token", "str", "The user's authentication token (from GetUserToken).")
_STATUS = (("status", "str", "success or failed"),)
_DT = "Format: %Y-%m-%d %H:%M:%S"
_MEETING = (
    _TOKEN,
    _p("meeting_topic", "str", "The topic of the meeting."),
    _p("start_time", "str", f"The start time of the meeting. {_DT}"),
    _p("end_time", "str", f"The end time of the meeting. {_DT}"),
    _p("location", "str", "Where the meeting takes place."),
    _p("attendees", "list(str)", "The names of the attendees."),
)
_AGENDA = (
    _TOKEN,
    _p("content", "str", "What the agenda entry is about."),
    _p("time", "str", f"When it happens. {_DT}"),
    _p("location", "str", "Where it happens."),
)
_REMINDER = (
    _TOKEN,
    _p("content", "str", "What to be reminded of."),
    _p("time", "str", f"When to remind. {_DT}"),
)

SIGNATURES: dict[str, Signature] = {
    s.name: s
    for s in (
        Signature(
            "GetUserToken",
            "Returns the authentication token of a user given their username and password.",
            (_p("username", "str", "The user's username."), _p("password", "str", "The user's password.")),
            (("token", "str", "The user's token."),),
        ),
        Signature(
            "RegisterUser",
            "Creates a new user account and returns its token.",
            (
                _p("username", "str", "The new username."),
                _p("password", "str", "The new password."),
                _p("email", "str", "The user's email address."),
            ),
            (("token", "str", "The new user's token."),),
        ),
        Signature(
            "DeleteAccount",
            "Deletes the account that owns the token.",
            (_TOKEN,),
            _STATUS,
        ),
        Signature(
            "ModifyPassword",
            "Changes a user's password, given the old one.",
            (
                _TOKEN,
                _p("old_password", "str", "The current password."),
                _p("new_password", "str", "The new password."),
            ),
            _STATUS,
        ),
        Signature(
            "ForgotPassword",
            "Resets a password in two calls: status 'Forgot Password' with username and email returns a "
            "verification code; status 'Verification Code' with that code and a new password sets it.",
            (
                _p("status", "str", "'Forgot Password' or 'Verification Code'."),
                _p("username", "str", "The username (first call).", False),
                _p("email", "str", "The account's email (first call).", False),
                _p("verification_code", "int", "The code returned by the first call (second call).", False),
                _p("new_password", "str", "The new password (second call).", False),
            ),
            (("status", "str", "The verification code, or success."),),
        ),
        Signature("AddAgenda", "Adds an entry to the user's agenda.", _AGENDA, _STATUS),
        Signature(
            "DeleteAgenda", "Deletes the user's agenda entry with this content or time.", _AGENDA, _STATUS
        ),
        Signature(
            "ModifyAgenda",
            "Replaces the user's agenda entry that has this content or time.",
            _AGENDA,
            _STATUS,
        ),
        Signature(
            "QueryAgenda",
            "Returns the user's agenda entry with this content or time.",
            _AGENDA,
            (("info", "json", "The agenda entry."),),
        ),
        Signature(
            "AddAlarm",
            "Sets an alarm for the user.",
            (_TOKEN, _p("time", "str", f"The alarm time. {_DT}")),
            _STATUS,
        ),
        Signature(
            "DeleteAlarm",
            "Deletes the user's alarm at this time.",
            (_TOKEN, _p("time", "str", f"The alarm time. {_DT}")),
            _STATUS,
        ),
        Signature(
            "ModifyAlarm",
            "Moves the user's alarm from one time to another.",
            (
                _TOKEN,
                _p("from_time", "str", f"The current alarm time. {_DT}"),
                _p("to_time", "str", f"The new alarm time. {_DT}"),
            ),
            _STATUS,
        ),
        Signature(
            "QueryAlarm",
            "Returns the user's alarm at this time.",
            (_TOKEN, _p("time", "str", f"The alarm time. {_DT}")),
            (("info", "json", "The alarm."),),
        ),
        Signature("AddMeeting", "Books a meeting for the user.", _MEETING, _STATUS),
        Signature(
            "DeleteMeeting", "Cancels the user's meeting with this topic or start time.", _MEETING, _STATUS
        ),
        Signature(
            "ModifyMeeting", "Changes the user's meeting with this topic or start time.", _MEETING, _STATUS
        ),
        Signature(
            "QueryMeeting",
            "Returns the user's meeting with this topic or start time.",
            _MEETING,
            (("info", "json", "The meeting."),),
        ),
        Signature("AddReminder", "Adds a reminder for the user.", _REMINDER, _STATUS),
        Signature(
            "DeleteReminder", "Deletes the user's reminder with this content or time.", _REMINDER, _STATUS
        ),
        Signature(
            "ModifyReminder", "Changes the user's reminder with this content or time.", _REMINDER, _STATUS
        ),
        Signature(
            "QueryReminder",
            "Returns the user's reminder with this content or time.",
            _REMINDER,
            (("info", "json", "The reminder."),),
        ),
        Signature(
            "AppointmentRegistration",
            "Registers a patient's appointment with a doctor on a date and returns its id.",
            (
                _p("patient_name", "str", "The patient's name."),
                _p("date", "str", "The appointment date. Format: %Y-%m-%d"),
                _p("doctor_name", "str", "The doctor's name."),
            ),
            (("appointment_id", "str", "The id of the appointment."),),
        ),
        Signature(
            "CancelRegistration",
            "Cancels the appointment with this id.",
            (_p("appointment_id", "str", "The appointment id."),),
            _STATUS,
        ),
        Signature(
            "ModifyRegistration",
            "Changes the date and/or the doctor of an appointment.",
            (
                _p("appointment_id", "str", "The appointment id."),
                _p("new_appointment_date", "str", "The new date. Format: %Y-%m-%d", False),
                _p("new_appointment_doctor", "str", "The new doctor.", False),
            ),
            _STATUS,
        ),
        Signature(
            "QueryRegistration",
            "Returns a patient's appointments on a date.",
            (
                _p("patient_name", "str", "The patient's name."),
                _p("date", "str", "The date. Format: %Y-%m-%d"),
            ),
            (("appointments", "list", "The appointments, by id."),),
        ),
        Signature(
            "OpenBankAccount",
            "Opens a bank account.",
            (
                _p("account", "str", "The account identifier."),
                _p("password", "str", "The account password."),
                _p("name", "str", "The account holder's name."),
            ),
            _STATUS,
        ),
        Signature(
            "QueryBalance",
            "Returns the bank balance of the user who owns the token.",
            (_TOKEN,),
            (("balance", "float", "The balance."),),
        ),
        Signature(
            "QueryStock",
            "Returns a stock's price on a date.",
            (_p("stock_code", "str", "The stock code."), _p("date", "str", "The date. Format: %Y-%m-%d")),
            (("stock_price", "float", "The price."),),
        ),
        Signature(
            "RecordHealthData",
            "Records a user's health measurements at a time.",
            (
                _p("user_id", "str", "The user's id."),
                _p("time", "str", f"The time of the measurement. {_DT}"),
                _p("health_data", "list", "The measurements, as [{'name': ..., 'value': ...}].", False),
            ),
            _STATUS,
        ),
        Signature(
            "QueryHealthData",
            "Returns a user's health records between two times.",
            (
                _p("user_id", "str", "The user's id."),
                _p("start_time", "str", f"Start of the span. {_DT}"),
                _p("end_time", "str", f"End of the span. {_DT}"),
            ),
            (("health_data", "list", "The records."),),
        ),
        Signature(
            "SymptomSearch",
            "Returns the conditions that may cause a symptom, with descriptions.",
            (_p("symptom", "str", "The symptom."),),
            (("results", "list", "The conditions."),),
        ),
        Signature(
            "EmergencyKnowledge",
            "Returns the conditions that may cause a symptom, with first-aid advice.",
            (_p("symptom", "str", "The symptom."),),
            (("results", "list", "The conditions and their first aid."),),
        ),
        Signature(
            "BookHotel",
            "Books rooms in a hotel and returns the order id.",
            (
                _p("hotel_name", "str", "The hotel."),
                _p("check_in_time", "str", "Check-in date. Format: %Y-%m-%d"),
                _p("check_out_time", "str", "Check-out date. Format: %Y-%m-%d"),
                _p("room_count", "int", "Number of rooms."),
                _p("adult_count", "int", "Number of adults."),
                _p("child_count", "int", "Number of children."),
            ),
            (("order_id", "str", "The order id."),),
        ),
        Signature(
            "DeleteScene", "Deletes a smart-home scene.", (_p("name", "str", "The scene name."),), _STATUS
        ),
        Signature(
            "QueryScene",
            "Returns the devices of a smart-home scene.",
            (_p("name", "str", "The scene name."),),
            (("devices", "list", "The devices."),),
        ),
        Signature(
            "TimedSwitch",
            "Schedules a device to switch on or off at a time.",
            (
                _p("name", "str", "The device name."),
                _p("time", "str", f"When to switch. {_DT}"),
                _p("on", "bool", "True to switch on, False to switch off."),
            ),
            _STATUS,
        ),
        Signature(
            "CancelTimedSwitch",
            "Cancels a device's scheduled switch at a time.",
            (_p("name", "str", "The device name."), _p("time", "str", f"The scheduled time. {_DT}")),
            _STATUS,
        ),
        Signature(
            "Calculator",
            "Evaluates an arithmetic formula with + - * / and parentheses over whole numbers.",
            (_p("formula", "str", "The formula, e.g. (1+2)*3."),),
            (("result", "float", "The value."),),
        ),
        Signature(
            "Wiki",
            "Looks a keyword up in the encyclopedia and returns its url and summary.",
            (_p("keyword", "str", "The keyword."),),
            (("results", "dict", "url and summary."),),
        ),
        Signature(
            "SearchEngine",
            "Searches the document collection and returns the two best documents.",
            (_p("keyword", "str", "The search words."),),
            (("results", "list", "The documents (title, url, abstract)."),),
        ),
        Signature(
            "Dictionary",
            "Returns the dictionary meanings of an English word.",
            (_p("keyword", "str", "The word."),),
            (("results", "list", "The meanings."),),
        ),
        Signature(
            "Translate",
            "Translates text into a target language (English by default).",
            (
                _p("src", "str", "The text."),
                _p("src_lang", "str", "The source language (detected when absent).", False),
                _p("tgt_lang", "str", "The target language (English when absent).", False),
            ),
            (("translated_text", "str", "The translation."),),
        ),
        Signature(
            "ImageCaption",
            "Returns a caption of the image at a url (.jpg, .jpeg or .png).",
            (_p("url", "str", "The image url."),),
            (("caption", "str", "The caption."),),
        ),
        Signature(
            "SpeechRecognition",
            "Returns the transcript of the audio at a url (.wav).",
            (_p("url", "str", "The audio url."),),
            (("transcript", "str", "The transcript."),),
        ),
        Signature(
            "DocumentQA",
            "Answers a question about the document at a url.",
            (_p("url", "str", "The document url."), _p("question", "str", "The question.")),
            (("answer", "str", "The answer."),),
        ),
        Signature(
            "QueryHistoryToday",
            "Returns historical events that happened on a day of the year.",
            (_p("date", "str", "The date. Format: %m-%d or %Y-%m-%d"),),
            (("history", "list", "The events."),),
        ),
        Signature("GetToday", "Returns today's date.", (), (("date", "str", "Today's date."),)),
        Signature(
            "PlayMusic",
            "Plays a piece of music.",
            (_p("music_name", "str", "The music to play."),),
            (("status", "str", "The music url."),),
        ),
        Signature(
            "SendEmail",
            "Sends an email.",
            (
                _p("receiver", "str", "The receiver's email address."),
                _p("subject", "str", "The subject."),
                _p("content", "str", "The body."),
            ),
            _STATUS,
        ),
        Signature(
            "ToolSearcher",
            "Searches for the API that matches a few keywords and returns its description (with GetUserToken "
            "first when the API needs a token).",
            (_p("keywords", "str", "The keywords describing the API to find."),),
            (("best_matchs", "object", "The best matching API(s)."),),
        ),
    )
}

#: The APIs whose calls take free text or variable keyword arguments in the official code.
KWARGS_APIS = frozenset({"ForgotPassword", "Translate", "GetToday"})
