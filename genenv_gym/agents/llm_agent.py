"""The LLM agent: renders an env's chat with the model's template, samples a reply, parses it into an action.

It works with every registered env id: the env's ``info["messages"]`` (system prompt included) open the
chat, each later observation is added as a user turn (or ``info["turn_messages"]``, possibly none, when a
multi-step env gives its new turns as chat messages; a step's ``info["messages"]`` starts the chat afresh),
and each reply becomes an assistant turn. Replies are parsed
into the env's action text by the domain's action parser: reasoning blocks (``<think>...</think>``)
and markdown code fences are removed, and native tool calls (an OpenAI-compatible endpoint's
``tool_calls``, or ``<tool_call>{json}</tool_call>`` blocks in the text) are written in the domain's
answer format by the ``CallFormat`` its manifest declares (``genenv_gym.agents.tool_calls``; e.g.
``[f(a=1)]`` or a JSON list, per the env's ``action_format``). Model output is only ever parsed as data,
never executed.

A failed request (the backend's ``error`` completion) gives an empty action, which the env grades as a
wrong answer; the reason is kept in ``last_completions``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym

from genenv_gym.agents.backends import Backend, Completion, SamplingParams, make_backend
from genenv_gym.agents.chat_session import ChatSession, environment_turn, opening_messages, starts_a_new_chat
from genenv_gym.agents.tool_calls import call_format_of

_THINK = re.compile(r"<think>.*?</think>", re.DOTALL)
_FENCE = re.compile(r"```[A-Za-z0-9_+-]*[ \t]*\n?(.*?)```", re.DOTALL)
_TOOL_CALL = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)


def strip_reasoning(text: str) -> str:
    """Remove ``<think>`` blocks (and a dangling reasoning prefix that ends with ``</think>``)."""
    text = _THINK.sub("", text)
    if "</think>" in text:
        text = text.rsplit("</think>", 1)[1]
    return text.strip()


def unfence(text: str) -> str:
    """The body of the first markdown code block, or the text itself when it has none."""
    match = _FENCE.search(text)
    return match.group(1).strip() if match else text.strip()


def text_tool_calls(text: str) -> list[dict[str, Any]]:
    """Calls written as ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` blocks (Qwen style)."""
    calls = []
    for block in _TOOL_CALL.findall(text):
        try:
            data = json.loads(block)
        except json.JSONDecodeError:
            return []
        if not isinstance(data, dict) or not isinstance(data.get("name"), str):
            return []
        arguments = data.get("arguments", data.get("parameters", {}))
        calls.append({"name": data["name"], "arguments": arguments if isinstance(arguments, dict) else {}})
    return calls


def parse_action(completion: Completion, domain: str | None = None, action_format: str | None = None) -> str:
    """The env action in a completion (see the module docstring); an empty string for a failed request."""
    if not completion.ok:
        return ""
    calls = [dict(c) for c in completion.tool_calls]
    text = strip_reasoning(completion.text)
    if not calls:
        calls = text_tool_calls(text)
    if calls:
        return call_format_of(domain).to_action(calls, action_format)
    return unfence(text)


def env_answer_format(env: gym.Env) -> tuple[str | None, str | None]:
    """``(domain name, action format)`` of an env (either may be None)."""
    domain = getattr(env.unwrapped, "domain", None)
    return getattr(domain, "name", None), getattr(domain, "action_format", None)


class LLMAgent:
    """An agent backed by an LLM, usable with any genenv env (``act``) or many at once (``act_batch``).

    Args:
        backend: a Backend or a spec (``"hf:PATH"``, ``"openai:MODEL@URL"``, ...).
        params: sampling parameters (default: greedy, 512 new tokens); ``n`` is forced to 1.
        domain, action_format: how to parse replies (``for_env`` reads them from the env).
        pass_tools: give the env's tool specs to the chat template (native tool-calling models).
        system_prompt: prepended as a system turn when the env's chat has none.
    """

    def __init__(
        self,
        backend: Backend | str,
        params: SamplingParams | None = None,
        domain: str | None = None,
        action_format: str | None = None,
        pass_tools: bool = False,
        system_prompt: str | None = None,
    ) -> None:
        self.backend = make_backend(backend)
        self.params = (params or SamplingParams(temperature=0.0, max_new_tokens=512)).with_(n=1)
        self.domain = domain
        self.action_format = action_format
        self.pass_tools = pass_tools
        self.system_prompt = system_prompt
        self.sessions: dict[int, ChatSession] = {}
        self.last_completions: dict[int, Completion] = {}

    @classmethod
    def for_env(cls, env: gym.Env, backend: Backend | str, **kwargs: Any) -> LLMAgent:
        """An agent that parses replies into ``env``'s answer format."""
        domain, action_format = env_answer_format(env)
        kwargs.setdefault("domain", domain)
        kwargs.setdefault("action_format", action_format)
        return cls(backend, **kwargs)

    # ------------------------------------------------------------------------------------------------
    def begin(self, observation: str, info: Mapping[str, Any], slot: int | None = 0) -> ChatSession:
        """Start a new episode from the env's reset ``(observation, info)``, kept in ``slot`` unless None."""
        messages = opening_messages(observation, info)
        if self.system_prompt and messages[0].get("role") != "system":
            messages.insert(0, {"role": "system", "content": self.system_prompt})
        session = ChatSession(self.backend, messages, info.get("tools"), self.pass_tools)
        if slot is not None:
            self.sessions[slot] = session
        return session

    def observe(self, observation: str, info: Mapping[str, Any], slot: int = 0) -> None:
        """Add the env's answer to the last action (a multi-turn step) to the episode in ``slot``."""
        self.sessions[slot].add_environment(environment_turn(observation, info))

    def act(self, observation: str, info: Mapping[str, Any], slot: int = 0) -> str:
        """The action for the current observation.

        The first call for a slot (or one whose ``info`` carries ``messages``, as every reset's does)
        starts a new episode; later calls add ``observation`` as the env's turn.
        """
        return self.act_batch([observation], [info], [slot])[0]

    def act_batch(
        self,
        observations: Sequence[str],
        infos: Sequence[Mapping[str, Any]],
        slots: Sequence[int] | None = None,
    ) -> list[str]:
        """Actions for several envs at once (one backend call), each with its own history in its slot."""
        slots = list(range(len(observations))) if slots is None else list(slots)
        sessions = []
        for observation, info, slot in zip(observations, infos, slots, strict=True):
            if slot not in self.sessions or starts_a_new_chat(info):
                sessions.append(self.begin(observation, info, slot))
            else:
                self.observe(observation, info, slot)
                sessions.append(self.sessions[slot])
        completions = self.generate(sessions)
        actions = []
        for slot, session, completion in zip(slots, sessions, completions, strict=True):
            session.add_completion(completion)
            self.last_completions[slot] = completion
            actions.append(self.parse(completion))
        return actions

    def generate(
        self, sessions: Sequence[ChatSession], params: SamplingParams | None = None
    ) -> list[Completion]:
        """One completion per session, batched in one backend call."""
        params = (params or self.params).with_(n=1)
        if not sessions:
            return []
        if self.backend.token_level:
            return [r[0] for r in self.backend.generate([s.prompt_ids() for s in sessions], params)]
        groups: dict[str, list[int]] = {}  # chat endpoints take one tool list per call
        for i, session in enumerate(sessions):
            groups.setdefault(json.dumps(session.tools, sort_keys=True, default=str), []).append(i)
        out: list[Completion | None] = [None] * len(sessions)
        for members in groups.values():
            tools = sessions[members[0]].tools
            results = self.backend.chat([sessions[i].messages for i in members], params, tools)
            for i, result in zip(members, results, strict=True):
                out[i] = result[0]
        return [c for c in out if c is not None]

    def parse(self, completion: Completion) -> str:
        return parse_action(completion, self.domain, self.action_format)

    def reset(self) -> None:
        """Forget every episode."""
        self.sessions.clear()
        self.last_completions.clear()
