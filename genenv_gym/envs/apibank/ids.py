"""The registered API-Bank env ids and domains (string entry points only: importing this is cheap)."""

from __future__ import annotations

from genenv_gym.env_entry import EnvEntry

_ENV = "genenv_gym.envs.apibank.env:APIBankEnv"

ENV_ENTRIES: list[EnvEntry] = [
    EnvEntry(
        "GenEnv-APIBank-v0",
        _ENV,
        "API-Bank level-1 (399 API-call samples, APIs described), 50 simulated APIs, official verdict",
        {"levels": ["level-1"]},
    ),
    EnvEntry(
        "GenEnv-APIBank-L2-v0",
        _ENV,
        "API-Bank level-2 (135 API-call samples, only ToolSearcher described: retrieve, then call)",
        {"levels": ["level-2"]},
    ),
    EnvEntry(
        "GenEnv-APIBank-Response-v0",
        "genenv_gym.envs.apibank.env:APIBankResponseEnv",
        "API-Bank response turns after an API result (375 + 103 samples), ROUGE-L F1 as officially",
    ),
    EnvEntry(
        "GenEnv-APIBank-Dialogue-v0",
        "genenv_gym.envs.apibank.env:APIBankDialogueEnv",
        "API-Bank whole dialogues (214 + 50): the agent plays the AI side, APIs answer live with state kept; "
        "success when every recorded API effect is reached",
    ),
    EnvEntry(
        "GenEnv-Sim-APIBank-v0",
        "genenv_gym.envs.simulator_env:SimulatorEnv",
        "new API-Bank dialogues over the simulated APIs (tokens, dependent calls, distractors, retrieval), "
        "each checked by executing its reference call, at the agent's skill",
        {"domain": "apibank", "domain_kwargs": {"scoring": "corrected"}},
    ),
]

DOMAINS: dict[str, str] = {
    "apibank": "genenv_gym.envs.apibank.domain:APIBankDomain",
    "apibank_response": "genenv_gym.envs.apibank.domain:APIBankResponseDomain",
    "apibank_dialogue": "genenv_gym.envs.apibank.domain:APIBankDialogueDomain",
}
