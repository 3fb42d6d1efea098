"""The Search-R1 loop as an Episode: search turns answered by the retriever, an answer ends it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from genenv_gym.domain import Episode, StepResult
from genenv_gym.envs.bamboogle.extraction import cut_turn, extract_answer, parse_action
from genenv_gym.envs.bamboogle.metrics import answer_metrics
from genenv_gym.envs.bamboogle.prompt import INVALID_ACTION_MESSAGE, information_block, truncate
from genenv_gym.envs.bamboogle.retrieval import RetrievalError, Retriever, format_passages
from genenv_gym.suggest import check_choice
from genenv_gym.task import Task, thaw

REWARDS = ("em", "f1", "cover_em")


@dataclass(frozen=True)
class LoopConfig:
    """Search-R1's budget: ``max_turns`` search turns then one last turn, and the length limits."""

    max_turns: int = 4
    topk: int = 3
    max_response_tokens: int = 500
    max_obs_tokens: int = 500
    reward: str = "em"
    extraction: str = "response"

    def validate(self) -> None:
        """Raise ValueError on a knob out of range."""
        if self.max_turns < 0 or self.topk < 1:
            raise ValueError(f"max_turns must be >= 0 and topk >= 1, got {self.max_turns}, {self.topk}")
        if self.max_response_tokens < 1 or self.max_obs_tokens < 1:
            raise ValueError("max_response_tokens and max_obs_tokens must be >= 1")
        check_choice("reward", self.reward, REWARDS)
        check_choice("extraction", self.extraction, ("response", "reference"))


class SearchEpisode(Episode):
    """One question: the agent searches (``<search>q</search>``) and answers (``<answer>a</answer>``).

    Turn ``t`` (1-based): the action is cut to ``max_response_tokens`` and at the first ``</search>``
    (else ``</answer>``). An answer ends the episode with the chosen reward; a search returns the top-k
    passages in an ``<information>`` block cut to ``max_obs_tokens``; anything else returns the
    reference's invalid-action message. Turns ``1..max_turns`` may search; turn ``max_turns + 1`` is the
    reference's final rollout, where searches are not run: the episode then ends (truncated) with reward 0
    unless it answered. The observation is the whole transcript (prompt, turns, blocks).
    """

    def __init__(
        self, task: Task, prompt: str, retriever: Retriever, config: LoopConfig, tokenizer: Any = None
    ) -> None:
        super().__init__(task, prompt)
        self.prompt = prompt
        self.retriever = retriever
        self.config = config
        self.tokenizer = tokenizer
        self.golden = list(task.evaluation["golden_answers"])
        self.turns: list[str] = []
        self.searches: list[str] = []
        self.passages: list[list[dict[str, Any]]] = []
        self.invalid_turns = 0

    def _finish(self, turn_info: dict[str, Any], truncated: bool) -> StepResult:
        self.done = True
        if self.config.extraction == "reference":
            answer = extract_answer(self.observation, "reference")
        else:  # the turn that answered: a pair never spans turns (an earlier cut "<answer>..." stays out)
            answer = extract_answer(self.turns[-1]) if self.turns else None
        metrics = answer_metrics(answer, self.golden)
        reward = metrics[self.config.reward]
        info = {
            **turn_info,
            "success": metrics["em"] == 1.0,
            "answer": answer,
            **metrics,
            "metrics": {**metrics, **self._extra_metrics()},
        }
        return StepResult(self.observation, float(reward), not truncated, truncated, info)

    def _extra_metrics(self) -> dict[str, float]:
        hops = self.task.difficulty.get("hops")
        extra = {"turns": float(len(self.turns)), "searches": float(len(self.searches))}
        if hops is not None:
            extra["hops"] = float(hops)
        return extra

    def _base_info(self, error_type: str | None = None, error: str | None = None) -> dict[str, Any]:
        info: dict[str, Any] = {
            "success": False,
            "error_type": error_type,
            "turn": len(self.turns),
            "searches": list(self.searches),
            "passages": [list(p) for p in self.passages],
        }
        if error is not None:
            info["error"] = error
        return info

    def step(self, action: str) -> StepResult:
        if not isinstance(action, str):
            return self._invalid(
                "action_error:not_text", f"the action must be a string, got {type(action).__name__}"
            )
        text, cut = truncate(action, self.config.max_response_tokens, self.tokenizer)
        turn = cut_turn(text)
        self.turns.append(turn)
        self.observation += turn
        final_turn = len(self.turns) > self.config.max_turns
        kind, content = parse_action(turn)
        info = self._base_info()
        info["response_truncated"] = cut
        if kind == "answer":
            return self._finish(info, truncated=False)
        if kind == "search" and not final_turn:
            return self._search(content, info)
        if kind is None:
            self.invalid_turns += 1
            info.update(
                error_type="invalid_action", error="no <search>...</search> or <answer>...</answer> pair"
            )
            block = INVALID_ACTION_MESSAGE
        else:
            info.update(error_type="search_budget", error="searches are not run on the final turn")
            block = ""
        if final_turn:
            return self._finish(info, truncated=True)
        return self._answer(block, info)

    def _answer(self, block: str, info: dict[str, Any]) -> StepResult:
        """A non-final turn: ``block`` follows the agent's text (a chat agent gets it as a user turn)."""
        self.observation += block
        info["turn_messages"] = [{"role": "user", "content": block}]
        return StepResult(self.observation, 0.0, False, False, info)

    def _search(self, query: str, info: dict[str, Any]) -> StepResult:
        self.searches.append(query)
        try:
            results = self.retriever.search(query, self.config.topk)
        except RetrievalError as exc:
            results = []
            info.update(error_type="retrieval_error", error=str(exc))
            passages = f"Search failed: {exc}"
        else:
            passages = format_passages(results)
        self.passages.append(results)
        block, cut = truncate(information_block(passages), self.config.max_obs_tokens, self.tokenizer)
        info.update(
            searches=list(self.searches), passages=[list(p) for p in self.passages], obs_truncated=cut
        )
        info["information"] = block
        return self._answer(block, info)

    def _invalid(self, error_type: str, error: str) -> StepResult:
        self.turns.append("")
        info = self._base_info(error_type, error)
        if len(self.turns) > self.config.max_turns:
            return self._finish(info, truncated=True)
        return self._answer(INVALID_ACTION_MESSAGE, info)

    def invalid_action(self, error_type: str, error: str) -> StepResult:
        return self._invalid(error_type, error)

    def oracle_action(self) -> str:
        queries = thaw(self.task.evaluation.get("oracle_queries", ()))
        if len(self.searches) < len(queries) and len(self.turns) < self.config.max_turns:
            return f"<think>I need the next fact.</think><search>{queries[len(self.searches)]}</search>"
        return f"<think>I know it now.</think><answer>{self.golden[0]}</answer>"

    def random_action(self, rng: np.random.Generator) -> str:
        words = self.task.evaluation.get("question", "").split() or ["something"]
        picked = " ".join(str(w) for w in rng.choice(words, size=min(3, len(words)), replace=False))
        if rng.random() < 0.5 and len(self.turns) < self.config.max_turns:
            return f"<search>{picked}</search>"
        return f"<answer>{picked}</answer>"
