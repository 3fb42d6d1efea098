"""A backend that answers from a script: canned replies or a function, no model (tests and demos).

It runs the LLM agent, the LLM simulator and the rollout engine end to end without torch: the
simulator's tests feed it good, malformed and hostile task JSON; demos feed it a rule.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from genenv_gym.agents.backends.base import Backend, Completion, Messages, Prompt, SamplingParams, find_stop

#: A reply: text, or a full Completion (to script token ids, finish reasons or errors).
Reply = str | Completion
#: ``rule(prompt_or_messages, index) -> reply`` where ``index`` counts the replies given so far.
Rule = Callable[[Any, int], Reply]


class ScriptedBackend(Backend):
    """Replies in turn from ``replies`` (cycled), or from ``rule(prompt, index)``.

    Text replies are cut at stop strings and at ``max_new_tokens`` characters (finish ``length``), as a
    model's would be. ``calls`` records every prompt or conversation received.
    """

    def __init__(
        self, replies: Iterable[Reply] | Rule, model_name: str = "scripted", cycle: bool = True
    ) -> None:
        self.model_name = model_name
        if callable(replies):
            self._rule: Rule = replies
        else:
            script = list(replies)
            if not script:
                raise ValueError("ScriptedBackend needs at least one reply")
            source = itertools.cycle(script) if cycle else iter(script)

            def rule(_: Any, __: int) -> Reply:
                return next(source, Completion("", finish_reason="error", error="script exhausted"))

            self._rule = rule
        self._count = 0
        self.calls: list[Any] = []

    def generate(self, prompts: Sequence[Prompt], params: SamplingParams) -> list[list[Completion]]:
        return [[self._reply(p, params) for _ in range(params.n)] for p in prompts]

    def chat(
        self,
        conversations: Sequence[Messages],
        params: SamplingParams,
        tools: Sequence[Mapping[str, Any]] | None = None,
    ) -> list[list[Completion]]:
        return [[self._reply([dict(m) for m in c], params) for _ in range(params.n)] for c in conversations]

    def _reply(self, prompt: Any, params: SamplingParams) -> Completion:
        self.calls.append(prompt)
        reply = self._rule(prompt, self._count)
        self._count += 1
        if isinstance(reply, Completion):
            return reply
        text, finish, stop = str(reply), "stop", None
        found = find_stop(text, params.stop)
        if found is not None:
            text, stop = text[: found[0]], found[1]
        elif len(text) > params.max_new_tokens:
            text, finish = text[: params.max_new_tokens], "length"
        return Completion(text=text, finish_reason=finish, stop_string=stop)
