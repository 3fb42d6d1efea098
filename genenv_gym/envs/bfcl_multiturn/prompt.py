"""What a prompting model sees in a BFCL multi-turn episode (bfcl-eval 2026.3.23's prompting loop).

The first turn's messages get BFCL's default system prompt listing the entry's function docs (with the
Python hint the official loader adds); each later turn appends its user message(s). A miss_func turn has no
user message: the official loop sends the held-out docs (as Python renders the list of doc dicts, without the
hint, which the loader adds only to the docs listed from the start) followed by "I have updated some more
functions you can choose from. What about now?". After each call step the model's text is an assistant
message and every call's result a ``tool`` message named by the call. With ``action_format="json"`` the
system prompt asks for JSON tool calls (the single-turn env's JSON wording) instead of ``[f(a=1)]``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from genenv_gym.envs.bfcl.prompt import (
    language_processed_functions,
    render_messages,
    system_prompt,
    with_system_prompt,
)

__all__ = ["ADDITIONAL_FUNCTIONS", "first_messages", "holdout_message", "render_messages", "turn_messages"]

ADDITIONAL_FUNCTIONS = "I have updated some more functions you can choose from. What about now?"


@lru_cache(maxsize=256)
def _system_prompt(functions_json: str, action_format: str = "python") -> str:
    """The system prompt for a JSON list of docs (cached: entries share their class combinations)."""
    return system_prompt(language_processed_functions(json.loads(functions_json), "python"), action_format)


def first_messages(
    question: Sequence[Mapping[str, str]],
    functions: Sequence[Mapping[str, Any]],
    action_format: str = "python",
) -> list[dict[str, str]]:
    """The system prompt with the function docs, merged with the first turn's messages (a system turn
    there is appended to the prompt, as officially). With ``action_format="json"`` the prompt asks for
    JSON tool calls, as the single-turn env's JSON prompt does."""
    return with_system_prompt(
        _system_prompt(json.dumps([dict(f) for f in functions]), action_format), question
    )


def holdout_message(docs: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """The user message of a miss_func turn: the held-out docs, then the official sentence."""
    return {"role": "user", "content": f"{[dict(d) for d in docs]}\n{ADDITIONAL_FUNCTIONS}"}


def turn_messages(
    turn: int,
    question: Sequence[Sequence[Mapping[str, str]]],
    holdout: Mapping[str, Sequence[Mapping[str, Any]]],
) -> list[dict[str, str]]:
    """The messages that open a later turn (a held-out turn's docs, else its user messages)."""
    if str(turn) in holdout:
        return [holdout_message(holdout[str(turn)])]
    return [dict(m) for m in question[turn]]
