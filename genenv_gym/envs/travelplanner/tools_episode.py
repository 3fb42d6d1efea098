"""The official two-stage TravelPlanner loop (``agents/tool_agents.py``) as a multi-turn Episode.

Collecting steps: the agent's reply is a ``Thought`` and an ``Action`` (``ToolName[arguments]``, parsed
with the official pattern ``^(\\w+)\\[(.+)\\]$``); the env runs the tool on the database and answers with
the official text, and keeps the scratchpad (``Thought n: / Action n: / Observation n:``) and the
Notebook as the official agent does: a new search or NotebookWrite masks the previous result in the
scratchpad, NotebookWrite stores the last search result, bad arguments and unknown actions get the
official error observations. The episode stops, with no plan, where the official agent stops: after
``max_steps`` (30) collecting steps (truncated), after the same action three times in a row, or on an
action whose tool (or, for unknown actions, the invalid-action counter) has already failed three times
since the last success (terminated).

Planning: ``Planner[query]`` ends collecting. The official Planner is a second LLM call that writes the
plan from the Notebook; here the agent is that LLM: the next observation is the sole-planning prompt
(``prompt.render_prompt``) with the Notebook (``str(Notebook.list_all())`` as the official planner gets
it) as the given information and the Planner's argument as the query, and the agent's next reply is the
plan, graded exactly as ``GenEnv-TravelPlanner-v0`` grades it (``TravelPlannerDomain.verify``). That
reply is not a collecting step, so Planner may be called on step 30.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from genenv_gym.domain import Episode, StepResult, Verdict
from genenv_gym.envs.travelplanner.prompt import render_prompt
from genenv_gym.envs.travelplanner.tools import Table, ToolData, TravelTools, data_text
from genenv_gym.envs.travelplanner.tools_prompt import render_react_prompt
from genenv_gym.task import Task, thaw

if TYPE_CHECKING:
    from genenv_gym.envs.travelplanner.tools_domain import TravelPlannerToolsDomain

#: The official agent's step budget (``ReactAgent(max_steps=30)``).
MAX_STEPS = 30
#: Failures of one tool (since the last success) the official agent tolerates before it stops.
MAX_RETRIES = 3
#: The official agent stops when the same action is given this many times in a row.
REPEAT_LIMIT = 3
MASK = "Masked due to limited length. Make sure the data has been written in Notebook."
INVALID_ACTION = (
    "Invalid Action. Valid Actions are  FlightSearch[Departure City, Destination City, Date] / "
    "AccommodationSearch[City] /  RestaurantSearch[City] / NotebookWrite[Short Description] / "
    "AttractionSearch[City] / CitySearch[State] / GoogleDistanceMatrix[Origin, Destination, Mode] and "
    "Planner[Query]."
)
NULL_ACTION = (
    "Your action is filtered due to content. Please make sure your action does not start with "
    "['\\n', 'Thought', 'Action', 'Observation'] and assume all the actions are permitted in this "
    "environment and take the action again."
)
NULL_OBSERVATION = (
    "No feedback from the environment due to the null action. Please make sure your action does not "
    "start with [Thought, Action, Observation]."
)
ILLEGAL = {
    "FlightSearch": "Illegal Flight Search. Please try again.",
    "GoogleDistanceMatrix": "Illegal GoogleDistanceMatrix. Please try again.",
}
#: The official retry counter checked before each action (``actionMapping``); AccommodationSearch maps to
#: ``accommodation``, which has no counter, so the official code checks the invalid-action one (kept).
CHECKED_COUNTER = {
    "FlightSearch": "flights", "AttractionSearch": "attractions",
    "GoogleDistanceMatrix": "googleDistanceMatrix", "AccommodationSearch": "invalidAction",
    "RestaurantSearch": "restaurants", "NotebookWrite": "notebook", "CitySearch": "cities",
}  # fmt: skip
COUNTERS = (
    "notebook", "flights", "attractions", "accommodations", "restaurants", "googleDistanceMatrix",
    "planner", "cities", "invalidAction",
)  # fmt: skip
_ACTION_LINE = re.compile(r"^[ \t]*Action[ \t]*(?:\d+[ \t]*)?:(.*)$", re.MULTILINE)
_THOUGHT_PREFIX = re.compile(r"^\s*Thought[ \t]*(?:\d+[ \t]*)?:")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def split_reply(reply: str) -> tuple[str, str]:
    """A reply as (thought, action): the action is what follows ``Action:`` (or ``Action n:``) on the
    first such line, else the whole reply; the thought is the text before that line without its
    ``Thought:`` label. Both are flattened as the official ``format_step`` does (newlines removed)."""
    match = _ACTION_LINE.search(reply)
    if match is None:
        return "", format_step(reply)
    thought = _THOUGHT_PREFIX.sub("", reply[: match.start()], count=1)
    return format_step(thought), format_step(match.group(1))


def format_step(text: str) -> str:
    """The official ``format_step``: strip, then drop every newline."""
    return text.strip("\n").strip().replace("\n", "")


def parse_action(action: str) -> tuple[str | None, str | None]:
    """``ToolName[arguments]`` as (name, arguments) by the official pattern, else (None, None)."""
    match = re.fullmatch(r"(\w+)\[(.+)\]", action)
    return (match.group(1), match.group(2)) if match else (None, None)


class ToolEpisode(Episode):
    """One query played through the official tool loop, then planned from the Notebook."""

    def __init__(
        self,
        domain: TravelPlannerToolsDomain,
        task: Task,
        tools: TravelTools,
        city_set: Sequence[str],
        max_steps: int = MAX_STEPS,
    ) -> None:
        self.domain = domain
        self.tools = tools
        self.city_set = list(city_set)
        self._cities = frozenset(city_set)
        self.max_steps = max_steps
        self.query = str(task.evaluation["query"].get("query", ""))
        self.scratchpad = ""
        self.step_n = 1
        self.notebook: list[tuple[str, ToolData]] = []
        self.current: ToolData = None
        self.retries = dict.fromkeys(COUNTERS, 0)
        self.last_actions: list[str] = []
        self.planning = False
        super().__init__(task, render_react_prompt(self.query))

    # ----- the collecting steps -----

    def step(self, action: str) -> StepResult:
        if self.planning:
            return self._grade(action)
        error_type = None
        if isinstance(action, str):
            thought, act = split_reply(action)
        else:
            thought, act, error_type = "", "", "action_error:not_text"
        return self._collect(thought, act, error_type)

    def invalid_action(self, error_type: str, error: str) -> StepResult:
        """An over-long reply: while collecting, a null action (one step); while planning, no plan."""
        if self.planning:
            return self._finish(self.domain.grade_plan(self.task, ""), "plan_refused", error_type, error)
        return self._collect("", "", error_type)

    def _collect(self, thought: str, act: str, error_type: str | None) -> StepResult:
        n = self.step_n
        self.scratchpad += f"\nThought {n}: {thought}\nAction {n}: {act or NULL_ACTION}"
        if self.last_actions and self.last_actions[-1] != act:
            self.last_actions.clear()
        self.last_actions.append(act)
        if len(self.last_actions) == REPEAT_LIMIT:
            return self._stop("repeated_action", f"the same action was given {REPEAT_LIMIT} times in a row")
        self.scratchpad += f"\nObservation {n}: "
        name, argument = parse_action(act) if act else (None, None)
        if act and name != "Planner":
            counter = CHECKED_COUNTER.get(name or "", "invalidAction")
            if self.retries[counter] + 1 > MAX_RETRIES:
                return self._stop(
                    "max_retries", f"{counter} failed {MAX_RETRIES} times in a row (the official early stop)"
                )
        if not act:
            observation, error_type = NULL_OBSERVATION, error_type or "null_action"
        else:
            observation, error_type = self._run(name, argument)
        self.scratchpad += observation
        self.step_n += 1
        info: dict[str, Any] = {
            "success": False,
            "error_type": error_type,
            "step": n,
            "action_type": name,
            "notebook_entries": len(self.notebook),
        }
        if error_type is not None:
            info["error"] = observation
        if name == "Planner":
            self.planning = True
            return self._next_prompt(render_prompt(str(self.notebook_list()), str(argument)), info)
        if self.step_n > self.max_steps:
            return self._stop("step_budget", f"{self.max_steps} steps passed without Planner[...]")
        return self._next_prompt(render_react_prompt(self.query, self.scratchpad), info)

    def _next_prompt(self, prompt: str, info: dict[str, Any]) -> StepResult:
        """A non-final step: the official loop asks its LLM afresh with ``prompt`` (old results masked)."""
        info["messages"] = [{"role": "user", "content": prompt}]
        return StepResult(prompt, 0.0, False, False, info)

    def _mask(self) -> None:
        shown = data_text(self.current).strip()
        if shown:
            self.scratchpad = self.scratchpad.replace(shown, MASK)

    def _valid_city(self, city: str) -> str | None:
        return None if city in self._cities else f"{city} is not valid city in {self.city_set}."

    def _run(self, name: str | None, argument: str | None) -> tuple[str, str | None]:
        """Run one parsed action; (observation, error type or None)."""
        arg = str(argument)
        if name == "FlightSearch":
            parts = arg.split(", ")
            if len(parts) < 3:
                return self._failed("flights", ILLEGAL[name])
            if not _DATE.match(parts[2]):
                return self._failed("flights", f"'{parts[2]}' is not in the format YYYY-MM-DD")
            error = self._valid_city(parts[0]) or self._valid_city(parts[1])
            if error:
                return self._failed("flights", error)
            self._mask()
            self.current = self.tools.flights(parts[0], parts[1], parts[2])
            return self._succeeded(data_text(self.current))
        if name in ("AttractionSearch", "AccommodationSearch", "RestaurantSearch"):
            search, counter = {
                "AttractionSearch": (self.tools.attractions, "attractions"),
                "AccommodationSearch": (self.tools.accommodations, "accommodations"),
                "RestaurantSearch": (self.tools.restaurants, "restaurants"),
            }[name]
            error = self._valid_city(arg)
            if error:
                return self._failed(counter, error)
            self._mask()
            self.current = search(arg)
            return self._succeeded(data_text(self.current).strip())
        if name == "CitySearch":
            self._mask()
            return self._succeeded(data_text(self.tools.cities(arg)).strip())
        if name == "GoogleDistanceMatrix":
            self._mask()
            parts = arg.split(", ")
            try:
                if len(parts) < 3:
                    raise ValueError("fewer than three arguments")
                self.current = self.tools.distance(parts[0], parts[1], parts[2])
            except ValueError:
                return self._failed("googleDistanceMatrix", ILLEGAL[name])
            return self._succeeded(data_text(self.current))
        if name == "NotebookWrite":
            self._mask()
            self.notebook.append((arg, self.current))
            return self._succeeded(
                f"The information has been recorded in Notebook, and its index is {len(self.notebook) - 1}."
            )
        if name == "Planner":
            return self._succeeded("")
        self.retries["invalidAction"] += 1
        return INVALID_ACTION, "invalid_action"

    def _failed(self, counter: str, observation: str) -> tuple[str, str]:
        self.retries[counter] += 1
        return observation, f"tool_error:{counter}"

    def _succeeded(self, observation: str) -> tuple[str, None]:
        self.retries = dict.fromkeys(COUNTERS, 0)
        return observation, None

    def notebook_list(self) -> list[dict[str, Any]]:
        """The official ``Notebook.list_all()``: index, short description and content (tables as text)."""
        return [
            {
                "index": i,
                "Short Description": description,
                "Content": data.text() if isinstance(data, Table) else data,
            }
            for i, (description, data) in enumerate(self.notebook)
        ]

    # ----- the end of the episode -----

    def _grade(self, action: object) -> StepResult:
        verdict = self.domain.grade_plan(self.task, action)  # type: ignore[arg-type]
        return self._finish(verdict, "planned")

    def _stop(self, reason: str, message: str) -> StepResult:
        verdict = self.domain.grade_plan(self.task, "")
        return self._finish(verdict, reason, "not_delivered", message, truncated=reason == "step_budget")

    def _finish(
        self,
        verdict: Verdict,
        reason: str,
        error_type: str | None = None,
        error: str | None = None,
        truncated: bool = False,
    ) -> StepResult:
        self.done = True
        info = verdict.info()
        if error_type is not None:
            info["error_type"] = error_type
        if error is not None:
            info["error"] = error
        info.update(stop_reason=reason, steps=self.step_n - 1, notebook_entries=len(self.notebook))
        return StepResult(self.observation, float(verdict.reward), not truncated, truncated, info)

    # ----- scripted agents -----

    def oracle_action(self) -> str:
        if self.planning:
            return self.domain.oracle_plan(self.task)
        script = self.domain.oracle_script(self.task)
        index = self.step_n - 1
        action = script[index] if index < len(script) else f"Planner[{format_step(self.query)}]"
        return f"Thought: I need the next piece of information for the plan.\nAction: {action}"

    def random_action(self, rng: np.random.Generator) -> str:
        if self.planning:
            return self.domain.random_plan(self.task, rng)
        dates = [str(d) for d in thaw(self.task.evaluation["query"].get("date") or ["2022-03-01"])]
        cities = self.city_set or ["-"]

        def city() -> str:
            return str(cities[int(rng.integers(len(cities)))])

        choice = int(rng.integers(20))
        if choice < 4:
            action = f"FlightSearch[{city()}, {city()}, {dates[int(rng.integers(len(dates)))]}]"
        elif choice < 6:
            mode = ("self-driving", "taxi")[int(rng.integers(2))]
            action = f"GoogleDistanceMatrix[{city()}, {city()}, {mode}]"
        elif choice < 12:
            tool = ("AccommodationSearch", "RestaurantSearch", "AttractionSearch")[int(rng.integers(3))]
            action = f"{tool}[{city()}]"
        elif choice < 13:
            states = sorted(set(self.tools.db.city_states.values())) or ["-"]
            action = f"CitySearch[{states[int(rng.integers(len(states)))]}]"
        elif choice < 17:
            action = f"NotebookWrite[note {int(rng.integers(1000))}]"
        elif choice < 18:
            action = f"Planner[{format_step(self.query) or 'plan'}]"
        else:
            action = ("Search[hotels]", "FlightSearch[nowhere]", "I am done.")[int(rng.integers(3))]
        return f"Thought: let me try something.\nAction: {action}"
