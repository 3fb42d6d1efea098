"""The LLM simulator's targeting: the level its prompts ask for follows the measured success on its tasks."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from test_train_llm_simulator import REPLIES, _env_llm, _scripted_writer, _written

from genenv_gym.agents.backends import ScriptedBackend
from genenv_gym.envs.digits import DigitsDomain
from genenv_gym.llm_simulator import LLMSimulator
from genenv_gym.simulator import Outcome
from genenv_gym.skill import SkillTracker
from genenv_gym.train.config import TrainConfig, apply_overrides
from genenv_gym.train.simulator_llm import steer_target

DOMAIN = DigitsDomain()
TOP = DOMAIN.num_levels - 1


def _skill_with_frontier(level: int) -> SkillTracker:
    tracker = SkillTracker(DOMAIN.num_levels)
    for success in (True, False) * 4:
        tracker.update(level, success)
    for easy in range(level):
        for _ in range(8):
            tracker.update(easy, True)
    return tracker


def test_steering_moves_up_when_too_easy_down_when_too_hard_and_stays_at_alpha() -> None:
    assert steer_target(6.0, 70, 100, 0.5, 1.0, 2.0, DOMAIN.num_levels) > 6.0
    assert steer_target(6.0, 30, 100, 0.5, 1.0, 2.0, DOMAIN.num_levels) < 6.0
    assert steer_target(6.0, 50, 100, 0.5, 1.0, 2.0, DOMAIN.num_levels) == pytest.approx(6.0)
    # the step grows with the gap (gain levels per logit) up to max_step, and stays inside the grid
    small = steer_target(6.0, 60, 100, 0.5, 1.0, 9.0, 15)
    large = steer_target(6.0, 80, 100, 0.5, 1.0, 9.0, 15)
    assert 0 < small - 6.0 < large - 6.0
    assert steer_target(6.0, 100, 100, 0.5, 1.0, 2.0, DOMAIN.num_levels) == pytest.approx(8.0)
    assert steer_target(6.0, 0, 100, 0.5, 1.0, 2.0, DOMAIN.num_levels) == pytest.approx(4.0)
    assert steer_target(TOP - 0.5, 100, 100, 0.5, 1.0, 2.0, DOMAIN.num_levels) == TOP
    assert steer_target(0.5, 0, 100, 0.5, 1.0, 2.0, DOMAIN.num_levels) == 0.0
    # another alpha: success at alpha holds the level
    assert steer_target(3.0, 70, 100, 0.7, 1.0, 2.0, DOMAIN.num_levels) == pytest.approx(3.0, abs=0.01)


def test_target_without_center_is_the_frontier_and_with_center_its_rounding() -> None:
    skill = _skill_with_frontier(5).estimate()
    assert skill.frontier == 5
    sim = LLMSimulator(DOMAIN, ScriptedBackend(["unused"]), seeds=[], explore=0.0, seed=0)
    assert {sim.target(skill).level for _ in range(50)} == {5}
    sim.center = 8.25  # asks for level 9 a quarter of the time, level 8 otherwise; the frontier is ignored
    counts = Counter(sim.target(skill).level for _ in range(4000))
    assert set(counts) == {8, 9}
    assert counts[9] / 4000 == pytest.approx(0.25, abs=0.03)


def test_center_survives_the_state_dict() -> None:
    sim = LLMSimulator(DOMAIN, ScriptedBackend(["unused"]), seeds=[], seed=0)
    sim.center = 7.4
    other = LLMSimulator(DOMAIN, ScriptedBackend(["unused"]), seeds=[], seed=1)
    other.load_state_dict(sim.state_dict())
    assert other.center == 7.4


def test_update_steers_from_the_proposal_frontier_by_the_measured_success(tmp_path: Path) -> None:
    env = _env_llm(tmp_path, "simulator.target_gain=1.0", "simulator.target_max_step=2.0")
    env.simulator.backend = ScriptedBackend(_scripted_writer)
    env.simulator.params = env.simulator.params.with_(max_new_tokens=64)
    env.propose(2, _skill_with_frontier(6).estimate(), np.random.default_rng(0))
    assert env.proposal_frontier == 6 and env.simulator.center is None  # the first proposal: the frontier
    assert 5 <= env.last_proposal["mean_target"] <= 7  # the frontier, or one level beside it
    buffered = [t.id for t in env.simulator._buffer]
    assert len(buffered) == 2  # 4 accepted, 2 served
    five = ['{"digits": "1 2 3 4 5"}', '{"digits": "5 4 3 2 1"}']  # level 8 (five digits)
    tasks = _written(env, five, level=8)
    stats = env.update([Outcome(t, 8, 8) for t in tasks])  # all solved: too easy, up by max_step
    assert stats["center"] == pytest.approx(8.0) and env.simulator.center == pytest.approx(8.0)
    # the tasks written for the old target and never served are dropped with their records
    assert stats["discarded"] == 2 and not env.simulator._buffer
    assert not set(buffered) & set(env.simulator.records)  # the served ones wait for their outcomes
    tasks = _written(env, ['{"digits": "5 5 5 5 5"}', '{"digits": "6 6 6 6 6"}'], level=8)
    stats = env.update([Outcome(t, 1, 8) for t in tasks])  # 2 of 16: too hard, down by 1.9 levels ...
    assert stats["center"] == pytest.approx(7.0)  # ... but no further than one level below where they were
    # tasks written far above the target and failed: the target may not go down further, nor is it pushed up
    env.simulator.center = 4.5
    tasks = _written(env, ['{"digits": "1 1 1 1 1 1"}', '{"digits": "2 2 2 2 2 2"}'], level=10)
    stats = env.update([Outcome(t, 0, 8) for t in tasks])
    assert stats["center"] == pytest.approx(4.5)


def test_frontier_targeting_never_steers(tmp_path: Path) -> None:
    env = _env_llm(tmp_path, "simulator.targeting=frontier")
    env.simulator.backend = ScriptedBackend(_scripted_writer)
    env.simulator.params = env.simulator.params.with_(max_new_tokens=64)
    env.propose(2, _skill_with_frontier(6).estimate(), np.random.default_rng(0))
    stats = env.update([Outcome(t, 8, 8) for t in _written(env, REPLIES)])
    assert stats["center"] is None and env.simulator.center is None
    assert stats["discarded"] == 0 and len(env.simulator._buffer) == 2  # the buffer carries over as before


def test_config_rejects_unknown_targeting_and_bad_gains() -> None:
    apply_overrides(TrainConfig(), ["simulator.kind=llm", "simulator.targeting=frontier"])
    with pytest.raises(ValueError, match=r"simulator\.targeting must be one of \('success', 'frontier'\)"):
        apply_overrides(TrainConfig(), ["simulator.kind=llm", "simulator.targeting=oracle"])
    with pytest.raises(ValueError, match=r"simulator\.target_gain"):
        apply_overrides(TrainConfig(), ["simulator.kind=llm", "simulator.target_gain=0"])
    with pytest.raises(ValueError, match=r"simulator\.target_gain and simulator\.target_max_step"):
        apply_overrides(TrainConfig(), ["simulator.kind=llm", "simulator.target_max_step=-1"])


def test_prompt_shows_every_length_of_its_level() -> None:
    from genenv_gym.envs.digits.task_writer import DigitsTaskWriter
    from genenv_gym.llm_simulator import Target

    writer = DigitsTaskWriter(DOMAIN)
    skill = SkillTracker(DOMAIN.num_levels).estimate()

    def request(level: int) -> str:
        return writer.prompt([], skill, Target(level, DOMAIN.num_levels, 0.5, 0.5, 0.0, 0.0))[1]["content"]

    # a level of one length shows it; a level mixing two lengths shows both (its tasks mix them)
    assert request(0) == 'Level 0 of 14, like "d"; agent solves 50%.'
    assert request(10) == 'Level 10 of 14, like "d d d d d d"; agent solves 50%.'
    assert request(5) == 'Level 5 of 14, like "d d d" or "d d d d"; agent solves 50%.'
    assert request(11) == 'Level 11 of 14, like "d d d d d d" or "d d d d d d d"; agent solves 50%.'
