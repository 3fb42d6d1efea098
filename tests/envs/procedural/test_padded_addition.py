"""The padded-addition domain: notation, level grid, validation, the fixed held-out set, hostile answers,
and its LLM task writer."""

import json

import numpy as np
import pytest

from genenv_gym.envs.addition.domain import PaddedAdditionDomain, level_digits, read_number, write_number
from genenv_gym.envs.addition.task_writer import PaddedAdditionTaskWriter
from genenv_gym.llm_simulator.writer import Target, TaskRejected
from genenv_gym.skill import SkillTracker


def test_numbers_are_zero_padded_least_significant_first():
    assert write_number(314, 6) == "4 1 3 0 0 0"
    assert write_number(1999998, 7) == "8 9 9 9 9 9 1"
    assert read_number("4 1 3 0 0 0", 6) == 314
    assert read_number("4 1 3 0 0", 6) is None and read_number("4 1 3 0 0 x", 6) is None
    assert read_number("41 3 0 0 0 0", 6) is None


def test_the_answer_is_the_sum_in_seven_digits():
    domain = PaddedAdditionDomain(heldout_per_level=1)
    task = domain.make_task(314, 27, 4, "t")
    assert task.messages[0]["content"] == "add: 4 1 3 0 0 0 + 7 2 0 0 0 0"
    assert domain.oracle_action(task) == "1 4 3 0 0 0 0"
    top = domain.make_task(999999, 999999, 10, "t")
    assert domain.oracle_action(top) == "8 9 9 9 9 9 1" and domain.validate(top) == []


def test_levels_are_half_steps_of_operand_width():
    domain = PaddedAdditionDomain()
    assert domain.num_levels == 11
    assert level_digits(0) == (1,) and level_digits(3) == (2, 3) and level_digits(10) == (6,)
    rng = np.random.default_rng(0)
    for level in range(domain.num_levels):
        widths = set()
        for _ in range(60):
            task = domain.generate(level, rng)
            a, b = domain.operands(task)
            assert len(str(a)) == len(str(b)) and domain.validate(task) == []
            assert domain.verify(task, domain.oracle_action(task)).success
            widths.add(len(str(a)))
        assert widths == set(level_digits(level)), level
    with pytest.raises(ValueError, match="level must be in"):
        domain.generate(11, rng)


def test_validate_rejects_wrong_sums_widths_levels_and_prompts():
    domain = PaddedAdditionDomain(heldout_per_level=1)
    assert domain.validate(domain.make_task(12, 345, 3, "t")) == [
        "the operands must have as many digits as each other, not 2 and 3"
    ]
    assert domain.validate(domain.make_task(123, 456, 0, "t")) == [
        "level 0 has 1-digit operands, not 3-digit ones"
    ]
    assert "2 or 3-digit" in domain.validate(domain.make_task(1234, 4567, 3, "t"))[0]
    assert domain.validate(domain.make_task(123, 456, 3, "t")) == []  # half level 3: 2 or 3 digits
    assert "outside" in domain.validate(domain.make_task(1, 2, 11, "t"))[0]
    task = domain.make_task(1, 2, 0, "t")
    wrong = type(task).from_dict({**task.to_dict(), "evaluation": {"answer": "4 0 0 0 0 0 0"}})
    assert "not the sum" in domain.validate(wrong)[0]
    bad = type(task).from_dict({**task.to_dict(), "messages": [{"role": "user", "content": "add: 1 + 2"}]})
    assert "prompt must be" in domain.validate(bad)[0]


def test_heldout_set_is_fixed_and_holds_200_tasks_of_each_whole_level():
    first, second = PaddedAdditionDomain().load_tasks(), PaddedAdditionDomain().load_tasks()
    assert first == second and len(first) == 1200
    assert {t.level for t in first} == {0, 2, 4, 6, 8, 10}
    assert all(sum(t.level == level for t in first) == 200 for level in (0, 2, 4, 6, 8, 10))
    assert len({t.messages[0]["content"] for t in first if t.level == 10}) == 200
    assert [t.id for t in PaddedAdditionDomain().load_tasks(["level_4"])] == [
        t.id for t in first if t.level == 4
    ]


@pytest.mark.parametrize(
    "action",
    [
        None,
        7,
        ["1 4 3 0 0 0 0"],
        "",
        "1 4 3 0 0 0",
        "1 4 3 0 0 0 0 0",
        "1430000",
        "341",
        "0 0 0 0 3 4 1",
        "1 4 3 0 0 0 0 <|im_end|>",
        "1" * 100_000,
        "\x00\ud800",
    ],
)
def test_hostile_answers_score_zero_without_giving_the_answer_away(action):
    domain = PaddedAdditionDomain(heldout_per_level=1)
    task = domain.make_task(314, 27, 4, "t")
    verdict = domain.verify(task, action)
    assert verdict.reward == 0.0 and not verdict.success
    assert domain.oracle_action(task) not in (verdict.error or "")
    assert domain.verify(task, "  1 4 3\t0 0 0 0\n").success  # whitespace-insensitive


def test_the_task_writer_parses_operands_at_the_level_that_accepts_them():
    domain = PaddedAdditionDomain(heldout_per_level=1)
    writer = PaddedAdditionTaskWriter(domain)
    target = Target(4, 11, 0.5, 0.4, 8.0, 0.5)
    messages = writer.prompt([], SkillTracker(11).estimate(), target)
    assert messages[1]["content"] == "Level 4 of 10, 3-digit numbers; agent solves 40%."
    task = writer.parse('{"a": 314, "b": 270}', target, "llm:test")
    assert task.level == 4 and domain.oracle_action(task) == "4 8 5 0 0 0 0"
    assert writer.parse('{"a": 31, "b": 27}', target, "llm:test").level == 1  # the lowest accepting
    assert json.loads(writer.reply_text(task)) == {"a": 314, "b": 270}
    assert writer.fingerprint(task)[0] == "addition:314+270"
    for reply, kind in (
        ('{"a": 3, "b": 270}', "invalid"),
        ('{"a": 1000000, "b": 1}', "invalid"),
        ('{"a": -1, "b": 1}', "invalid"),
        ('{"a": "314", "b": 27}', "parse"),
        ('{"a": true, "b": 1}', "parse"),
        ('{"a": 1.5, "b": 1}', "parse"),
        ('{"a": 1}', "parse"),
    ):
        with pytest.raises(TaskRejected) as caught:
            writer.parse(reply, target, "llm:test")
        assert caught.value.kind == kind, reply
