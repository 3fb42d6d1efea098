"""Agent text to ALFWorld commands: normalised, and ReAct's "put X in/on Y" read as "move X to Y".

alfworld >= 0.4.0 (and the game files) place objects with ``move {o} to {r}``; ReAct-style prompts and older
releases say ``put {o} in {r}`` / ``put {o} on {r}`` / ``put {o} in/on {r}``. Both are accepted. Nothing here
executes agent text: a command is only ever compared with the engine's own command strings.
"""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_SPACES = re.compile(r"\s+")
_PUT = re.compile(r"^put (?P<obj>.+?) (?:in/on|in|on|into|onto|to) (?P<recep>.+)$")
_TRAILING = ".!;"
_QUOTES = "\"'`"


def normalize_command(text: object) -> str:
    """Canonical form of a command: lower case, no control characters, single spaces, no prompt marker.

    Strips surrounding quotes, a leading ``>`` (how transcripts show actions) and a final ``.``/``!``/``;``;
    maps ``put X in/on Y`` to ``move X to Y``. Non-text gives the empty command.
    """
    if not isinstance(text, str):
        return ""
    command = _SPACES.sub(" ", _CONTROL.sub(" ", text)).strip().lower()
    command = command.lstrip(">").strip().strip(_QUOTES).strip().rstrip(_TRAILING).strip()
    match = _PUT.match(command)
    if match:
        command = f"move {match['obj']} to {match['recep']}"
    return command


def commands_match(predicted: object, gold: str) -> bool:
    """Exact match of two commands after normalisation (the Step env's metric)."""
    return normalize_command(predicted) == normalize_command(gold) != ""
