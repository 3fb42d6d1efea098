import math

import numpy as np
import pytest

from genenv_gym.curriculum import CurriculumConfig, alpha_reward, empirical_success, in_band
from genenv_gym.rwr import kl_divergence, rwr_categorical_step


def test_alpha_reward_matches_formula():
    assert alpha_reward(0.5) == 1.0
    assert alpha_reward(0.3, alpha=0.5, beta=2.0) == pytest.approx(math.exp(-2.0 * 0.04))
    assert alpha_reward(0.0) == pytest.approx(math.exp(-20 * 0.25))


def test_default_beta_separates_band():
    cfg = CurriculumConfig()
    inside = [cfg.reward(p) for p in (0.4, 0.45, 0.5, 0.55, 0.6)]
    outside = [cfg.reward(p) for p in (0.0, 0.25, 0.75, 1.0)]
    assert min(inside) > 0.8
    assert max(outside) < 0.3


def test_band_filter_edges():
    assert in_band(0.4) and in_band(0.6) and in_band(0.5)
    assert not in_band(0.25) and not in_band(0.75) and not in_band(0.39)
    assert [in_band(k / 4) for k in range(5)] == [False, False, True, False, False]


def test_empirical_success_and_errors():
    assert empirical_success(3, 4) == 0.75
    with pytest.raises(ValueError, match="at least one attempt"):
        empirical_success(0, 0)
    with pytest.raises(ValueError, match="successes must be in"):
        empirical_success(5, 4)


@pytest.mark.parametrize(
    "field,value", [("alpha", 1.5), ("beta", 0.0), ("k_min", -0.1), ("attempts", 0), ("rwr_lambda", -1)]
)
def test_config_validate_names_the_field(field, value):
    with pytest.raises(ValueError, match=field):
        CurriculumConfig(**{field: value})


def test_rwr_weight_is_exp_lambda_reward():
    cfg = CurriculumConfig(rwr_lambda=1.0)
    assert cfg.rwr_weight(0.5) == pytest.approx(math.e)
    assert cfg.rwr_weight(0.4) == pytest.approx(math.exp(math.exp(-0.2)))


def test_rwr_step_moves_toward_weighted_histogram():
    probs = np.full(4, 0.25)
    new, kl = rwr_categorical_step(probs, [2, 2, 3], [2.0, 2.0, 1.0], step_size=1.0, max_kl=10.0)
    np.testing.assert_allclose(new, [0.0, 0.0, 0.8, 0.2])
    assert kl == pytest.approx(kl_divergence(new, probs))


def test_rwr_step_respects_kl_cap_and_floor():
    probs = np.full(4, 0.25)
    new, kl = rwr_categorical_step(probs, [0], [1.0], step_size=1.0, max_kl=0.05, min_prob=0.01)
    assert kl <= 0.05
    assert new[0] > 0.25 and new.min() >= 0.01 - 1e-12
    assert new.sum() == pytest.approx(1.0)


def test_rwr_step_without_samples_is_identity():
    probs = np.array([0.1, 0.2, 0.7])
    new, kl = rwr_categorical_step(probs, [], [], step_size=0.5, max_kl=0.1)
    np.testing.assert_array_equal(new, probs)
    assert kl == 0.0
