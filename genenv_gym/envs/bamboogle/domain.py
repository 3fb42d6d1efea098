"""The Bamboogle domain: FlashRAG-format questions played in Search-R1's search loop, EM / cover-EM / F1."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from genenv_gym.domain import Domain, Verdict
from genenv_gym.envs.bamboogle.data import load_questions, normalize_question
from genenv_gym.envs.bamboogle.episode import LoopConfig, SearchEpisode
from genenv_gym.envs.bamboogle.extraction import extract_answer
from genenv_gym.envs.bamboogle.metrics import answer_metrics
from genenv_gym.envs.bamboogle.prompt import render_prompt
from genenv_gym.envs.bamboogle.retrieval import Retriever, make_retriever
from genenv_gym.task import Task

CATEGORY = "bamboogle"


def summarize_answer_metrics(metrics: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """Means of em / cover_em / f1 over episodes (missing = 0), and per hop count where episodes have one."""
    if not metrics:
        return {}
    out: dict[str, float] = {}
    for key in ("em", "cover_em", "f1"):
        out[key] = float(np.mean([float(m.get(key, 0.0)) for m in metrics]))
    hops = sorted({int(m["hops"]) for m in metrics if "hops" in m})
    for hop in hops:
        group = [m for m in metrics if int(m.get("hops", -1)) == hop]
        for key in ("em", "cover_em", "f1"):
            out[f"{key}_hops{hop}"] = float(np.mean([float(m.get(key, 0.0)) for m in group]))
    return out


class BamboogleDomain(Domain):
    """Bamboogle's 125 questions, each an episode of the Search-R1 loop over the chosen retriever.

    ``verify`` grades a whole agent response (every turn joined): the last ``<answer>`` it holds, EM as
    reward. Bamboogle has no procedural generator: ``GenEnv-Sim-Bamboogle-v0`` uses ``BamboogleSimDomain``.
    """

    name = "bamboogle"
    num_levels = 1

    def __init__(
        self,
        retriever: str | Retriever = "none",
        corpus_path: str | None = None,
        retriever_url: str | None = None,
        topk: int = 3,
        max_turns: int = 4,
        max_response_tokens: int = 500,
        max_obs_tokens: int = 500,
        reward: str = "em",
        extraction: str = "response",
        tokenizer: Any = None,
        timeout: float = 10.0,
        retries: int = 2,
    ) -> None:
        self.config = LoopConfig(max_turns, topk, max_response_tokens, max_obs_tokens, reward, extraction)
        self.config.validate()
        self.retriever = (
            make_retriever(retriever, corpus_path, retriever_url, timeout, retries)
            if isinstance(retriever, str)
            else retriever
        )
        self.tokenizer = tokenizer

    def categories(self) -> tuple[str, ...]:
        return (CATEGORY,)

    def load_tasks(self, categories: Sequence[str] | None = None, data_dir: str | None = None) -> list[Task]:
        if categories is not None and CATEGORY not in categories:
            return []
        return [
            Task(
                id=q.id,
                domain=self.name,
                messages=({"role": "user", "content": render_prompt(normalize_question(q.question))},),
                evaluation={
                    "golden_answers": list(q.golden_answers),
                    "question": normalize_question(q.question),
                },
                provenance="benchmark:test",
                category=CATEGORY,
            )
            for q in load_questions(data_dir)
        ]

    def render(self, task: Task) -> str:
        return render_prompt(task.evaluation["question"])

    def verify(self, task: Task, action: str) -> Verdict:
        if not isinstance(action, str):
            return Verdict(0.0, False, "action_error:not_text", "the action must be a string")
        mode = self.config.extraction
        answer = extract_answer(self.render(task) + action if mode == "reference" else action, mode)
        metrics = answer_metrics(answer, list(task.evaluation["golden_answers"]))
        error_type = None if metrics["em"] == 1.0 else ("no_answer" if answer is None else "wrong_answer")
        details = {"answer": answer, **metrics, "metrics": dict(metrics)}
        return Verdict(metrics[self.config.reward], metrics["em"] == 1.0, error_type, None, details)

    def validate(self, task: Task) -> list[str]:
        problems = []
        answers = task.evaluation.get("golden_answers")
        if not answers or not all(isinstance(a, str) and a.strip() for a in answers):
            problems.append("golden_answers must be a non-empty list of non-empty strings")
        if not str(task.evaluation.get("question", "")).strip():
            problems.append("the task has no question")
        return problems

    def generate(self, level: int, rng: np.random.Generator) -> Task:
        raise NotImplementedError(
            "Bamboogle has no generator: use GenEnv-Sim-Bamboogle-v0 (domain bamboogle_sim)"
        )

    def oracle_action(self, task: Task) -> str:
        return f"<answer>{task.evaluation['golden_answers'][0]}</answer>"

    def random_action(self, task: Task, rng: np.random.Generator) -> str:
        words = str(task.evaluation.get("question", "x")).split() or ["x"]
        return f"<answer>{words[int(rng.integers(len(words)))]}</answer>"

    def start_episode(self, task: Task) -> SearchEpisode:
        return SearchEpisode(task, self.render(task), self.retriever, self.config, self.tokenizer)

    def summarize_metrics(self, metrics: Sequence[Mapping[str, Any]]) -> dict[str, float]:
        return summarize_answer_metrics(metrics)
