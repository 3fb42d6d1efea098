"""The official prompts: the instruction, the API descriptions, and the history as chat messages."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from genenv_gym.envs.apibank.extraction import render_call
from genenv_gym.envs.apibank.signatures import SIGNATURES

API_CALL_PROMPT = (
    "\n"
    "Based on the given API description and the existing conversation history 1..t, please "
    "generate the API request that the AI should call in step t+1 and output it in the format "
    "of [ApiName(key1='value1', key2='value2', ...)], replace the ApiName with the actual API "
    "name, and replace the key and value with the actual parameters. \n"
    'Your output should start with a square bracket "[" and end with a square bracket "]". Do '
    "not output any other explanation or prompt or the result of the API call in your output. \n"
    "This year is 2023.\n"
    "Input: \n"
    "User: [User's utterence]\n"
    "AI: [AI's utterence]\n"
    "\n"
    "Expected output:\n"
    "[ApiName(key1='value1', key2='value2', ...)]\n"
    "\n"
    "API descriptions:\n"
)

RESPONSE_PROMPT = (
    "\n"
    "Based on the given API description and the existing conversation history 1..t, please "
    "generate the next dialog that the AI should response after the API call t.\n"
    "This year is 2023.\n"
    "Input: \n"
    "User: [User's utterence]\n"
    "AI: [AI's utterence]\n"
    "[ApiName(key1='value1', key2='value2', …)]\n"
    "\n"
    "Expected output:\n"
    "AI: [AI's utterence]\n"
    "\n"
    "API descriptions:\n"
)

_ROLES = {"User": "user", "AI": "assistant", "API": "system"}


def describe_apis(names: Iterable[str]) -> str:
    """The API descriptions, one JSON object per line, as the official prompt lists them."""
    return "\n".join(json.dumps(SIGNATURES[n].describe()) for n in names if n in SIGNATURES)


def history_messages(history: Sequence[dict[str, Any]]) -> list[dict[str, str]]:
    """The dialogue so far as chat messages; a past API turn reads ``[Api(k='v')] Response: <output>``."""
    messages = []
    for turn in history:
        role = _ROLES.get(turn["role"])
        if role is None:
            raise ValueError(f"invalid chat role {turn['role']!r} in an API-Bank dialogue")
        if turn["role"] == "API":
            content = (
                f"{render_call(turn['api_name'], turn['param_dict'])} Response: {turn['result']['output']}"
            )
        else:
            content = turn["text"]
        messages.append({"role": role, "content": content})
    return messages


def build_messages(
    instruction: str, api_names: Iterable[str], history: Sequence[dict]
) -> list[dict[str, str]]:
    """The system prompt (instruction + API descriptions) followed by the history."""
    return [{"role": "system", "content": instruction + describe_apis(api_names)}, *history_messages(history)]


def render_messages(messages: Sequence[Any]) -> str:
    """The chat as one text, each turn headed by its role."""
    return "\n\n".join(f"{m['role']}: {m['content']}" for m in messages)
