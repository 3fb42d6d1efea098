"""TravelPlanner sole planning as a domain: queries with reference information, the official evaluator.

A task is one query of a split file (``<data dir>/travelplanner/<split>.jsonl`` or ``<split>.csv`` in the
HF column layout, with ``reference_information``). The agent reads the sole-planning prompt and answers
with a plan (``action.parse_plan``); ``evaluate.evaluate_plan`` grades it (``scoring`` official or
corrected); the reward is the fraction of applicable constraints passed (``reward_mode="dense"``) or the
final pass (``"final_pass"``); success is always the final pass. A task's category is
``<level>-<days>day`` (``easy-3day`` ... ``hard-7day``). Each step's ``info["metrics"]`` carries the
per-constraint verdicts, from which ``summarize_metrics`` rebuilds the official split-level rates with
``evaluate.aggregate``.
"""

from __future__ import annotations

import ast
import csv
import json
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from genenv_gym.datasets.data_dir import MissingDataError, data_root, entry_name
from genenv_gym.domain import Domain, SingleTurnEpisode, StepResult, Verdict
from genenv_gym.envs.travelplanner.action import parse_plan, render_plan_text
from genenv_gym.envs.travelplanner.database import BENCHMARK, Database, rebuild_flights
from genenv_gym.envs.travelplanner.evaluate import (
    RATE_KEYS,
    ConstraintResult,
    PlanVerdict,
    aggregate,
    evaluate_plan,
    scoring_fixes,
)
from genenv_gym.envs.travelplanner.plan_parsing import gold_plan, parse_query
from genenv_gym.envs.travelplanner.prompt import render_prompt
from genenv_gym.envs.travelplanner.sandbox import sandbox_for
from genenv_gym.suggest import unknown_choice
from genenv_gym.task import Task, thaw

LEVELS = ("easy", "medium", "hard")
#: Trip lengths of the benchmark's queries.
DAY_COUNTS = (3, 5, 7)
#: Categories: ``<level>-<days>day`` for every level and trip length.
CATEGORIES = tuple(f"{level}-{days}day" for level in LEVELS for days in DAY_COUNTS)
REWARD_MODES = ("dense", "final_pass")
#: The query columns a task keeps for grading (the HF layout minus the plan and the reference text).
QUERY_COLUMNS = (
    "org", "dest", "days", "visiting_city_number", "date", "people_number", "local_constraint", "budget",
    "query", "level",
)  # fmt: skip
#: The four rates the paper's Table 1 averages into its TravelPlanner number.
PAPER_MEAN_KEYS = RATE_KEYS[1:5]
#: Longest failure text put in ``info["error"]``.
MAX_ERROR_CHARS = 2000

_DATABASES: dict[tuple[str, str], Database] = {}


def split_file(split: str, data_dir: str | os.PathLike | None = None) -> Path:
    """``<data dir>/travelplanner/<split>.jsonl`` (or ``.csv``); MissingDataError naming both if absent,
    ValueError when ``split`` is not a name (a path)."""
    entry_name(split, "a TravelPlanner split")
    folder = data_root(data_dir) / BENCHMARK
    for suffix in (".jsonl", ".csv"):
        path = folder / f"{split}{suffix}"
        if path.is_file():
            return path
    raise MissingDataError(
        f"travelplanner split {split!r} not found: expected {folder / (split + '.jsonl')} or "
        f"{folder / (split + '.csv')} (the osunlp/TravelPlanner rows in the HF column layout, with "
        "reference_information; GENENV_DATA_DIR sets the data dir)",
        BENCHMARK,
    )


def load_rows(path: Path) -> list[dict]:
    """The query rows of a split file (JSON Lines or the HF CSV)."""
    if path.suffix == ".csv":
        csv.field_size_limit(sys.maxsize)
        with open(path, newline="", encoding="utf-8") as handle:
            return [dict(row) for row in csv.DictReader(handle)]
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def load_database(split: str, data_dir: str | os.PathLike | None = None) -> Database:
    """The sandbox database (cached per data dir and split).

    Besides the flights ``Database.load`` finds, a split other than ``train`` adds the flights of
    ``database/<split>_ref_info.jsonl`` when that file exists (the official per-split reference file).
    """
    root = str(data_root(data_dir).resolve())
    key = (root, split)
    if key not in _DATABASES:
        db = Database.load(root)
        extra = Path(root) / BENCHMARK / "database" / f"{split}_ref_info.jsonl"
        if split != "train" and extra.is_file():
            seen = {(str(row["Flight Number"]), str(row["FlightDate"])) for row in db.flights}
            for row in rebuild_flights(extra):
                if (str(row["Flight Number"]), str(row["FlightDate"])) not in seen:
                    db.flights.append(row)
            db.flights_source += f" + {extra}"
        _DATABASES[key] = db
    return _DATABASES[key]


def _literal(value: object) -> object:
    """A Python-literal string (``"['2022-03-16']"``) as its value; other values unchanged."""
    if isinstance(value, str) and value[:1] in "[{(":
        try:
            return ast.literal_eval(value)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return value
    return value


def verdict_metrics(verdict: PlanVerdict) -> dict[str, Any]:
    """The per-episode figures ``summarize_metrics`` needs (JSON-serialisable).

    ``commonsense`` and ``hard`` are always dicts, empty when not evaluated (no plan delivered, or the
    gate not passed): an evaluated group is never empty, and one type per key lets Gymnasium's vector envs
    merge the info of their copies."""
    return {
        "delivered": verdict.delivered,
        "commonsense": {key: result.passed for key, result in (verdict.commonsense or {}).items()},
        "hard": {key: result.passed for key, result in (verdict.hard or {}).items()},
        "hard_applicable": verdict.hard_applicable,
        "final_pass": verdict.passed,
        "constraints_passed": verdict.constraints_passed,
        "constraints_applicable": verdict.constraints_applicable,
    }


def _from_metrics(metrics: Mapping[str, Any]) -> PlanVerdict:
    def box(values: object) -> dict[str, ConstraintResult] | None:
        if not isinstance(values, Mapping) or not values:  # empty (or None, as once written): not evaluated
            return None
        return {str(key): ConstraintResult(value) for key, value in values.items()}

    return PlanVerdict(
        delivered=bool(metrics.get("delivered", False)),
        commonsense=box(metrics.get("commonsense")),
        hard=box(metrics.get("hard")),
        hard_applicable=int(metrics.get("hard_applicable", 1)),
    )


def summarize_plan_metrics(metrics: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """The official rates (``evaluate.aggregate``'s keys) over episodes, and ``paper_mean``.

    ``paper_mean`` is the unweighted mean of the commonsense micro and macro and hard micro and macro pass
    rates (the paper's Table 1 number). An episode without metrics counts as a plan not delivered.
    """
    if not metrics:
        return {}
    rates = aggregate(_from_metrics(m) for m in metrics)
    rates["paper_mean"] = sum(rates[key] for key in PAPER_MEAN_KEYS) / len(PAPER_MEAN_KEYS)
    return rates


class TravelPlannerEpisode(SingleTurnEpisode):
    """One sole-planning query: the agent answers once with a plan."""

    def invalid_action(self, error_type: str, error: str) -> StepResult:
        """A refused action is a plan not delivered, with its metrics."""
        result = super().invalid_action(error_type, error)
        query = parse_query(thaw(self.task.evaluation["query"]))
        verdict = PlanVerdict(
            False, None, None, 1 + sum(v is not None for v in query["local_constraint"].values())
        )
        result.info.update(_details(verdict, None, self.domain.reward_mode, self.domain.scoring))
        return result


def category_of(level: str, days: int) -> str:
    """A task's category: ``<level>-<days>day`` (e.g. ``easy-3day``)."""
    return f"{level}-{days}day"


def _details(verdict: PlanVerdict, plan_format: str | None, reward_mode: str, scoring: str) -> dict[str, Any]:
    def box(results: Mapping[str, ConstraintResult] | None) -> dict:
        return {key: {"passed": r.passed, "reason": r.reason} for key, r in (results or {}).items()}

    return {
        "delivered": verdict.delivered,
        "plan_format": plan_format,
        "commonsense": box(verdict.commonsense),
        "hard": box(verdict.hard),
        "reasons": verdict.reasons(),
        "total_cost": verdict.total_cost,
        "final_pass": verdict.passed,
        "constraints_passed": verdict.constraints_passed,
        "constraints_applicable": verdict.constraints_applicable,
        "reward_mode": reward_mode,
        "scoring": scoring,
        "metrics": verdict_metrics(verdict),
    }


def _error_type(verdict: PlanVerdict) -> str | None:
    if not verdict.delivered:
        return "not_delivered"
    if verdict.error:
        return "malformed_plan"
    for group, results in (("commonsense", verdict.commonsense), ("hard", verdict.hard)):
        for key, result in (results or {}).items():
            if result.passed is False:
                return f"{group}:{key}"
    return None


class TravelPlannerDomain(Domain):
    """TravelPlanner's sole-planning mode on one split, graded by the official (or corrected) evaluator.

    Categories are ``<level>-<days>day`` (``CATEGORIES``); ``load_tasks`` selects by those or by bare
    levels (easy, medium, hard). ``split`` names the file ``<data dir>/travelplanner/<split>.jsonl`` (or
    ``.csv``); rows without ``reference_information`` are skipped, rows without ``annotated_plan`` load but
    have no oracle (``reference_failures`` lists them, and under ``scoring="corrected"`` also the annotated
    plans the corrected evaluator rejects). ``reward_mode``: ``dense`` (fraction of applicable constraints
    passed, ``PlanVerdict.dense_reward``) or ``final_pass`` (1.0 / 0.0); ``scoring``: ``official`` or
    ``corrected`` (``evaluate.DEVIATIONS``).
    """

    name = "travelplanner"
    num_levels = len(LEVELS)

    def __init__(self, split: str = "train", reward_mode: str = "dense", scoring: str = "official") -> None:
        if reward_mode not in REWARD_MODES:
            raise ValueError(f"unknown reward_mode {reward_mode!r}; expected one of {REWARD_MODES}")
        scoring_fixes(scoring)  # raises ValueError for an unknown scoring
        self.split = entry_name(split, "a TravelPlanner split")
        self.reward_mode = reward_mode
        self.scoring = scoring
        self._tasks: list[Task] = []
        self.db: Database | None = None
        self._data_dir: str | None = None
        self._no_gold: dict[str, str] = {}
        self._routes: dict[tuple[str, str], list[dict]] | None = None

    def categories(self) -> tuple[str, ...]:
        return CATEGORIES

    def database(self) -> Database:
        """The sandbox database of the loaded data dir (the default data dir before any load)."""
        if self.db is None:
            self.db = load_database(self.split, self._data_dir)
        return self.db

    def load_tasks(self, categories: Sequence[str] | None = None, data_dir: str | None = None) -> list[Task]:
        unknown = sorted(set(categories or ()) - set(LEVELS) - set(CATEGORIES))
        if unknown:
            raise ValueError(unknown_choice("TravelPlanner levels", unknown, [*LEVELS, *CATEGORIES]))
        path = split_file(self.split, data_dir)
        self._data_dir = data_dir
        self.db, self._routes = load_database(self.split, data_dir), None
        tasks = []
        for index, row in enumerate(load_rows(path), start=1):
            reference = row.get("reference_information")
            if not reference:
                continue
            task = self._task(row, index, reference)
            level = str(task.evaluation["query"].get("level", ""))
            if categories is None or task.category in categories or level in categories:
                tasks.append(task)
        self._tasks = tasks
        return tasks

    def _task(self, row: Mapping, index: int, reference: object) -> Task:
        query = {key: _literal(row[key]) for key in QUERY_COLUMNS if key in row}
        parsed = parse_query(query)
        gold = gold_plan(row) if row.get("annotated_plan") else None
        task_id = f"{self.split}/{index}"
        if gold is None:
            self._no_gold[task_id] = "the split file has no annotated plan for this query"
        level = parsed["level"]
        return Task(
            id=task_id,
            domain=self.name,
            messages=(
                {"role": "user", "content": render_prompt(str(reference), str(query.get("query", "")))},
            ),
            evaluation={"query": query, "gold_plan": gold, "split": self.split},
            difficulty={
                "level": LEVELS.index(level) if level in LEVELS else 0,
                "days": parsed["days"],
                "hard_constraints": sum(v is not None for v in parsed["local_constraint"].values()),
            },
            provenance=f"benchmark:{self.split}",
            category=category_of(level, parsed["days"]),
        )

    def render(self, task: Task) -> str:
        return str(task.messages[0]["content"])

    def verify(self, task: Task, action: str) -> Verdict:
        plan, plan_format, reason = parse_plan(action)
        query = thaw(task.evaluation["query"])
        try:
            verdict = evaluate_plan(query, plan, self.database(), self.scoring)
        except (
            Exception
        ) as exc:  # the evaluator never raises on plans; a last guard keeps bad input an outcome
            verdict = PlanVerdict(True, None, None, 1, error=f"the evaluator failed: {exc!r}")
        details = _details(verdict, plan_format, self.reward_mode, self.scoring)
        if not isinstance(action, str):
            return Verdict(0.0, False, "action_error:not_text", reason, details)
        if reason is not None:
            error = reason
        elif verdict.passed:
            error = None
        else:
            error = "; ".join(verdict.reasons())[:MAX_ERROR_CHARS] or "the plan did not pass"
        reward = verdict.dense_reward if self.reward_mode == "dense" else float(verdict.passed)
        return Verdict(reward, verdict.passed, _error_type(verdict), error, details)

    def validate(self, task: Task) -> list[str]:
        try:
            query = parse_query(thaw(task.evaluation.get("query") or {}))
        except ValueError as exc:
            return [str(exc)]
        problems = []
        if query["days"] <= 0:
            problems.append("the query has no days")
        gold = task.evaluation.get("gold_plan")
        if gold is not None:
            verdict = evaluate_plan(thaw(task.evaluation["query"]), thaw(gold), self.database(), self.scoring)
            if not verdict.passed:
                problems.append("the gold plan fails: " + "; ".join(verdict.reasons()))
        return problems

    def generate(self, level: int, rng: np.random.Generator) -> Task:
        raise NotImplementedError("TravelPlanner has no task generator yet")

    def oracle_action(self, task: Task) -> str:
        gold = task.evaluation.get("gold_plan")
        return render_plan_text(thaw(gold)) if gold else ""

    def random_action(self, task: Task, rng: np.random.Generator) -> str:
        """A well-formed plan of random sandbox entities along a route through the query's cities.

        It follows the plan format and the route shape but ignores budget, constraints and diversity.
        """
        query = parse_query(thaw(task.evaluation["query"]))
        sandbox = sandbox_for(self.database())
        days, org = query["days"], query["org"]
        if days <= 3:
            stops = [query["dest"]]
        else:
            pool = sorted(city for city, state in sandbox.city_states.items() if state == query["dest"])
            count = min(max(query["visiting_city_number"], 1), len(pool))
            stops = (
                [str(c) for c in rng.choice(pool, size=count, replace=False)] if count else [query["dest"]]
            )

        def pick(rows: Sequence[Mapping], key: str, city: str) -> str:
            return f"{rows[int(rng.integers(len(rows)))][key]}, {city}" if rows else "-"

        plan = []
        for i in range(days):
            if i % 2 == 1 and i < days - 1:
                origin = destination = stops[min(i // 2, len(stops) - 1)]
                current, transport = destination, "-"
            else:
                origin = org if i == 0 else stops[min(i // 2 - 1, len(stops) - 1)]
                destination = org if i == days - 1 else stops[min(i // 2, len(stops) - 1)]
                current = f"from {origin} to {destination}"
                transport = self._random_transport(origin, destination, rng)
            city = destination if i < days - 1 else origin
            attractions = sandbox.attractions.get(city, [])
            plan.append(
                {
                    "days": i + 1,
                    "current_city": current,
                    "transportation": transport,
                    "breakfast": pick(sandbox.restaurants.get(city, []), "Name", city),
                    "attraction": (pick(attractions, "Name", city) + ";") if attractions else "-",
                    "lunch": pick(sandbox.restaurants.get(city, []), "Name", city),
                    "dinner": pick(sandbox.restaurants.get(city, []), "Name", city),
                    "accommodation": "-"
                    if i == days - 1
                    else pick(sandbox.accommodations.get(city, []), "NAME", city),
                }
            )
        return render_plan_text(plan)

    def _random_transport(self, origin: str, destination: str, rng: np.random.Generator) -> str:
        if self._routes is None:
            self._routes = {}
            for row in self.database().flights:
                self._routes.setdefault((row.get("OriginCityName"), row.get("DestCityName")), []).append(row)
        flights = self._routes.get((origin, destination), [])
        choice = int(rng.integers(len(flights) + 2))
        if choice < len(flights):
            row = flights[choice]
            return (
                f"Flight Number: {row['Flight Number']}, from {origin} to {destination}, "
                f"Departure Time: {row['DepTime']}, Arrival Time: {row['ArrTime']}"
            )
        mode = "Self-driving" if choice == len(flights) else "Taxi"
        return f"{mode}, from {origin} to {destination}"

    def start_episode(self, task: Task) -> TravelPlannerEpisode:
        return TravelPlannerEpisode(self, task)

    def summarize_metrics(self, metrics: Sequence[Mapping[str, Any]]) -> dict[str, float]:
        return summarize_plan_metrics(metrics)

    def reference_failures(self) -> Mapping[str, str]:
        """Tasks without an annotated plan, and (corrected scoring) those whose annotated plan fails."""
        failures = dict(self._no_gold)
        if self.scoring != "official":
            for task in self._tasks:
                gold = task.evaluation.get("gold_plan")
                if gold is None:
                    continue
                verdict = evaluate_plan(
                    thaw(task.evaluation["query"]), thaw(gold), self.database(), self.scoring
                )
                if not verdict.passed:
                    failures[task.id] = f"the annotated plan fails {self.scoring} scoring: " + "; ".join(
                        verdict.reasons()
                    )
        return failures
