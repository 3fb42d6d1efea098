"""The registry of env ids and domains. Entry points are strings, so registering imports nothing heavy."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from gymnasium.envs.registration import register, registry

from genenv_gym.env_entry import EnvEntry
from genenv_gym.envs.alfworld.task_types import TASK_TYPES
from genenv_gym.envs.bfcl.categories import AST_CATEGORIES, RECORD_COUNTS, env_suffix
from genenv_gym.envs.digits.domain import DigitsDomain

#: Domain packages under ``genenv_gym/envs/`` that declare their ids and domains in an ``ids.py`` module
#: (``ENV_ENTRIES: list[EnvEntry]``, ``DOMAINS: dict[str, str]``): a new domain only adds that file.
ID_PACKAGES: tuple[str, ...] = tuple(
    sorted(path.parent.name for path in Path(__file__).with_name("envs").glob("*/ids.py"))
)

#: Domain name -> "module:Class" of its Domain.
DOMAINS: dict[str, str] = {
    "bfcl": "genenv_gym.envs.bfcl.domain:BFCLDomain",
    "digits": "genenv_gym.envs.digits.domain:DigitsDomain",
    "digits-wide": "genenv_gym.envs.digits.domain:digits_wide",
    "digits-lengths": "genenv_gym.envs.digits.domain:digits_lengths",
    "alfworld": "genenv_gym.envs.alfworld.domain:ALFWorldDomain",
    "alfworld_step": "genenv_gym.envs.alfworld.step_domain:ALFWorldStepDomain",
}


def _bfcl_entries() -> list[EnvEntry]:
    entry = "genenv_gym.envs.bfcl.env:BFCLEnv"
    entries = [
        EnvEntry(
            "GenEnv-BFCL-v0",
            entry,
            f"BFCL v4, all {len(AST_CATEGORIES)} single-turn AST categories "
            f"({sum(RECORD_COUNTS.values()):,} records), official AST metric",
        )
    ]
    entries += [
        EnvEntry(
            f"GenEnv-BFCL-{env_suffix(c)}-v0",
            entry,
            f"category `{c}` ({RECORD_COUNTS[c]:,})",
            {"categories": [c]},
        )
        for c in AST_CATEGORIES
    ]
    entries.append(
        EnvEntry(
            "GenEnv-Sim-BFCL-v0",
            "genenv_gym.envs.simulator_env:SimulatorEnv",
            "BFCL-style tasks generated at the agent's skill by the alpha-curriculum simulator",
            {"domain": "bfcl"},
        )
    )
    return entries


def _alfworld_entries() -> list[EnvEntry]:
    entry = "genenv_gym.envs.alfworld.env:ALFWorldEnv"
    entries = [
        EnvEntry(
            "GenEnv-ALFWorld-v0",
            entry,
            "ALFWorld on the real TextWorld engine: the 134 `valid_unseen` games, 50 steps, success rate",
        )
    ]
    entries += [
        EnvEntry(f"GenEnv-ALFWorld-{t.suffix}-v0", entry, f"task type `{t.name}`", {"task_types": [t.name]})
        for t in TASK_TYPES
    ]
    entries.append(
        EnvEntry(
            "GenEnv-ALFWorld-Step-v0",
            "genenv_gym.envs.alfworld.step_env:ALFWorldStepEnv",
            "the paper's protocol: predict the expert's next command at every state of its walkthrough "
            "(788 tasks), exact match",
        )
    )
    entries.append(
        EnvEntry(
            "GenEnv-Sim-ALFWorld-v0",
            "genenv_gym.envs.simulator_env:SimulatorEnv",
            "new goals over the real scenes, each checked solvable by the PDDL planner, at the agent's skill",
            {"domain": "alfworld", "batch_size": 1},
        )
    )
    return entries


def _digits_entries() -> list[EnvEntry]:
    return [
        EnvEntry(
            "GenEnv-Digits-v0",
            "genenv_gym.envs.digits.env:DigitsEnv",
            f"digit-string reversal, {DigitsDomain.num_levels} levels in half steps of length (1-8 digits), "
            "a fixed "
            "200-task held-out set: the trainer's CPU miniature",
        ),
        EnvEntry(
            "GenEnv-Sim-Digits-v0",
            "genenv_gym.envs.simulator_env:SimulatorEnv",
            "digit-reversal tasks generated at the agent's skill by the alpha-curriculum simulator",
            {"domain": "digits"},
        ),
    ]


def _package_ids() -> list[EnvEntry]:
    entries: list[EnvEntry] = []
    for package in ID_PACKAGES:
        module = importlib.import_module(f"genenv_gym.envs.{package}.ids")
        entries += module.ENV_ENTRIES
        DOMAINS.update(module.DOMAINS)
    return entries


ENV_ENTRIES: tuple[EnvEntry, ...] = tuple(
    _bfcl_entries() + _alfworld_entries() + _digits_entries() + _package_ids()
)


def register_envs() -> None:
    """Register every genenv-gym env id with Gymnasium (idempotent)."""
    for entry in ENV_ENTRIES:
        if entry.id not in registry:
            register(id=entry.id, entry_point=entry.entry_point, kwargs=dict(entry.kwargs))


def make_domain(name: str, **kwargs: Any):
    """Instantiate a Domain by name (``"bfcl"``), importing it only now."""
    if name not in DOMAINS:
        raise ValueError(f"unknown domain {name!r}; known domains: {sorted(DOMAINS)}")
    module, cls = DOMAINS[name].split(":")
    return getattr(importlib.import_module(module), cls)(**kwargs)
