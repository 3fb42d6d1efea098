"""The TravelPlanner benchmark env: sole planning, graded by the official (or corrected) evaluator."""

from __future__ import annotations

from collections.abc import Sequence

from genenv_gym.envs.benchmark_env import BenchmarkEnv
from genenv_gym.envs.travelplanner.domain import TravelPlannerDomain


class TravelPlannerEnv(BenchmarkEnv):
    """TravelPlanner in sole-planning mode: write a whole trip plan from the given reference information.

    ## Description
    Each episode is one query of a TravelPlanner split (default ``train``: the 45 queries with annotated
    plans). The agent receives the official sole-planning prompt (in our words, same output format) with
    the query's reference information (flights, restaurants, attractions, accommodations, distances) and
    answers with a plan, graded by the official evaluator (``evaluate.evaluate_plan``): 8 commonsense
    constraints, and the 5 hard ones (budget, house rule, cuisine, room type, transportation) when the plan
    is complete and within the sandbox.

    ## Observation space
    ``UnicodeText``: instruction, a worked example, ``Given information: <reference information>``,
    ``Query: <query>`` and ``Travel Plan:``. ``info["messages"]`` holds the same as one user message.

    ## Action space
    ``UnicodeText`` of at most 100,000 characters: the plan, either as the prompt's ``Day N:`` blocks of
    ``Current City / Transportation / Breakfast / Attraction / Lunch / Dinner / Accommodation`` lines
    (parsed leniently), or as the official JSON list of day dicts. Text with neither is a plan not
    delivered.

    ## Rewards
    ``reward_mode="dense"`` (default): the fraction of applicable constraints the plan passes,
    ``constraints_passed / constraints_applicable``. The denominator is 8 (the commonsense constraints)
    plus the hard constraints the query sets (budget always, plus each of house rule, cuisine, room type
    and transportation the query sets): the official hard micro rate's share of this query. It does not
    shrink when the evaluator's gate (complete information and within sandbox) keeps the hard constraints
    from being evaluated: those count as not passed, so failing the gate never scores more than passing
    it. The numerator counts the constraints whose verdict is a pass. A plan not delivered (or refused,
    or one the official code would crash on) scores 0.0; a plan passing the final pass scores exactly 1.0.
    ``reward_mode="final_pass"``: 1.0 when the plan passes the final pass (every commonsense and every set
    hard constraint), else 0.0. In both modes ``info["success"]`` and ``info["final_pass"]`` are the final
    pass (what ``genenv eval`` counts). ``info`` has ``delivered``, ``plan_format``, ``commonsense`` and
    ``hard`` (per official constraint: ``passed`` and ``reason``; ``hard`` is None when the evaluator's
    gate was not passed),
    ``reasons``, ``total_cost``, ``final_pass``, ``constraints_passed``, ``constraints_applicable``,
    ``reward_mode``, ``scoring``, ``error_type`` (``not_delivered``, ``malformed_plan``,
    ``commonsense:<key>``, ``hard:<key>``, ``action_error:not_text``, ``action_error:too_long``) and
    ``metrics``, from which ``genenv eval`` reports the official rates and ``paper_mean`` (the mean of the
    commonsense and hard micro and macro pass rates, the paper's Table 1 number).

    ## Episode end
    Terminates after one step.

    ## Arguments
    - ``levels``: query levels (``easy``, ``medium``, ``hard``) or categories (``easy-3day`` ...
      ``hard-7day``) to play (default all). A task's category (``info["category"]``, the rows of
      ``genenv eval``'s table) is ``<level>-<days>day``.
    - ``reward_mode``: ``dense`` (default) or ``final_pass`` (see Rewards).
    - ``scoring``: ``official`` (default; the official evaluator's verdicts, quirks included) or
      ``corrected`` (every deviation of ``evaluate.DEVIATIONS``, each fixing one official defect).
    - ``split``: the split file ``<data dir>/travelplanner/<split>.jsonl`` (or ``.csv``) in the HF column
      layout, with ``reference_information`` (default ``train``).
    - ``data_dir``: data root holding ``travelplanner/`` (default ``$GENENV_DATA_DIR``).

    ``reset(options={"task_id": "train/1"})`` plays the first query of the split (ids are the official
    1-based ``idx`` of the query in its split file).

    ## Version history
    - v0: initial version (sole planning on a split, by default ``train``'s 45 queries, the official
      evaluator, dense reward)
    """

    def __init__(
        self,
        levels: Sequence[str] | None = None,
        split: str = "train",
        data_dir: str | None = None,
        render_mode: str | None = None,
        reward_mode: str = "dense",
        scoring: str = "official",
    ) -> None:
        super().__init__(TravelPlannerDomain(split, reward_mode, scoring), levels, data_dir, render_mode)
