"""Each API's official correctness rule: does an executed call's result match the ground-truth result?

Most rules compare input, output and exception exactly; the agenda/meeting/reminder family accepts a
content (or meeting topic) whose word set overlaps the reference's with Jaccard > 0.5; date, name and
code parameters are normalised before comparison where the official rule does so; Calculator ignores
spaces in the formula; QueryStock upper-cases the code; SearchEngine compares the result sets;
ToolSearcher, Dictionary and Wiki compare outputs only; GetToday accepts any successful call.

A rule may raise, as its official counterpart does: ``KeyError`` is an incorrect call officially;
anything else crashed the official evaluator, and :func:`check` reports it as such.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from genenv_gym.envs.apibank.apis_info import history_date
from genenv_gym.envs.apibank.apis_services import health_key, normal_date, stock_key

Rule = Callable[[dict, dict], bool]


def _same_outcome(r: dict, g: dict) -> bool:
    return r["output"] == g["output"] and r["exception"] == g["exception"]


def _exact(r: dict, g: dict) -> bool:
    return r["input"] == g["input"] and _same_outcome(r, g)


def _jaccard_above_half(a: str, b: str, lower: bool = False) -> bool:
    if lower:
        a, b = a.lower(), b.lower()
    x, y = set(a.split(" ")), set(b.split(" "))
    return len(x & y) / len(x | y) > 0.5


def _api_name_asserted(r: dict, g: dict) -> None:
    if r["api_name"] != g["api_name"]:
        raise AssertionError("The API name is not correct.")


def _agenda_like(r: dict, g: dict) -> bool:
    ri, gi = r["input"], g["input"]
    return (
        _jaccard_above_half(ri["content"], gi["content"])
        and ri["time"] == gi["time"]
        and ri["location"] == gi["location"]
        and _same_outcome(r, g)
    )


def _add_agenda(r: dict, g: dict) -> bool:
    _api_name_asserted(r, g)
    return _agenda_like(r, g)


def _reminder_like(r: dict, g: dict) -> bool:
    ri, gi = r["input"], g["input"]
    return (
        _jaccard_above_half(ri["content"], gi["content"], lower=True)
        and ri["time"] == gi["time"]
        and (_same_outcome(r, g))
    )


def _reminder_asserted(r: dict, g: dict) -> bool:
    _api_name_asserted(r, g)
    return _reminder_like(r, g)


def _meeting_like(r: dict, g: dict) -> bool:
    satisfied = _jaccard_above_half(r["input"]["meeting_topic"], g["input"]["meeting_topic"])
    r["input"].pop("meeting_topic")
    g["input"].pop("meeting_topic")
    return satisfied and r["input"] == g["input"] and _same_outcome(r, g)


def _delete_by_time(r: dict, g: dict) -> bool:
    if g["output"] == "success" and r["output"] == "success":
        return r["input"]["time"] == g["input"]["time"]
    return _same_outcome(r, g)


def _appointment_registration(r: dict, g: dict) -> bool:
    ri, gi = r["input"], g["input"]
    if ri["patient_name"].strip() != gi["patient_name"].strip():
        return False
    if normal_date(ri["date"]) != normal_date(gi["date"]):
        return False
    if ri["doctor_name"].strip() != gi["doctor_name"].strip():
        return False
    if g["output"] is None and r["output"] is not None:
        return False
    return r["exception"] == g["exception"]


def _cancel_registration(r: dict, g: dict) -> bool:
    same_id = r["input"]["appointment_id"].strip() == g["input"]["appointment_id"].strip()
    return same_id and _same_outcome(r, g)


def _optional(value: Any, normalise: Callable[[Any], Any]) -> Any:
    return None if value is None else normalise(value)


def _modify_registration(r: dict, g: dict) -> bool:
    ri, gi = r["input"], g["input"]
    if str(ri["appointment_id"]).strip() != gi["appointment_id"].strip():
        return False
    if _optional(ri["new_appointment_date"], normal_date) != _optional(
        gi["new_appointment_date"], normal_date
    ):
        return False
    doctor_r = _optional(ri["new_appointment_doctor"], str.strip)
    if doctor_r != _optional(gi["new_appointment_doctor"], str.strip):
        return False
    return _same_outcome(r, g)


def _query_registration(r: dict, g: dict) -> bool:
    ri, gi = r["input"], g["input"]
    if ri["patient_name"].strip() != gi["patient_name"].strip():
        return False
    return normal_date(ri["date"]) == normal_date(gi["date"]) and _same_outcome(r, g)


def _query_balance(r: dict, g: dict) -> bool:
    return r["input"]["token"].strip() == g["input"]["token"].strip() and _same_outcome(r, g)


def _query_stock(r: dict, g: dict) -> bool:
    ri, gi = r["input"], g["input"]
    same = stock_key(ri["stock_code"], ri["date"]) == stock_key(gi["stock_code"], gi["date"])
    return same and _same_outcome(r, g)


def _query_health_data(r: dict, g: dict) -> bool:
    ri, gi = r["input"], g["input"]
    rk = health_key(ri["user_id"], ri["start_time"], ri["end_time"])
    gk = health_key(gi["user_id"], gi["start_time"], gi["end_time"])
    return all(a == b for a, b in zip(rk, gk, strict=True)) and _same_outcome(r, g)


def _record_health_data(r: dict, g: dict) -> bool:
    ri, gi = r["input"], g["input"]
    if str(ri["user_id"]).upper().strip() != gi["user_id"].upper().strip():
        return False
    time_format = "%Y-%m-%d %H:%M:%S"
    if normal_date(ri["time"], time_format) != normal_date(gi["time"], time_format):
        return False
    return _same_outcome(r, g)


def _symptom(r: dict, g: dict, strict_empty: bool) -> bool:
    def normal(symptom: str) -> Any:
        symptom = symptom.strip()
        if symptom == "":
            if strict_empty:
                raise ValueError("The symptom cannot be empty.")
            return ""  # officially Exception(...).lower() -> AttributeError; see _emergency_knowledge
        return symptom.lower()

    return normal(r["input"]["symptom"]) == normal(g["input"]["symptom"]) and _same_outcome(r, g)


def _symptom_search(r: dict, g: dict) -> bool:
    return _symptom(r, g, strict_empty=True)


def _emergency_knowledge(r: dict, g: dict) -> bool:
    if r["input"]["symptom"].strip() == "" or g["input"]["symptom"].strip() == "":
        raise AttributeError("'Exception' object has no attribute 'lower'")
    return _symptom(r, g, strict_empty=False)


def _scene_name(r: dict, g: dict) -> bool:
    return r["input"]["name"].strip().lower() == g["input"]["name"].strip().lower() and _same_outcome(r, g)


def _switch_time(r: dict, g: dict) -> bool:
    fmt = "%Y-%m-%d %H:%M:%S"
    ri, gi = r["input"], g["input"]
    same = ri["name"].strip().lower() == gi["name"].strip().lower()
    return same and normal_date(ri["time"], fmt) == normal_date(gi["time"], fmt)


def _timed_switch(r: dict, g: dict) -> bool:
    return _switch_time(r, g) and r["input"]["on"] == g["input"]["on"] and _same_outcome(r, g)


def _cancel_timed_switch(r: dict, g: dict) -> bool:
    return _switch_time(r, g) and _same_outcome(r, g)


def _calculator(r: dict, g: dict) -> bool:
    same = r["input"]["formula"].replace(" ", "") == g["input"]["formula"].replace(" ", "")
    return same and _same_outcome(r, g)


def _named_outcome(r: dict, g: dict) -> bool:
    return r["api_name"] == "Dictionary" and _same_outcome(r, g)


def _wiki(r: dict, g: dict) -> bool:
    return r["api_name"] == g["api_name"] and _same_outcome(r, g)


def _translate(r: dict, g: dict) -> bool:
    return r["api_name"] == g["api_name"] and r["input"]["src"] == g["input"]["src"] and _same_outcome(r, g)


def _search_engine(r: dict, g: dict) -> bool:
    if r["api_name"] != g["api_name"] or r["exception"] != g["exception"]:
        return False

    def ordered(output: list) -> list:
        return sorted(output, key=lambda x: x["title"] + x["abstract"], reverse=True)

    if r["output"] is None or g["output"] is None:
        # officially an unbound local variable is read here
        raise UnboundLocalError("cannot access local variable before assignment")
    return ordered(r["output"]) == ordered(g["output"])


def _document_qa(r: dict, g: dict) -> bool:
    ri, gi = r["input"], g["input"]
    same = ri["url"].strip() == gi["url"].strip() and ri["question"].strip() == gi["question"].strip()
    return same and _same_outcome(r, g)


def _history(r: dict, g: dict) -> bool:
    same = history_date(r["input"]["date"]) == history_date(g["input"]["date"])
    return same and _same_outcome(r, g)


def _get_today(r: dict, g: dict) -> bool:
    return r["output"] is not None and r["exception"] is None and r["input"] is None


def _play_music(r: dict, g: dict) -> bool:
    return r["output"] == g["output"]


def _send_email(r: dict, g: dict) -> bool:
    ri, gi = r["input"], g["input"]
    return (
        ri["receiver"].strip().lower() == gi["receiver"].strip().lower()
        and ri["subject"].strip() == gi["subject"].strip()
        and ri["content"].strip() == gi["content"].strip()
        and _same_outcome(r, g)
    )


def _register_user(r: dict, g: dict) -> bool:
    if g["output"] is None and r["output"] is not None:
        return False
    return r["input"] == g["input"] and r["exception"] == g["exception"]


def _modify_password(r: dict, g: dict) -> bool:
    return _exact(r, g)


def _image_or_speech(r: dict, g: dict) -> bool:
    return _exact(r, g)


RULES: dict[str, Rule] = {
    "GetUserToken": _exact,
    "RegisterUser": _register_user,
    "DeleteAccount": _exact,
    "ModifyPassword": _modify_password,
    "ForgotPassword": _exact,
    "AddAgenda": _add_agenda,
    "DeleteAgenda": _delete_by_time,
    "ModifyAgenda": _agenda_like,
    "QueryAgenda": _agenda_like,
    "AddAlarm": _exact,
    "DeleteAlarm": _exact,
    "ModifyAlarm": _exact,
    "QueryAlarm": _exact,
    "AddMeeting": _meeting_like,
    "DeleteMeeting": _delete_by_time,
    "ModifyMeeting": _meeting_like,
    "QueryMeeting": _meeting_like,
    "AddReminder": _reminder_asserted,
    "DeleteReminder": _delete_by_time,
    "ModifyReminder": _reminder_asserted,
    "QueryReminder": _reminder_like,
    "AppointmentRegistration": _appointment_registration,
    "CancelRegistration": _cancel_registration,
    "ModifyRegistration": _modify_registration,
    "QueryRegistration": _query_registration,
    "OpenBankAccount": _exact,
    "QueryBalance": _query_balance,
    "QueryStock": _query_stock,
    "RecordHealthData": _record_health_data,
    "QueryHealthData": _query_health_data,
    "SymptomSearch": _symptom_search,
    "EmergencyKnowledge": _emergency_knowledge,
    "BookHotel": _exact,
    "DeleteScene": _scene_name,
    "QueryScene": _scene_name,
    "TimedSwitch": _timed_switch,
    "CancelTimedSwitch": _cancel_timed_switch,
    "Calculator": _calculator,
    "Wiki": _wiki,
    "SearchEngine": _search_engine,
    "Dictionary": _named_outcome,
    "Translate": _translate,
    "ImageCaption": _image_or_speech,
    "SpeechRecognition": _image_or_speech,
    "DocumentQA": _document_qa,
    "QueryHistoryToday": _history,
    "GetToday": _get_today,
    "PlayMusic": _play_music,
    "SendEmail": _send_email,
    "ToolSearcher": lambda r, g: _same_outcome(r, g),
}


def check(
    api_name: str, response: dict, ground_truth: dict, rules: dict[str, Rule] | None = None
) -> tuple[bool, str | None]:
    """The official verdict on ``response`` against ``ground_truth`` (both are deep copies the rule may edit).

    Returns ``(correct, problem)``: ``problem`` is ``"KeyError"`` when the rule hit a missing key (officially
    incorrect) or the exception the official evaluator would have crashed on, else None.
    """
    try:
        return bool((rules or RULES)[api_name](response, ground_truth)), None
    except KeyError as error:
        return False, f"KeyError {error}"
    except Exception as error:
        return False, f"checker crashed: {type(error).__name__}: {error}"
