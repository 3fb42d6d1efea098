"""The registered TravelPlanner env id and domain (string entry points only: importing this is cheap)."""

from __future__ import annotations

from genenv_gym.env_entry import EnvEntry

ENV_ENTRIES: list[EnvEntry] = [
    EnvEntry(
        "GenEnv-TravelPlanner-v0",
        "genenv_gym.envs.travelplanner.env:TravelPlannerEnv",
        "TravelPlanner sole planning (train: 45 queries with reference information), official evaluator: "
        "final pass; delivery, commonsense and hard micro/macro rates",
    ),
]

DOMAINS: dict[str, str] = {
    "travelplanner": "genenv_gym.envs.travelplanner.domain:TravelPlannerDomain",
}
