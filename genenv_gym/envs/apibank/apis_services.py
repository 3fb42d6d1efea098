"""Simulated appointment, bank, stock, health, symptom, hotel, scene and timed-switch APIs."""

from __future__ import annotations

import datetime
import random
from typing import Any

from genenv_gym.envs.apibank.world import ApiException, World


def pad_year(text: str) -> str:
    """Zero-pad the year of a ``Y-m-d...`` string to four digits, as the official date checks do."""
    parts = text.split("-")
    if len(parts) == 3 and len(parts[0]) != 4:
        parts[0] = parts[0].zfill(4)
        text = "-".join(parts)
    return text


def normal_date(date: Any, fmt: str = "%Y-%m-%d") -> Any:
    """The date re-formatted, or the parsing exception (returned, not raised), as officially."""
    try:
        return datetime.datetime.strptime(pad_year(date.strip()), fmt).strftime(fmt)
    except Exception as error:
        return error


def appointment_registration(w: World, patient_name: Any, date: Any, doctor_name: Any) -> Any:
    patient_name, doctor_name = patient_name.strip(), doctor_name.strip()
    if patient_name == "" or doctor_name == "":
        raise ApiException("Patient name or doctor name cannot be empty.")
    date = normal_date(date)
    if isinstance(date, Exception):
        raise date
    table = w.table("Appointments")
    for entry in table.values():
        if entry["patient_name"] == patient_name and normal_date(entry["date"]) == date:
            if entry["doctor_name"] == doctor_name:
                raise ApiException("This appointment has already been registered.")
            raise ApiException("This patient has already been registered in this day.")
    rng = random.Random(f"{patient_name}|{date}|{doctor_name}|{len(table)}")
    appointment_id = str(rng.randint(10000000, 99999999))
    while appointment_id in table:
        appointment_id = str(rng.randint(10000000, 99999999))
    table[appointment_id] = {"patient_name": patient_name, "date": date, "doctor_name": doctor_name}
    return appointment_id


def cancel_registration(w: World, appointment_id: Any) -> Any:
    appointment_id = appointment_id.strip()
    table = w.table("Appointments")
    if appointment_id in table:
        del table[appointment_id]
        return "success"
    raise ApiException("The appointment ID is incorrect.")


def modify_registration(
    w: World, appointment_id: Any, new_appointment_date: Any = None, new_appointment_doctor: Any = None
) -> Any:
    appointment_id = appointment_id.strip()
    table = w.table("Appointments")
    if appointment_id not in table:
        raise ApiException("The appointment ID does not exist.")
    date, doctor = new_appointment_date, new_appointment_doctor
    if date is not None:
        date = normal_date(date)
    if doctor is not None:
        doctor = doctor.strip()
        if doctor == "":
            raise ApiException("Fail because the doctor name is empty.")
    if isinstance(date, Exception):
        raise date
    entry = table[appointment_id]
    if date is None and doctor is None:
        raise ApiException("Fail because no modification is made.")
    if date is None:
        if doctor == entry["doctor_name"]:
            raise ApiException("Fail because doctor is not changed.")
        entry["doctor_name"] = doctor
    elif doctor is None:
        if date == entry["date"]:
            raise ApiException("Fail because date is not changed.")
        entry["date"] = date
    else:
        if date == entry["date"] and doctor == entry["doctor_name"]:
            raise ApiException("Fail because no modification is made.")
        if date == entry["date"]:
            raise ApiException("Fail because date is not changed.")
        if doctor == entry["doctor_name"]:
            raise ApiException("Fail because doctor is not changed.")
        entry["date"], entry["doctor_name"] = date, doctor
    return "success"


def query_registration(w: World, patient_name: Any, date: Any) -> Any:
    patient_name = patient_name.strip()
    date = normal_date(date)
    if isinstance(date, Exception):
        raise date
    table = w.table("Appointments")
    found = {
        key: entry
        for key, entry in table.items()
        if entry["patient_name"] == patient_name and normal_date(entry["date"]) == date
    }
    if not found:
        raise ApiException("No appointments found.")
    return found


#: The bank-account table OpenBankAccount starts from (officially it has no init database, only this record).
BANK_ACCOUNTS_SEED = {0: {"account": "test", "password": "test", "name": "yifei"}}


def open_bank_account(w: World, account: Any, password: Any, name: Any) -> Any:
    if "BankAccounts" not in w.db:
        w.db["BankAccounts"] = {k: dict(v) for k, v in BANK_ACCOUNTS_SEED.items()}
    table = w.db["BankAccounts"]
    for entry in table.values():
        if entry["account"] == account:
            return "failed"
    table[len(table) + 1] = {"account": account, "password": password, "name": name}
    return "success"


def query_balance(w: World, token: Any) -> Any:
    try:
        token.strip()
        username = w.check_token(token)
    except Exception as error:
        raise ApiException("The token is incorrect.") from error
    table = w.table("Bank")
    if username not in table:
        raise ApiException("The user does not have an account.")
    return table[username]["balance"]


def stock_key(stock_code: Any, date: Any) -> tuple[Any, Any]:
    """The official normalisation of a stock query: upper-cased code (None if empty), ``Y-m-d`` date."""
    code = stock_code.upper().strip() or None
    return code, normal_date(date)


def query_stock(w: World, stock_code: Any, date: Any) -> Any:
    code, date = stock_key(stock_code, date)
    if code is None:
        raise ApiException("The stock code cannot be empty.")
    if isinstance(date, Exception):
        raise date
    table = w.table("Stock")
    if code not in table:
        raise ApiException("The stock code does not exist.")
    if date not in table[code]:
        raise ApiException("The stock price of this date is not maintained.")
    return table[code][date]


def parse_time(text: Any) -> Any:
    """The datetime of a ``Y-m-d H:M:S`` string (year zero-padded), or the parsing exception."""
    try:
        return datetime.datetime.strptime(pad_year(text.strip()), "%Y-%m-%d %H:%M:%S")
    except Exception as error:
        return error


def health_key(user_id: Any, start_time: Any, end_time: Any) -> tuple[Any, Any, Any]:
    """The official normalisation of a health-data query."""
    return user_id.upper().strip() or None, parse_time(start_time), parse_time(end_time)


def query_health_data(w: World, user_id: Any, start_time: Any, end_time: Any) -> Any:
    user_id, start, end = health_key(user_id, start_time, end_time)
    if user_id is None:
        raise ApiException("The user id cannot be empty.")
    if isinstance(start, Exception) and isinstance(end, Exception):
        raise ApiException(f"{start}; {end}")
    for value in (start, end):
        if isinstance(value, Exception):
            raise value
    if start > end:
        raise ApiException("The start time cannot be later than the end time.")
    table = w.table("HealthData")
    if user_id not in table:
        raise ApiException("The user id does not exist.")
    found = [
        item
        for item in table[user_id]
        if start <= datetime.datetime.strptime(item["time"], "%Y-%m-%d %H:%M:%S") <= end
    ]
    if not found:
        raise ApiException("There is no health data in the given time span.")
    return found


def record_health_data(w: World, user_id: Any, time: Any, health_data: Any = None) -> Any:
    user_id = user_id.upper().strip()
    if user_id == "":
        raise ApiException("The user id cannot be empty.")
    time = normal_date(time, "%Y-%m-%d %H:%M:%S")
    if isinstance(time, Exception):
        raise time
    if health_data is None or len(health_data) == 0:
        raise ApiException("The health data cannot be empty.")
    names: set = set()
    for item in health_data:
        if "name" not in item:
            raise ApiException("The health data has invalid format.")
        if item["name"] in names:
            raise ApiException("The health data cannot contain duplicate items.")
        names.add(item["name"])
    records = w.table("HealthData").setdefault(user_id, [])
    target = None
    for record in records:
        if record["time"] == time:
            target = record
    if target is None:
        target = {"time": time}
        records.append(target)
    for item in health_data:
        target[item["name"]] = item["value"]
    return "success"


def _symptom(w: World, symptom: Any) -> list:
    symptom = symptom.strip().lower()
    if symptom == "":
        raise ApiException("The symptom cannot be empty.")
    table = w.table("Symptom")
    if symptom not in table:
        raise ApiException("The symptom does not exist.")
    return table[symptom]


def symptom_search(w: World, symptom: Any) -> Any:
    return [{"name": i["name"], "description": i["description"]} for i in _symptom(w, symptom)]


def emergency_knowledge(w: World, symptom: Any) -> Any:
    if symptom.strip() == "":
        # officially the 'empty' exception object is lower-cased instead of raised
        raise ApiException("'Exception' object has no attribute 'lower'")
    return [{"name": i["name"], "aid": i["aid"]} for i in _symptom(w, symptom)]


def book_hotel(
    w: World,
    hotel_name: Any,
    check_in_time: Any,
    check_out_time: Any,
    room_count: Any,
    adult_count: Any,
    child_count: Any,
) -> Any:
    check_in = datetime.datetime.strptime(check_in_time, "%Y-%m-%d")
    check_out = datetime.datetime.strptime(check_out_time, "%Y-%m-%d")
    if adult_count > 2 and room_count == 1:
        raise ApiException("The number of adults is greater than 2. Two rooms are ordered.")
    table = w.table("Hotel")
    for order in table.values():
        if order["hotel_name"] == hotel_name:
            start = datetime.datetime.strptime(order["check_in_time"], "%Y-%m-%d")
            end = datetime.datetime.strptime(order["check_out_time"], "%Y-%m-%d")
            if start <= check_in < end or start < check_out <= end:
                raise ApiException("The room is not available.")
    order_id = str(len(table) + 1)
    table[order_id] = {
        "hotel_name": hotel_name,
        "check_in_time": check_in_time,
        "check_out_time": check_out_time,
        "room_count": room_count,
        "adult_count": adult_count,
        "child_count": child_count,
    }
    return order_id


def delete_scene(w: World, name: Any) -> Any:
    name = name.strip().lower()
    if name == "":
        raise ApiException("Scene name cannot be empty.")
    table = w.table("Scenes")
    if name not in table:
        raise ApiException("The scene does not exist.")
    del table[name]
    return "success"


def query_scene(w: World, name: Any) -> Any:
    name = name.strip().lower()
    if name == "":
        raise ApiException("Scene name cannot be empty.")
    table = w.table("Scenes")
    if name not in table:
        raise ApiException("Scene not found.")
    return table[name]


def timed_switch(w: World, name: Any, time: Any, on: Any) -> Any:
    name = name.strip().lower()
    if name == "":
        raise ApiException("Name cannot be empty.")
    time = normal_date(time, "%Y-%m-%d %H:%M:%S")
    if isinstance(time, Exception):
        raise time
    schedule = w.table("TimeSwitch").setdefault(name, [])
    for item in schedule:
        if item["time"] == time:
            item["on"] = on
            return "success"
    schedule.append({"time": time, "on": on})
    return "success"


def cancel_timed_switch(w: World, name: Any, time: Any) -> Any:
    name = name.strip().lower()
    if name == "":
        raise ApiException("name cannot be empty.")
    time = normal_date(time, "%Y-%m-%d %H:%M:%S")
    if isinstance(time, Exception):
        raise time
    table = w.table("TimeSwitch")
    if name not in table:
        raise ApiException("device name does not exist.")
    for i, item in enumerate(table[name]):
        if item["time"] == time:
            table[name].pop(i)
            return "success"
    raise ApiException("time does not exist.")
