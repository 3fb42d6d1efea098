"""A toy env for the server tests: it does, on request, what a hostile input could make a real env do.

Actions: ``sleep:S`` (sleeps S seconds), ``spin`` (a busy loop that never ends), ``child`` (starts a
``sleep`` subprocess and answers its pid), ``alloc:MB`` (takes MB of memory and keeps it), ``global:V``
(sets a module global that every observation shows), ``crash`` (ends its process), ``raise`` (a
ValueError naming a server path), ``pid`` (answers its process id); anything else is echoed. Reset
option ``mark`` (declared for clients) is shown in the observation. Closing appends a line to
``ToyEnv.close_log`` (a file: sessions close in their own processes).
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import gymnasium as gym

from genenv_gym.registry.client_params import ClientParams, Integer, Text
from genenv_gym.spaces import UnicodeText

TOY = "GenEnv-TestToy-v0"
#: What a client may set on the toy.
TOY_CLIENT = ClientParams(kwargs={"size": Integer(1, 10)}, options={"mark": Text(50)})

#: Set by ``global:V``: what every observation of this process shows.
SHARED = {"value": "initial"}


class ToyEnv(gym.Env):
    observation_space = UnicodeText(100_000)
    action_space = UnicodeText(100_000)
    close_log: str | None = None

    def __init__(self, size: int = 1, secret_path: str = "/srv/genenv/secret/data.json") -> None:
        self.size = size
        self.secret_path = secret_path
        self.held: list[bytearray] = []
        self.started = False

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.started = True
        mark = (options or {}).get("mark", "")
        return f"ready {mark} global={SHARED['value']}", {"size": self.size}

    def step(self, action):
        if not self.started:
            raise RuntimeError("call reset before step")
        kind, _, argument = action.partition(":")
        if kind == "sleep":
            time.sleep(float(argument))
        elif kind == "spin":
            while True:
                pass
        elif kind == "child":
            return str(subprocess.Popen(["sleep", "1000"]).pid), 0.0, False, False, {}
        elif kind == "alloc":
            self.held.append(bytearray(int(argument) * 1024 * 1024))
        elif kind == "global":
            SHARED["value"] = argument
        elif kind == "crash":
            os._exit(3)
        elif kind == "raise":
            raise ValueError(f"cannot read {self.secret_path}")
        elif kind == "pid":
            return str(os.getpid()), 0.0, False, False, {}
        return f"{action} global={SHARED['value']}", 0.0, False, False, {}

    def close(self):
        if self.close_log:
            with open(self.close_log, "a") as log:
                log.write("closed\n")


def register(close_log: Path) -> str:
    """Register the toy (its closes logged to ``close_log``); returns its id."""
    ToyEnv.close_log = str(close_log)
    if TOY not in gym.registry:
        gym.register(TOY, entry_point=f"{__name__}:ToyEnv")
    return TOY


def unregister() -> None:
    gym.registry.pop(TOY, None)
    ToyEnv.close_log = None


def closes() -> int:
    """How many toy envs have been closed so far (in any process)."""
    if not ToyEnv.close_log or not os.path.exists(ToyEnv.close_log):
        return 0
    with open(ToyEnv.close_log) as log:
        return len(log.readlines())
