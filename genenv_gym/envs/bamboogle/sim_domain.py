"""Generated multi-hop questions over the synthetic world, played in the same Search-R1 loop."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from genenv_gym.envs.bamboogle.domain import BamboogleDomain
from genenv_gym.envs.bamboogle.generator import (
    ANSWER_TYPES,
    MAX_HOPS,
    Chain,
    answer_types_for,
    oracle_queries,
    question_text,
    resolve,
    sample_chain,
)
from genenv_gym.envs.bamboogle.metrics import normalize_answer
from genenv_gym.envs.bamboogle.retrieval import BM25Retriever
from genenv_gym.envs.bamboogle.world import World, WorldConfig
from genenv_gym.task import Task, thaw


class BamboogleSimDomain(BamboogleDomain):
    """k-hop questions (level ``k - 1``, k in 1..4) over a fictional world, BM25 over its passages.

    Knobs: ``world`` (a WorldConfig as a dict: seed, sizes, ``distractors``, ``name_similarity``),
    ``answer_types`` (subset of entity/date/number/yesno; dates need at most 2 hops), ``paraphrase``
    (probability of the second wording). Every task is validated: its chain resolves to its answer in
    the world, its start name is unique, and the oracle's hop searches retrieve each hop's passage.
    """

    name = "bamboogle_sim"
    num_levels = MAX_HOPS

    def __init__(
        self,
        world: dict[str, Any] | None = None,
        answer_types: Sequence[str] = ANSWER_TYPES,
        paraphrase: float = 0.5,
        **loop_kwargs: Any,
    ) -> None:
        self.world = World(WorldConfig(**(world or {})))
        unknown = set(answer_types) - set(ANSWER_TYPES)
        if unknown or not answer_types:
            raise ValueError(
                f"answer_types must be a non-empty subset of {ANSWER_TYPES}, got {list(answer_types)}"
            )
        if not 0.0 <= paraphrase <= 1.0:
            raise ValueError(f"paraphrase must be a probability in [0, 1], got {paraphrase}")
        self.answer_types = tuple(answer_types)
        self.paraphrase = paraphrase
        self._documents = self.world.documents()
        self._doc_ids = {
            e.name: doc["id"] for e, doc in zip(self.world.entities.values(), self._documents, strict=True)
        }
        super().__init__(BM25Retriever.from_documents(self._documents), **loop_kwargs)

    def categories(self) -> tuple[str, ...]:
        return tuple(f"hops_{k}" for k in range(1, MAX_HOPS + 1))

    def load_tasks(self, categories: Sequence[str] | None = None, data_dir: str | None = None) -> list[Task]:
        """A fixed seeded sample of 8 validated tasks per hop count (for ``genenv eval``)."""
        rng = np.random.default_rng(12345)
        wanted = set(categories or self.categories())
        tasks = []
        for level in range(self.num_levels):
            if f"hops_{level + 1}" in wanted:
                tasks += [self._valid(level, rng) for _ in range(8)]
        return tasks

    def _valid(self, level: int, rng: np.random.Generator) -> Task:
        for _ in range(50):
            task = self.generate(level, rng)
            if not self.validate(task):
                return task
        raise RuntimeError(f"50 generated {level + 1}-hop tasks failed validation: loosen the world knobs")

    def generate(self, level: int, rng: np.random.Generator) -> Task:
        hops = int(np.clip(level, 0, MAX_HOPS - 1)) + 1
        types = [t for t in self.answer_types if t in answer_types_for(hops)] or list(answer_types_for(hops))
        answer_type = str(rng.choice(types))
        chain = sample_chain(self.world, hops, answer_type, rng)
        paraphrase = bool(rng.random() < self.paraphrase)
        question = question_text(chain, paraphrase, answer_type)
        visited, answer = resolve(self.world, chain)
        return Task(
            id=f"sim-{hops}hop-{hashlib.sha1(repr((chain, paraphrase)).encode()).hexdigest()[:12]}",
            domain=self.name,
            messages=({"role": "user", "content": question},),  # the observation wraps it in the prompt
            evaluation={
                "question": question,
                "golden_answers": [answer],
                "oracle_queries": oracle_queries(self.world, chain),
                "evidence_ids": [self._doc_ids[name] for name in visited[:hops]],
                "chain": {
                    "start": chain.start,
                    "steps": list(chain.steps),
                    "answer_type": answer_type,
                    "candidate": chain.candidate,
                },
            },
            difficulty={
                "level": hops - 1,
                "hops": hops,
                "answer_type": answer_type,
                "paraphrase": paraphrase,
            },
            provenance="procedural",
            category=f"hops_{hops}",
        )

    def validate(self, task: Task) -> list[str]:
        problems = super().validate(task)
        if problems:
            return problems
        spec = thaw(task.evaluation.get("chain") or {})
        try:
            chain = Chain(spec["start"], tuple(spec["steps"]), spec["answer_type"], spec.get("candidate"))
            visited, answer = resolve(self.world, chain)
        except (KeyError, TypeError) as exc:
            return [f"the chain does not resolve in the world ({type(exc).__name__}: {exc})"]
        golden = list(task.evaluation["golden_answers"])
        if [normalize_answer(answer)] != [normalize_answer(g) for g in golden]:
            problems.append("the chain resolves to a different answer than the golden one")
        if sum(1 for name in self.world.entities if name == chain.start) != 1:
            problems.append("the start entity's name is not unique")
        if chain.answer_type != "yesno" and normalize_answer(answer) in normalize_answer(
            task.evaluation["question"]
        ):
            problems.append("the answer appears in the question")
        queries = list(task.evaluation.get("oracle_queries", ()))
        if len(queries) != len(chain.steps) or len(queries) > self.config.max_turns:
            problems.append("the oracle needs one search per hop within the turn budget")
        for query, name in zip(queries, visited, strict=False):
            found = [r["document"]["id"] for r in self.retriever.search(query, self.config.topk)]
            if self._doc_ids.get(name) not in found:
                problems.append(f"searching {query!r} does not retrieve the passage about {name}")
        return problems

    def oracle_action(self, task: Task) -> str:
        return f"<answer>{task.evaluation['golden_answers'][0]}</answer>"
