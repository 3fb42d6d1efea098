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
    EnvEntry(
        "GenEnv-TravelPlanner-Tools-v0",
        "genenv_gym.envs.travelplanner.tools_env:TravelPlannerToolsEnv",
        "TravelPlanner two-stage tool use: the official tools (FlightSearch ... NotebookWrite) over the "
        "database, then the plan; 30 steps, official evaluator",
    ),
    EnvEntry(
        "GenEnv-Sim-TravelPlanner-v0",
        "genenv_gym.envs.simulator_env:SimulatorEnv",
        "new travel queries over the sandbox database (days, cities, constraints, budget tightness), each "
        "proved feasible by our solver, at the agent's skill",
        {"domain": "travelplanner_sim"},
    ),
]

DOMAINS: dict[str, str] = {
    "travelplanner": "genenv_gym.envs.travelplanner.domain:TravelPlannerDomain",
    "travelplanner_tools": "genenv_gym.envs.travelplanner.tools_domain:TravelPlannerToolsDomain",
    "travelplanner_sim": "genenv_gym.envs.travelplanner.sim_domain:TravelPlannerSimDomain",
}
