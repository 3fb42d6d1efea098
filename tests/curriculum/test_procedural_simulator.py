import math

import numpy as np
import pytest
from toy_domain import CountingDomain

from genenv_gym.curriculum import CurriculumConfig
from genenv_gym.simulator import Outcome, ProceduralSimulator, Simulator
from genenv_gym.skill import SkillTracker
from genenv_gym.task import Task


def success_probability(level: int, skill: float = 5.0) -> float:
    return 1.0 / (1.0 + math.exp(-1.5 * (skill - level)))


def run_curriculum(simulator, rng, rounds, skill=5.0):
    tracker = SkillTracker(simulator.domain.num_levels)
    ps = []
    for _ in range(rounds):
        outcomes = []
        for task in simulator.propose(8, tracker.estimate(), rng):
            k = int(rng.binomial(4, success_probability(task.level, skill)))
            outcomes.append(Outcome(task, k, 4))
            ps.append(success_probability(task.level, skill))
        simulator.update(outcomes)
    return ps


def test_procedural_simulator_is_a_simulator():
    assert isinstance(ProceduralSimulator(CountingDomain()), Simulator)


def test_settles_where_agent_succeeds_half_the_time():
    rng = np.random.default_rng(0)
    simulator = ProceduralSimulator(CountingDomain())
    ps = run_curriculum(simulator, rng, rounds=150)
    late = np.mean(ps[-400:])
    assert 0.4 <= late <= 0.6, late
    assert abs(simulator.mean_level() - 5.0) < 1.0
    assert simulator.stats.kept > 0


def test_follows_an_improving_agent():
    rng = np.random.default_rng(1)
    simulator = ProceduralSimulator(CountingDomain())
    run_curriculum(simulator, rng, rounds=120, skill=2.0)
    low = simulator.mean_level()
    run_curriculum(simulator, rng, rounds=200, skill=7.0)
    assert simulator.mean_level() > low + 3.0


def test_neighbour_proposals_draw_that_share_one_level_away():
    simulator = ProceduralSimulator(CountingDomain(), neighbour_prob=0.4)
    n = simulator.domain.num_levels
    simulator.probs = np.eye(n)[3]
    np.testing.assert_allclose(simulator.proposal_probs()[2:5], [0.2, 0.6, 0.2])
    levels = [t.level for t in simulator.propose(2000, None, np.random.default_rng(0))]
    assert abs(levels.count(4) / 2000 - 0.2) < 0.03 and set(levels) == {2, 3, 4}
    simulator.probs = np.eye(n)[0]
    np.testing.assert_allclose(simulator.proposal_probs()[:2], [0.8, 0.2])  # no level below 0
    plain = ProceduralSimulator(CountingDomain())
    assert plain.proposal_probs() is plain.probs  # the default draws exactly as before
    with pytest.raises(ValueError, match="neighbour_prob"):
        ProceduralSimulator(CountingDomain(), neighbour_prob=1.5)


def test_out_of_band_outcomes_do_not_move_the_policy():
    simulator = ProceduralSimulator(CountingDomain())
    before = simulator.probs.copy()
    task = CountingDomain().generate(3, np.random.default_rng(0))
    for successes in (4, 0, 1):
        assert simulator.update([Outcome(task, successes, 4)])["kept"] == 0.0
    np.testing.assert_array_equal(simulator.probs, before)
    stats = simulator.update([Outcome(task, 2, 4)])
    assert stats["kept"] == 1.0 and simulator.probs[3] > before[3]


def test_outcomes_at_one_level_form_one_batch():
    simulator = ProceduralSimulator(CountingDomain())
    rng = np.random.default_rng(0)
    easy, hard = CountingDomain().generate(1, rng), CountingDomain().generate(6, rng)
    # level 1: 3 + 2 of 8 attempts -> p = 0.625, out of band; level 6: 4 + 1 of 10 -> p = 0.5, kept
    stats = simulator.update(
        [Outcome(easy, 3, 4), Outcome(easy, 2, 4), Outcome(hard, 4, 5), Outcome(hard, 1, 5)]
    )
    assert stats["batches"] == 2.0 and stats["kept_batches"] == 1.0 and stats["kept"] == 2.0
    assert simulator.probs[6] > simulator.probs[1]


def test_invalid_generated_tasks_are_rejected_with_reasons():
    class Broken(CountingDomain):
        def validate(self, task):
            return ["checker fails on its reference answer"]

    simulator = ProceduralSimulator(Broken(), max_retries=3)
    with pytest.raises(RuntimeError, match="checker fails on its reference answer"):
        simulator.propose(1, SkillTracker(10).estimate(), np.random.default_rng(0))
    assert simulator.stats.rejected["checker fails on its reference answer"] == 3


def test_proposals_are_seeded_and_state_round_trips():
    a, b = ProceduralSimulator(CountingDomain()), ProceduralSimulator(CountingDomain())
    skill = SkillTracker(10).estimate()
    ta = a.propose(5, skill, np.random.default_rng(7))
    tb = b.propose(5, skill, np.random.default_rng(7))
    assert [t.evaluation for t in ta] == [t.evaluation for t in tb]
    a.update([Outcome(ta[0], 2, 4)])
    b.load_state_dict(a.state_dict())
    np.testing.assert_array_equal(a.probs, b.probs)
    with pytest.raises(ValueError, match="level probabilities"):
        b.load_state_dict({"probs": [1.0]})


def test_uses_curriculum_config():
    simulator = ProceduralSimulator(CountingDomain(), CurriculumConfig(alpha=0.25, k_min=0.0))
    task = Task(id="x", domain="counting", difficulty={"level": 2}, evaluation={"answer": "1"})
    assert simulator.update([Outcome(task, 2, 4)])["kept"] == 0.0
    assert simulator.update([Outcome(task, 1, 4)])["kept"] == 1.0
