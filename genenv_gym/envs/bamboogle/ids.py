"""The registered Bamboogle env ids and domains (string entry points only: importing this is cheap)."""

from __future__ import annotations

from genenv_gym.env_entry import EnvEntry

ENV_ENTRIES: list[EnvEntry] = [
    EnvEntry(
        "GenEnv-Bamboogle-v0",
        "genenv_gym.envs.bamboogle.env:BamboogleEnv",
        "Bamboogle (125 2-hop questions), Search-R1 loop (bm25 / http / closed-book), EM, cover-EM, F1",
    ),
    EnvEntry(
        "GenEnv-Sim-Bamboogle-v0",
        "genenv_gym.envs.simulator_env:SimulatorEnv",
        "generated 1-4 hop questions over a fictional world and its BM25 corpus, at the agent's skill",
        {"domain": "bamboogle_sim"},
    ),
]

DOMAINS: dict[str, str] = {
    "bamboogle": "genenv_gym.envs.bamboogle.domain:BamboogleDomain",
    "bamboogle_sim": "genenv_gym.envs.bamboogle.sim_domain:BamboogleSimDomain",
}
