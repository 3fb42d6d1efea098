"""The sampler table (genenv_gym/samplers/registry.py): every entry builds from what it says it needs, a
sampler registered in the table alone is usable by name from a training config and from a simulator env,
``run.sampler`` and its old name ``run.baseline``, and the errors for names and settings outside the table."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

from genenv_gym.curriculum import CurriculumConfig
from genenv_gym.domain import Domain
from genenv_gym.envs.ladder import LadderDomain
from genenv_gym.samplers import (
    SAMPLERS,
    SamplerEntry,
    TrainerContext,
    build_sampler,
    build_standalone,
    standalone_names,
)
from genenv_gym.simulator import Outcome, ProceduralSimulator
from genenv_gym.skill import SkillEstimate, SkillTracker
from genenv_gym.task import Task
from genenv_gym.train.config import TrainConfig, apply_overrides, from_dict, load_config

SKILL = SkillTracker(8).estimate()


class FixedLevelSampler:
    """A sampler defined here alone: every task at one level."""

    def __init__(self, domain: Domain, level: int = 0) -> None:
        self.domain, self.level = domain, level

    def propose(self, n: int, skill: SkillEstimate, rng: np.random.Generator) -> list[Task]:
        return [self.domain.generate(self.level, rng) for _ in range(n)]

    def update(self, outcomes: Sequence[Outcome]) -> dict[str, float]:
        return {}


FIXED_LEVEL = SamplerEntry(
    "fixed-level",
    "every task at one fixed level (a sampler the test adds to the table)",
    "tests/curriculum/test_sampler_registry.py",
    False,
    lambda inputs: FixedLevelSampler(inputs.domain, **inputs.settings),
    {"level": "sampler.frontier_level"},
    standalone=True,
)


@pytest.fixture
def fixed_level(monkeypatch: pytest.MonkeyPatch) -> SamplerEntry:
    """``fixed-level`` in the table for one test, and in no other file."""
    monkeypatch.setitem(SAMPLERS, FIXED_LEVEL.name, FIXED_LEVEL)
    return FIXED_LEVEL


class FakeTrainer:
    """What a trainer hands its samplers, with a record of what they asked for."""

    def __init__(self, domain: Domain) -> None:
        self.rng = np.random.default_rng(0)
        self.policy = ProceduralSimulator(domain)
        self.base = [domain.generate(0, self.rng) for _ in range(3)]
        self.written: list[Task] = []
        self.scored: list[int] = []
        self.oracle_reads = 0
        self.num_levels = domain.num_levels

    def static_set(self, n: int) -> list[Task]:
        if not self.written:
            self.written = self.policy.propose(n, SKILL, self.rng)
        return self.written

    def score(self, tasks: list[Task], samples: int) -> list[int]:
        self.scored.append(len(tasks))
        return [samples // 2] * len(tasks)

    def oracle(self) -> dict[int, float]:
        self.oracle_reads += 1
        return {level: 1.0 if level < 2 else 0.0 for level in range(self.num_levels)}

    def context(self) -> TrainerContext:
        return TrainerContext(self.policy, self.score, self.oracle, lambda: self.base, self.static_set)


@pytest.mark.parametrize("name", list(SAMPLERS))
def test_every_entry_builds_with_its_settings_from_a_training_config(name: str) -> None:
    domain, entry = LadderDomain(), SAMPLERS[name]
    settings = entry.read_settings(TrainConfig())  # every settings key is a key of the training config
    assert set(settings) <= set(entry.settings)
    fake = FakeTrainer(domain)
    sampler = build_sampler(name, domain, CurriculumConfig(), settings, fake.context())
    tasks = sampler.propose(6, SKILL, np.random.default_rng(1))
    assert len(tasks) == 6 and all(t.domain == domain.name for t in tasks)
    assert isinstance(sampler.update([Outcome(t, 1, 2) for t in tasks]), dict)
    if name in ("alpha-curriculum", "random-simulator", "soft-alpha-rwr"):
        assert sampler is fake.policy  # the trainer's environment policy itself
    if name == "static":
        assert len(fake.written) == TrainConfig().simulator.static_tasks
        assert all(any(t is w for w in fake.written) for t in tasks)
    if name == "base-only":
        fake.base = [domain.generate(5, fake.rng)]  # a resumed run's pool: read at each call
        assert {t.level for t in sampler.propose(4, SKILL, fake.rng)} == {5}
    if name == "as-released":
        assert fake.scored == [TrainConfig().sampler.pool_tasks]
    if name == "oracle-frontier":
        assert fake.oracle_reads == 1 and {t.level for t in tasks} == {2}


@pytest.mark.parametrize("name", list(SAMPLERS))
def test_a_standalone_entry_builds_from_a_domain_alone_and_the_others_say_they_need_a_trainer(
    name: str,
) -> None:
    domain = LadderDomain()
    if SAMPLERS[name].standalone:
        sampler = build_standalone(name, domain, CurriculumConfig())
        assert len(sampler.propose(3, SKILL, np.random.default_rng(0))) == 3
        assert name in standalone_names()
        return
    with pytest.raises(ValueError, match="not a standalone sampler"):
        build_standalone(name, domain, CurriculumConfig())
    with pytest.raises(ValueError, match=f"the {name} sampler needs a trainer"):
        build_sampler(name, domain, CurriculumConfig(), SAMPLERS[name].read_settings(TrainConfig()))


def test_unknown_names_and_settings_are_refused_with_the_choices() -> None:
    with pytest.raises(
        ValueError, match=r"unknown sampler 'unifrom' \(did you mean 'uniform'\?\); choose from"
    ):
        build_sampler("unifrom", LadderDomain(), CurriculumConfig())
    with pytest.raises(
        ValueError, match=r"run\.sampler.*unknown sampler 'nope'; choose from \['alpha-curriculum'"
    ):
        apply_overrides(TrainConfig(), ["run.sampler=nope"])
    with pytest.raises(ValueError, match=r"takes no setting \['explore'\]; it takes none"):
        build_standalone("uniform", LadderDomain(), CurriculumConfig(), explore=0.5)
    with pytest.raises(ValueError, match=r"unknown simulator 'nope'.*'learnability-task'\] or a Simulator"):
        gym.make("GenEnv-Sim-Digits-v0", simulator="nope")
    with pytest.raises(
        ValueError, match=r"\'as-released\' is not a standalone sampler \(it needs a trainer\)"
    ):
        gym.make("GenEnv-Sim-Digits-v0", simulator="as-released")


def test_run_baseline_is_the_old_name_of_run_sampler(tmp_path: Path) -> None:
    assert apply_overrides(TrainConfig(), ["run.baseline=uniform"]).run.sampler == "uniform"
    assert from_dict({"run": {"baseline": "static"}}).run.sampler == "static"
    assert from_dict({"run": {"sampler": "static", "baseline": "static"}}).run.sampler == "static"
    assert (
        apply_overrides(TrainConfig(), ["run.sampler=uniform", "run.baseline=uniform"]).run.baseline
        == "uniform"
    )
    with pytest.raises(ValueError, match=r"sets both run\.sampler='uniform' and run\.baseline='static'"):
        apply_overrides(TrainConfig(), ["run.sampler=uniform", "run.baseline=static"])
    with pytest.raises(ValueError, match=r"the config sets both run\.sampler='uniform' and run\.baseline"):
        from_dict({"run": {"sampler": "uniform", "baseline": "learnability"}})
    old = tmp_path / "old.yaml"
    old.write_text("run:\n  baseline: learnability\n")
    assert load_config(old, ["run.sampler=uniform"]).run.sampler == "uniform"  # an override wins over a file
    assert "baseline" not in TrainConfig().to_dict()["run"]


def test_a_sampler_added_to_the_table_runs_in_a_simulator_env(fixed_level: SamplerEntry) -> None:
    env = gym.make("GenEnv-Sim-Digits-v0", simulator="fixed-level", simulator_kwargs={"level": 4})
    for seed in range(3):
        _, info = env.reset(seed=seed)
        assert info["level"] == 4
    env.close()


def test_a_sampler_added_to_the_table_trains_from_the_config(
    fixed_level: SamplerEntry, tmp_path: Path
) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from tiny_runs import QUIET, TINY_RUN

    from genenv_gym.train.loop import Trainer

    for key in ("run.sampler", "run.baseline"):
        overrides = [*TINY_RUN, *QUIET, f"{key}=fixed-level", "sampler.frontier_level=3", "run.epochs=1"]
        cfg = load_config(
            "configs/efficacy_v4.yaml", [*overrides, "run.eval_every=0", f"run.out_dir={tmp_path}"]
        )
        assert cfg.run.sampler == "fixed-level"
    trainer = Trainer(cfg)
    assert isinstance(trainer.sampler, FixedLevelSampler)
    row = trainer.run()[-1]
    assert row["task_level"] == 3.0 and row["train_level_counts"][3] == cfg.agent.tasks_per_epoch
    assert row["sim_updated"] is None
