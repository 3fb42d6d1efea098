"""ROUGE-L F1 of a response, computed by the ``rouge`` package (1.0.1) as the official evaluation does."""

from __future__ import annotations


def rouge_l(reference: str, hypothesis: str) -> tuple[float, str | None]:
    """ROUGE-L F1 rounded to 4 places, and an error text when the hypothesis cannot be scored.

    Empty output scores 0 (as officially). Output the ``rouge`` package refuses (only punctuation, say),
    which stopped the official script, scores 0 with the package's message.
    """
    if not hypothesis:
        return 0.0, "empty response"
    try:
        from rouge import Rouge
    except ImportError as error:
        raise ImportError(
            "API-Bank responses are scored by the rouge package (1.0.1), as officially: "
            "pip install 'genenv-gym[apibank]' (or rouge==1.0.1)"
        ) from error

    try:
        scores = Rouge().get_scores(hypothesis, reference)
    except (ValueError, RecursionError) as error:
        return 0.0, f"ROUGE could not score this response: {error}"
    return round(float(scores[0]["rouge-l"]["f"]), 4), None
