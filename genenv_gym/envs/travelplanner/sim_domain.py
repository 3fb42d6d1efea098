"""Generated TravelPlanner queries at the agent's skill, graded like the benchmark's sole-planning mode.

``TravelPlannerSimDomain`` is ``TravelPlannerDomain`` (prompt, plan parsing, the evaluator's verdict,
rewards, metrics, random plans) with tasks from ``generator.QueryGenerator`` instead of a split file:
each task is a new query over the sandbox database that ``solver.solve`` proved feasible, with the
solver's plan as its reference (the oracle) and the reference information of the solver's route made by
``tools.reference_information``. Levels are the generator's knob table (``generator.LEVELS``).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np

from genenv_gym.datasets.data_dir import data_root
from genenv_gym.envs.travelplanner.database import BENCHMARK
from genenv_gym.envs.travelplanner.domain import QUERY_COLUMNS, TravelPlannerDomain
from genenv_gym.envs.travelplanner.evaluate import evaluate_plan
from genenv_gym.envs.travelplanner.generator import LEVELS, MAX_PROPOSALS, NoFeasibleQuery, QueryGenerator
from genenv_gym.envs.travelplanner.plan_parsing import parse_query
from genenv_gym.envs.travelplanner.prompt import render_prompt
from genenv_gym.envs.travelplanner.solver import DEFAULT_TIME_LIMIT_S, SolverResult, query_dates
from genenv_gym.envs.travelplanner.tools import reference_information
from genenv_gym.llm_simulator.writer import task_digest
from genenv_gym.suggest import unknown_choice
from genenv_gym.task import Task, thaw

logger = logging.getLogger(__name__)

#: Tasks per level in the fixed sample ``load_tasks`` returns (for ``genenv eval``).
EVAL_TASKS_PER_LEVEL = 4
_CITY_FILE = "database/background/citySet_with_states.txt"


def default_data_dir() -> str:
    """The data dir when it holds the TravelPlanner database, else the shipped fixture database (a
    warning says so: two cities, so only 3-day trips)."""
    root = data_root(None)
    if (root / BENCHMARK / _CITY_FILE).is_file():
        return str(root)
    from genenv_gym.fixtures import FIXTURES_DIR

    logger.warning(
        "travelplanner_sim: no TravelPlanner database under %s; generating on the shipped fixture database "
        "(set GENENV_DATA_DIR or pass domain_kwargs={'data_dir': ...} for the real one)",
        root,
    )
    return str(FIXTURES_DIR)


class TravelPlannerSimDomain(TravelPlannerDomain):
    """New travel queries at ``len(LEVELS)`` difficulty levels, each proved feasible by our solver.

    Knobs per level (``generator.LEVELS``): days and cities, party size, number of local constraints and
    cuisines, budget over the cheapest plan's cost, sparse destinations. ``generate`` makes up to
    ``max_proposals`` proposals and keeps the first the solver can plan; the dropped ones are counted by
    reason in ``rejected``. If none is feasible the task it returns carries the reasons and fails
    ``validate`` (the simulator counts it and draws again). ``scoring`` defaults to ``"corrected"``;
    ``validate`` requires the reference plan to pass under this domain's scoring.

    Args:
        reward_mode: ``dense`` or ``final_pass`` (as ``TravelPlannerDomain``).
        scoring: ``official`` or ``corrected``.
        data_dir: the data dir (default: ``$GENENV_DATA_DIR``, else the shipped fixture database).
        time_limit_s: the solver's time limit per proposal.
        max_proposals: proposals per generated task.
    """

    name = "travelplanner_sim"
    num_levels = len(LEVELS)

    def __init__(
        self,
        reward_mode: str = "dense",
        scoring: str = "corrected",
        data_dir: str | None = None,
        time_limit_s: float = DEFAULT_TIME_LIMIT_S,
        max_proposals: int = MAX_PROPOSALS,
    ) -> None:
        super().__init__(split="train", reward_mode=reward_mode, scoring=scoring)
        if max_proposals < 1:
            raise ValueError(f"max_proposals must be >= 1, got {max_proposals}")
        self._data_dir = data_dir if data_dir is not None else default_data_dir()
        self.time_limit_s = time_limit_s
        self.max_proposals = max_proposals
        self.rejected: Counter = Counter()
        self._generator: QueryGenerator | None = None

    def categories(self) -> tuple[str, ...]:
        return tuple(f"level_{level}" for level in range(self.num_levels))

    def generator(self) -> QueryGenerator:
        """The query generator over this domain's database (built once)."""
        if self._generator is None:
            self._generator = QueryGenerator(self.database(), self.time_limit_s)
        return self._generator

    def load_tasks(self, categories: Sequence[str] | None = None, data_dir: str | None = None) -> list[Task]:
        """A fixed seeded sample of ``EVAL_TASKS_PER_LEVEL`` valid tasks per level (for ``genenv eval``)."""
        unknown = sorted(set(categories or ()) - set(self.categories()))
        if unknown:
            raise ValueError(unknown_choice("travelplanner_sim levels", unknown, self.categories()))
        if data_dir is not None and data_dir != self._data_dir:
            self._data_dir, self.db, self._generator, self._routes = data_dir, None, None, None
        rng = np.random.default_rng(12345)
        wanted = set(categories or self.categories())
        tasks = []
        for level, category in enumerate(self.categories()):
            if category in wanted:
                for _ in range(EVAL_TASKS_PER_LEVEL):
                    task = self.generate(level, rng)
                    if not self.validate(task):
                        tasks.append(task)
        self._tasks = tasks
        return tasks

    def generate(self, level: int, rng: np.random.Generator) -> Task:
        level = int(np.clip(level, 0, self.num_levels - 1))
        generator = self.generator()
        try:
            found = generator.generate(level, rng, self.max_proposals)
        except NoFeasibleQuery as exc:
            self.rejected.update(exc.rejected)
            return self._unsolved(level, str(exc))
        self.rejected.update(found.rejected)
        knobs = found.knobs
        return self.make_task(
            found.query,
            found.solution,
            level,
            "procedural",
            {"proposals": found.proposals, "sparse": knobs.sparse, "target_budget_ratio": knobs.budget_ratio},
        )

    def make_task(
        self,
        query: Mapping,
        solution: SolverResult,
        level: int,
        provenance: str,
        extra: Mapping | None = None,
    ) -> Task:
        """A task for a solved query: the prompt with the reference information of the solver's route."""
        if solution.plan is None or solution.cost is None:
            raise ValueError(f"the query has no reference plan: {solution.reason}")
        row = {key: thaw(query[key]) for key in QUERY_COLUMNS if key in query}
        parsed = parse_query(row)
        dates = query_dates(row)
        reference = reference_information(self.database(), parsed["org"], list(solution.cities), dates)
        local = parsed["local_constraint"]
        ratio = parsed["budget"] / solution.cost if solution.cost else float("inf")
        return Task(
            id=f"sim-L{level}-{task_digest(row)}",
            domain=self.name,
            messages=({"role": "user", "content": render_prompt(str(reference), str(row.get("query", "")))},),
            evaluation={
                "query": row,
                "gold_plan": solution.plan,
                "split": "sim",
                "reference_cost": solution.cost,
                "reference_cities": list(solution.cities),
                "reference_passes_official": solution.passes_official,
            },
            difficulty={
                "level": level,
                "days": parsed["days"],
                "cities": parsed["visiting_city_number"],
                "people": parsed["people_number"],
                "hard_constraints": sum(v is not None for v in local.values()),
                "cuisines": len(local["cuisine"] or ()),
                "budget_ratio": round(ratio, 4),
                **dict(extra or {}),
            },
            provenance=provenance,
            category=f"level_{level}",
        )

    def _unsolved(self, level: int, reason: str) -> Task:
        return Task(
            id=f"sim-L{level}-unsolved-{task_digest(reason)}",
            domain=self.name,
            messages=({"role": "user", "content": ""},),
            evaluation={"query": {}, "gold_plan": None, "split": "sim", "infeasible": reason},
            difficulty={"level": level},
            provenance="procedural",
            category=f"level_{level}",
        )

    def validate(self, task: Task) -> list[str]:
        """Why the task must not reach an agent: no feasible proposal, a malformed query, or a reference
        plan that does not pass every constraint (under this domain's scoring and the corrected one)."""
        if task.evaluation.get("infeasible"):
            return [str(task.evaluation["infeasible"])]
        try:
            query = parse_query(thaw(task.evaluation.get("query") or {}))
        except ValueError as exc:
            return [str(exc)]
        gold = task.evaluation.get("gold_plan")
        if not gold:
            return ["the task has no reference plan"]
        if len(query_dates(thaw(task.evaluation["query"]))) != query["days"]:
            return [f"the query needs {query['days']} dates"]
        problems = []
        for scoring in sorted({self.scoring, "corrected"}):
            verdict = evaluate_plan(thaw(task.evaluation["query"]), thaw(gold), self.database(), scoring)
            if not verdict.passed:
                problems.append(
                    f"the reference plan fails ({scoring}): " + "; ".join(verdict.reasons())[:400]
                )
        return problems

    def reference_failures(self) -> Mapping[str, str]:
        return {task.id: "; ".join(problems) for task in self._tasks if (problems := self.validate(task))}
