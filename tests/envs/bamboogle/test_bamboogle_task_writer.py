"""The Sim-Bamboogle LLM task writer: prompt, strict parsing, the world deciding the answer, screening."""

import json

import numpy as np
import pytest

from genenv_gym.agents.backends import Completion, ScriptedBackend
from genenv_gym.envs.bamboogle.sim_domain import BamboogleSimDomain
from genenv_gym.envs.bamboogle.task_writer import BamboogleTaskWriter, task_content
from genenv_gym.llm_simulator import LLMSimulator, Target, TaskRejected
from genenv_gym.skill import SkillTracker

DOMAIN = BamboogleSimDomain()
WRITER = BamboogleTaskWriter(DOMAIN)
TARGET = Target(1, DOMAIN.num_levels, 0.5, 0.5, 0.0, 0.0)


def good_reply() -> dict:
    task = DOMAIN.generate(1, np.random.default_rng(11))
    content = task_content(task)
    content["question"] = content["question"].replace("?", ", please?")
    return content


def test_prompt_shows_the_world_and_asks_for_the_hops():
    skill = SkillTracker(DOMAIN.num_levels, 0.5).estimate()
    messages = WRITER.prompt(WRITER.seed_tasks(4, np.random.default_rng(0)), skill, TARGET)
    assert messages[0]["role"] == "system" and "founder" in messages[0]["content"]
    assert "2-hop question" in messages[1]["content"] and "fictional" in messages[1]["content"]


def test_a_correct_reply_becomes_a_valid_task_with_the_worlds_answer():
    reply = good_reply()
    task = WRITER.parse(json.dumps(reply), TARGET, "llm:test")
    assert DOMAIN.validate(task) == [] and WRITER.semantic_problems(task) == []
    assert list(task.evaluation["golden_answers"]) == [reply["answer"]] and task.difficulty["hops"] == 2


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"answer": "Atlantis"}, "not where the chain leads"),
        ({"start": "Nobody Real"}, "exact name"),
        ({"steps": ["capital", "founder"]}, "do not apply"),
        ({"steps": []}, "1..4 hops"),
        ({"answer_type": "colour"}, "answer_type"),
        ({"question": ""}, "non-empty"),
    ],
)
def test_bad_replies_are_rejected(change, message):
    reply = {**good_reply(), **change}
    with pytest.raises(TaskRejected, match=message):
        WRITER.parse(json.dumps(reply), TARGET, "llm:test")


def test_question_must_name_its_start_and_screening_runs_end_to_end():
    reply = good_reply()
    hidden = {**reply, "question": "What is it, please?"}
    task = WRITER.parse(json.dumps(hidden), TARGET, "llm:test")
    assert WRITER.semantic_problems(task)
    sim = LLMSimulator(DOMAIN, ScriptedBackend(["unused"]), writer=WRITER, seeds=[], seed=0)
    assert sim.screen(Completion(json.dumps(reply)), TARGET, {}) is not None
    assert sim.screen(Completion(json.dumps(hidden)), TARGET, {}) is None
    assert sim.screen(Completion("not json <answer>"), TARGET, {}) is None
