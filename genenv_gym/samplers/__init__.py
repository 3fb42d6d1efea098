"""The task samplers a training run can use (``run.baseline``): what each does and where it comes from.

Every sampler spends the same agent samples per epoch; they differ only in which tasks the epoch trains on.
``genenv_gym/train/loop.py`` builds the one ``run.baseline`` names (``Trainer.sampler``); the settings of
those that have any are in the config's ``simulator`` and ``sampler`` sections.

The ``STANDALONE`` ones need nothing of a trainer (no agent to score tasks with, no held-out set): a
simulator env holds them too (``SimulatorEnv(simulator=NAME)``), so that every placement of a curriculum
(in process, a Ray actor, ``genenv serve``, verl's and TRL's live data) runs them behind the same
``CurriculumService``, unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from genenv_gym.curriculum import CurriculumConfig
from genenv_gym.domain import Domain
from genenv_gym.simulator import Simulator


@dataclass(frozen=True)
class SamplerInfo:
    """One named sampler: ``summary`` (what it proposes), ``source`` (the paper or code it follows),
    ``learns`` (whether the trainer calls its ``update`` with each epoch's outcomes)."""

    name: str
    summary: str
    source: str
    learns: bool


SAMPLERS: dict[str, SamplerInfo] = {
    info.name: info
    for info in (
        SamplerInfo(
            "alpha-curriculum",
            "the environment policy trained by the paper's RWR rule: per-level batches, the hard band filter "
            "|p - alpha| <= k_min, weights exp(lambda R_env), a KL-capped step and a floor per level",
            "GenEnv (arXiv 2512.19682), Eqs. 2-3 and Algorithm 1 (genenv_gym/simulator.py)",
            True,
        ),
        SamplerInfo(
            "soft-alpha-rwr",
            "the same RWR update without the band filter: every level's batch is a regression sample "
            "weighted by exp(lambda R_env), so an epoch with no batch in band still moves the policy",
            "this repository's ablation of the paper's rule (ProceduralSimulator(band_filter=False))",
            True,
        ),
        SamplerInfo(
            "random-simulator",
            "the environment policy never updated (procedural: uniform over levels; llm: the untrained "
            "environment LLM asking for the skill tracker's frontier)",
            "GenEnv's random-simulator baseline",
            False,
        ),
        SamplerInfo(
            "uniform",
            "every task at a uniformly drawn level",
            "the no-curriculum baseline (genenv_gym/samplers/uniform.py)",
            False,
        ),
        SamplerInfo(
            "static",
            "a fixed set written once by the untrained environment policy",
            "GenEnv's static-augmentation baseline",
            False,
        ),
        SamplerInfo("base-only", "the base (warm-start) tasks", "GenEnv's base-data baseline", False),
        SamplerInfo(
            "learnability",
            "levels drawn in proportion to R_env of the running per-level success (no band filter, nothing "
            "learned)",
            "the positive control of the third efficacy design (genenv_gym/samplers/learnability.py)",
            False,
        ),
        SamplerInfo(
            "learnability-task",
            "single tasks replayed in proportion to p (1 - p) of their own last success, a share drawn fresh",
            "SFL (Rutherford et al. 2024, arXiv 2408.15099), LILO (Foster et al. 2025, arXiv 2502.12272), "
            "online difficulty filtering (Bae et al. 2025, arXiv 2504.03380) "
            "(genenv_gym/samplers/learnability.py)",
            True,
        ),
        SamplerInfo(
            "as-released",
            "the official release's rule: score every prompt of the training set with 4 samples, drop the "
            "easiest and hardest 10% by rank, write one similar task per remaining prompt",
            "github.com/Gen-Verse/GenEnv, genenv/trainer/genenv_trainer.py "
            "(genenv_gym/samplers/rank_trimming.py)",
            True,
        ),
        SamplerInfo(
            "oracle-frontier",
            "every task at the lowest level whose exact held-out success is below a threshold (or at one "
            "fixed level): an oracle schedule for pilots",
            "this repository's pilot schedule (genenv_gym/samplers/oracle_frontier.py)",
            True,
        ),
    )
}


#: The samplers built from a domain and the curriculum's settings alone (``build_standalone``).
STANDALONE = ("soft-alpha-rwr", "learnability", "learnability-task", "uniform")


def build_standalone(name: str, domain: Domain, curriculum: CurriculumConfig, **settings: Any) -> Simulator:
    """The ``STANDALONE`` sampler ``name`` on ``domain``; ``settings`` go to its constructor
    (``soft-alpha-rwr``: ``ProceduralSimulator``'s; ``learnability-task``: ``explore``)."""
    if name == "soft-alpha-rwr":
        from genenv_gym.simulator import ProceduralSimulator

        return ProceduralSimulator(domain, curriculum, band_filter=False, **settings)
    if settings and name != "learnability-task":
        raise ValueError(f"the {name} sampler takes no settings, got {sorted(settings)}")
    if name == "learnability":
        from genenv_gym.samplers.learnability import LearnabilitySampler

        return LearnabilitySampler(domain, curriculum)
    if name == "learnability-task":
        from genenv_gym.samplers.learnability import TaskLearnabilitySampler

        return TaskLearnabilitySampler(domain, **settings)
    if name == "uniform":
        from genenv_gym.samplers.uniform import UniformSampler

        return UniformSampler(domain)
    raise ValueError(f"{name!r} is not a standalone sampler; one of {list(STANDALONE)}")
