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
_PUNCTUATION = frozenset(string.punctuation)
#: Normalised answers that only score F1 when they equal the golden answer exactly (FlashRAG's rule).
_SPECIAL_F1 = ("yes", "no", "noanswer")


def normalize_answer(text: str) -> str:
    """Lower-case, drop ASCII punctuation, replace the words a/an/the by spaces, collapse whitespace."""
    lowered = text.lower()
    no_punct = "".join(ch for ch in lowered if ch not in _PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", no_punct).split())


def _golden_list(golden_answers: str | Sequence[str]) -> list[str]:
    return [golden_answers] if isinstance(golden_answers, str) else list(golden_answers)


def exact_match(prediction: str, golden_answers: str | Sequence[str]) -> float:
    """1.0 when the normalised prediction equals a normalised golden answer, else 0.0."""
    pred = normalize_answer(prediction)
    return float(any(normalize_answer(g) == pred for g in _golden_list(golden_answers)))


def cover_exact_match(prediction: str, golden_answers: str | Sequence[str]) -> float:
    """1.0 when a normalised golden answer is a substring of the normalised prediction (cover-EM)."""
    pred = normalize_answer(prediction)
    return float(any(normalize_answer(g) in pred for g in _golden_list(golden_answers)))


def token_scores(prediction: str, golden_answers: str | Sequence[str]) -> dict[str, float]:
    """Token-level F1, precision and recall: each the maximum over golden answers (FlashRAG's rule).

    A prediction or golden answer that normalises to yes/no/noanswer scores only against an identical
    one; answers with no shared token score 0.
    """
    best = {"f1": 0.0, "precision": 0.0, "recall": 0.0}
    pred = normalize_answer(prediction)
    pred_tokens = pred.split()
    for golden in _golden_list(golden_answers):
        gold = normalize_answer(golden)
        if (pred in _SPECIAL_F1 or gold in _SPECIAL_F1) and pred != gold:
            continue
        gold_tokens = gold.split()
        same = sum((Counter(pred_tokens) & Counter(gold_tokens)).values())
        if same == 0:
            continue
        precision = same / len(pred_tokens)
        recall = same / len(gold_tokens)
        f1 = 2 * precision * recall / (precision + recall)
        best["f1"] = max(best["f1"], f1)
        best["precision"] = max(best["precision"], precision)
        best["recall"] = max(best["recall"], recall)
    return best


def f1_score(prediction: str, golden_answers: str | Sequence[str]) -> float:
    """Token-level F1 against the best-matching golden answer."""
    return token_scores(prediction, golden_answers)["f1"]


def answer_metrics(prediction: str | None, golden_answers: str | Sequence[str]) -> dict[str, float]:
    """EM, cover-EM and F1 of one extracted answer; no answer (None) scores 0 on all three."""
    if prediction is None:
        return {"em": 0.0, "cover_em": 0.0, "f1": 0.0}
    return {
        "em": exact_match(prediction, golden_answers),
        "cover_em": cover_exact_match(prediction, golden_answers),
        "f1": f1_score(prediction, golden_answers),
    }
