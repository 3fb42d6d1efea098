"""``GenEnv-Remote-v0``: registered beside the env table, not in it (it serves no tasks of its own)."""

from __future__ import annotations

from gymnasium.envs.registration import register, registry

from genenv_gym.env_entry import EnvEntry

#: Ids that are clients of env servers; ``genenv list`` prints them after the envs.
CLIENT_ENTRIES: tuple[EnvEntry, ...] = (
    EnvEntry(
        "GenEnv-Remote-v0",
        "genenv_gym.remote.env:RemoteEnv",
        "any served env id through `genenv serve` (url=..., env_id=..., its kwargs): WebSocket or HTTP, "
        "a pool of server urls",
    ),
)


def register_clients() -> None:
    """Register the client ids with Gymnasium (idempotent)."""
    for entry in CLIENT_ENTRIES:
        if entry.id not in registry:
            register(id=entry.id, entry_point=entry.entry_point, kwargs=dict(entry.kwargs))
