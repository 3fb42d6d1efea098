"""Simulated account, agenda, alarm, meeting and reminder APIs (token-protected, as officially)."""

from __future__ import annotations

import datetime
import random
import string
from typing import Any

from genenv_gym.envs.apibank.world import ApiException, World

_DT = "%Y-%m-%d %H:%M:%S"


def _check_time(value: Any) -> None:
    datetime.datetime.strptime(value, _DT)


def get_user_token(w: World, username: Any, password: Any) -> Any:
    accounts = w.table("Account")
    if username not in accounts:
        raise ApiException("The username does not exist.")
    if accounts[username]["password"] != password:
        raise ApiException("The password is incorrect.")
    return {"token": accounts[username]["token"]}


def register_user(w: World, username: Any, password: Any, email: Any) -> Any:
    accounts = w.table("Account")
    if username in accounts:
        raise ApiException("The username already exists.")
    rng = random.Random(f"{username}|{password}|{email}")
    token = "".join(rng.choices(string.ascii_letters + string.digits, k=18)).lower()
    accounts[username] = {"password": password, "token": token, "email": email}
    return {"token": token}


def delete_account(w: World, token: Any) -> Any:
    username = w.check_token(token)
    accounts = w.table("Account")
    if username in accounts:
        del accounts[username]
        return {"status": "success"}
    raise ApiException("No such user.")


def modify_password(w: World, token: Any, old_password: Any, new_password: Any) -> Any:
    username = w.check_token(token)
    accounts = w.table("Account")
    if accounts[username]["password"] != old_password:
        raise ApiException("The old password is incorrect.")
    accounts[username]["password"] = new_password
    return {"status": "success"}


def forgot_password(w: World, status: Any, **kwargs: Any) -> Any:
    accounts = w.table("Account")
    if status == "Forgot Password":
        if "username" not in kwargs or "email" not in kwargs:
            raise ApiException("The username and email are required for the first call.")
        username, email = kwargs["username"], kwargs["email"]
        if username not in accounts:
            raise ApiException("The username does not exist.")
        if accounts[username]["email"] != email:
            raise ApiException("The email is incorrect.")
        w.verification_code, w.reset_username = 970420, username
        return w.verification_code
    if status == "Verification Code":
        if not w.verification_code:
            raise ApiException("You need to call the API with status 'Forgot Password' at first.")
        if "new_password" not in kwargs or "verification_code" not in kwargs:
            raise ApiException("The new password and verification code are required for the second call.")
        if w.verification_code == kwargs["verification_code"]:
            accounts[w.reset_username]["password"] = kwargs["new_password"]
            return "success"
        raise ApiException("The verification code is incorrect.")
    raise ApiException("The status is only 'Forgot Password' or 'Verification Code'.")


def _matches(entry: dict, username: str, field: str, value: Any, time_field: str, time: Any) -> bool:
    return entry["username"] == username and (entry[field] == value or entry[time_field] == time)


def add_agenda(w: World, token: Any, content: Any, time: Any, location: Any) -> Any:
    _check_time(time)
    if content.strip() == "":
        raise ApiException("Content should not be null")
    table = w.table("Agenda")
    new_id = len(table) + 1
    username = w.check_token(token)
    table[new_id] = {"username": username, "content": content, "time": time, "location": location}
    return "success"


def delete_agenda(w: World, token: Any, content: Any, time: Any, location: Any) -> Any:
    if time:
        _check_time(time)
    username = w.check_token(token)
    table = w.table("Agenda")
    for key in table:
        if _matches(table[key], username, "content", content, "time", time):
            del table[key]
            return "success"
    if content:
        raise ApiException(f"You have no meeting about {content}")
    if time:
        raise ApiException(f"You have no meeting at time : {time}")
    return "success"


def modify_agenda(w: World, token: Any, content: Any, time: Any, location: Any) -> Any:
    if time:
        _check_time(time)
    username = w.check_token(token)
    table = w.table("Agenda")
    for key in table:
        if _matches(table[key], username, "content", content, "time", time):
            table[key] = {"username": username, "content": content, "time": time, "location": location}
            return "success"
    if content:
        raise ApiException(f"You have no agenda about {content}")
    if time:
        raise ApiException(f"You have no agenda at time : {time}")
    # Officially an Exception object is *returned* here, and its repr becomes the output.
    return ApiException("Error")


def query_agenda(w: World, token: Any, content: Any, time: Any, location: Any) -> Any:
    if time:
        _check_time(time)
    username = w.check_token(token)
    table = w.table("Agenda")
    for key in table:
        if _matches(table[key], username, "content", content, "time", time):
            return table[key]
    if content:
        raise ApiException(f"You have no agenda about {content}")
    if time:
        raise ApiException(f"You have no agenda at time : {time}")
    raise ApiException("Error")


def add_alarm(w: World, token: Any, time: Any) -> Any:
    _check_time(time)
    table = w.table("Alarm")
    new_id = len(table) + 1
    username = w.check_token(token)
    table[new_id] = {"username": username, "time": time}
    return "success"


def delete_alarm(w: World, token: Any, time: Any) -> Any:
    _check_time(time)
    username = w.check_token(token)
    table = w.table("Alarm")
    for key in table:
        if table[key]["username"] == username and table[key]["time"] == time:
            del table[key]
            return "success"
    if time:
        raise ApiException(f"You have no alarm clock at time : {time}")
    return "success"


def modify_alarm(w: World, token: Any, from_time: Any, to_time: Any) -> Any:
    _check_time(from_time)
    _check_time(to_time)
    username = w.check_token(token)
    table = w.table("Alarm")
    for key in table:
        if table[key]["username"] == username and table[key]["time"] == from_time:
            table[key] = {"username": username, "time": to_time}
            return "success"
    raise ApiException(f"You have no agenda at time : {from_time}")


def query_alarm(w: World, token: Any, time: Any) -> Any:
    _check_time(time)
    username = w.check_token(token)
    table = w.table("Alarm")
    for key in table:
        if table[key]["username"] == username and table[key]["time"] == time:
            return table[key]
    raise ApiException(f"You have no alarm clock at time : {time}")


def _meeting_times(meeting_topic: Any, start_time: Any, end_time: Any) -> None:
    if start_time:
        _check_time(start_time)
    if end_time:
        _check_time(end_time)
    if meeting_topic.strip() == "" and not start_time:
        raise ApiException("Meeting Topic and start_time should not be null both")


def add_meeting(
    w: World, token: Any, meeting_topic: Any, start_time: Any, end_time: Any, location: Any, attendees: Any
) -> Any:
    _check_time(start_time)
    _check_time(end_time)
    if meeting_topic.strip() == "":
        raise ApiException("Meeting Topic should not be null")
    table = w.table("Meeting")
    new_id = max(int(k) for k in table) + 1 if table else 0
    username = w.check_token(token)
    table[str(new_id)] = {
        "username": username,
        "meeting_topic": meeting_topic,
        "start_time": start_time,
        "end_time": end_time,
        "location": location,
        "attendees": attendees,
    }
    return "success"


def _no_meeting(meeting_topic: Any, start_time: Any) -> None:
    if meeting_topic:
        raise ApiException(f"You have no meeting about {meeting_topic}")
    if start_time:
        raise ApiException(f"You have no meeting at time : {start_time}")


def delete_meeting(
    w: World, token: Any, meeting_topic: Any, start_time: Any, end_time: Any, location: Any, attendees: Any
) -> Any:
    _meeting_times(meeting_topic, start_time, end_time)
    username = w.check_token(token)
    table = w.table("Meeting")
    for key in table:
        if _matches(table[key], username, "meeting_topic", meeting_topic, "start_time", start_time):
            del table[key]
            return "success"
    _no_meeting(meeting_topic, start_time)
    return "success"


def modify_meeting(
    w: World, token: Any, meeting_topic: Any, start_time: Any, end_time: Any, location: Any, attendees: Any
) -> Any:
    _meeting_times(meeting_topic, start_time, end_time)
    username = w.check_token(token)
    table = w.table("Meeting")
    for key in table:
        if _matches(table[key], username, "meeting_topic", meeting_topic, "start_time", start_time):
            if meeting_topic:
                table[key]["meeting_topic"] = meeting_topic
            if start_time:
                table[key]["start_time"] = start_time
                table[key]["end_time"] = end_time
            return "success"
    _no_meeting(meeting_topic, start_time)
    return "success"


def query_meeting(
    w: World, token: Any, meeting_topic: Any, start_time: Any, end_time: Any, location: Any, attendees: Any
) -> Any:
    _meeting_times(meeting_topic, start_time, end_time)
    username = w.check_token(token)
    table = w.table("Meeting")
    for key in table:
        if _matches(table[key], username, "meeting_topic", meeting_topic, "start_time", start_time):
            return table[key]
    _no_meeting(meeting_topic, start_time)
    return ApiException("Error")


def _reminder_args(content: Any, time: Any) -> None:
    _check_time(time)
    if content.strip() == "":
        raise ApiException("Content should not be null")


def add_reminder(w: World, token: Any, content: Any, time: Any) -> Any:
    _reminder_args(content, time)
    table = w.table("Reminder")
    new_id = max(int(k) for k in table) + 1 if table else 0
    username = w.check_token(token)
    table[str(new_id)] = {"username": username, "content": content, "time": time}
    return "success"


def delete_reminder(w: World, token: Any, content: Any, time: Any) -> Any:
    _reminder_args(content, time)
    username = w.check_token(token)
    table = w.table("Reminder")
    for key in table:
        if _matches(table[key], username, "content", content, "time", time):
            del table[key]
            return "success"
    raise ApiException(f"You have no reminder about {content} or at time : {time}")


def modify_reminder(w: World, token: Any, content: Any, time: Any) -> Any:
    _reminder_args(content, time)
    username = w.check_token(token)
    table = w.table("Reminder")
    for key in table:
        if _matches(table[key], username, "content", content, "time", time):
            table[key]["content"] = content
            table[key]["time"] = time
            return "success"
    raise ApiException(f"You have no reminder about {content} or at time : {time}")


def query_reminder(w: World, token: Any, content: Any, time: Any) -> Any:
    _reminder_args(content, time)
    username = w.check_token(token)
    table = w.table("Reminder")
    for key in table:
        if _matches(table[key], username, "content", content, "time", time):
            return table[key]
    raise ApiException(f"You have no reminder about {content} or at time : {time}")
