"""The TravelPlanner benchmark env: sole planning, graded by the official evaluator."""

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
    1.0 when the plan passes the official final pass (every commonsense and every set hard constraint),
    else 0.0. ``info`` has ``delivered``, ``plan_format``, ``commonsense`` and ``hard`` (per official
    constraint: ``passed`` and ``reason``; ``hard`` is None when the evaluator's gate was not passed),
    ``reasons``, ``total_cost``, ``error_type`` (``not_delivered``, ``malformed_plan``,
    ``commonsense:<key>``, ``hard:<key>``, ``action_error:not_text``, ``action_error:too_long``) and
    ``metrics``, from which ``genenv eval`` reports the official rates and ``paper_mean`` (the mean of the
    commonsense and hard micro and macro pass rates, the paper's Table 1 number).

    ## Episode end
    Terminates after one step.

    ## Arguments
    - ``levels``: query levels to play (``easy``, ``medium``, ``hard``; default all).
    - ``split``: the split file ``<data dir>/travelplanner/<split>.jsonl`` (or ``.csv``) in the HF column
      layout, with ``reference_information`` (default ``train``).
    - ``data_dir``: data root holding ``travelplanner/`` (default ``$GENENV_DATA_DIR``).

    ``reset(options={"task_id": "train/1"})`` plays the first query of the split (ids are the official
    1-based ``idx`` of the query in its split file).
    """

    def __init__(
        self,
        levels: Sequence[str] | None = None,
        split: str = "train",
        data_dir: str | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__(TravelPlannerDomain(split), levels, data_dir, render_mode)
