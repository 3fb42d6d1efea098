"""TravelPlanner's two-stage (tool-use) mode as a domain: the sole-planning domain's tasks and grading,
played through the official tool loop (``tools_episode.ToolEpisode``).

Tasks, categories, splits, the plan verdict, the reward modes, the info keys and ``summarize_metrics`` are
``TravelPlannerDomain``'s; only the observation (the ReAct prompt instead of the reference information)
and the episode differ. ``verify`` grades a whole transcript (a JSON list of the agent's replies);
``grade_plan`` grades one plan as ``GenEnv-TravelPlanner-v0`` does.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence

import numpy as np

from genenv_gym.domain import Verdict, oracle_transcript, replay_transcript
from genenv_gym.envs.travelplanner.domain import TravelPlannerDomain
from genenv_gym.envs.travelplanner.plan_parsing import before_parenthesis, parse_query
from genenv_gym.envs.travelplanner.tools import city_set, tools_for
from genenv_gym.envs.travelplanner.tools_episode import MAX_STEPS, ToolEpisode
from genenv_gym.envs.travelplanner.tools_prompt import render_react_prompt
from genenv_gym.task import Task, thaw


def oracle_script(query: Mapping, plan: list[Mapping] | None) -> list[str]:
    """The tool calls an expert makes before planning ``plan`` (official day dicts) for ``query``.

    ``CitySearch[state]`` when the trip visits several cities of a state; for each city the plan stays
    in, its attractions, restaurants and accommodations, each saved with NotebookWrite; for each travel
    day ("from A to B"; a "City(State)" name is searched as "City"), the search for the transportation
    the plan takes (FlightSearch on that day's date, or GoogleDistanceMatrix with ``self-driving`` /
    ``taxi``), saved too. At most 28 calls for the benchmark's 7-day trips, within the 30-step budget.
    Empty without a plan.
    """
    if not plan:
        return []
    parsed = parse_query(query)
    dates = [str(d) for d in (query.get("date") or [])]
    script = [f"CitySearch[{parsed['dest']}]"] if parsed["visiting_city_number"] > 1 else []
    cities: list[str] = []
    legs: list[str] = []
    for index, day in enumerate(plan):
        current = str(day.get("current_city", "-"))
        if not current.startswith("from ") or " to " not in current:
            continue
        origin, destination = (before_parenthesis(c) for c in current[len("from ") :].split(" to ", 1))
        if destination != parsed["org"] and destination not in cities:
            cities.append(destination)
        transport = str(day.get("transportation", "-"))
        date = dates[index] if index < len(dates) else ""
        if transport.startswith("Flight"):
            legs.append(f"FlightSearch[{origin}, {destination}, {date}]")
            legs.append(f"NotebookWrite[Flight from {origin} to {destination} on {date}]")
        elif transport.lower().startswith(("self-driving", "taxi")):
            mode = "taxi" if transport.lower().startswith("taxi") else "self-driving"
            label = "Taxi" if mode == "taxi" else "Self-driving"
            legs.append(f"GoogleDistanceMatrix[{origin}, {destination}, {mode}]")
            legs.append(f"NotebookWrite[{label} from {origin} to {destination}]")
    for city in cities:
        for tool, label in (
            ("AttractionSearch", "Attractions"),
            ("RestaurantSearch", "Restaurants"),
            ("AccommodationSearch", "Accommodations"),
        ):
            script += [f"{tool}[{city}]", f"NotebookWrite[{label} in {city}]"]
    return script + legs


class TravelPlannerToolsDomain(TravelPlannerDomain):
    """TravelPlanner's two-stage mode: collect information with the official tools, then plan.

    Same arguments, tasks, categories, grading and metrics as ``TravelPlannerDomain``, plus ``max_steps``
    (the official agent's 30 collecting steps).
    """

    name = "travelplanner_tools"

    def __init__(
        self,
        split: str = "train",
        reward_mode: str = "dense",
        scoring: str = "official",
        max_steps: int = MAX_STEPS,
    ) -> None:
        if max_steps < 1:
            raise ValueError(f"max_steps must be at least 1, got {max_steps}")
        super().__init__(split, reward_mode, scoring)
        self.max_steps = max_steps
        self._city_set: list[str] | None = None

    def _task(self, row: Mapping, index: int, reference: object) -> Task:
        task = super()._task(row, index, reference)
        prompt = render_react_prompt(str(task.evaluation["query"].get("query", "")))
        return dataclasses.replace(task, messages=({"role": "user", "content": prompt},))

    def load_tasks(self, categories: Sequence[str] | None = None, data_dir: str | None = None) -> list[Task]:
        tasks = super().load_tasks(categories, data_dir)
        self._city_set = None
        return tasks

    def cities(self) -> list[str]:
        """The cities the tools accept (``tools.city_set`` of the loaded data dir)."""
        if self._city_set is None:
            self._city_set = city_set(self.database(), self._data_dir)
        return self._city_set

    def grade_plan(self, task: Task, plan: str) -> Verdict:
        """A plan graded as ``GenEnv-TravelPlanner-v0`` grades it (reward mode and scoring included)."""
        return super().verify(task, plan)

    def verify(self, task: Task, action: str) -> Verdict:
        """A whole transcript (JSON list of the agent's replies) played through a fresh episode."""
        unfinished = self.grade_plan(task, "")
        unfinished = dataclasses.replace(unfinished, error="the transcript ended before a plan was submitted")
        return replay_transcript(self.start_episode(task), action, unfinished)

    def oracle_script(self, task: Task) -> list[str]:
        """The oracle's tool calls for ``task``: ``oracle_script`` of its annotated plan."""
        gold = task.evaluation.get("gold_plan")
        return oracle_script(thaw(task.evaluation["query"]), thaw(gold) if gold else None)

    def oracle_plan(self, task: Task) -> str:
        """The annotated plan in the prompt's text format (empty without one)."""
        return super().oracle_action(task)

    def random_plan(self, task: Task, rng: np.random.Generator) -> str:
        """The sole-planning random baseline's plan."""
        return super().random_action(task, rng)

    def oracle_action(self, task: Task) -> str:
        return oracle_transcript(self.start_episode(task))

    def random_action(self, task: Task, rng: np.random.Generator) -> str:
        episode = self.start_episode(task)
        actions = []
        while not episode.done:
            actions.append(episode.random_action(rng))
            episode.step(actions[-1])
        return json.dumps(actions)

    def start_episode(self, task: Task) -> ToolEpisode:
        return ToolEpisode(self, task, tools_for(self.database()), self.cities(), self.max_steps)
