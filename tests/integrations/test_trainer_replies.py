"""One reading of a reply everywhere: the oracle's episode written in every reply format a model uses (plain
text, a code fence, a reasoning block first, native ``<tool_call>`` blocks where the action is a list of
calls) is played the same by ``genenv eval``'s reading (``LLMAgent``: ``parse_action`` of the decoded text),
by TRL's rollout function and by verl's agent loop: the same actions and the same return."""

from __future__ import annotations

import json

import pytest
from representative_ids import every_id_the_rest_slow
from trainer_episodes import (
    live,
    oracle_script,
    record_in_process,
    require,
    short_tasks,
    trl_rollouts,
    verl_rollouts,
)

from genenv_gym.agents.backends.base import Completion
from genenv_gym.agents.llm_agent import parse_action
from genenv_gym.agents.tiny_model import build_tokenizer
from genenv_gym.agents.tool_calls import call_format_of

pytestmark = pytest.mark.shared_data


def native_calls(action: str, domain) -> str | None:
    """The action as ``<tool_call>`` blocks (None when it is not a list of calls)."""
    calls = call_format_of(domain.name).from_action(action, getattr(domain, "action_format", None))
    if not calls:
        return None
    return "\n".join(f"<tool_call>\n{json.dumps(call)}\n</tool_call>" for call in calls)


#: reply format -> how an action is written in it (None: the format does not apply to this action)
FORMATS = {
    "text": lambda action, domain: action,
    "fenced": lambda action, domain: f"```\n{action}\n```",
    "reasoning first": lambda action, domain: f"<think>The task says what to do.</think>\n{action}",
    "native calls": native_calls,
}


def replies_in(name: str, script: list[str], domain) -> list[str] | None:
    written = [FORMATS[name](action, domain) for action in script]
    if all(reply is None for reply in written):
        return None
    return [reply if reply is not None else action for reply, action in zip(written, script, strict=True)]


def eval_reading(reply: str, domain) -> str:
    """The action ``genenv eval``'s LLM agent takes for this reply text."""
    return parse_action(Completion(text=reply), domain.name, getattr(domain, "action_format", None))


@pytest.fixture(scope="module")
def tokenizer():
    return build_tokenizer()


@pytest.mark.parametrize("real_env_id", every_id_the_rest_slow(), indirect=True)
def test_every_reply_format_plays_the_same_in_eval_trl_and_verl(real_env_id, tokenizer):
    tasks = live(real_env_id)
    (task,) = short_tasks(tasks)
    domain = tasks.domain
    script = oracle_script(tasks, task)
    played = {}
    for name in FORMATS:
        replies = replies_in(name, script, domain)
        if replies is None:
            continue
        actions = [eval_reading(reply, domain) for reply in replies]
        played[name] = (replies, actions, record_in_process(tasks, task, actions))
    assert played["text"][2].total_reward > 0
    plays = [(task, replies) for replies, _, _ in played.values()]
    records, _ = trl_rollouts(tasks, plays, tokenizer)
    for (name, (_, actions, reference)), record in zip(played.items(), records, strict=True):
        assert record.actions == actions[: record.turns], f"TRL, {name}"
        assert record.reward == pytest.approx(reference.total_reward), f"TRL, {name}"
    require("verl.experimental.agent_loop", "see docs/trainers.md")
    outputs, _ = verl_rollouts(real_env_id, plays, tokenizer)
    for (name, (_, _, reference)), output in zip(played.items(), outputs, strict=True):
        assert output.reward_score == pytest.approx(reference.total_reward), f"verl, {name}"
