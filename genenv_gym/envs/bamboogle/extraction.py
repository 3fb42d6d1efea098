"""Search-R1's parsing of model text: the action of one turn, and the final answer of a whole response.

- ``parse_action``: the first ``<search>...</search>`` or ``<answer>...</answer>`` (the opening and closing
  tag names must agree, non-greedy, across newlines), stripped; no such pair is an invalid action
  (``generation.py``'s ``postprocess_predictions``).
- ``cut_turn``: a generated turn stops at the first ``</search>``, else at the first ``</answer>``
  (``_postprocess_responses``).
- ``extract_answer``: the last ``<answer>...</answer>`` pair, stripped (``qa_em.py``'s
  ``extract_solution``). The reference runs it on the prompt *and* the response and returns None when
  there are fewer than two pairs, because its prompt holds the example ``<answer> Beijing </answer>``.
  We score only the agent's answering turn, so one pair is enough (``mode="response"``); ``mode="reference"``
  reproduces the reference exactly (pass it the prompt plus the response).
"""

from __future__ import annotations

import re

from genenv_gym.suggest import check_choice

_ACTION = re.compile(r"<(search|answer)>(.*?)</\1>", re.DOTALL)
_ANSWER = re.compile(r"<answer>(.*?)</answer>", re.DOTALL)
EXTRACTION_MODES = ("response", "reference")


def parse_action(text: str) -> tuple[str | None, str]:
    """The turn's action (``"search"``, ``"answer"`` or None) and its stripped content ("" for None)."""
    match = _ACTION.search(text)
    if match is None:
        return None, ""
    return match.group(1), match.group(2).strip()


def cut_turn(text: str) -> str:
    """The turn as the reference keeps it: up to the first ``</search>``, else the first ``</answer>``."""
    if "</search>" in text:
        return text.split("</search>")[0] + "</search>"
    if "</answer>" in text:
        return text.split("</answer>")[0] + "</answer>"
    return text


def extract_answer(text: str, mode: str = "response") -> str | None:
    """The last ``<answer>`` content of ``text``, stripped; None when there is none.

    ``mode="reference"`` returns None unless there are at least two pairs, as ``extract_solution`` does.
    """
    check_choice("extraction mode", mode, EXTRACTION_MODES)
    last = None
    count = 0
    for match in _ANSWER.finditer(text):
        last = match
        count += 1
    if last is None or (mode == "reference" and count <= 1):
        return None
    return last.group(1).strip()
