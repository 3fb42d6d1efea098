"""How much of a call step's execution results the model is shown (the checker always sees them in full).

A reply of up to 100,000 characters can hold thousands of calls, each of whose results may be as long as
a file the model wrote itself: unbounded, one cheap reply would make an observation of hundreds of MB,
re-rendered at every later step. So each result shown is cut past :data:`MAX_SHOWN_RESULT_CHARS`, with a
marker saying how much was cut, and once a step's shown results reach :data:`MAX_SHOWN_STEP_CHARS` the
later calls of that step are shown as a one-line marker each. The official data is far below both: playing
the ground truth of all 800 multi-turn entries, the longest result is 31,689 characters
(``multi_turn_long_context_125``) and the longest step's results total 70,446 characters
(``multi_turn_long_context_113``), so no real episode is shown anything different.
"""

from __future__ import annotations

from collections.abc import Sequence

#: The most characters of one call's result shown to the model (3x the longest in the official data).
MAX_SHOWN_RESULT_CHARS = 100_000
#: The most characters of results shown for one call step (5x the longest step in the official data).
MAX_SHOWN_STEP_CHARS = 400_000


def shown_result(result: str) -> str:
    """``result`` as shown: cut past :data:`MAX_SHOWN_RESULT_CHARS`, with a marker saying how much."""
    if len(result) <= MAX_SHOWN_RESULT_CHARS:
        return result
    cut = len(result) - MAX_SHOWN_RESULT_CHARS
    return f"{result[:MAX_SHOWN_RESULT_CHARS]}... [truncated: {cut:,} of {len(result):,} characters]"


def shown_results(results: Sequence[str]) -> list[str]:
    """One step's results as shown: each by :func:`shown_result`, and past :data:`MAX_SHOWN_STEP_CHARS`
    in all, a marker in place of each later result."""
    shown: list[str] = []
    total = 0
    for result in results:
        text = shown_result(result)
        if total + len(text) > MAX_SHOWN_STEP_CHARS:
            text = (
                f"[not shown: {len(result):,} characters; this step's results passed "
                f"{MAX_SHOWN_STEP_CHARS:,} characters]"
            )
        else:
            total += len(text)
        shown.append(text)
    return shown
