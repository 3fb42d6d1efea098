"""The registered Bamboogle env ids and domains (string entry points only: importing this is cheap)."""

from __future__ import annotations

from genenv_gym.env_entry import EnvEntry

ENV_ENTRIES: list[EnvEntry] = [
    EnvEntry(
        "GenEnv-Bamboogle-v0",
        "genenv_gym.envs.bamboogle.env:BamboogleEnv",
        "Bamboogle (125 2-hop questions), Search-R1 loop (bm25 / http / closed-book), EM, cover-EM, F1",
    ),
]

DOMAINS: dict[str, str] = {
    "bamboogle": "genenv_gym.envs.bamboogle.domain:BamboogleDomain",
}
