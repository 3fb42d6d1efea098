import pytest

from genenv_gym.skill import SkillTracker


def test_tracker_estimates_success_per_level():
    tracker = SkillTracker(num_levels=5, decay=1.0)
    for _ in range(18):
        tracker.update(0, True)
    for success in [True, False] * 9:
        tracker.update(2, success)
    for _ in range(18):
        tracker.update(4, False)
    rates = tracker.success_rates()
    assert rates[0] == pytest.approx(19 / 20)
    assert rates[2] == pytest.approx(0.5)
    assert rates[4] == pytest.approx(1 / 20)
    assert tracker.frontier() == 2
    estimate = tracker.estimate()
    assert estimate.frontier == 2 and estimate.evidence[1] == 0.0


def test_tracker_forgets_old_outcomes():
    tracker = SkillTracker(num_levels=1, decay=0.8)
    for _ in range(50):
        tracker.update(0, False)
    for _ in range(30):
        tracker.update(0, True)
    assert tracker.success_rates()[0] > 0.8  # (5 + 1) / (5 + 2) at the limit


def test_tracker_state_round_trip_and_errors():
    tracker = SkillTracker(num_levels=3)
    tracker.update(1, True)
    other = SkillTracker(num_levels=3)
    other.load_state_dict(tracker.state_dict())
    assert other.estimate() == tracker.estimate()
    with pytest.raises(ValueError, match="level must be in"):
        tracker.update(3, True)
    with pytest.raises(ValueError, match="decay"):
        SkillTracker(num_levels=3, decay=0.0)
