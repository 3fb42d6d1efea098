"""The API-Bank LLM task writer: prompt, strict parsing, screening by execution, through the LLM simulator."""

from __future__ import annotations

import json

import numpy as np
import pytest

from genenv_gym.agents.backends import ScriptedBackend
from genenv_gym.envs.apibank.domain import APIBankDomain
from genenv_gym.envs.apibank.task_writer import APIBankTaskWriter
from genenv_gym.llm_simulator import LLMSimulator
from genenv_gym.llm_simulator.writer import Target, TaskRejected
from genenv_gym.skill import SkillTracker

DOMAIN = APIBankDomain("corrected")
WRITER = APIBankTaskWriter(DOMAIN)
TARGET = Target(
    level=1, num_levels=5, alpha=0.5, success_at_level=0.0, evidence_at_level=0.0, recent_success=0.0
)
TOKEN = "qx1l2l3t4o5k6e7n8z"


def reply(answer_time: str = "2023-05-02 07:00:00", **changes) -> str:
    data = {
        "dialogue": [
            {"user": "Set an alarm for 2023-05-02 07:00:00 please. I am quill, password inkpot7."},
            {
                "call": {
                    "api_name": "GetUserToken",
                    "param_dict": {"username": "quill", "password": "inkpot7"},
                }
            },
            {"ai": "You are signed in."},
        ],
        "answer": {"api_name": "AddAlarm", "param_dict": {"token": TOKEN, "time": answer_time}},
        "distractors": ["QueryStock"],
    }
    data.update(changes)
    return json.dumps(data)


def test_a_good_reply_becomes_a_valid_task_graded_by_execution():
    task = WRITER.parse(reply(), TARGET, "llm:test")
    assert DOMAIN.validate(task) == [] and WRITER.semantic_problems(task) == []
    assert {t["name"] for t in task.tools} == {"GetUserToken", "AddAlarm", "QueryStock"}
    assert f"Response: {{'token': '{TOKEN}'}}" in DOMAIN.render(task)
    assert DOMAIN.verify(task, f"[AddAlarm(token='{TOKEN}', time='2023-05-02 07:00:00')]").success
    assert not DOMAIN.verify(task, f"[AddAlarm(token='{TOKEN}', time='2023-05-02 08:00:00')]").success


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        reply(answer={"api_name": "LaunchRocket", "param_dict": {}}),
        reply(answer={"api_name": "AddAlarm", "param_dict": {"token": 5}}),
        reply(answer={"api_name": "AddAlarm", "param_dict": {"when": "x"}}),
        reply(dialogue=[{"ai": "hello"}]),
        reply(dialogue=[{"user": "x", "ai": "y"}]),
        reply(distractors=["Nope"]),
        json.dumps({"dialogue": [{"user": "x"}]}),
        "[" * 100,
    ],
)
def test_malformed_replies_are_rejected(text):
    with pytest.raises(TaskRejected):
        WRITER.parse(text, TARGET, "llm:test")


def test_screening_rejects_failing_calls_and_unstated_values():
    unstated = WRITER.parse(reply("2023-06-01 07:00:00"), TARGET, "llm:test")
    assert any("does not state" in p for p in WRITER.semantic_problems(unstated))
    bad_login = reply(
        dialogue=[
            {"user": "Set an alarm for 2023-05-02 07:00:00. I am quill, password nope."},
            {"call": {"api_name": "GetUserToken", "param_dict": {"username": "quill", "password": "nope"}}},
        ]
    )
    assert any("fails" in p for p in WRITER.semantic_problems(WRITER.parse(bad_login, TARGET, "llm:test")))


def test_prompt_lists_the_apis_the_accounts_and_examples():
    seeds = WRITER.seed_tasks(2, np.random.default_rng(0))
    messages = WRITER.prompt(seeds, SkillTracker(5, 0.5).estimate(), TARGET)
    assert (
        "- AddAlarm(token: str, time: str)" in messages[0]["content"]
        and "quill / inkpot7" in messages[0]["content"]
    )
    assert "Examples of the format" in messages[1]["content"]


def test_the_llm_simulator_serves_written_tasks():
    sim = LLMSimulator(DOMAIN, ScriptedBackend([reply(), "garbage"]), writer=WRITER, seeds=[], seed=0)
    tasks = sim.propose(2, SkillTracker(5, 0.5).estimate(), np.random.default_rng(0))
    written = [t for t in tasks if t.id.startswith("apibank_llm_")]
    assert len(written) == 1 and sum(sim.stats.rejected.values()) >= 1  # the garbage reply was screened out
    assert WRITER.fingerprint(written[0]) == WRITER.fingerprint(WRITER.parse(reply(), TARGET, "x"))
