"""Search-R1's prompt, observation blocks and invalid-action message, and its length budget."""

from __future__ import annotations

from typing import Any

#: The ``base`` template of Search-R1's ``scripts/data_process/qa_search_test_merge.py`` (``make_prefix``).
PROMPT_TEMPLATE = (
    "Answer the given question. You must conduct reasoning inside <think> and </think> first every time you "
    "get new information. After reasoning, if you find you lack some knowledge, you can call a search engine "
    "by <search> query </search> and it will return the top searched results between <information> and "
    "</information>. You can search as many times as your want. If you find no further external knowledge "
    "needed, you can directly provide the answer inside <answer> and </answer>, without detailed "
    "illustrations. For example, <answer> Beijing </answer>. Question: {question}\n"
)

#: ``generation.py``'s observation after an action with no ``<search>``/``<answer>`` pair.
INVALID_ACTION_MESSAGE = (
    "\nMy previous action is invalid. If I want to search, I should put the query between <search> and "
    "</search>. If I want to give the final answer, I should put the answer between <answer> and </answer>. "
    "Let me try again.\n"
)

#: Characters per token when no tokenizer is given (a documented proxy for English text).
CHARS_PER_TOKEN = 4


def render_prompt(question: str) -> str:
    """The Search-R1 prompt for an already normalised question."""
    return PROMPT_TEMPLATE.format(question=question)


def information_block(passages: str) -> str:
    """The observation after a search, as ``execute_predictions`` builds it."""
    return f"\n\n<information>{passages.strip()}</information>\n\n"


def truncate(text: str, max_tokens: int, tokenizer: Any = None) -> tuple[str, bool]:
    """``text`` cut to ``max_tokens`` tokens of ``tokenizer`` (or ``CHARS_PER_TOKEN`` characters each).

    Returns the text and whether it was cut. With a tokenizer the kept tokens are decoded back, as the
    reference keeps the first ``max_obs_length`` token ids.
    """
    if tokenizer is None:
        limit = max_tokens * CHARS_PER_TOKEN
        return (text, False) if len(text) <= limit else (text[:limit], True)
    ids = tokenizer.encode(text, add_special_tokens=False)
    if len(ids) <= max_tokens:
        return text, False
    return tokenizer.decode(ids[:max_tokens], skip_special_tokens=True), True
