"""The Digits domain's level grid: half steps of length (or one length per level), validation, the fixed
held-out set."""

import numpy as np
import pytest

from genenv_gym.envs.digits.domain import DigitsDomain, level_lengths


def test_levels_are_half_steps_of_length():
    domain = DigitsDomain()
    assert domain.num_levels == 15
    rng = np.random.default_rng(0)
    for level in range(domain.num_levels):
        lengths = {len(domain.generate(level, rng).evaluation["answer"].split()) for _ in range(40)}
        assert lengths == set(level_lengths(level)), level
    assert level_lengths(4) == (3,) and level_lengths(5) == (3, 4)


def test_validate_checks_length_against_level():
    domain = DigitsDomain()
    assert domain.validate(domain.make_task("1 2 3", 5, "t")) == []
    assert domain.validate(domain.make_task("1 2 3 4", 5, "t")) == []
    assert "not 2" in domain.validate(domain.make_task("1 2", 5, "t"))[0]
    assert "outside" in domain.validate(domain.make_task("1 2", 15, "t"))[0]
    with pytest.raises(ValueError, match="level must be in"):
        domain.generate(15, np.random.default_rng(0))


def test_heldout_set_is_fixed_and_holds_whole_lengths():
    first, second = DigitsDomain().load_tasks(), DigitsDomain().load_tasks()
    assert first == second and len(first) == 200
    assert {t.level for t in first} == set(range(0, 15, 2))


def test_oracle_passes_and_random_answers_have_the_task_length():
    domain = DigitsDomain()
    rng = np.random.default_rng(1)
    task = domain.generate(9, rng)
    assert domain.verify(task, domain.oracle_action(task)).success
    assert len(domain.random_action(task, rng).split()) == len(task.evaluation["answer"].split())


def test_non_string_actions_score_zero_and_errors_hide_the_answer():
    domain = DigitsDomain()
    task = domain.generate(0, np.random.default_rng(0))
    answer = domain.oracle_action(task)
    assert domain.verify(task, answer).success
    for action in (int(answer), [answer], None):
        verdict = domain.verify(task, action)
        assert verdict.reward == 0.0 and verdict.error_type == "action_error:not_text"
    wrong = domain.verify(task, "x")
    assert wrong.reward == 0.0 and answer not in wrong.error


def test_single_length_levels_never_mix_lengths():
    domain = DigitsDomain(num_lengths=12, heldout_per_length=3, half_steps=False)
    assert domain.num_levels == 12
    rng = np.random.default_rng(0)
    for level in range(domain.num_levels):
        lengths = {len(domain.generate(level, rng).evaluation["answer"].split()) for _ in range(20)}
        assert lengths == {level + 1} == set(domain.lengths(level)), level
    assert domain.validate(domain.make_task("1 2 3", 2, "t")) == []
    assert "not 4" in domain.validate(domain.make_task("1 2 3 4", 2, "t"))[0]
    heldout = domain.load_tasks()
    assert len(heldout) == 36 and {t.level for t in heldout} == set(range(12))
