"""Answer normalisation, exact match, cover-EM and token F1, computed as the reference code computes them.

EM and cover-EM follow Search-R1's ``verl/utils/reward_score/qa_em.py`` (``em_check``, ``subem_check``),
which are the same as FlashRAG's ``ExactMatch`` and ``Sub_ExactMatch``; F1 follows FlashRAG's
``F1_Score.token_level_scores`` (max over golden answers, the yes/no/noanswer rule). Written from their
behaviour; benchmarks/bamboogle_crosscheck.py compares them with the reference functions.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Sequence

_ARTICLES = re.compile(r"\b(a|an|the)\b")
#: ``str.translate`` table deleting ASCII punctuation (what the reference's character filter removes).
_DROP_PUNCTUATION = str.maketrans("", "", string.punctuation)
#: Normalised answers that only score F1 when they equal the golden answer exactly (FlashRAG's rule).
_SPECIAL_F1 = ("yes", "no", "noanswer")
_NO_TOKEN_SCORES = {"f1": 0.0, "precision": 0.0, "recall": 0.0}


def normalize_answer(text: str) -> str:
    """Lower-case, drop ASCII punctuation, replace the words a/an/the by spaces, collapse whitespace."""
    return " ".join(_ARTICLES.sub(" ", text.lower().translate(_DROP_PUNCTUATION)).split())


def _golden_list(golden_answers: str | Sequence[str]) -> list[str]:
    return [golden_answers] if isinstance(golden_answers, str) else list(golden_answers)


def exact_match(prediction: str, golden_answers: str | Sequence[str]) -> float:
    """1.0 when the normalised prediction equals a normalised golden answer, else 0.0."""
    return _exact(normalize_answer(prediction), [normalize_answer(g) for g in _golden_list(golden_answers)])


def cover_exact_match(prediction: str, golden_answers: str | Sequence[str]) -> float:
    """1.0 when a normalised golden answer is a substring of the normalised prediction (cover-EM)."""
    return _cover(normalize_answer(prediction), [normalize_answer(g) for g in _golden_list(golden_answers)])


def token_scores(prediction: str, golden_answers: str | Sequence[str]) -> dict[str, float]:
    """Token-level F1, precision and recall: each the maximum over golden answers (FlashRAG's rule).

    A prediction or golden answer that normalises to yes/no/noanswer scores only against an identical
    one; answers with no shared token score 0.
    """
    return _token_scores(
        normalize_answer(prediction), [normalize_answer(g) for g in _golden_list(golden_answers)]
    )


def f1_score(prediction: str, golden_answers: str | Sequence[str]) -> float:
    """Token-level F1 against the best-matching golden answer."""
    return token_scores(prediction, golden_answers)["f1"]


def answer_metrics(prediction: str | None, golden_answers: str | Sequence[str]) -> dict[str, float]:
    """EM, cover-EM and F1 of one extracted answer; no answer (None) scores 0 on all three."""
    if prediction is None:
        return {"em": 0.0, "cover_em": 0.0, "f1": 0.0}
    pred = normalize_answer(prediction)
    golds = [normalize_answer(g) for g in _golden_list(golden_answers)]
    return {
        "em": _exact(pred, golds),
        "cover_em": _cover(pred, golds),
        "f1": _token_scores(pred, golds)["f1"],
    }


def _exact(pred: str, golds: list[str]) -> float:
    return float(pred in golds)


def _cover(pred: str, golds: list[str]) -> float:
    return float(any(gold in pred for gold in golds))


def _token_scores(pred: str, golds: list[str]) -> dict[str, float]:
    """``token_scores`` of already normalised answers."""
    best = dict(_NO_TOKEN_SCORES)
    pred_tokens = pred.split()
    pred_counts = None
    for gold in golds:
        if (pred in _SPECIAL_F1 or gold in _SPECIAL_F1) and pred != gold:
            continue
        gold_tokens = gold.split()
        if pred_counts is None:
            pred_counts = Counter(pred_tokens)
        same = sum((pred_counts & Counter(gold_tokens)).values())
        if same == 0:
            continue
        precision = same / len(pred_tokens)
        recall = same / len(gold_tokens)
        f1 = 2 * precision * recall / (precision + recall)
        best["f1"] = max(best["f1"], f1)
        best["precision"] = max(best["precision"], precision)
        best["recall"] = max(best["recall"], recall)
    return best
