"""TravelPlanner's official metric, per plan (``evaluate_plan``) and over a split (``aggregate``).

Reimplements OSU-NLP-Group/TravelPlanner ``evaluation/eval.py`` (with ``commonsense_constraint.py`` and
``hard_constraint.py``) on our stdlib ``Database``:

- a plan is *delivered* when it is non-empty (truthy);
- the 8 commonsense constraints are computed for every delivered plan;
- the 5 hard constraints only when the plan is delivered and ``is_not_absent`` and
  ``is_valid_information_in_sandbox`` both pass; a constraint the query does not set is ``None``;
- rates: delivery = delivered / N; commonsense micro = passed / (8 N); hard micro = passed / (number of
  set hard constraints, budget always set); macro = plans whose every non-None constraint passed, where a
  plan without hard verdicts fails both macros; final = plans passing both.

``scoring="corrected"`` applies the named deviations of ``DEVIATIONS`` (each fixes one defect of the
official code); the default ``"official"`` changes no verdict.

Where the official code raises (and so scores nothing for the whole split), the plan here gets a failed
verdict: ``error`` says why, the raising constraint fails with that reason, and no hard constraint is
evaluated.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from genenv_gym.envs.travelplanner import commonsense, hard
from genenv_gym.envs.travelplanner.database import Database
from genenv_gym.envs.travelplanner.plan_parsing import NO_FIXES, Fixes, OfficialCrash, check_plan, parse_query
from genenv_gym.envs.travelplanner.sandbox import sandbox_for

COMMONSENSE_KEYS = (
    "is_valid_information_in_current_city", "is_valid_information_in_sandbox", "is_reasonable_visiting_city",
    "is_valid_restaurants", "is_valid_transportation", "is_valid_attractions", "is_valid_accommodation",
    "is_not_absent",
)  # fmt: skip
HARD_KEYS = ("valid_cost", "valid_room_rule", "valid_cuisine", "valid_room_type", "valid_transportation")
#: Official key -> the paper's constraint name.
PAPER_NAMES = {
    "is_valid_information_in_current_city": "Within Current City",
    "is_valid_information_in_sandbox": "Within Sandbox",
    "is_reasonable_visiting_city": "Reasonable City Route",
    "is_valid_restaurants": "Diverse Restaurants",
    "is_valid_transportation": "Non-conf. Transportation",
    "is_valid_attractions": "Diverse Attractions",
    "is_valid_accommodation": "Minimum Nights Stay",
    "is_not_absent": "Complete Information",
    "valid_cost": "Budget",
    "valid_room_rule": "Room Rule",
    "valid_cuisine": "Cuisine",
    "valid_room_type": "Room Type",
    "valid_transportation": "Transportation",
}
RATE_KEYS = (
    "Delivery Rate", "Commonsense Constraint Micro Pass Rate", "Commonsense Constraint Macro Pass Rate",
    "Hard Constraint Micro Pass Rate", "Hard Constraint Macro Pass Rate", "Final Pass Rate",
)  # fmt: skip
SCORINGS = ("official", "corrected")
#: The corrected scoring's deviations from the official evaluator: name -> what it fixes.
DEVIATIONS: dict[str, str] = {
    "attraction_last_entry": "every ';'-separated attraction entry is checked, the last one too when it has "
    "no trailing ';' (official: split(';')[:-1]); entries are stripped and blank or '-' entries skipped",
    "stay_day_city_name": "on a stay day the current-city check compares the whole city name "
    "(official: each character of the name)",
    "transportation_case_insensitive": "the hard transportation rule ('no flight', 'no self-driving') "
    "ignores case (official: 'Flight' / 'Self-driving' case-sensitive)",
    "cuisine_all_meals": "the cuisine check skips a meal in the origin city and scans the day's other "
    "meals (official: that meal ends the day's scan)",
    "absent_ratio_plan_fields": "the complete-information 50 % rule counts only the six plan fields "
    "(transportation, meals, attraction, accommodation) against 6 x days (official: every filled key "
    "of a day, 'days' and 'current_city' included)",
    "minimum_nights_first_row": "minimum nights are checked against the first matching accommodation row, "
    "as cost, house rule and room type use it (official: only when the name matches exactly one row)",
}


@dataclass(frozen=True)
class ConstraintResult:
    """One constraint's verdict: ``passed`` is True, False, or None (not set by the query)."""

    passed: bool | None
    reason: str | None = None
    raised: bool = False  # the official code raises here


@dataclass
class PlanVerdict:
    """The official verdicts on one plan.

    ``commonsense`` is None when the plan was not delivered; ``hard`` is None when the gate
    (delivered, complete, within sandbox, no error) was not passed. ``hard_applicable`` is the number
    of hard constraints the query sets (budget included): this plan's share of the hard denominator.
    """

    delivered: bool
    commonsense: dict[str, ConstraintResult] | None
    hard: dict[str, ConstraintResult] | None
    hard_applicable: int
    level: str = ""
    days: int = 0
    error: str | None = None
    total_cost: float | None = None
    scoring: str = "official"

    @property
    def constraints_applicable(self) -> int:
        """The dense reward's denominator: 8 commonsense + the hard constraints the query sets.

        The hard part is ``hard_applicable`` (budget always, plus each set local constraint) whether or
        not the gate let the hard constraints be evaluated, as in the official hard micro rate.
        """
        return len(COMMONSENSE_KEYS) + self.hard_applicable

    @property
    def constraints_passed(self) -> int:
        """The dense reward's numerator: commonsense and set hard constraints that passed; 0 for a plan
        not delivered or one the official code raises on (``error`` set); a hard constraint not evaluated
        because of the gate counts as not passed."""
        if self.error:
            return 0
        boxes = (self.commonsense or {}, self.hard or {})
        return sum(1 for box in boxes for result in box.values() if result.passed is True)

    @property
    def dense_reward(self) -> float:
        """``constraints_passed / constraints_applicable`` in [0, 1]; 1.0 exactly when ``passed``."""
        return 1.0 if self.passed else self.constraints_passed / self.constraints_applicable

    @property
    def commonsense_passed(self) -> bool:
        """Counted by the official commonsense macro rate (requires hard verdicts, as the official loop)."""
        return (
            self.commonsense is not None
            and self.hard is not None
            and all(result.passed is not False for result in self.commonsense.values())
        )

    @property
    def hard_passed(self) -> bool:
        """Counted by the official hard macro rate."""
        return self.hard is not None and all(result.passed is not False for result in self.hard.values())

    @property
    def passed(self) -> bool:
        """The official final pass: every commonsense and every set hard constraint passed."""
        return self.commonsense_passed and self.hard_passed

    def reasons(self) -> list[str]:
        """The failure reasons, ``"<paper name>: <reason>"``, commonsense first."""
        out = [f"error: {self.error}"] if self.error else []
        for box in (self.commonsense or {}, self.hard or {}):
            for key, result in box.items():
                if result.passed is False:
                    out.append(f"{PAPER_NAMES[key]}: {result.reason}")
        return out


def _hard_applicable(local_constraint: Mapping) -> int:
    return 1 + sum(1 for value in local_constraint.values() if value is not None)


def scoring_fixes(scoring: str = "official", deviations: Iterable[str] | None = None) -> Fixes:
    """The deviations in force: none for ``official``; for ``corrected`` all of ``DEVIATIONS`` or the
    named subset ``deviations``. Raises ValueError for an unknown scoring or deviation name."""
    if scoring not in SCORINGS:
        raise ValueError(f"unknown scoring {scoring!r}; expected one of {SCORINGS}")
    if scoring == "official":
        if deviations:
            raise ValueError("deviations apply only to scoring='corrected'")
        return NO_FIXES
    chosen = frozenset(DEVIATIONS if deviations is None else deviations)
    unknown = sorted(chosen - set(DEVIATIONS))
    if unknown:
        raise ValueError(f"unknown deviations {unknown}; expected some of {sorted(DEVIATIONS)}")
    return chosen


def evaluate_plan(
    query: Mapping,
    plan: object,
    db: Database,
    scoring: str = "official",
    deviations: Iterable[str] | None = None,
) -> PlanVerdict:
    """Grade ``plan`` (a list of day dicts, or None / [] for no plan) for ``query`` (an HF query row).

    ``scoring="official"`` reproduces the official evaluator; ``"corrected"`` applies every deviation of
    ``DEVIATIONS`` (or only those named in ``deviations``). Never raises on a bad plan: wrong types,
    missing keys and over-long fields give failed verdicts. Raises ValueError for a malformed query or an
    unknown ``scoring`` or deviation.
    """
    fixes = scoring_fixes(scoring, deviations)
    q = parse_query(query)
    verdict = PlanVerdict(
        delivered=False, commonsense=None, hard=None, hard_applicable=_hard_applicable(q["local_constraint"]),
        level=q["level"], days=q["days"], scoring=scoring,
    )  # fmt: skip
    try:
        verdict.delivered = bool(plan)
    except Exception as exc:
        verdict.delivered, verdict.error = True, f"the plan has no truth value: {exc!r}"
    if not verdict.delivered:
        return verdict
    problem = verdict.error or check_plan(plan, q["days"])
    if problem is not None:
        verdict.error = f"malformed plan: {problem}"
        verdict.commonsense = {key: ConstraintResult(False, verdict.error, True) for key in COMMONSENSE_KEYS}
        return verdict
    sandbox = sandbox_for(db)
    plan = list(plan)
    box: dict[str, ConstraintResult] = {}
    for key, check in commonsense.CHECKS.items():
        box[key] = _run(check, q, plan, sandbox, fixes)
    verdict.commonsense = {key: box[key] for key in COMMONSENSE_KEYS}
    errors = [f"{key}: {result.reason}" for key, result in verdict.commonsense.items() if result.raised]
    if errors:
        verdict.error = "the official evaluator raises: " + "; ".join(errors)
        return verdict
    if not (box["is_not_absent"].passed and box["is_valid_information_in_sandbox"].passed):
        return verdict
    verdict.hard = {key: _run(hard.CHECKS[key], q, plan, sandbox, fixes) for key in HARD_KEYS}
    errors = [f"{key}: {result.reason}" for key, result in verdict.hard.items() if result.raised]
    if errors:
        verdict.error = "the official evaluator raises: " + "; ".join(errors)
    else:
        verdict.total_cost = hard.total_cost(q, plan, sandbox)
    return verdict


def _run(check, query: dict, plan: list, sandbox, fixes: Fixes) -> ConstraintResult:
    try:
        passed, reason = check(query, plan, sandbox, fixes)
    except OfficialCrash as exc:
        return ConstraintResult(False, str(exc), True)
    except (TypeError, ValueError, KeyError, AttributeError, IndexError, ZeroDivisionError) as exc:
        return ConstraintResult(False, f"unexpected {type(exc).__name__}: {exc}", True)
    return ConstraintResult(passed, reason)


def aggregate(verdicts: Iterable[PlanVerdict]) -> dict[str, float]:
    """The official rates over one verdict per query of a split (keys as printed by ``eval.py``).

    Denominators: N plans for delivery and macro rates, 8 N for the commonsense micro rate, and the
    number of set hard constraints for the hard micro rate (train 45 / 360 / 105, validation
    180 / 1440 / 420, test 1000 / 8000 / 2290 when every query of the split is graded).
    """
    verdicts = list(verdicts)
    n = len(verdicts)
    hard_total = sum(v.hard_applicable for v in verdicts)
    commonsense_hits = sum(
        sum(1 for result in v.commonsense.values() if result.passed is True)
        for v in verdicts
        if v.commonsense
    )
    hard_hits = sum(sum(1 for result in v.hard.values() if result.passed is True) for v in verdicts if v.hard)

    def rate(count: int, total: int) -> float:
        return count / total if total else 0.0

    return {
        "Delivery Rate": rate(sum(v.delivered for v in verdicts), n),
        "Commonsense Constraint Micro Pass Rate": rate(commonsense_hits, 8 * n),
        "Commonsense Constraint Macro Pass Rate": rate(sum(v.commonsense_passed for v in verdicts), n),
        "Hard Constraint Micro Pass Rate": rate(hard_hits, hard_total),
        "Hard Constraint Macro Pass Rate": rate(sum(v.hard_passed for v in verdicts), n),
        "Final Pass Rate": rate(sum(v.passed for v in verdicts), n),
    }
