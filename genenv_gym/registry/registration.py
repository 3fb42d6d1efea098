"""The registry of env ids and domains, read from the benchmark manifests (``genenv_gym.registry.manifest``).

Entry points are strings, so registering imports nothing heavy.
"""

from __future__ import annotations

from typing import Any

from gymnasium.envs.registration import register, registry

from genenv_gym.registry.env_entry import EnvEntry
from genenv_gym.registry.manifest import all_manifests, domain_specs, load

#: Every env id of every benchmark package, in listing order.
ENV_ENTRIES: tuple[EnvEntry, ...] = tuple(entry for m in all_manifests() for entry in m.entries)

#: Ids that are clients of env servers rather than envs with tasks of their own (``genenv list`` prints
#: them after the envs; the registry-wide env tests, which build every id on offline data, leave them out).
CLIENT_ENTRIES: tuple[EnvEntry, ...] = (
    EnvEntry(
        "GenEnv-Remote-v0",
        "genenv_gym.remote.env:RemoteEnv",
        "any served env id through `genenv serve` (url=..., env_id=..., its kwargs): WebSocket or HTTP, "
        "a pool of server urls",
    ),
)

#: Domain name -> "module:Class" of its Domain.
DOMAINS: dict[str, str] = {name: spec.domain for name, spec in domain_specs().items()}


def register_envs() -> None:
    """Register every genenv-gym env id and client id with Gymnasium (idempotent)."""
    for entry in (*ENV_ENTRIES, *CLIENT_ENTRIES):
        if entry.id not in registry:
            register(id=entry.id, entry_point=entry.entry_point, kwargs=dict(entry.kwargs))


def is_simulator_id(env_id: str) -> bool:
    """Whether ``env_id`` is registered as a simulator env (``GenEnv-Sim-*``: its tasks are generated);
    False for an id that is not registered."""
    spec = registry.get(env_id)
    return spec is not None and str(spec.entry_point).endswith(":SimulatorEnv")


def make_domain(name: str, **kwargs: Any):
    """Instantiate a Domain by its name (``Domain.name``), importing it only now."""
    if name not in DOMAINS:
        raise ValueError(f"unknown domain {name!r}; known domains: {sorted(DOMAINS)}")
    return load(DOMAINS[name])(**kwargs)
