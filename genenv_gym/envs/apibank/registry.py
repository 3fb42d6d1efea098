"""Calling a simulated API by name, with the official tool manager's parameter handling.

``call_api`` is what the official ``ToolManager.api_call`` does: every given parameter must be one of the
API's (else ``invalid parameter name``); ``int`` and ``float`` parameters given as text must be digits
(``float``: one optional point) and are converted; ``bool`` is ``value == 'True'``; ``str``, ``list`` and
``list(str)`` are passed on unchanged, so a list written in a call stays a string. Missing required
parameters fail like the official Python call does. The API's own failures become the result's
``exception``; the call-level failures above raise :class:`CallRefused`, which the official evaluator
reports as the error text of an incorrect call.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from genenv_gym.envs.apibank import apis_info as info
from genenv_gym.envs.apibank import apis_personal as personal
from genenv_gym.envs.apibank import apis_services as services
from genenv_gym.envs.apibank.signatures import KWARGS_APIS, SIGNATURES
from genenv_gym.envs.apibank.world import World

IMPLEMENTATIONS: dict[str, Callable[..., Any]] = {
    "GetUserToken": personal.get_user_token,
    "RegisterUser": personal.register_user,
    "DeleteAccount": personal.delete_account,
    "ModifyPassword": personal.modify_password,
    "ForgotPassword": personal.forgot_password,
    "AddAgenda": personal.add_agenda,
    "DeleteAgenda": personal.delete_agenda,
    "ModifyAgenda": personal.modify_agenda,
    "QueryAgenda": personal.query_agenda,
    "AddAlarm": personal.add_alarm,
    "DeleteAlarm": personal.delete_alarm,
    "ModifyAlarm": personal.modify_alarm,
    "QueryAlarm": personal.query_alarm,
    "AddMeeting": personal.add_meeting,
    "DeleteMeeting": personal.delete_meeting,
    "ModifyMeeting": personal.modify_meeting,
    "QueryMeeting": personal.query_meeting,
    "AddReminder": personal.add_reminder,
    "DeleteReminder": personal.delete_reminder,
    "ModifyReminder": personal.modify_reminder,
    "QueryReminder": personal.query_reminder,
    "AppointmentRegistration": services.appointment_registration,
    "CancelRegistration": services.cancel_registration,
    "ModifyRegistration": services.modify_registration,
    "QueryRegistration": services.query_registration,
    "OpenBankAccount": services.open_bank_account,
    "QueryBalance": services.query_balance,
    "QueryStock": services.query_stock,
    "RecordHealthData": services.record_health_data,
    "QueryHealthData": services.query_health_data,
    "SymptomSearch": services.symptom_search,
    "EmergencyKnowledge": services.emergency_knowledge,
    "BookHotel": services.book_hotel,
    "DeleteScene": services.delete_scene,
    "QueryScene": services.query_scene,
    "TimedSwitch": services.timed_switch,
    "CancelTimedSwitch": services.cancel_timed_switch,
    "Calculator": info.calculator,
    "Wiki": info.wiki,
    "SearchEngine": info.search_engine,
    "Dictionary": info.dictionary,
    "Translate": info.translate,
    "ImageCaption": info.image_caption,
    "SpeechRecognition": info.speech_recognition,
    "DocumentQA": info.document_qa,
    "QueryHistoryToday": info.query_history_today,
    "GetToday": info.get_today,
    "PlayMusic": info.play_music,
    "SendEmail": info.send_email,
    "ToolSearcher": info.tool_searcher,
}


class CallRefused(Exception):
    """The call never reached the API (bad parameter name, type or count); ``bucket`` is the error kind."""

    def __init__(self, message: str, bucket: str) -> None:
        super().__init__(message)
        self.bucket = bucket


def _digits(value: str) -> bool:
    return value.isdigit()


def convert(api_name: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """The official parameter check and conversion (see the module docstring)."""
    if api_name not in SIGNATURES:
        raise CallRefused("invalid tool name.", "api_name_mismatch")
    signature = SIGNATURES[api_name]
    converted: dict[str, Any] = {}
    for key, value in params.items():
        param = signature.param(key)
        if param is None:
            raise CallRefused(f"invalid parameter name. parameter: {key}", "invalid_parameter")
        if param.type == "int":
            if isinstance(value, str) and not _digits(value):
                raise CallRefused(f"invalid parameter type. parameter: {value}", "invalid_parameter")
            converted[key] = _to_number(int, value)
        elif param.type == "float":
            if isinstance(value, str) and not value.replace(".", "", 1).isdigit():
                raise CallRefused("invalid parameter type.", "invalid_parameter")
            converted[key] = _to_number(float, value)
        elif param.type == "bool":
            converted[key] = value == "True"
        else:
            converted[key] = value
    return converted


def _to_number(kind: type, value: Any) -> Any:
    try:
        return kind(value)
    except (TypeError, ValueError, OverflowError) as error:
        raise CallRefused(f"invalid parameter type. parameter: {value!r}", "invalid_parameter") from error


def _missing(api_name: str, given: Mapping[str, Any]) -> list[str]:
    if api_name in ("GetToday",):
        return []
    if api_name in KWARGS_APIS:
        first = SIGNATURES[api_name].params[0].name
        return [] if first in given else [first]
    return [p.name for p in SIGNATURES[api_name].params if p.required and p.name not in given]


def recorded_input(api_name: str, given: Mapping[str, Any]) -> Any:
    """The ``input`` field of the result, as the official API builds it (defaults included, or None)."""
    if api_name == "GetToday":
        return None
    if api_name in KWARGS_APIS:
        return dict(given)
    return {p.name: given.get(p.name) for p in SIGNATURES[api_name].params}


def execute(world: World, api_name: str, given: Mapping[str, Any]) -> dict[str, Any]:
    """Run an API on converted parameters; the API's own failures become the result's ``exception``."""
    missing = _missing(api_name, given)
    if missing:
        names = " and ".join(repr(m) for m in missing)
        plural = "argument" if len(missing) == 1 else "arguments"
        raise CallRefused(
            f"{api_name}.call() missing {len(missing)} required positional {plural}: {names}",
            "missing_parameter",
        )
    result: dict[str, Any] = {"api_name": api_name, "input": recorded_input(api_name, given)}
    try:
        output = IMPLEMENTATIONS[api_name](world, **given)
    except Exception as error:
        result.update(output=None, exception=str(error))
    else:
        result.update(output=output, exception=None)
    return result


def call_api(world: World, api_name: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """Convert the parameters officially, then run the API (see the module docstring)."""
    return execute(world, api_name, convert(api_name, params))
