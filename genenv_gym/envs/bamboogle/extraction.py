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

#: The opening tags of an action. The reference's patterns (``<(search|answer)>(.*?)</\1>`` and
#: ``<answer>(.*?)</answer>``, DOTALL) scan to the end of the text from every unclosed opening: quadratic on a
#: reply of many openings (a 160,000-character one took 38 s). The same matches are found here with one
#: forward scan and ``str.find`` (tests/envs/bamboogle/test_bamboogle_extraction_cost.py compares them).
_OPENING = re.compile(r"<(search|answer)>")
EXTRACTION_MODES = ("response", "reference")


def parse_action(text: str) -> tuple[str | None, str]:
    """The turn's action (``"search"``, ``"answer"`` or None) and its stripped content ("" for None)."""
    last_close = {tag: text.rfind(f"</{tag}>") for tag in ("search", "answer")}
    for opening in _OPENING.finditer(text):
        tag = opening.group(1)
        if last_close[tag] >= opening.end():  # the leftmost opening that is closed after it
            return tag, text[opening.end() : text.find(f"</{tag}>", opening.end())].strip()
    return None, ""


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
    last, count, position = None, 0, 0
    while (start := text.find("<answer>", position)) != -1:
        end = text.find("</answer>", start + len("<answer>"))
        if end == -1:  # no later opening is closed either
            break
        last, count, position = text[start + len("<answer>") : end], count + 1, end + len("</answer>")
    if last is None or (mode == "reference" and count <= 1):
        return None
    return last.strip()
