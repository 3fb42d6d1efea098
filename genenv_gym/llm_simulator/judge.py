"""An independent reading of a generated task: a judge model solves it, and the checker must accept.

Where a domain has no solver that reads a task's text back (BFCL single-turn, API-Bank), a task's meaning is
checked by asking a second model to do the task exactly as the agent will see it (the domain's own prompt,
tools and episode) and grading its answer with the domain's checker against the task's reference. A task
the judge does not solve in any of ``attempts`` tries is rejected (kind ``judge_disagrees``): either its text
does not ask for its reference, or it is beyond the judge. The judge is any backend (``hf:PATH``,
``openai:MODEL@URL``, the environment LLM itself in a separate prompt); tests use a scripted one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from genenv_gym.agents.backends import Backend, SamplingParams, make_backend
from genenv_gym.agents.llm_agent import parse_action
from genenv_gym.domain import Domain
from genenv_gym.task import Task, thaw


class ReadingJudge:
    """A judge model that must solve a generated task for it to be accepted (see the module docstring).

    Args:
        backend: the judge model (a Backend or a backend spec).
        attempts: tries per task; one success accepts it.
        max_steps: actions per try in multi-step domains.
        params: the judge's sampling (default greedy, 512 new tokens).
    """

    def __init__(
        self,
        backend: Backend | str,
        attempts: int = 1,
        max_steps: int = 8,
        params: SamplingParams | None = None,
    ) -> None:
        self.backend = make_backend(backend) if isinstance(backend, str) else backend
        self.attempts = attempts
        self.max_steps = max_steps
        self.params = params or SamplingParams(temperature=0.0, max_new_tokens=512)

    def problem(self, domain: Domain, task: Task) -> tuple[str, str] | None:
        """``("judge_disagrees", reason)`` when no try of the judge is accepted by the checker, else None."""
        last = ""
        for _ in range(self.attempts):
            solved, last = self._try(domain, task)
            if solved:
                return None
        return "judge_disagrees", f"the judge model's reading does not reach the reference: {last}"[:500]

    def _try(self, domain: Domain, task: Task) -> tuple[bool, str]:
        episode = domain.start_episode(task)
        messages: list[dict[str, Any]] = [dict(m) for m in thaw(task.messages)]
        tools = thaw(task.tools) or None
        info: Mapping[str, Any] = {}
        for _ in range(self.max_steps):
            completion = self.backend.chat([messages], self.params.with_(n=1), tools=tools)[0][0]
            action = parse_action(completion, domain.name)
            result = episode.step(action)
            info = result.info
            if result.terminated or result.truncated:
                outcome = f"{info.get('error_type') or 'wrong'}: {info.get('error') or action[:200]}"
                return bool(info.get("success")), outcome
            if "messages" in info:
                messages = [dict(m) for m in info["messages"]]
            else:
                messages += [{"role": "assistant", "content": completion.text}]
                messages += [dict(m) for m in info.get("turn_messages", [])]
        return False, f"no answer in {self.max_steps} steps"
