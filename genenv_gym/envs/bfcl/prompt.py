"""What a BFCL prompting model sees: BFCL's default system prompt with the functions, then the user turn.

This reproduces the default prompt format of bfcl-eval 2026.3.23
(``ret_fmt=python&tool_call_tag=False&func_doc_fmt=json&prompt_fmt=plaintext&style=classic``) and the
language hints its loader adds to function docs before inference.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from typing import Any

_PERSONA = "You are an expert in composing functions."
_TASK = (
    "You are given a question and a set of possible functions. Based on the question, you will need to "
    "make one or more function/tool calls to achieve the purpose. If none of the functions can be used, "
    "point it out. If the given question lacks the parameters required by the function, also point it out."
)
_PYTHON_FORMAT = "[func_name1(params_name1=params_value1, params_name2=params_value2...), func_name2(params)]"
_JSON_FORMAT = (
    '[{"name": "func_name1", "arguments": {"param1": "value1"}}, {"name": "func_name2", "arguments": {}}]'
)
_TOOL_CALL = (
    "You should only return the function calls in your response.\n\nIf you decide to invoke any of the "
    "function(s), you MUST put it in the format of {output_format}.  You SHOULD NOT include any other "
    "text in the response."
)
_MULTITURN = (
    "At each turn, you should try your best to complete the tasks requested by the user within the "
    "current turn. Continue to output functions to call until you have fulfilled the user's request to "
    "the best of your ability. Once you have no more functions to call, the system will consider the "
    "current turn complete and proceed to the next turn or task."
)
_TOOLS = "Here is a list of functions in json format that you can invoke.\n{functions}\n"

_LANGUAGE_HINT = {
    "python": " Note that the provided function is in Python 3 syntax.",
    "java": " Note that the provided function is in Java 8 SDK syntax.",
    "javascript": " Note that the provided function is in JavaScript syntax.",
}


def system_prompt(functions: list[dict[str, Any]], action_format: str = "python") -> str:
    """BFCL's default system prompt listing ``functions`` (already language-processed)."""
    output_format = _JSON_FORMAT if action_format == "json" else _PYTHON_FORMAT
    return "\n\n".join(
        [
            _PERSONA + _TASK,
            _TOOL_CALL.format(output_format=output_format),
            _MULTITURN,
            _TOOLS.format(functions=json.dumps(functions, indent=4)),
        ]
    )


def language_processed_functions(functions: list[dict[str, Any]], language: str) -> list[dict[str, Any]]:
    """Function docs as BFCL shows them at inference: a language hint, and Java/JS types as strings.

    Java and JavaScript answers are written as source text, so each parameter is presented as a string
    whose description names the language type (and the item type or dict schema it replaces).
    """
    processed = copy.deepcopy(functions)
    lang_name = "Java" if language == "java" else "JavaScript"
    for function in processed:
        function["description"] = function.get("description", "") + _LANGUAGE_HINT[language]
        if language == "python":
            continue
        for param in function.get("parameters", {}).get("properties", {}).values():
            declared = param.get("type")
            description = param.get("description", "")
            if declared == "any":
                description += (
                    f" This parameter can be of any type of {lang_name} object in string representation."
                )
            else:
                description += f" This is {lang_name} {declared} type parameter in string representation."
            if (language == "java" and declared in ("ArrayList", "Array")) or (
                language == "javascript" and declared == "array"
            ):
                item_type = param.get("items", {}).get("type")
                description += (
                    f" The list elements are of type {item_type}; they are not in string representation."
                )
                param.pop("items", None)
            if language == "javascript" and declared == "dict" and "properties" in param:
                description += (
                    " The dictionary entries have the following schema; they are not in string "
                    f"representation. {json.dumps(param['properties'])}"
                )
                del param["properties"]
            param["description"] = description
            param["type"] = "string"
    return processed


def prompt_messages(
    question: list[dict[str, str]],
    functions: list[dict[str, Any]],
    language: str,
    action_format: str = "python",
) -> list[dict[str, str]]:
    """The chat a prompting model receives: the system prompt merged with any system turn, then the rest."""
    return with_system_prompt(
        system_prompt(language_processed_functions(functions, language), action_format), question
    )


def with_system_prompt(prompt: str, question: Sequence[Mapping[str, str]]) -> list[dict[str, str]]:
    """``question``'s messages after ``prompt``, merged into a leading system turn as BFCL does."""
    messages = [dict(m) for m in question]
    if messages and messages[0].get("role") == "system":
        messages[0]["content"] = prompt + "\n\n" + messages[0]["content"]
    else:
        messages.insert(0, {"role": "system", "content": prompt})
    return messages


def render_messages(messages: list[dict[str, str]]) -> str:
    """Chat messages as one observation text, each turn headed by its role."""
    return "\n\n".join(f"<|{m['role']}|>\n{m['content']}" for m in messages)
