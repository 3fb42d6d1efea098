"""The trainer's mechanism metrics (learning-signal share, success and levels of the trained tasks) and the
efficacy benchmark's Digits variant."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from genenv_gym.envs.digits import DigitsDomain, make_digits_domain  # noqa: E402
from genenv_gym.registry.registration import make_domain  # noqa: E402
from genenv_gym.train.config import TrainConfig, apply_overrides  # noqa: E402
from genenv_gym.train.grpo import group_advantages, group_signal  # noqa: E402
from genenv_gym.train.loop import Trainer  # noqa: E402
from genenv_gym.train.rollout import Trajectory  # noqa: E402

TINY = [
    "run.epochs=1",
    "run.eval_every=0",
    "run.progress=false",
    "run.tensorboard=false",
    "run.plots=false",
    "run.threads=1",
    "model.hidden_size=32",
    "model.intermediate_size=64",
    "model.vocab_size=300",
    "warmstart.steps=0",
    "warmstart.base_tasks=8",
    "agent.tasks_per_epoch=4",
    "agent.group_size=2",
    "agent.mini_batch_size=2",
    "agent.micro_batch_size=1",
    "agent.max_new_tokens=6",
]


def test_group_signal_counts_the_groups_grpo_learns_from() -> None:
    rewards = [1, 1, 1, 0, 0, 0, 1, 0, 1, 1, 0, 1, 1]
    groups = [0, 0, 0, 1, 1, 1, 2, 2, 3, 3, 3, 3, 4]  # all success, all fail, 1/2, 3/4, a group of one
    signal = group_signal(rewards, groups)
    advantages = group_advantages(rewards, groups)
    nonzero = {g for g, a in zip(groups, advantages.tolist(), strict=True) if a != 0}
    assert signal.groups == 5 and signal.signal_groups == len(nonzero) == 2
    assert signal.share == pytest.approx(2 / 5)
    assert signal.reward_var == pytest.approx((0 + 0 + 0.25 + 0.1875 + 0) / 5)  # mean p (1 - p)
    assert group_signal([], []).share == 0.0
    with pytest.raises(ValueError, match="same length"):
        group_signal([1.0], [0, 1])


def _trajectory(task, group: int, sample: int, hit: bool) -> Trajectory:
    return Trajectory(
        task, group, sample, token_ids=[1, 2, 3], mask=[0, 1, 1], rewards=[float(hit)], success=hit
    )


def test_mechanism_metrics_from_trajectories(tmp_path: Path) -> None:
    trainer = Trainer(apply_overrides(TrainConfig(), [*TINY, f"run.out_dir={tmp_path}"]))
    rng = trainer.rng
    tasks = [trainer.domain.generate(level, rng) for level in (0, 0, 4, 9)]
    hits = [(1, 1), (1, 0), (0, 0), (0, 1)]
    rows = [
        _trajectory(t, g, s, bool(h))
        for g, (t, pair) in enumerate(zip(tasks, hits, strict=True))
        for s, h in enumerate(pair)
    ]
    rows.append(Trajectory(tasks[3], 3, 2, rewards=[1.0], success=True, error="no tokens"))  # not trained
    m = trainer.mechanism_metrics(tasks, rows)
    assert m["signal_share"] == pytest.approx(2 / 4) and m["signal_groups"] == 2
    assert m["reward_var"] == pytest.approx(0.125)
    assert m["train_success"] == pytest.approx(5 / 9)  # every sample counts, trained or not
    counts = m["train_level_counts"]
    assert len(counts) == trainer.domain.num_levels and sum(counts) == 4
    assert counts[0] == 2 and counts[4] == 1 and counts[9] == 1
    success = m["train_level_success"]
    assert success[0] == pytest.approx(3 / 4) and success[4] == 0.0 and success[9] == pytest.approx(2 / 3)
    assert success[1] is None


def test_an_epoch_row_carries_the_mechanism_metrics(tmp_path: Path) -> None:
    rows = Trainer(apply_overrides(TrainConfig(), [*TINY, f"run.out_dir={tmp_path}"])).run()
    last = rows[-1]
    for key in ("signal_share", "signal_groups", "reward_var", "train_success", "train_level_counts"):
        assert key in last, key
    assert 0.0 <= last["signal_share"] <= 1.0 and 0.0 <= last["train_success"] <= 1.0
    assert sum(last["train_level_counts"]) == 4  # tasks_per_epoch, no replay
    assert last["train_success"] == pytest.approx(last["train_reward"])  # 0/1 rewards on Digits


def test_digits_variants() -> None:
    default = make_domain("digits")
    assert default.num_levels == DigitsDomain.num_levels == 15 and len(default.load_tasks()) == 200
    wide = make_domain("digits-wide")
    assert wide.num_levels == 19 and len(wide.load_tasks()) == 1000
    assert {t.level for t in wide.load_tasks()} == set(range(0, 19, 2))
    lengths = make_domain("digits-lengths")
    assert lengths.num_levels == 12 and len(lengths.load_tasks()) == 1200
    assert {t.level for t in lengths.load_tasks()} == set(range(12))
    with pytest.raises(ValueError, match="digits-wide"):
        make_digits_domain("digits-huge")
