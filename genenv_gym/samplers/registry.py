"""The sampler table: one entry per task sampler a training run can name (``run.sampler``), holding what it
does, where it comes from, how it is built and which settings it reads.

Every sampler spends the same agent samples per epoch; they differ only in which tasks the epoch trains on.
The trainer (``genenv_gym/train/loop.py``) builds the one ``run.sampler`` names with ``build_sampler``,
handing the samplers that need it a ``TrainerContext``; a simulator env (``SimulatorEnv(simulator=NAME)``)
builds the ``standalone`` ones, which need no trainer, with ``build_standalone``, so that every placement of
a curriculum (in process, a Ray actor, ``genenv serve``, verl's and TRL's live data) runs them behind the
same ``CurriculumService``, unchanged. Adding a sampler is its module here and one entry in ``SAMPLERS``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from genenv_gym.curriculum import CurriculumConfig
from genenv_gym.domain import Domain
from genenv_gym.samplers.fixed_pool import FixedPoolSampler
from genenv_gym.samplers.learnability import LearnabilitySampler, TaskLearnabilitySampler
from genenv_gym.samplers.oracle_frontier import Oracle, OracleFrontierSampler
from genenv_gym.samplers.rank_trimming import RankTrimSampler, Scorer
from genenv_gym.samplers.uniform import UniformSampler
from genenv_gym.simulator import ProceduralSimulator, Simulator
from genenv_gym.suggest import unknown_choice
from genenv_gym.task import Task


@dataclass(frozen=True)
class TrainerContext:
    """What the samplers that need a trainer get from it.

    ``env_policy``: the trainer's environment policy (procedural or an environment LLM); ``score``: plays
    tasks with the current agent and returns the successes (``rank_trimming.Scorer``); ``oracle``: the
    agent's exact held-out success per level (``oracle_frontier.Oracle``); ``base_tasks``: the trainer's
    base (warm-start) tasks as they are now; ``static_set(n)``: the trainer's fixed set of ``n`` tasks,
    written by its untrained environment policy on the first call, the same set (or a resumed run's) after.
    """

    env_policy: Simulator
    score: Scorer
    oracle: Oracle
    base_tasks: Callable[[], Sequence[Task]]
    static_set: Callable[[int], Sequence[Task]]


@dataclass(frozen=True)
class SamplerInputs:
    """What a factory builds its sampler from: the domain, the curriculum, the settings (constructor
    arguments by name) and, inside a trainer, the ``TrainerContext``."""

    name: str
    domain: Domain
    curriculum: CurriculumConfig
    settings: dict[str, Any]
    trainer: TrainerContext | None = None

    def need_trainer(self) -> TrainerContext:
        """The trainer's context; a ValueError when the sampler is built outside a trainer."""
        if self.trainer is None:
            raise ValueError(
                f"the {self.name} sampler needs a trainer (its agent, held-out set or environment policy): "
                f"name it as run.sampler in a training config; without a trainer one of {standalone_names()}"
            )
        return self.trainer


@dataclass(frozen=True)
class SamplerEntry:
    """One named sampler.

    ``summary`` (what it proposes), ``source`` (the paper or code it follows), ``learns`` (whether the
    trainer calls its ``update`` with each epoch's outcomes), ``factory`` (builds it from ``SamplerInputs``),
    ``settings`` (the constructor arguments it takes, each with the training-config key it is read from, or
    None for one no training config sets), ``standalone`` (buildable without a trainer: a simulator env can
    hold it), ``band_filter`` (the trainer's procedural environment policy keeps the paper's band filter;
    False: the soft rule), ``procedural_only`` (a rule of ``simulator.kind: procedural`` alone).
    """

    name: str
    summary: str
    source: str
    learns: bool
    factory: Callable[[SamplerInputs], Simulator]
    settings: Mapping[str, str | None] = field(default_factory=dict)
    standalone: bool = False
    band_filter: bool = True
    procedural_only: bool = False

    def read_settings(self, config: Any) -> dict[str, Any]:
        """This sampler's settings read from a training config (``section.key`` attributes of ``config``)."""
        values = {}
        for argument, key in self.settings.items():
            if key is not None:
                value = config
                for part in key.split("."):
                    value = getattr(value, part)
                values[argument] = value
        return values


# --- the factories ----------------------------------------------------------------------------------------
def _env_policy(inputs: SamplerInputs) -> Simulator:
    return inputs.need_trainer().env_policy


def _soft_alpha_rwr(inputs: SamplerInputs) -> Simulator:
    """In a trainer its environment policy (built with ``band_filter=False``); alone a procedural one."""
    if inputs.trainer is not None:
        return inputs.trainer.env_policy
    return ProceduralSimulator(inputs.domain, inputs.curriculum, band_filter=False, **inputs.settings)


def _static(inputs: SamplerInputs) -> Simulator:
    trainer, size = inputs.need_trainer(), inputs.settings["tasks"]
    trainer.static_set(size)  # written now, by the untrained environment policy
    return FixedPoolSampler(lambda: trainer.static_set(size))


def _base_only(inputs: SamplerInputs) -> Simulator:
    return FixedPoolSampler(inputs.need_trainer().base_tasks)


def _as_released(inputs: SamplerInputs) -> Simulator:
    return RankTrimSampler(inputs.domain, inputs.need_trainer().score, **inputs.settings)


def _oracle_frontier(inputs: SamplerInputs) -> Simulator:
    return OracleFrontierSampler(inputs.domain, inputs.need_trainer().oracle, **inputs.settings)


#: ``ProceduralSimulator``'s settings, with the keys of the training config's ``simulator`` section.
PROCEDURAL_SETTINGS: dict[str, str | None] = {
    "step_size": "simulator.step_size",
    "max_kl": "simulator.max_kl",
    "min_prob": "simulator.min_prob",
    "max_retries": None,
    "neighbour_prob": None,
}

SAMPLERS: dict[str, SamplerEntry] = {
    entry.name: entry
    for entry in (
        SamplerEntry(
            "alpha-curriculum",
            "the environment policy trained by the paper's RWR rule: per-level batches, the hard band filter "
            "|p - alpha| <= k_min, weights exp(lambda R_env), a KL-capped step and a floor per level",
            "GenEnv (arXiv 2512.19682), Eqs. 2-3 and Algorithm 1 (genenv_gym/simulator.py)",
            True,
            _env_policy,
        ),
        SamplerEntry(
            "soft-alpha-rwr",
            "the same RWR update without the band filter: every level's batch is a regression sample "
            "weighted by exp(lambda R_env), so an epoch with no batch in band still moves the policy",
            "this repository's ablation of the paper's rule (ProceduralSimulator(band_filter=False))",
            True,
            _soft_alpha_rwr,
            PROCEDURAL_SETTINGS,
            standalone=True,
            band_filter=False,
            procedural_only=True,
        ),
        SamplerEntry(
            "random-simulator",
            "the environment policy never updated (procedural: uniform over levels; llm: the untrained "
            "environment LLM asking for the skill tracker's frontier)",
            "GenEnv's random-simulator baseline",
            False,
            _env_policy,
        ),
        SamplerEntry(
            "uniform",
            "every task at a uniformly drawn level",
            "the no-curriculum baseline (genenv_gym/samplers/uniform.py)",
            False,
            lambda inputs: UniformSampler(inputs.domain),
            standalone=True,
        ),
        SamplerEntry(
            "static",
            "a fixed set written once by the untrained environment policy",
            "GenEnv's static-augmentation baseline (genenv_gym/samplers/fixed_pool.py)",
            False,
            _static,
            {"tasks": "simulator.static_tasks"},
        ),
        SamplerEntry(
            "base-only",
            "the base (warm-start) tasks",
            "GenEnv's base-data baseline (genenv_gym/samplers/fixed_pool.py)",
            False,
            _base_only,
        ),
        SamplerEntry(
            "learnability",
            "levels drawn in proportion to R_env of the running per-level success (no band filter, nothing "
            "learned), optionally mixed with a share of uniformly drawn levels (uniform_mix)",
            "the efficacy designs' positive control (genenv_gym/samplers/learnability.py)",
            False,
            lambda inputs: LearnabilitySampler(inputs.domain, inputs.curriculum, **inputs.settings),
            {"uniform_mix": "sampler.uniform_mix"},
            standalone=True,
        ),
        SamplerEntry(
            "learnability-task",
            "single tasks replayed in proportion to p (1 - p) of their own last success, a share drawn fresh",
            "SFL (Rutherford et al. 2024, arXiv 2408.15099), LILO (Foster et al. 2025, arXiv 2502.12272), "
            "online difficulty filtering (Bae et al. 2025, arXiv 2504.03380) "
            "(genenv_gym/samplers/learnability.py)",
            True,
            lambda inputs: TaskLearnabilitySampler(inputs.domain, **inputs.settings),
            {"explore": "sampler.task_explore"},
            standalone=True,
        ),
        SamplerEntry(
            "as-released",
            "the official release's rule: score every prompt of the training set with 4 samples, drop the "
            "easiest and hardest 10% by rank, write one similar task per remaining prompt",
            "github.com/Gen-Verse/GenEnv, genenv/trainer/genenv_trainer.py "
            "(genenv_gym/samplers/rank_trimming.py)",
            True,
            _as_released,
            {"pool_tasks": "sampler.pool_tasks", "samples": "sampler.score_samples", "trim": "sampler.trim"},
        ),
        SamplerEntry(
            "oracle-frontier",
            "every task at the lowest level whose exact held-out success is below a threshold (or at one "
            "fixed level): an oracle schedule for pilots",
            "this repository's pilot schedule (genenv_gym/samplers/oracle_frontier.py)",
            True,
            _oracle_frontier,
            {"threshold": "sampler.frontier_threshold", "level": "sampler.frontier_level"},
        ),
    )
}


def standalone_names() -> list[str]:
    """The samplers of the table that need no trainer."""
    return [name for name, entry in SAMPLERS.items() if entry.standalone]


#: The samplers built from a domain and the curriculum's settings alone (``build_standalone``).
STANDALONE = tuple(standalone_names())


def sampler_entry(name: str) -> SamplerEntry:
    """The table's entry ``name``; a ValueError naming the choices for an unknown one."""
    if name not in SAMPLERS:
        raise ValueError(unknown_choice("sampler", name, list(SAMPLERS)))
    return SAMPLERS[name]


def build_sampler(
    name: str,
    domain: Domain,
    curriculum: CurriculumConfig,
    settings: Mapping[str, Any] | None = None,
    trainer: TrainerContext | None = None,
) -> Simulator:
    """The sampler ``name`` on ``domain``, built by its entry's factory; ``settings`` are constructor
    arguments among the entry's ``settings``, ``trainer`` what the samplers that need a trainer read."""
    entry = sampler_entry(name)
    settings = dict(settings or {})
    unknown = sorted(set(settings) - set(entry.settings))
    if unknown:
        takes = f"its settings: {sorted(entry.settings)}" if entry.settings else "it takes none"
        raise ValueError(f"the {name} sampler takes no setting {unknown}; {takes}")
    return entry.factory(SamplerInputs(name, domain, curriculum, settings, trainer))


def build_standalone(name: str, domain: Domain, curriculum: CurriculumConfig, **settings: Any) -> Simulator:
    """The sampler ``name``, one that needs no trainer, on ``domain``; ``settings`` go to its constructor
    (``soft-alpha-rwr``: ``ProceduralSimulator``'s; ``learnability``: ``uniform_mix``; ``learnability-task``:
    ``explore``)."""
    if not sampler_entry(name).standalone:
        raise ValueError(
            f"{name!r} is not a standalone sampler (it needs a trainer); one of {standalone_names()}"
        )
    return build_sampler(name, domain, curriculum, settings)
