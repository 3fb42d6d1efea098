"""TravelPlanner: its env ids, domains, data source, extra and paper column (read by the central modules)."""

from __future__ import annotations

from genenv_gym.envs.simulator_env_params import simulator_env_params
from genenv_gym.registry.client_params import (
    Choice,
    Choices,
    ClientParams,
    Integer,
    TaskBound,
    benchmark_options,
)
from genenv_gym.registry.data_source import GitHubFiles, Source, Urls
from genenv_gym.registry.env_entry import EnvEntry
from genenv_gym.registry.manifest import DomainSpec, Evaluator, Manifest, PaperColumn

#: What makes a client's task costly to check, bounded (``options.task``; docs/serving.md).
TASK_BOUNDS = (
    TaskBound("days", ("evaluation", "query", "days"), 30),
    TaskBound("dates", ("evaluation", "query", "date"), 30),
    TaskBound("cities to visit", ("evaluation", "query", "visiting_city_number"), 10),
    TaskBound("gold plan days", ("evaluation", "gold_plan"), 30),
)
TASK_OPTIONS = benchmark_options(*TASK_BOUNDS)

#: What a client of ``genenv serve`` may set (genenv_gym.registry.client_params): a split by its name, never
#: a path.
SPLITS = ("train", "validation", "test")
_GRADING = {"reward_mode": Choice(("dense", "final_pass")), "scoring": Choice(("official", "corrected"))}
_BENCHMARK = {"levels": Choices(("easy", "medium", "hard")), "split": Choice(SPLITS), **_GRADING}
CLIENT = ClientParams(kwargs=_BENCHMARK, options=TASK_OPTIONS)
TOOLS_CLIENT = ClientParams(kwargs={**_BENCHMARK, "max_steps": Integer(1, 100)}, options=TASK_OPTIONS)

ENTRIES: tuple[EnvEntry, ...] = (
    EnvEntry(
        "GenEnv-TravelPlanner-v0",
        "genenv_gym.envs.travelplanner.env:TravelPlannerEnv",
        "TravelPlanner sole planning (train: 45 queries with reference information), official evaluator: "
        "final pass; delivery, commonsense and hard micro/macro rates",
        client=CLIENT,
    ),
    EnvEntry(
        "GenEnv-TravelPlanner-Tools-v0",
        "genenv_gym.envs.travelplanner.tools_env:TravelPlannerToolsEnv",
        "TravelPlanner two-stage tool use: the official tools (FlightSearch ... NotebookWrite) over the "
        "database, then the plan; 30 steps, official evaluator",
        client=TOOLS_CLIENT,
    ),
    EnvEntry(
        "GenEnv-Sim-TravelPlanner-v0",
        "genenv_gym.envs.simulator_env:SimulatorEnv",
        "new travel queries over the sandbox database (days, cities, constraints, budget tightness), each "
        "proved feasible by our solver, at the agent's skill",
        {"domain": "travelplanner_sim"},
        client=simulator_env_params(_GRADING, task_bounds=TASK_BOUNDS),
    ),
)

SOURCE = Source(
    "travelplanner",
    "TravelPlanner (sandbox database, train queries and reference information)",
    (
        GitHubFiles(
            "OSU-NLP-Group/TravelPlanner",
            "3038ffd4aae5266cf5595c905f8bb4011cb39f86",
            ("database/",),
        ),
        GitHubFiles(
            "OSU-NLP-Group/TravelPlanner",
            "da7c1d41d51bf1d6e8592099bc109c9368b2dfe4",
            ("database/train_ref_info.jsonl", "postprocess/example_evaluation.jsonl"),
            strip=("postprocess/",),
        ),
        # The 45 train queries with annotated plans (the HF train split as JSON Lines, in the column
        # layout of the HF CSV): what GenEnv-TravelPlanner-v0 plays.
        Urls(
            (
                (
                    "https://raw.githubusercontent.com/JerryPlain/SwarmAgenticCode/"
                    "7179c61dbae002b41f6d19f3acd438999083ee2d/travelplanner/swarm/data/train_45.jsonl",
                    "train.jsonl",
                ),
            )
        ),
    ),
    "MIT (code, database); CC-BY-4.0 (queries)",
    {
        "database/accommodations/clean_accommodations_2022.csv": None,
        "database/attractions/attractions.csv": None,
        "database/restaurants/clean_restaurant_2022.csv": None,
        "database/googleDistanceMatrix/distance.csv": None,
        "database/background/citySet_with_states.txt": None,
        "database/train_ref_info.jsonl": 45,
        "train.jsonl": 45,
    },
    notes="database from the official repository; the 45 train queries from a JSON Lines copy of the HF "
    "train split; the flights table and the other query splits are not in the repository "
    "(the full database zip and the osunlp/TravelPlanner dataset on the Hugging Face hub are manual "
    "downloads: see README)",
    label="TravelPlanner",
)

#: What judges its episodes (its records pin it): the official evaluation scripts at the commit the database
#: comes from.
EVALUATOR = Evaluator(
    "TravelPlanner",
    "3038ffd4aae5266cf5595c905f8bb4011cb39f86",
    (
        "genenv_gym.envs.travelplanner.domain",
        "genenv_gym.envs.travelplanner.evaluate",
        "genenv_gym.envs.travelplanner.commonsense",
        "genenv_gym.envs.travelplanner.hard",
        "genenv_gym.envs.travelplanner.plan_parsing",
        "genenv_gym.envs.travelplanner.database",
        "genenv_gym.envs.travelplanner.tools_domain",
        "genenv_gym.envs.travelplanner.tools_episode",
        "genenv_gym.envs.travelplanner.tools",
        "genenv_gym.envs.travelplanner.action",
        "genenv_gym.envs.travelplanner.sandbox",
    ),
)

MANIFEST = Manifest(
    package="travelplanner",
    order=6,
    evaluator=EVALUATOR,
    entries=ENTRIES,
    domains=(
        DomainSpec("travelplanner", "genenv_gym.envs.travelplanner.domain:TravelPlannerDomain"),
        DomainSpec(
            "travelplanner_tools",
            "genenv_gym.envs.travelplanner.tools_domain:TravelPlannerToolsDomain",
            call_format="genenv_gym.envs.travelplanner.call_format:TRAVEL_CALLS",
            tools="genenv_gym.envs.travelplanner.call_format:TRAVEL_TOOLS",
        ),
        DomainSpec(
            "travelplanner_sim",
            "genenv_gym.envs.travelplanner.sim_domain:TravelPlannerSimDomain",
            task_writer="genenv_gym.envs.travelplanner.task_writer:TravelPlannerTaskWriter",
        ),
    ),
    source=SOURCE,
    paper_columns=(
        PaperColumn(
            "TravelPlanner",
            4,
            "GenEnv-TravelPlanner-v0",
            "paper_mean",
            "sole planning, mean of CS micro/macro and HD micro/macro pass rates",
        ),
    ),
)
