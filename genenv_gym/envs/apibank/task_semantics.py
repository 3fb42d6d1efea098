"""Does an API-Bank dialogue ask for its reference call? The meaning check on LLM-written tasks.

- values: every value of the reference call is said in the dialogue (a user or AI turn) or returned by
  an earlier call, read by kind: a time or date in any common spelling (``2023-05-02 07:00:00`` as
  "7 am on May 2nd 2023"), a list by its items, a formula by its numbers (``(151+190)*8`` as "151 plus
  190 times eight"), free text (a topic, a message, a question) by most of its words, anything else
  verbatim (case-insensitive);
- purpose: the user asks for this API, not another one the same values fit: a user who names only what
  a look-alike API is for (an alarm for ``AddReminder``, symptoms' first aid for ``SymptomSearch``) asks
  for that one, and a request that only words another kind of action ("cancel my alarm" for
  ``AddAlarm``) is a different call;
"""

from __future__ import annotations

import ast
import datetime
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from genenv_gym.envs.apibank.signatures import SIGNATURES
from genenv_gym.text.months import MONTHS
from genenv_gym.text.number_words import numbers_in
from genenv_gym.text.polarity import asserted_text, competing_values
from genenv_gym.text.stop_words import FUNCTION_WORDS

#: Parameters whose value is free text, grounded by most of its words.
FREE_TEXT = frozenset(
    {
        "content",
        "meeting_topic",
        "subject",
        "question",
        "src",
        "health_data",
        "keyword",
        "keywords",
        "symptom",
    }
)
_WORD = re.compile(r"[a-z0-9]+")
_STOP = FUNCTION_WORDS | frozenset(
    [
        "about",
        "any",
        "can",
        "could",
        "do",
        "does",
        "i",
        "me",
        "my",
        "please",
        "some",
        "will",
        "would",
        "you",
        "your",
    ]
)
_ACTIONS = {
    "Add": r"add\w*|set\w*|creat\w*|book (?:a|an|the|me|us|my|it|room|rooms)\b|schedul\w*|make|new|"
    r"remind\w*|put|record\w*|arrang\w*|organi[sz]\w*|register\w*",
    "Delete": r"delet\w*|remov\w*|cancel\w*|clear\w*|drop\w*|eras\w*|get rid|call off|no longer|scrap\w*|"
    r"unset|turn off",
    "Modify": r"chang\w*|modif\w*|mov\w*|updat\w*|reschedul\w*|edit\w*|shift\w*|switch\w*|replac\w*|"
    r"adjust\w*|instead|postpon\w*|push\w*|correct\w*|amend\w*|rename\w*",
    "Query": r"what|when|which|show\w*|check\w*|query|find|look\w*|tell|list|see|know|any|get|fetch|view|"
    r"remind me what|is there|do i have|retriev\w*|search\w*|read",
}
_VERBS = (
    "Add",
    "Delete",
    "Modify",
    "Query",
    "Get",
    "Cancel",
    "Record",
    "Open",
    "Book",
    "Send",
    "Play",
    "Search",
)
_DATETIME = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?: (\d{2}):(\d{2})(?::(\d{2}))?)?$")
_MONTH_DAY = re.compile(r"^(\d{2})-(\d{2})$")
#: Upper-case words of a dialogue that are not codes a value could be.
_NOT_CODES = frozenset(
    {"I", "AM", "PM", "OK", "API", "ID", "AI", "US", "USA", "UK", "EU", "TV", "PIN", "URL"}
)
_MAX_TEXT = 20_000


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text[:_MAX_TEXT].lower()))


def _has_word(words: set[str], word: str) -> bool:
    return word in words or (len(word) >= 4 and any(w[:4] == word[:4] and len(w) >= 4 for w in words))


def _date_said(text: str, words: set[str], year: int, month: int, day: int) -> bool:
    iso = f"{year:04d}-{month:02d}-{day:02d}"
    if iso in text or f"{month}/{day}/{year}" in text or f"{month:02d}/{day:02d}/{year}" in text:
        return True
    name = MONTHS[month - 1]
    month_ok = name in words or name[:3] in words
    day_ok = str(day) in words or any(w == f"{day}{s}" for w in words for s in ("st", "nd", "rd", "th"))
    return month_ok and day_ok


def _time_said(text: str, hour: int, minute: int) -> bool:
    if re.search(rf"(?<!\d)0?{hour}:{minute:02d}(?!\d)", text):
        return True
    twelve = hour % 12 or 12
    suffix = "pm" if hour >= 12 else "am"
    minutes = f":{minute:02d}" if minute else "(?::00)?"
    spoken = rf"(?<!\d){twelve}{minutes}\s?(?:{suffix}|{suffix[0]}\.m\.|o'?clock)"
    if re.search(spoken, text):
        return True
    return ((hour, minute) == (12, 0) and "noon" in text) or ((hour, minute) == (0, 0) and "midnight" in text)


def _datetime_said(value: str, text: str, words: set[str]) -> bool | None:
    """Whether a date or date-time value is said (None when ``value`` is neither)."""
    month_day = _MONTH_DAY.match(value.strip())
    if month_day is not None:
        month, day = int(month_day.group(1)), int(month_day.group(2))
        return 1 <= month <= 12 and _date_said(text, words, 2000, month, day)
    match = _DATETIME.match(value.strip())
    if match is None:
        return None
    year, month, day = int(match.group(1)), int(match.group(2)), int(match.group(3))
    try:
        datetime.date(year, month, day)
    except ValueError:
        return False
    relative = bool(words & {"today", "tomorrow", "tonight", "yesterday", "week", "weekend"})
    if not relative and not _date_said(text, words, year, month, day):
        return False
    if match.group(4) is None:
        return True
    if re.search(r"\d{4}-\d{2}-\d{2}[ t]\d{2}:\d{2}", text):
        return False  # the dialogue writes date-times in full, and never this one
    if value.strip()[11:] in ("00:00:00", "23:59:59", "00:00", "23:59"):
        return True  # a whole day, said as a date
    return value.strip() in text or _time_said(text, int(match.group(4)), int(match.group(5)))


def _items(value: str) -> list[str] | None:
    if not value.strip().startswith(("[", "(")):
        return None
    try:
        parsed = ast.literal_eval(value.strip()[:_MAX_TEXT])
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        return None
    if isinstance(parsed, list | tuple):
        return [json.dumps(x) if isinstance(x, dict) else str(x) for x in parsed]
    return None


def value_said(param: str, value: str, text: str, raw: str = "", fixed: str = "") -> bool:
    """Whether ``value`` of ``param`` is said in ``text`` (the dialogue and earlier results, lower-case;
    ``raw`` as written, for codes; ``fixed``: the API's own descriptions, whose protocol words such as a
    status value a user need not say)."""
    value = value.strip()
    if not value:
        return True
    lowered = value.lower()
    if lowered in text or lowered.replace("_", " ") in text or value in ("True", "False"):
        return True
    if fixed and f"'{lowered}'" in fixed:
        return True
    words = _words(text)
    if re.fullmatch(r"-?\d+(?:\.\d+)?", value):
        return any(abs(n - float(value)) < 1e-9 for n in numbers_in(text))
    if len(value) <= 3 and value.isalpha():
        return True  # a language or unit code a user says in words ("Spanish" for es)
    if value.isupper() and value.isalpha() and len(value) <= 5:
        codes = set(re.findall(r"\b[A-Z]{2,5}\b", raw)) - _NOT_CODES
        return not codes  # a code a user names in words ("Amazon" for AMZN), unless they gave another
    when = _datetime_said(lowered, text, words)
    if when is not None:
        return when
    items = _items(value)
    if items is not None:
        return all(value_said(param, item, text, raw, fixed) for item in items)
    if value.startswith("{"):
        try:
            record = json.loads(value)
        except ValueError:
            record = None
        if isinstance(record, dict):
            return all(value_said(param, str(v), text, raw, fixed) for v in record.values())
    if param == "formula":
        numbers = numbers_in(text)
        wanted = [float(n) for n in re.findall(r"\d+(?:\.\d+)?", value)]
        return all(any(abs(n - w) < 1e-9 for n in numbers) for w in wanted)
    if param in FREE_TEXT:
        content = [w for w in _WORD.findall(lowered) if w not in _STOP]
        found = sum(_has_word(words, w) for w in content)
        return not content or found * 2 >= len(content)
    return False


def _said_text(history: Sequence[Mapping[str, Any]]) -> str:
    parts = []
    for turn in history:
        if turn.get("role") == "API":
            result = turn.get("result") or {}
            parts.append(json.dumps(result.get("output"), default=str))
        else:
            parts.append(str(turn.get("text", "")))
    return " ".join(parts).lower()[:_MAX_TEXT]


#: API name word -> the words a user says for it.
_SYNONYMS = {
    "agenda": ("agenda", "schedule", "calendar"),
    "alarm": ("alarm", "wake", "alarms"),
    "reminder": ("remind", "reminder", "reminders"),
    "meeting": ("meeting", "meet", "meetings", "reservation"),
    "registration": ("appointment", "registration", "doctor", "dr", "register"),
    "symptom": ("symptom", "symptoms"),
    "emergency": ("emergency", "symptom", "symptoms", "first", "aid", "urgent", "treat", "advice"),
    "balance": ("balance", "money", "funds", "much"),
    "wiki": ("wiki", "wikipedia", "encyclopedia"),
    "engine": ("search", "documents", "document"),
    "dictionary": ("dictionary", "meaning", "meanings", "define", "definition", "mean"),
    "image": ("image", "picture", "photo", "caption", "jpg", "png"),
    "speech": ("speech", "audio", "transcript", "transcribe", "recording", "wav"),
    "scene": ("scene", "scenes"),
    "timed": ("timed", "switch", "device"),
}


def _purpose_words(api_name: str) -> set[str]:
    """What a user says when they want ``api_name``: its name's nouns and their synonyms."""
    parts = re.findall(r"[A-Z][a-z]+|[A-Z]+(?![a-z])", api_name)
    nouns = {p.lower() for p in parts if p not in _VERBS}
    return nouns | {w for n in nouns for w in _SYNONYMS.get(n, ())}


def _said_for(api_name: str, user_words: set[str]) -> bool:
    return any(w in user_words for w in _purpose_words(api_name))


#: Things users ask for that differ only in name (an alarm is not a reminder).
_LOOKALIKES = (
    ("Alarm", "Reminder"),
    ("Reminder", "Alarm"),
    ("Meeting", "Agenda"),
    ("Wiki", "Dictionary"),
    ("Dictionary", "Wiki"),
)


def _confusable(api_name: str) -> list[str]:
    """The other APIs a call with these values could be: those with the same parameters, and the same
    action on a look-alike thing (``AddReminder`` for ``AddAlarm``)."""
    signature = SIGNATURES.get(api_name)
    if signature is None:
        return []
    params = set(signature.param_names)
    same = [n for n, s in SIGNATURES.items() if n != api_name and set(s.param_names) == params]
    alike = [api_name.replace(a, b) for a, b in _LOOKALIKES if a in api_name]
    return same + [n for n in alike if n in SIGNATURES]


def _action(api_name: str) -> str | None:
    for verb in ("Add", "Delete", "Modify", "Query"):
        if api_name.startswith(verb):
            return verb
    return {"CancelRegistration": "Delete", "CancelTimedSwitch": "Delete", "DeleteAccount": "Delete"}.get(
        api_name
    )


def _asked_actions(history: Sequence[Mapping[str, Any]]) -> set[str]:
    """The kinds of action the user's latest request words (the last user turn that words any)."""
    for turn in reversed(history):
        if turn.get("role") != "User":
            continue
        text = str(turn.get("text", "")).lower()[:_MAX_TEXT]
        asked = {a for a, words in _ACTIONS.items() if re.search(rf"\b(?:{words})\b", text)}
        if asked:
            return asked
    return set()


def _unstated(history: Sequence[Mapping[str, Any]], call: Mapping[str, Any]) -> list[str]:
    """The parameters of ``call`` whose values ``history`` (the turns before it) never says."""
    said = _said_text(history)
    raw = " ".join(str(t.get("text", "")) for t in history if t.get("role") != "API")[:_MAX_TEXT]
    signature = SIGNATURES.get(str(call.get("api_name", "")))
    fixed = json.dumps(signature.describe()).lower() if signature is not None else ""
    params = call.get("param_dict") or {}
    return [k for k, v in params.items() if not value_said(str(k), str(v), said, raw, fixed)]


def _request_names(history: Sequence[Mapping[str, Any]], names: Sequence[str]) -> set[str]:
    """Which of ``names`` the user's latest turn naming any of them asks for."""
    for turn in reversed(history):
        if turn.get("role") != "User":
            continue
        words = _words(str(turn.get("text", "")))
        named = {n for n in names if _said_for(n, words)}
        if named:
            return named
    return set()


def dialogue_problems(history: Sequence[Mapping[str, Any]], truth: Mapping[str, Any]) -> list[str]:
    """Where the dialogue does not ask for the reference call (see the module docstring)."""
    history = [
        dict(turn, text=asserted_text(str(turn["text"]))) if turn.get("role") in ("User", "AI") else turn
        for turn in history
    ]
    problems = []
    unstated = _unstated(history, truth)
    if unstated:
        problems.append(f"the dialogue does not state the value of {', '.join(unstated[:4])}")
    calls = [turn for turn in history if turn.get("role") == "API"] + [truth]
    used = {str(v) for call in calls for v in (call.get("param_dict") or {}).values()}
    said = " ".join(str(turn["text"]) for turn in history if turn.get("role") == "User")
    if others := competing_values(said, used):
        problems.append(f"the user also names {others[0]!r}, which no call uses: which one is meant?")
    for i, turn in enumerate(history):
        if turn.get("role") == "API" and turn.get("api_name") != "GetUserToken":
            earlier = _unstated(history[:i], turn)
            if earlier:
                problems.append(f"the earlier call {turn.get('api_name')} uses a {earlier[0]} nobody said")
                break
    name = str(truth.get("api_name", ""))
    if name != "GetUserToken":  # a login step nobody asks for by name
        rivals = [n for n in _confusable(name) if _purpose_words(n) - _purpose_words(name)]
        asked = _request_names(history, [name, *rivals])
        if asked and name not in asked:
            problems.append(f"the user asks for {sorted(asked)[0]}, not {name}")
    action = _action(name)
    if action is not None and action != "Query":
        asked = _asked_actions(history) - {"Query"}
        contrary = {"Add": {"Delete"}, "Delete": {"Add", "Modify"}, "Modify": {"Delete"}}[action]
        if asked and action not in asked and asked <= contrary:
            problems.append(
                f"the user asks to {'/'.join(sorted(asked)).lower()}, not to {action.lower()} ({name})"
            )
    return problems
