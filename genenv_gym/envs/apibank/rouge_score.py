"""ROUGE-L F1 of a response, computed by the ``rouge`` package (1.0.1) as the official evaluation does.

The official script calls ``Rouge().get_scores(hypothesis, reference)`` and keeps summary-level ROUGE-L.
Its cost grows with the number of sentence pairs (a response of 40,000 one-letter sentences ran for
seconds), so two things differ from the call itself, neither changing a score: repeated sentences of the
response are scored once (the package unites sets of words, so a repeat adds nothing), and a response
longer than :data:`MAX_SCORED_CHARS` is not scored at all (reward 0 with a message saying so).
"""

from __future__ import annotations

#: Longest response that is scored: three times the longest reply in the official data (1,335 characters).
MAX_SCORED_CHARS = 4000


def _sentences(text: str) -> list[str]:
    """Sentences as the package splits them: on ``.``, blanks collapsed, empty pieces dropped."""
    return [" ".join(piece.split()) for piece in text.split(".") if len(piece) > 0]


def rouge_l(reference: str, hypothesis: str) -> tuple[float, str | None]:
    """ROUGE-L F1 rounded to 4 places, and an error text when the hypothesis cannot be scored.

    Empty output scores 0 (as officially). Output the ``rouge`` package refuses (only punctuation, say),
    which stopped the official script, scores 0 with the package's message; so does output longer than
    :data:`MAX_SCORED_CHARS`, with a message that says so.
    """
    if not hypothesis:
        return 0.0, "empty response"
    if len(hypothesis) > MAX_SCORED_CHARS:
        return 0.0, (
            f"response not scored: {len(hypothesis)} characters, more than the {MAX_SCORED_CHARS} "
            "scored (the longest official reply has 1,335)"
        )
    try:
        from rouge.rouge_score import rouge_l_summary_level
    except ImportError as error:
        raise ImportError(
            "API-Bank responses are scored by the rouge package (1.0.1), as officially: "
            "pip install 'genenv-gym[apibank]' (or rouge==1.0.1)"
        ) from error

    hypothesis_sentences, reference_sentences = _sentences(hypothesis), _sentences(reference)
    # the package's own checks, in its order (ROUGE-1, computed first, raises these)
    if not hypothesis_sentences:
        return 0.0, "ROUGE could not score this response: Hypothesis is empty."
    if not reference_sentences:
        return 0.0, "ROUGE could not score this response: Reference is empty."
    try:
        score = rouge_l_summary_level(list(dict.fromkeys(hypothesis_sentences)), reference_sentences)
    except (ValueError, RecursionError) as error:
        return 0.0, f"ROUGE could not score this response: {error}"
    return round(float(score["f"]), 4), None
