"""Benchmark manifests: everything the central modules know about a benchmark, declared in its own package.

Each package under ``genenv_gym/envs/`` that has a ``manifest.py`` module defining ``MANIFEST`` is a
benchmark: its env ids, its domains (and per domain: the LLM task writer, how native tool calls become an
action, the classic-RL candidate actions), where its data comes from, the pip extra it needs and the
columns it fills in the paper's Table 1. Registration, ``genenv data``, the missing-extra messages, the LLM
agent, the candidate-action wrapper, the LLM simulator's writer lookup and the paper table read manifests
and name no benchmark themselves: a new benchmark is one new package with a ``manifest.py``.

Importing a manifest is cheap (dataclasses and strings: entry points are ``"module:Name"`` strings,
imported only when used).
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from genenv_gym.registry.data_source import Source
from genenv_gym.registry.env_entry import EnvEntry

#: Where benchmark packages live: ``genenv_gym/envs/<package>/manifest.py``.
ENVS_DIR = Path(__file__).resolve().parents[1] / "envs"


@dataclass(frozen=True)
class DomainSpec:
    """One domain of a benchmark package, as the central modules use it.

    Attributes:
        name: the domain's name (``Domain.name``; what ``make_domain`` and simulator envs take).
        domain: ``"module:Class"`` of the Domain.
        task_writer: ``"module:Class"`` of its LLM ``TaskWriter`` (None: an LLM cannot write its tasks).
        call_format: ``"module:NAME"`` of a ``CallFormat``: how native tool calls become the domain's
            action text and back (None: actions are plain text, native calls are passed on as a JSON list).
        candidate_source: ``"module:Class"`` of the ``CandidateSource`` that ``CandidateActions`` uses by
            default (None: the generic choice).
        num_candidates: ``CandidateActions``' default number of candidates K (None: the generic default).
        tools: ``"module:NAME"`` of the tool specs (``Task.tools``' format) its episodes offer a tool-calling
            client when a task holds none (genenv_gym/agents/episode_tools.py; None: only ``act``).
    """

    name: str
    domain: str
    task_writer: str | None = None
    call_format: str | None = None
    candidate_source: str | None = None
    num_candidates: int | None = None
    tools: str | None = None


@dataclass(frozen=True)
class Extra:
    """A pip extra of genenv-gym and the top-level modules it provides."""

    name: str
    modules: tuple[str, ...]


@dataclass(frozen=True)
class Evaluator:
    """What judges a benchmark's episodes, as a run's records pin it (``genenv_gym.evaluation.pins``).

    Attributes:
        name: the official evaluator this checker mirrors (``bfcl-eval``), or our own checker's name.
        version: the official package's version (or the commit of the official code), or our checker's own
            version where no official one is mirrored; raise it when a verdict may change.
        modules: the modules whose code decides a verdict; their source is hashed into the pin, so an
            edited checker is noticed even when nobody raised ``version``.
    """

    name: str
    version: str
    modules: tuple[str, ...]


@dataclass(frozen=True)
class PaperColumn:
    """One benchmark column of the GenEnv paper's Table 1.

    Attributes:
        name: the column's title in the paper.
        position: its index among the paper's columns (the published rows are in this order).
        env_id: the env id that runs the paper's protocol for it.
        metric: ``overall`` (the share of tasks passed) or a key of the ``EvalReport``'s summary.
        protocol: one line on what is measured.
    """

    name: str
    position: int
    env_id: str
    metric: str
    protocol: str


@dataclass(frozen=True)
class Manifest:
    """One benchmark package's facts.

    Attributes:
        package: the folder under ``genenv_gym/envs/``.
        order: where its ids come in ``genenv list`` (lower first).
        entries: its registered env ids.
        domains: its domains.
        source: where its data comes from and what a complete copy holds (None: it reads no data files).
        extra: the pip extra its envs need beyond the core (None: none).
        paper_columns: the columns of the paper's Table 1 that its envs measure.
        evaluator: what judges its episodes (None: nothing pins its verdicts).
    """

    package: str
    order: int
    entries: tuple[EnvEntry, ...]
    domains: tuple[DomainSpec, ...]
    source: Source | None = None
    extra: Extra | None = None
    paper_columns: tuple[PaperColumn, ...] = ()
    evaluator: Evaluator | None = None


@cache
def all_manifests() -> tuple[Manifest, ...]:
    """Every benchmark package's manifest, in listing order."""
    manifests = []
    for path in sorted(ENVS_DIR.glob("*/manifest.py")):
        module = importlib.import_module(f"genenv_gym.envs.{path.parent.name}.manifest")
        manifest = getattr(module, "MANIFEST", None)
        if not isinstance(manifest, Manifest):
            raise TypeError(f"{module.__name__} must define MANIFEST = Manifest(...)")
        manifests.append(manifest)
    return tuple(sorted(manifests, key=lambda m: (m.order, m.package)))


@cache
def domain_specs() -> dict[str, DomainSpec]:
    """Domain name -> its spec, over every manifest."""
    specs: dict[str, DomainSpec] = {}
    for manifest in all_manifests():
        for spec in manifest.domains:
            if spec.name in specs:
                raise ValueError(f"domain {spec.name!r} is declared by two manifests")
            specs[spec.name] = spec
    return specs


def domain_spec(name: str) -> DomainSpec | None:
    """The spec of the domain called ``name`` (None for a domain no manifest declares)."""
    return domain_specs().get(name)


def load(reference: str) -> Any:
    """The object a ``"module:Name"`` reference names, importing its module now."""
    module, _, attribute = reference.partition(":")
    return getattr(importlib.import_module(module), attribute)


def benchmark_names(manifests: Sequence[Manifest] | None = None) -> list[str]:
    """The names of the benchmarks whose data can be fetched (their data folders), in listing order."""
    return [m.source.name for m in manifests or all_manifests() if m.source is not None]
