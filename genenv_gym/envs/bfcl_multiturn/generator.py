"""Procedural BFCL multi-turn entries (``GenEnv-Sim-BFCL-MultiTurn-v0``) at ten difficulty levels.

An entry is made in four steps, all drawn from one ``numpy`` generator:

1. **State.** The involved classes (1-3 of file system, tickets, vehicle, trading, messaging, posting, math)
   get a random ``initial_config`` each (a file tree with text files, a ticket queue, a car, an account
   with orders and a watch list, a workspace with users and messages, a posting account with tweets), which
   each class's own ``_load_scenario`` loads (long-context mode at the top levels).
2. **Plan.** Turn by turn, calls of documented methods are sampled with arguments read from the *current*
   state of fresh backends (a file of the current folder, an open ticket, a stock on the watch list, ...)
   and executed there; a call whose result is an error (an error dict or ``Error during execution``) is
   undone and redrawn, so every ground-truth call succeeds.
3. **Wording.** Each call has a template clause stating every argument value; a turn's user message joins
   its clauses. A *missing parameter* turn leaves one value out (its ground truth is empty: the right
   behaviour is to ask) and the next user turn gives it, with the turn's calls as ground truth (the
   official miss_param rule). A *missing function* turn asks for a call whose doc is held out (ground truth
   empty) and the next turn shows the doc (the official miss_func rule).
4. **Docs.** The tools are our own short docs (BFCL's JSON schema format) of the sampled methods' classes,
   so generation needs no data files.

The level table :data:`LEVELS` maps each level to turns (1-4), calls per turn (1-3), classes (1-3), state
size, long-context mode, and the missing-parameter / missing-function turns.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from genenv_gym.envs.bfcl_multiturn.calls import Call, make_instances, render_call, run_call
from genenv_gym.envs.bfcl_multiturn.gorilla_file_system import Directory, File, GorillaFileSystem


@dataclass(frozen=True)
class Level:
    """The knobs of one difficulty level."""

    turns: int
    max_calls: int
    classes: int
    size: int
    long_context: bool = False
    miss_param: bool = False
    miss_func: bool = False


#: The ten levels, easiest first.
LEVELS: tuple[Level, ...] = (
    Level(1, 1, 1, 1),
    Level(1, 2, 1, 1),
    Level(2, 2, 1, 1),
    Level(2, 2, 2, 2),
    Level(3, 2, 2, 2),
    Level(3, 3, 2, 2),
    Level(3, 3, 3, 2, miss_param=True),
    Level(4, 3, 3, 3, miss_func=True),
    Level(4, 3, 3, 3, long_context=True, miss_param=True),
    Level(4, 3, 3, 3, long_context=True, miss_param=True, miss_func=True),
)
NUM_LEVELS = len(LEVELS)

_WORDS = (
    "alpha", "budget", "cedar", "delta", "ember", "falcon", "garden", "harbor", "indigo", "jasper",
    "kernel", "lumen", "meadow", "nectar", "orbit", "pepper", "quartz", "river", "summit", "timber",
    "umber", "velvet", "willow", "xenon", "yonder", "zephyr", "report", "draft", "final", "notes",
)  # fmt: skip
_NAMES = (
    "Alice", "Bruno", "Chloe", "Dmitri", "Elena", "Farid", "Grace", "Hiro", "Ines", "Jonas",
    "Keiko", "Liam", "Maya", "Nico", "Olga", "Pavel",
)  # fmt: skip


# ----------------------------------------------------------------------------------------------------------
# Docs (our own wording, BFCL's JSON schema format)
# ----------------------------------------------------------------------------------------------------------

_CLASS_INTRO = {
    "GorillaFileSystem": "This tool belongs to a simple in-memory file system.",
    "TicketAPI": "This tool belongs to a support ticketing system.",
    "VehicleControlAPI": "This tool belongs to a car's control system.",
    "TradingBot": "This tool belongs to a stock trading account.",
    "MessageAPI": "This tool belongs to a workspace messaging system.",
    "TwitterAPI": "This tool belongs to a social posting account.",
    "MathAPI": "This tool belongs to a math toolbox.",
}
_S, _I, _F, _B, _A, _D = "string", "integer", "float", "boolean", "array", "dict"
#: class -> method -> (description, ((param, type, description, required), ...)).
_DOCS: dict[str, dict[str, tuple[str, tuple[tuple[str, str, str, bool], ...]]]] = {
    "GorillaFileSystem": {
        "pwd": ("Return the current working directory path.", ()),
        "ls": ("List the contents of the current directory.", (("a", _B, "Show hidden files too.", False),)),
        "cd": (
            "Change into a directory of the current directory, or '..'.",
            (("folder", _S, "Folder.", True),),
        ),
        "mkdir": ("Create a directory in the current directory.", (("dir_name", _S, "New name.", True),)),
        "touch": ("Create an empty file in the current directory.", (("file_name", _S, "New name.", True),)),
        "cat": ("Show the content of a file of the current directory.", (("file_name", _S, "File.", True),)),
        "wc": (
            "Count the lines, words or characters of a file.",
            (("file_name", _S, "File.", True), ("mode", _S, "'l' lines, 'w' words, 'c' characters.", False)),
        ),
        "grep": (
            "The lines of a file that contain a pattern.",
            (("file_name", _S, "File.", True), ("pattern", _S, "Text to look for.", True)),
        ),
        "sort": ("Sort the lines of a file.", (("file_name", _S, "File.", True),)),
        "tail": (
            "The last lines of a file.",
            (("file_name", _S, "File.", True), ("lines", _I, "How many lines (default 10).", False)),
        ),
        "echo": (
            "Write content to an existing file of the current directory (or show it).",
            (("content", _S, "Text.", True), ("file_name", _S, "File to overwrite.", False)),
        ),
        "cp": (
            "Copy a file to a new name or into a directory.",
            (("source", _S, "Item to copy.", True), ("destination", _S, "New name or directory.", True)),
        ),
        "mv": (
            "Move or rename an item of the current directory.",
            (("source", _S, "Item to move.", True), ("destination", _S, "New name or directory.", True)),
        ),
        "rm": ("Remove a file of the current directory.", (("file_name", _S, "File.", True),)),
        "diff": (
            "Line differences between two files.",
            (("file_name1", _S, "First file.", True), ("file_name2", _S, "Second file.", True)),
        ),
    },
    "TicketAPI": {
        "create_ticket": (
            "Create a ticket owned by the logged-in user.",
            (
                ("title", _S, "Title.", True),
                ("description", _S, "Description.", False),
                ("priority", _I, "Priority 1-5 (default 1).", False),
            ),
        ),
        "get_ticket": ("Get a ticket by id.", (("ticket_id", _I, "Ticket id.", True),)),
        "close_ticket": ("Close a ticket.", (("ticket_id", _I, "Ticket id.", True),)),
        "resolve_ticket": (
            "Resolve a ticket with a resolution text.",
            (("ticket_id", _I, "Ticket id.", True), ("resolution", _S, "How it was resolved.", True)),
        ),
        "edit_ticket": (
            "Change fields (title, description, status, priority) of a ticket.",
            (("ticket_id", _I, "Ticket id.", True), ("updates", _D, "Field name -> new value.", True)),
        ),
        "get_user_tickets": (
            "The logged-in user's tickets, optionally with one status.",
            (("status", _S, "Status to keep.", False),),
        ),
    },
    "VehicleControlAPI": {
        "fillFuelTank": ("Add fuel in gallons (the tank holds 50).", (("fuelAmount", _F, "Gallons.", True),)),
        "lockDoors": (
            "Lock or unlock doors.",
            (
                ("unlock", _B, "True to unlock, False to lock.", True),
                ("door", _A, "Doors: driver, passenger, rear_left, rear_right.", True),
            ),
        ),
        "adjustClimateControl": (
            "Set the air conditioning.",
            (
                ("temperature", _F, "Temperature.", True),
                ("unit", _S, "'celsius' or 'fahrenheit'.", False),
                ("fanSpeed", _I, "Fan speed 0-100.", False),
                ("mode", _S, "'auto', 'cool', 'heat' or 'defrost'.", False),
            ),
        ),
        "setHeadlights": ("Set the headlights.", (("mode", _S, "'on', 'off' or 'auto'.", True),)),
        "displayCarStatus": (
            "Show part of the car's status.",
            (
                (
                    "option",
                    _S,
                    "fuel, battery, doors, climate, headlights, parkingBrake, brakePedal, engine.",
                    True,
                ),
            ),
        ),
        "check_tire_pressure": ("The tire pressures.", ()),
        "pressBrakePedal": ("Press the brake pedal.", (("pedalPosition", _F, "Position 0-1.", True),)),
        "activateParkingBrake": (
            "Engage or release the parking brake.",
            (("mode", _S, "'engage' or 'release'.", True),),
        ),
        "gallon_to_liter": ("Convert gallons to liters.", (("gallon", _F, "Gallons.", True),)),
        "liter_to_gallon": ("Convert liters to gallons.", (("liter", _F, "Liters.", True),)),
    },
    "TradingBot": {
        "get_stock_info": ("Price and volume of a stock.", (("symbol", _S, "Stock symbol.", True),)),
        "get_symbol_by_name": ("The symbol of a company name.", (("name", _S, "Company name.", True),)),
        "add_to_watchlist": ("Add a stock to the watch list.", (("stock", _S, "Stock symbol.", True),)),
        "remove_stock_from_watchlist": (
            "Remove a stock from the watch list.",
            (("symbol", _S, "Stock symbol.", True),),
        ),
        "get_watchlist": ("The watch list.", ()),
        "place_order": (
            "Place a buy or sell order.",
            (
                ("order_type", _S, "'Buy' or 'Sell'.", True),
                ("symbol", _S, "Stock symbol.", True),
                ("price", _F, "Price per share.", True),
                ("amount", _I, "Number of shares.", True),
            ),
        ),
        "cancel_order": ("Cancel an order.", (("order_id", _I, "Order id.", True),)),
        "get_order_details": ("Details of an order.", (("order_id", _I, "Order id.", True),)),
        "fund_account": ("Add money to the account.", (("amount", _F, "Amount.", True),)),
        "withdraw_funds": ("Withdraw money (market open).", (("amount", _F, "Amount.", True),)),
        "get_account_info": ("Account id, balance and card.", ()),
    },
    "MessageAPI": {
        "list_users": ("All user names of the workspace.", ()),
        "get_user_id": ("The id of a user name.", (("user", _S, "User name.", True),)),
        "send_message": (
            "Send a message to a user id.",
            (("receiver_id", _S, "Receiver's user id.", True), ("message", _S, "Text.", True)),
        ),
        "delete_message": (
            "Delete the latest message to a user id.",
            (("receiver_id", _S, "User id.", True),),
        ),
        "view_messages_sent": ("Messages sent, by receiver.", ()),
        "add_contact": ("Add a user to the workspace.", (("user_name", _S, "New user name.", True),)),
        "search_messages": ("Messages that contain a keyword.", (("keyword", _S, "Keyword.", True),)),
    },
    "TwitterAPI": {
        "post_tweet": (
            "Post a tweet.",
            (
                ("content", _S, "Text.", True),
                ("tags", _A, "Hashtags.", False),
                ("mentions", _A, "Mentioned user names.", False),
            ),
        ),
        "retweet": ("Retweet a tweet.", (("tweet_id", _I, "Tweet id.", True),)),
        "comment": (
            "Comment on a tweet.",
            (("tweet_id", _I, "Tweet id.", True), ("comment_content", _S, "Comment.", True)),
        ),
        "follow_user": ("Follow a user.", (("username_to_follow", _S, "User name.", True),)),
        "unfollow_user": ("Unfollow a user.", (("username_to_unfollow", _S, "User name.", True),)),
        "list_all_following": ("The users followed.", ()),
        "get_tweet": ("A tweet by id.", (("tweet_id", _I, "Tweet id.", True),)),
        "get_user_tweets": ("A user's tweets.", (("username", _S, "User name.", True),)),
        "search_tweets": ("Tweets that contain a keyword.", (("keyword", _S, "Keyword.", True),)),
    },
    "MathAPI": {
        "add": ("a + b.", (("a", _F, "First number.", True), ("b", _F, "Second number.", True))),
        "subtract": ("a - b.", (("a", _F, "First number.", True), ("b", _F, "Second number.", True))),
        "multiply": ("a * b.", (("a", _F, "First number.", True), ("b", _F, "Second number.", True))),
        "divide": ("a / b.", (("a", _F, "Dividend.", True), ("b", _F, "Divisor.", True))),
        "mean": ("The mean of numbers.", (("numbers", _A, "Numbers.", True),)),
        "max_value": ("The largest of numbers.", (("numbers", _A, "Numbers.", True),)),
        "min_value": ("The smallest of numbers.", (("numbers", _A, "Numbers.", True),)),
        "percentage": (
            "part as a percentage of whole.",
            (("part", _F, "Part.", True), ("whole", _F, "Whole.", True)),
        ),
        "round_number": (
            "Round a number.",
            (("number", _F, "Number.", True), ("decimal_places", _I, "Decimal places (default 0).", False)),
        ),
    },
}


def class_docs(class_name: str) -> list[dict[str, Any]]:
    """The function docs of a class's generated methods (BFCL's JSON schema format)."""
    docs = []
    for name, (description, params) in _DOCS[class_name].items():
        properties: dict[str, Any] = {}
        for param, kind, text, _ in params:
            properties[param] = {"type": kind, "description": text}
            if kind == _A:
                properties[param]["items"] = {"type": _F if class_name == "MathAPI" else _S}
        docs.append(
            {
                "name": name,
                "description": f"{_CLASS_INTRO[class_name]} Tool description: {description}",
                "parameters": {
                    "type": "dict",
                    "properties": properties,
                    "required": [p for p, _, _, required in params if required],
                },
            }
        )
    return docs


# ----------------------------------------------------------------------------------------------------------
# Steps: one call and how the user asks for it
# ----------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One planned call, the clause that asks for it, and (when a value can be left out) the clause
    without it and the user's later sentence that gives it."""

    call: Call
    phrase: str
    vague: str | None = None
    clarification: str | None = None


def _say(value: Any) -> str:
    """A value as the user writes it."""
    if isinstance(value, str):
        return f"'{value}'"
    if isinstance(value, list):
        return ", ".join(_say(v) for v in value)
    return str(value)


def _step(name: str, kwargs: dict[str, Any], phrase: str, vague: str | None = None, noun: str = "") -> Step:
    """A Step; ``phrase`` / ``vague`` are format strings over ``kwargs`` (values as :func:`_say` writes)."""
    shown = {k: _say(v) for k, v in kwargs.items()}
    if vague is None:
        return Step(Call(name, dict(kwargs)), phrase.format(**shown))
    missing = next(k for k in kwargs if "{" + k + "}" in phrase and "{" + k + "}" not in vague)
    clarification = f"The {noun} is {shown[missing]}."
    return Step(Call(name, dict(kwargs)), phrase.format(**shown), vague.format(**shown), clarification)


def _pick(rng: np.random.Generator, items: list | tuple) -> Any:
    return items[int(rng.integers(len(items)))]


Sampler = Callable[[Any, np.random.Generator], Step | None]


def _fs_items(fs: GorillaFileSystem) -> tuple[list[str], list[str]]:
    files = [n for n, i in fs._current_dir.contents.items() if isinstance(i, File)]
    dirs = [n for n, i in fs._current_dir.contents.items() if isinstance(i, Directory)]
    return files, dirs


def _fs_text_files(fs: GorillaFileSystem) -> list[str]:
    return [n for n, i in fs._current_dir.contents.items() if isinstance(i, File) and i.content.strip()]


def _new_name(rng: np.random.Generator, taken: Any, suffix: str = "") -> str:
    for _ in range(20):
        name = f"{_pick(rng, _WORDS)}_{int(rng.integers(10, 99))}{suffix}"
        if name not in taken:
            return name
    return f"item_{len(taken)}{suffix}"


def _fs_samplers() -> list[Sampler]:
    def ls(fs, rng):
        return _step("ls", {"a": True}, "list everything in the current folder, hidden entries too")

    def pwd(fs, rng):
        return _step("pwd", {}, "tell me the path of the folder I am in")

    def cd(fs, rng):
        _, dirs = _fs_items(fs)
        if not dirs:
            return None
        return _step(
            "cd", {"folder": _pick(rng, dirs)}, "go into the folder {folder}", "go into the folder", "folder"
        )

    def mkdir(fs, rng):
        name = _new_name(rng, fs._current_dir.contents)
        return _step(
            "mkdir",
            {"dir_name": name},
            "create a folder named {dir_name} here",
            "create a new folder here",
            "folder name",
        )

    def touch(fs, rng):
        name = _new_name(rng, fs._current_dir.contents, ".txt")
        return _step(
            "touch",
            {"file_name": name},
            "create an empty file called {file_name}",
            "create an empty file",
            "file name",
        )

    def cat(fs, rng):
        files = _fs_text_files(fs)
        if not files:
            return None
        return _step(
            "cat",
            {"file_name": _pick(rng, files)},
            "show me the content of {file_name}",
            "show me the content of my file",
            "file",
        )

    def wc(fs, rng):
        files = _fs_text_files(fs)
        if not files:
            return None
        mode = _pick(rng, ("l", "w", "c"))
        what = {"l": "lines", "w": "words", "c": "characters"}[mode]
        return _step(
            "wc", {"file_name": _pick(rng, files), "mode": mode}, f"count the {what} of {{file_name}}"
        )

    def grep(fs, rng):
        files = _fs_text_files(fs)
        if not files:
            return None
        name = _pick(rng, files)
        words = fs._current_dir.contents[name].content.split()
        return _step(
            "grep",
            {"file_name": name, "pattern": _pick(rng, words)},
            "find the lines of {file_name} that contain {pattern}",
            "find the lines of {file_name} that contain the word I need",
            "word",
        )

    def sort(fs, rng):
        files = _fs_text_files(fs)
        if not files:
            return None
        return _step("sort", {"file_name": _pick(rng, files)}, "sort the lines of {file_name}")

    def tail(fs, rng):
        files = _fs_text_files(fs)
        if not files:
            return None
        kwargs = {"file_name": _pick(rng, files), "lines": int(rng.integers(1, 4))}
        return _step("tail", kwargs, "show the last {lines} lines of {file_name}")

    def echo(fs, rng):
        files, _ = _fs_items(fs)
        if not files:
            return None
        text = " ".join(_pick(rng, _WORDS) for _ in range(3))
        return _step(
            "echo",
            {"content": text, "file_name": _pick(rng, files)},
            "write {content} into {file_name}, replacing what it holds",
            "write some text into {file_name}, replacing what it holds",
            "text",
        )

    def cp(fs, rng):
        files, dirs = _fs_items(fs)
        if not files or not dirs:
            return None
        source, target = _pick(rng, files), _pick(rng, dirs)
        if source in fs._current_dir.contents[target].contents:
            return None
        return _step(
            "cp",
            {"source": source, "destination": target},
            "copy {source} into the folder {destination}",
            "copy {source} into another folder",
            "folder",
        )

    def mv(fs, rng):
        files, _ = _fs_items(fs)
        if not files:
            return None
        new = _new_name(rng, fs._current_dir.contents, ".txt")
        return _step(
            "mv",
            {"source": _pick(rng, files), "destination": new},
            "rename {source} to {destination}",
            "rename {source}",
            "new name",
        )

    def rm(fs, rng):
        files, _ = _fs_items(fs)
        if not files:
            return None
        return _step("rm", {"file_name": _pick(rng, files)}, "delete the file {file_name}")

    def diff(fs, rng):
        files = _fs_text_files(fs)
        if len(files) < 2:
            return None
        a, b = (files[i] for i in rng.choice(len(files), 2, replace=False))
        return _step("diff", {"file_name1": a, "file_name2": b}, "compare {file_name1} with {file_name2}")

    return [ls, pwd, cd, cd, mkdir, touch, cat, wc, grep, sort, tail, echo, cp, mv, rm, diff]


def _ticket_samplers() -> list[Sampler]:
    def ids(api, closed: bool = True) -> list[int]:
        return [t["id"] for t in api.ticket_queue if closed or t["status"] != "Closed"]

    def create(api, rng):
        kwargs = {
            "title": f"{_pick(rng, _WORDS)} {_pick(rng, ('broken', 'slow', 'missing', 'request'))}",
            "description": f"the {_pick(rng, _WORDS)} needs attention",
            "priority": int(rng.integers(1, 6)),
        }
        return _step(
            "create_ticket",
            kwargs,
            "open a ticket titled {title} with description {description} and priority {priority}",
            "open a ticket titled {title} with description {description} and the priority I need",
            "priority",
        )

    def get(api, rng):
        if not ids(api):
            return None
        return _step(
            "get_ticket",
            {"ticket_id": _pick(rng, ids(api))},
            "show me ticket {ticket_id}",
            "show me my ticket",
            "ticket id",
        )

    def close(api, rng):
        if not ids(api, closed=False):
            return None
        return _step(
            "close_ticket",
            {"ticket_id": _pick(rng, ids(api, False))},
            "close ticket {ticket_id}",
            "close my ticket",
            "ticket id",
        )

    def resolve(api, rng):
        if not ids(api, closed=False):
            return None
        kwargs = {"ticket_id": _pick(rng, ids(api, False)), "resolution": f"fixed the {_pick(rng, _WORDS)}"}
        return _step(
            "resolve_ticket",
            kwargs,
            "resolve ticket {ticket_id} with the note {resolution}",
            "resolve ticket {ticket_id}",
            "note",
        )

    def edit(api, rng):
        if not ids(api, closed=False):
            return None
        kwargs = {"ticket_id": _pick(rng, ids(api, False)), "updates": {"priority": int(rng.integers(1, 6))}}
        step = _step("edit_ticket", kwargs, "")
        phrase = f"set the priority of ticket {kwargs['ticket_id']} to {kwargs['updates']['priority']}"
        return Step(step.call, phrase)

    def mine(api, rng):
        status = _pick(rng, ("Open", "Closed", "Resolved"))
        return _step("get_user_tickets", {"status": status}, "list my tickets whose status is {status}")

    return [create, get, close, resolve, edit, mine]


_DOORS = ("driver", "passenger", "rear_left", "rear_right")


def _vehicle_samplers() -> list[Sampler]:
    def fuel(car, rng):
        room = int(50 - car.fuelLevel)
        if room < 1:
            return None
        return _step(
            "fillFuelTank",
            {"fuelAmount": float(rng.integers(1, room + 1))},
            "add {fuelAmount} gallons of fuel",
            "add some fuel",
            "amount in gallons",
        )

    def lock(car, rng):
        doors = sorted(str(d) for d in rng.choice(_DOORS, int(rng.integers(1, 5)), replace=False))
        unlock = bool(rng.integers(2))
        kwargs = {"unlock": unlock, "door": doors}
        verb = "unlock" if unlock else "lock"
        return _step(
            "lockDoors", kwargs, f"{verb} these doors: {{door}}", f"{verb} some doors", "list of doors"
        )

    def climate(car, rng):
        kwargs = {
            "temperature": float(rng.integers(16, 29)),
            "unit": "celsius",
            "fanSpeed": int(rng.integers(1, 11)) * 10,
        }
        return _step(
            "adjustClimateControl",
            kwargs,
            "set the air conditioning to {temperature} degrees {unit} with the fan at {fanSpeed}",
            "set the air conditioning to {temperature} degrees {unit} with the fan at the speed I like",
            "fan speed",
        )

    def lights(car, rng):
        return _step("setHeadlights", {"mode": _pick(rng, ("on", "off"))}, "switch the headlights {mode}")

    def status(car, rng):
        option = _pick(rng, ("fuel", "battery", "doors", "climate", "headlights", "engine"))
        return _step("displayCarStatus", {"option": option}, "show the car's {option} status")

    def tires(car, rng):
        return _step("check_tire_pressure", {}, "check the tire pressure")

    def brake(car, rng):
        return _step(
            "pressBrakePedal",
            {"pedalPosition": float(rng.integers(1, 11)) / 10},
            "press the brake pedal to position {pedalPosition}",
        )

    def parking(car, rng):
        return _step(
            "activateParkingBrake", {"mode": _pick(rng, ("engage", "release"))}, "{mode} the parking brake"
        )

    def gallons(car, rng):
        return _step(
            "gallon_to_liter",
            {"gallon": float(rng.integers(1, 40))},
            "convert {gallon} gallons to liters",
            "convert my gallons to liters",
            "number of gallons",
        )

    def liters(car, rng):
        return _step(
            "liter_to_gallon", {"liter": float(rng.integers(1, 150))}, "convert {liter} liters to gallons"
        )

    return [fuel, lock, climate, lights, status, tires, brake, parking, gallons, liters]


_COMPANIES = {"Apple": "AAPL", "Google": "GOOG", "Tesla": "TSLA", "Microsoft": "MSFT", "Nvidia": "NVDA"}


def _trading_samplers() -> list[Sampler]:
    def info(bot, rng):
        return _step(
            "get_stock_info",
            {"symbol": _pick(rng, sorted(bot.stocks))},
            "get the stock info of {symbol}",
            "get the stock info of the company I follow",
            "symbol",
        )

    def symbol(bot, rng):
        return _step(
            "get_symbol_by_name",
            {"name": _pick(rng, sorted(_COMPANIES))},
            "look up the stock symbol of {name}",
        )

    def watch(bot, rng):
        free = sorted(s for s in bot.stocks if s not in bot.watch_list)
        if not free:
            return None
        return _step(
            "add_to_watchlist",
            {"stock": _pick(rng, free)},
            "add {stock} to my watch list",
            "add a stock to my watch list",
            "symbol",
        )

    def unwatch(bot, rng):
        watched = [s for s in bot.watch_list if s in bot.stocks]
        if not watched:
            return None
        return _step(
            "remove_stock_from_watchlist",
            {"symbol": _pick(rng, watched)},
            "remove {symbol} from my watch list",
        )

    def order(bot, rng):
        sym = _pick(rng, sorted(bot.stocks))
        kwargs = {
            "order_type": _pick(rng, ("Buy", "Sell")),
            "symbol": sym,
            "price": round(float(bot.stocks[sym]["price"]), 2),
            "amount": int(rng.integers(1, 6)),
        }
        return _step(
            "place_order",
            kwargs,
            "place a {order_type} order for {amount} shares of {symbol} at {price} each",
            "place a {order_type} order for some shares of {symbol} at {price} each",
            "number of shares",
        )

    def cancel(bot, rng):
        pending = sorted(
            k for k, o in bot.orders.items() if isinstance(k, int) and o["status"] in ("Open", "Pending")
        )
        if not pending:
            return None
        return _step(
            "cancel_order",
            {"order_id": _pick(rng, pending)},
            "cancel order {order_id}",
            "cancel my order",
            "order id",
        )

    def details(bot, rng):
        known = sorted(k for k in bot.orders if isinstance(k, int))
        if not known:
            return None
        return _step(
            "get_order_details", {"order_id": _pick(rng, known)}, "show the details of order {order_id}"
        )

    def fund(bot, rng):
        return _step(
            "fund_account",
            {"amount": float(rng.integers(1, 50)) * 100},
            "add {amount} dollars to my account",
            "add money to my account",
            "amount",
        )

    def withdraw(bot, rng):
        return _step(
            "withdraw_funds", {"amount": float(rng.integers(1, 10)) * 50}, "withdraw {amount} dollars"
        )

    def account(bot, rng):
        return _step("get_account_info", {}, "show my account information")

    return [info, symbol, watch, unwatch, order, cancel, details, fund, withdraw, account]


def _message_samplers() -> list[Sampler]:
    def send(api, rng):
        others = sorted(i for i in api.user_map.values() if i != api.current_user)
        kwargs = {"receiver_id": _pick(rng, others), "message": f"the {_pick(rng, _WORDS)} is ready"}
        return _step(
            "send_message",
            kwargs,
            "send {message} to user id {receiver_id}",
            "send {message} to my colleague",
            "user id",
        )

    def user_id(api, rng):
        return _step("get_user_id", {"user": _pick(rng, sorted(api.user_map))}, "find the user id of {user}")

    def add(api, rng):
        free = [n for n in _NAMES if n not in api.user_map]
        if not free:
            return None
        return _step(
            "add_contact",
            {"user_name": _pick(rng, free)},
            "add {user_name} as a contact",
            "add a new contact",
            "name",
        )

    def search(api, rng):
        return _step("search_messages", {"keyword": _pick(rng, _WORDS)}, "search my messages for {keyword}")

    def view(api, rng):
        return _step("view_messages_sent", {}, "show the messages I have sent")

    def delete(api, rng):
        receivers = sorted({next(iter(m)) for m in api.inbox})
        if not receivers:
            return None
        return _step(
            "delete_message",
            {"receiver_id": _pick(rng, receivers)},
            "delete my latest message to {receiver_id}",
        )

    def users(api, rng):
        return _step("list_users", {}, "list all users of the workspace")

    return [send, user_id, add, search, view, delete, users]


def _posting_samplers() -> list[Sampler]:
    def post(api, rng):
        kwargs = {
            "content": f"Loving the {_pick(rng, _WORDS)} today",
            "tags": [f"#{_pick(rng, _WORDS)}"],
            "mentions": [f"@{_pick(rng, _NAMES).lower()}"],
        }
        return _step("post_tweet", kwargs, "post {content} with the tags {tags} and the mentions {mentions}")

    def ids(api) -> list[int]:
        return sorted(api.tweets)

    def retweet(api, rng):
        if not ids(api):
            return None
        return _step(
            "retweet",
            {"tweet_id": _pick(rng, ids(api))},
            "retweet tweet {tweet_id}",
            "retweet that tweet",
            "tweet id",
        )

    def comment(api, rng):
        if not ids(api):
            return None
        kwargs = {"tweet_id": _pick(rng, ids(api)), "comment_content": f"Great {_pick(rng, _WORDS)}!"}
        return _step(
            "comment",
            kwargs,
            "comment {comment_content} on tweet {tweet_id}",
            "comment {comment_content} on a tweet",
            "tweet id",
        )

    def follow(api, rng):
        free = [n.lower() for n in _NAMES if n.lower() not in api.following_list]
        if not free:
            return None
        return _step(
            "follow_user",
            {"username_to_follow": _pick(rng, free)},
            "follow {username_to_follow}",
            "follow my friend",
            "user name",
        )

    def unfollow(api, rng):
        if not api.following_list:
            return None
        return _step(
            "unfollow_user",
            {"username_to_unfollow": _pick(rng, api.following_list)},
            "unfollow {username_to_unfollow}",
        )

    def following(api, rng):
        return _step("list_all_following", {}, "list everyone I follow")

    def get(api, rng):
        if not ids(api):
            return None
        return _step("get_tweet", {"tweet_id": _pick(rng, ids(api))}, "show tweet {tweet_id}")

    def user_tweets(api, rng):
        return _step("get_user_tweets", {"username": api.username}, "show all tweets of {username}")

    def search(api, rng):
        return _step("search_tweets", {"keyword": _pick(rng, _WORDS)}, "search tweets for {keyword}")

    return [post, retweet, comment, follow, unfollow, following, get, user_tweets, search]


def _math_samplers() -> list[Sampler]:
    def number(rng) -> float:
        return float(rng.integers(1, 500)) / 4

    def binary(name: str, words: str):
        def sample(api, rng):
            kwargs = {"a": number(rng), "b": number(rng)}
            return _step(name, kwargs, words, words.replace("{b}", "my other number"), "other number")

        return sample

    def listed(name: str, words: str):
        def sample(api, rng):
            return _step(name, {"numbers": [number(rng) for _ in range(int(rng.integers(3, 6)))]}, words)

        return sample

    def percentage(api, rng):
        whole = number(rng) + 200
        return _step(
            "percentage", {"part": number(rng), "whole": whole}, "what percentage of {whole} is {part}"
        )

    def rounding(api, rng):
        kwargs = {"number": float(rng.integers(1, 10**5)) / 1000, "decimal_places": int(rng.integers(0, 3))}
        return _step("round_number", kwargs, "round {number} to {decimal_places} decimal places")

    return [
        binary("add", "add {a} and {b}"),
        binary("subtract", "subtract {b} from {a}"),
        binary("multiply", "multiply {a} by {b}"),
        binary("divide", "divide {a} by {b}"),
        listed("mean", "compute the mean of {numbers}"),
        listed("max_value", "find the largest of {numbers}"),
        listed("min_value", "find the smallest of {numbers}"),
        percentage,
        rounding,
    ]


# ----------------------------------------------------------------------------------------------------------
# Initial states (each class's ``initial_config`` part)
# ----------------------------------------------------------------------------------------------------------


def _text(rng: np.random.Generator) -> str:
    lines = [
        " ".join(_pick(rng, _WORDS) for _ in range(int(rng.integers(2, 6))))
        for _ in range(int(rng.integers(2, 6)))
    ]
    return "\n".join(lines)


def _fs_config(rng: np.random.Generator, size: int) -> dict[str, Any]:
    def folder(depth: int) -> dict[str, Any]:
        contents: dict[str, Any] = {}
        for _ in range(int(rng.integers(1, size + 2))):
            contents[_new_name(rng, contents, ".txt")] = {"type": "file", "content": _text(rng)}
        if depth < 2:
            for _ in range(int(rng.integers(1, size + 1))):
                contents[_new_name(rng, contents)] = {"type": "directory", "contents": folder(depth + 1)}
        return contents

    user = _pick(rng, _NAMES).lower()
    return {"root": {user: {"type": "directory", "contents": folder(0)}}}


def _ticket_config(rng: np.random.Generator, size: int) -> dict[str, Any]:
    user = _pick(rng, _NAMES)
    queue = []
    for i in range(int(rng.integers(1, 2 * size + 2))):
        queue.append(
            {
                "id": i + 1,
                "title": f"{_pick(rng, _WORDS)} issue",
                "description": f"the {_pick(rng, _WORDS)} is down",
                "status": _pick(rng, ("Open", "Open", "Closed")),
                "priority": int(rng.integers(1, 6)),
                "created_by": user if rng.random() < 0.8 else _pick(rng, _NAMES),
            }
        )
    return {"ticket_queue": queue, "ticket_counter": len(queue) + 1, "current_user": user}


def _vehicle_config(rng: np.random.Generator, size: int) -> dict[str, Any]:
    return {
        "fuelLevel": float(rng.integers(0, 40)),
        "batteryVoltage": 12.6,
        "engineState": "stopped",
        "doorStatus": {d: _pick(rng, ("locked", "unlocked")) for d in _DOORS},
        "acTemperature": float(rng.integers(18, 27)),
        "fanSpeed": int(rng.integers(0, 11)) * 10,
        "acMode": "auto",
        "humidityLevel": 50.0,
        "headLightStatus": _pick(rng, ("on", "off")),
        "random_seed": int(rng.integers(1, 10**6)),
    }


def _trading_config(rng: np.random.Generator, size: int) -> dict[str, Any]:
    symbols = sorted(_COMPANIES.values())
    orders = {}
    for i in range(int(rng.integers(1, 2 * size + 2))):
        order_id = 12345 + i
        sym = _pick(rng, symbols)
        orders[str(order_id)] = {
            "id": order_id,
            "order_type": _pick(rng, ("Buy", "Sell")),
            "symbol": sym,
            "price": float(rng.integers(50, 500)),
            "amount": int(rng.integers(1, 20)),
            "status": _pick(rng, ("Completed", "Pending", "Open")),
        }
    return {
        "orders": orders,
        "account_info": {
            "account_id": int(rng.integers(10000, 99999)),
            "balance": float(rng.integers(20, 200)) * 100,
            "binding_card": int(rng.integers(10**15, 10**16 - 1)),
        },
        "authenticated": True,
        "market_status": _pick(rng, ("Open", "Closed")),
        "order_counter": 12345 + len(orders),
        "watch_list": sorted(str(s) for s in rng.choice(symbols, int(rng.integers(1, 3)), replace=False)),
        "random_seed": int(rng.integers(1, 10**6)),
    }


def _message_config(rng: np.random.Generator, size: int) -> dict[str, Any]:
    names = [str(n) for n in rng.choice(_NAMES, size + 2, replace=False)]
    user_map = {name: f"USR{i + 1:03d}" for i, name in enumerate(names)}
    ids = list(user_map.values())
    inbox = [
        {_pick(rng, ids[1:]): f"about the {_pick(rng, _WORDS)}"}
        for _ in range(int(rng.integers(1, size + 3)))
    ]
    return {
        "user_count": len(user_map),
        "user_map": user_map,
        "inbox": inbox,
        "message_count": len(inbox),
        "current_user": ids[0],
        "random_seed": int(rng.integers(1, 10**6)),
    }


def _posting_config(rng: np.random.Generator, size: int) -> dict[str, Any]:
    user = _pick(rng, _NAMES).lower()
    tweets = {}
    for i in range(int(rng.integers(1, 2 * size + 2))):
        tweets[str(i)] = {
            "id": i,
            "username": user if rng.random() < 0.6 else _pick(rng, _NAMES).lower(),
            "content": f"thinking about {_pick(rng, _WORDS)} and {_pick(rng, _WORDS)}",
            "tags": [f"#{_pick(rng, _WORDS)}"],
            "mentions": [],
        }
    following = sorted({_pick(rng, _NAMES).lower() for _ in range(size + 1)} - {user})
    return {
        "username": user,
        "password": f"{user}{int(rng.integers(100, 999))}",
        "authenticated": True,
        "tweets": tweets,
        "comments": {},
        "retweets": {},
        "following_list": following,
        "tweet_counter": len(tweets),
    }


@dataclass(frozen=True)
class ClassSpec:
    """How the generator uses one backend class: a random ``initial_config`` part and call samplers."""

    config: Callable[[np.random.Generator, int], dict[str, Any]] | None
    samplers: list[Sampler]


CLASSES: dict[str, ClassSpec] = {
    "GorillaFileSystem": ClassSpec(_fs_config, _fs_samplers()),
    "TicketAPI": ClassSpec(_ticket_config, _ticket_samplers()),
    "VehicleControlAPI": ClassSpec(_vehicle_config, _vehicle_samplers()),
    "TradingBot": ClassSpec(_trading_config, _trading_samplers()),
    "MessageAPI": ClassSpec(_message_config, _message_samplers()),
    "TwitterAPI": ClassSpec(_posting_config, _posting_samplers()),
    "MathAPI": ClassSpec(None, _math_samplers()),
}


# ----------------------------------------------------------------------------------------------------------
# Entries
# ----------------------------------------------------------------------------------------------------------


def is_error_result(result: str) -> bool:
    """Whether a rendered call result reports a failure (``Error during execution``, an error dict/list)."""
    if result.startswith("Error during execution") or result.startswith("['Error"):
        return True
    try:
        value = json.loads(result)
    except ValueError:
        return False
    if isinstance(value, list) and value and isinstance(value[0], dict):
        value = value[0]
    return isinstance(value, dict) and "error" in value


def _sample_step(
    instances: dict[str, Any], class_name: str, rng: np.random.Generator, tries: int = 30
) -> tuple[Step, str] | None:
    """A call of the class that succeeds on the instances (executed there), with its result; None if none."""
    samplers = CLASSES[class_name].samplers
    for _ in range(tries):
        step = _pick(rng, samplers)(instances[class_name], rng)
        if step is None:
            continue
        before = copy.deepcopy(instances[class_name])
        result = run_call(instances, step.call)
        if not is_error_result(result):
            return step, result
        instances[class_name] = before
    return None


def _join(phrases: list[str]) -> str:
    text = "; then ".join(phrases)
    return text[:1].upper() + text[1:] + "."


def generate_entry(
    level: int, rng: np.random.Generator, long_context_fixed: bool | None = None
) -> dict[str, Any]:
    """A multi-turn entry at ``level`` in the layout :func:`.domain.entry_task` reads (``question``,
    ``initial_config``, ``involved_classes``, ``ground_truth``, ``function``, ``holdout``, ``category``),
    plus ``knobs`` (the level's features). Raises RuntimeError when no plan fits (rare; callers retry)."""
    knobs = LEVELS[min(max(int(level), 0), NUM_LEVELS - 1)]
    long_context = knobs.long_context if long_context_fixed is None else long_context_fixed
    names = sorted(CLASSES)
    classes = [str(c) for c in rng.choice(names, knobs.classes, replace=False)]
    config = {c: CLASSES[c].config(rng, knobs.size) for c in classes if CLASSES[c].config is not None}
    instances = make_instances(classes, config, long_context)
    plan: list[list[Step]] = []
    for turn in range(knobs.turns):
        steps: list[Step] = []
        for k in range(int(rng.integers(1, knobs.max_calls + 1))):
            class_name = classes[(turn + k) % len(classes)] if k == 0 else _pick(rng, classes)
            sampled = _sample_step(instances, class_name, rng)
            if sampled is not None:
                steps.append(sampled[0])
        if not steps:
            raise RuntimeError("no call of the chosen classes succeeds in this state")
        plan.append(steps)

    param_turn = func_turn = None
    if knobs.miss_param:
        candidates = [t for t, steps in enumerate(plan) if any(s.vague for s in steps)]
        param_turn = _pick(rng, candidates) if candidates else None
        if param_turn is None:
            raise RuntimeError("no call of the plan can leave a value out")
    missing_function = None
    if knobs.miss_func:
        used: set[str] = set()
        options = []
        for t, steps in enumerate(plan):
            fresh = sorted({s.call.name for s in steps} - used)
            if t != param_turn and fresh:
                options.append((t, fresh))
            used |= {s.call.name for s in steps}
        if not options:
            raise RuntimeError("no turn can miss a function")
        func_turn, fresh = options[int(rng.integers(len(options)))]
        missing_function = _pick(rng, fresh)

    question: list[list[dict[str, str]]] = []
    truth: list[list[str]] = []
    missed: dict[str, list[str]] = {}
    for t, steps in enumerate(plan):
        calls = [render_call(s.call) for s in steps]
        if t == param_turn:
            index = next(i for i, s in enumerate(steps) if s.vague)
            phrases = [s.vague if i == index else s.phrase for i, s in enumerate(steps)]
            question.append([{"role": "user", "content": _join(phrases)}])
            truth.append([])
            question.append([{"role": "user", "content": steps[index].clarification}])
            truth.append(calls)
        elif t == func_turn:
            question.append([{"role": "user", "content": _join([s.phrase for s in steps])}])
            truth.append([])
            missed[str(len(question))] = [missing_function]
            question.append([])
            truth.append(calls)
        else:
            question.append([{"role": "user", "content": _join([s.phrase for s in steps])}])
            truth.append(calls)

    functions = [doc for c in classes for doc in class_docs(c)]
    holdout: dict[str, list[dict[str, Any]]] = {}
    for turn, methods in missed.items():
        holdout[turn] = [doc for doc in functions if doc["name"] in methods]
        functions = [doc for doc in functions if doc["name"] not in methods]
    if long_context:
        category = "multi_turn_long_context"
    elif missed:
        category = "multi_turn_miss_func"
    elif param_turn is not None:
        category = "multi_turn_miss_param"
    else:
        category = "multi_turn_base"
    return {
        "question": question,
        "initial_config": config,
        "involved_classes": classes,
        "ground_truth": truth,
        "function": functions,
        "holdout": holdout,
        "missed_function": missed,
        "category": category,
        "knobs": {
            "level": int(level),
            "plan_turns": knobs.turns,
            "max_calls_per_turn": knobs.max_calls,
            "state_size": knobs.size,
            "long_context": long_context,
            "miss_param": param_turn is not None,
            "miss_func": bool(missed),
        },
    }
