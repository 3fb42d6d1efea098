"""Procedural API-Bank tasks: new dialogues over the simulated APIs, grounded in the init databases.

A generated task is one API-call sample, as in the benchmark: a dialogue (user turns, earlier API turns
with the results the simulated APIs really returned) and the API call the AI must make next. Parameters
come from the databases (real users, passwords, tokens, stock codes and dates, existing alarms). Every
task is checked before use: its reference call runs on the state the dialogue leaves and must succeed,
and the corrected verifier must accept the reference call (``APIBankDomain.validate``).

Difficulty knobs (:class:`GeneratorConfig`): ``token`` (the call needs the token an earlier
GetUserToken turn returned), ``depends`` (the call needs a value an earlier call created, e.g. the time
of an alarm set before), ``distractors`` (extra API descriptions), ``wide`` (a call with many parameters,
one a list), ``retrieval`` (only ToolSearcher is described: the agent must search for the API).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from genenv_gym.envs.apibank.corrected import reference_params
from genenv_gym.envs.apibank.registry import execute
from genenv_gym.envs.apibank.signatures import SIGNATURES
from genenv_gym.envs.apibank.world import World

NUM_LEVELS = 5
_TOPICS = ("quarterly budget", "garden plan", "team lunch", "book club", "tax forms", "dentist visit")
_PLACES = ("Room 4", "the library", "Cafe Lumen", "Hall B")
_NAMES = ("Ada", "Ben", "Chloe", "Dev", "Emil")


@dataclass(frozen=True)
class GeneratorConfig:
    """The difficulty knobs of one generated task."""

    token: bool = False
    depends: bool = False
    distractors: int = 0
    wide: bool = False
    retrieval: bool = False

    def validate(self) -> None:
        """Raise ValueError on knobs out of range."""
        if not 0 <= self.distractors <= 8:
            raise ValueError(f"distractors must be in 0..8, got {self.distractors}")
        if self.depends and not self.token:
            raise ValueError("depends=True needs token=True (the dependent calls are token-protected)")


#: Level -> knobs: a call from the user's words; + token; + a value from an earlier call; many parameters
#: and distractors; retrieval through ToolSearcher.
LEVEL_CONFIGS: tuple[GeneratorConfig, ...] = (
    GeneratorConfig(),
    GeneratorConfig(token=True, distractors=1),
    GeneratorConfig(token=True, depends=True, distractors=2),
    GeneratorConfig(token=True, wide=True, distractors=4),
    GeneratorConfig(retrieval=True),
)


def _pick(rng: np.random.Generator, items: Any) -> Any:
    items = list(items)
    return items[int(rng.integers(len(items)))]


def _time(rng: np.random.Generator) -> str:
    month, day, hour = int(rng.integers(4, 13)), int(rng.integers(1, 29)), int(rng.integers(6, 21))
    return f"2023-{month:02d}-{day:02d} {hour:02d}:{_pick(rng, ('00', '15', '30', '45'))}:00"


class Dialogue:
    """A dialogue under construction: turns, and the world its API turns have changed."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.turns: list[dict[str, Any]] = []

    def say(self, role: str, text: str) -> None:
        self.turns.append({"role": role, "text": text})

    def call(self, api_name: str, params: dict[str, str]) -> dict[str, Any]:
        result = execute(self.world, api_name, reference_params(api_name, params))
        if result["exception"] is not None:
            raise ValueError(f"{api_name} failed while generating: {result['exception']}")
        self.turns.append({"role": "API", "api_name": api_name, "param_dict": params, "result": result})
        return result


def _login(d: Dialogue, rng: np.random.Generator) -> tuple[str, str]:
    accounts = d.world.table("Account")
    username = _pick(rng, sorted(accounts))
    d.say("AI", "Sure. Could you give me your username and password?")
    d.say("User", f"My username is {username} and my password is {accounts[username]['password']}.")
    token = d.call("GetUserToken", {"username": username, "password": accounts[username]["password"]})
    d.say("AI", "Thanks, you are signed in.")
    return username, token["output"]["token"]


def _simple_target(d: Dialogue, rng: np.random.Generator) -> tuple[str, dict[str, str], str]:
    stocks = d.world.table("Stock")
    if stocks and rng.random() < 0.5:
        code = _pick(rng, sorted(stocks))
        date = _pick(rng, sorted(stocks[code]))
        return "QueryStock", {"stock_code": code, "date": date}, f"What was the price of {code} on {date}?"
    a, b, c = (int(x) for x in rng.integers(2, 200, size=3))
    op = _pick(rng, "+-*")
    return "Calculator", {"formula": f"({a}{op}{b})*{c}"}, f"Please work out ({a} {op} {b}) times {c}."


def _token_target(d: Dialogue, rng: np.random.Generator, token: str) -> tuple[str, dict[str, str], str]:
    time = _time(rng)
    if rng.random() < 0.5:
        return "AddAlarm", {"token": token, "time": time}, f"Set an alarm for {time}."
    topic = _pick(rng, _TOPICS)
    return (
        "AddReminder",
        {"token": token, "content": f"Prepare the {topic}", "time": time},
        f"Remind me to prepare the {topic} at {time}.",
    )


def _dependent_target(d: Dialogue, rng: np.random.Generator, token: str) -> tuple[str, dict[str, str], str]:
    time = _time(rng)
    d.say("User", f"First set an alarm for {time}.")
    d.call("AddAlarm", {"token": token, "time": time})
    d.say("AI", f"Your alarm for {time} is set.")
    new_time = _time(rng)
    if new_time == time or rng.random() < 0.5:
        return "QueryAlarm", {"token": token, "time": time}, "Can you check that alarm I just set?"
    return (
        "ModifyAlarm",
        {"token": token, "from_time": time, "to_time": new_time},
        f"Actually, move that alarm to {new_time}.",
    )


def _wide_target(d: Dialogue, rng: np.random.Generator, token: str) -> tuple[str, dict[str, str], str]:
    start = _time(rng)
    end = start[:11] + f"{min(int(start[11:13]) + 1, 23):02d}" + start[13:]
    topic, place = _pick(rng, _TOPICS), _pick(rng, _PLACES)
    people = sorted({_pick(rng, _NAMES) for _ in range(3)})
    params = {
        "token": token,
        "meeting_topic": f"Review of the {topic}",
        "start_time": start,
        "end_time": end,
        "location": place,
        "attendees": repr(people),
    }
    text = f"Book a meeting to review the {topic} in {place} from {start} to {end} with {', '.join(people)}."
    return "AddMeeting", params, text


def _search_words(api_name: str) -> str:
    return " ".join(w.lower() for w in re.findall(r"[A-Z][a-z]*", api_name))


def build(config: GeneratorConfig, world: World, rng: np.random.Generator) -> dict[str, Any]:
    """A generated sample: ``history``, ``truth`` (the API turn to produce) and the ``apis`` to describe."""
    config.validate()
    d = Dialogue(world)
    if config.retrieval:
        wanted = _pick(rng, [n for n in SIGNATURES if n not in ("ToolSearcher", "GetToday")])
        description = SIGNATURES[wanted].description
        d.say("User", f"I need a tool that {description[0].lower()}{description[1:]}")
        params, text, apis = {"keywords": _search_words(wanted)}, "", ["ToolSearcher"]
        api_name = "ToolSearcher"
    else:
        d.say("User", "Hi, I need some help with my account." if config.token else "Hi, a quick question.")
        token = _login(d, rng)[1] if config.token else ""
        if config.wide:
            api_name, params, text = _wide_target(d, rng, token)
        elif config.depends:
            api_name, params, text = _dependent_target(d, rng, token)
        elif config.token:
            api_name, params, text = _token_target(d, rng, token)
        else:
            api_name, params, text = _simple_target(d, rng)
        apis = [t["api_name"] for t in d.turns if t["role"] == "API"] + [api_name]
        others = [n for n in SIGNATURES if n not in apis and n != "ToolSearcher"]
        apis += [str(n) for n in rng.choice(others, size=config.distractors, replace=False)]
        apis = list(dict.fromkeys(rng.permutation(apis).tolist()))
    if text:
        d.say("User", text)
    result = execute(d.world.fork(), api_name, reference_params(api_name, params))
    if config.retrieval:
        found = result["output"][-1] if isinstance(result["output"], list) else result["output"]
        if not isinstance(found, Mapping) or found.get("name") != wanted:
            raise ValueError(f"the reference keywords do not retrieve {wanted}")
    truth = {"role": "API", "api_name": api_name, "param_dict": params, "result": result}
    return {"history": d.turns, "truth": truth, "apis": apis}


def config_for_level(level: int) -> GeneratorConfig:
    """The knobs of a difficulty level in ``0 .. NUM_LEVELS-1``."""
    if not 0 <= level < NUM_LEVELS:
        raise ValueError(f"API-Bank levels are 0..{NUM_LEVELS - 1}, got {level}")
    return LEVEL_CONFIGS[level]


def knobs(config: GeneratorConfig) -> Mapping[str, Any]:
    """The knobs as difficulty features."""
    return {k: getattr(config, k) for k in ("token", "depends", "distractors", "wide", "retrieval")}
