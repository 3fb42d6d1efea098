"""The TravelPlanner tool-use env: the official two-stage mode, graded by the official evaluator."""

from __future__ import annotations

from collections.abc import Sequence

from genenv_gym.envs.benchmark_env import BenchmarkEnv
from genenv_gym.envs.travelplanner.tools_domain import TravelPlannerToolsDomain
from genenv_gym.envs.travelplanner.tools_episode import MAX_STEPS


class TravelPlannerToolsEnv(BenchmarkEnv):
    """TravelPlanner in two-stage mode: collect information with the official tools, then write the plan.

    ## Description
    Each episode is one query of a TravelPlanner split (default ``train``: the 45 queries with annotated
    plans), played as the official zero-shot ReAct agent (``agents/tool_agents.py``) plays it. The agent
    calls the official tools (FlightSearch, GoogleDistanceMatrix, AccommodationSearch, RestaurantSearch,
    AttractionSearch, CitySearch, NotebookWrite) against the sandbox database and is answered with the
    text the official tools print; NotebookWrite saves the last search result. ``Planner[query]`` ends the
    collection: the agent then receives the sole-planning prompt with its Notebook as the given
    information, and its plan is graded exactly as in ``GenEnv-TravelPlanner-v0`` (8 commonsense
    constraints, and the 5 hard ones when the plan is complete and within the sandbox).

    ## Observation space
    ``UnicodeText``. While collecting: the ReAct instruction with the tool descriptions, ``Query:
    <query>``, the scratchpad of the steps so far (``Thought n: / Action n: / Observation n:``; a result is
    replaced by "Masked due to limited length. ..." once the next search or NotebookWrite runs, as the
    official agent does) and the reply format. After ``Planner[...]``: the sole-planning prompt whose
    given information is the Notebook (``[{'index': 0, 'Short Description': ..., 'Content': ...}, ...]``).
    Each is a fresh prompt, as the official agent asks its LLM afresh at every step: a step's
    ``info["messages"]`` holds it as the one user message of a new chat.

    ## Action space
    ``UnicodeText`` of at most 100,000 characters. While collecting: ``Thought: ...`` then ``Action:
    Tool[arguments]`` (or the bare action), e.g. ``FlightSearch[Dallas, Houston, 2022-03-12]``,
    ``GoogleDistanceMatrix[Dallas, Houston, taxi]``, ``RestaurantSearch[Houston]``, ``CitySearch[Texas]``,
    ``NotebookWrite[Flights from Dallas to Houston]``, ``Planner[<query>]``. Unknown actions, bad
    arguments, unknown cities and malformed dates get the official error observations. After the
    Planner: the plan, in the sole-planning env's text or JSON format.

    ## Rewards
    0.0 on every collecting step. The plan's reward is the sole-planning env's: ``reward_mode="dense"``
    (default) the fraction of applicable constraints passed (8 commonsense + the hard constraints the
    query sets), ``"final_pass"`` 1.0 for a final pass, else 0.0. An episode that ends without a plan
    scores 0.0 (a plan not delivered). ``info["success"]`` and ``info["final_pass"]`` are the final pass.
    The last step's ``info`` has the sole-planning env's keys (``delivered``, ``commonsense``, ``hard``,
    ``reasons``, ``total_cost``, ``constraints_passed``, ``constraints_applicable``, ``error_type``,
    ``metrics`` ...), so ``genenv eval`` prints the same official rates and ``paper_mean``, plus
    ``stop_reason`` (``planned``, ``step_budget``, ``repeated_action``, ``max_retries``,
    ``plan_refused``), ``steps`` and ``notebook_entries``. A collecting step's ``info`` has ``step``,
    ``action_type``, ``notebook_entries`` and, for a bad action, ``error_type`` (``invalid_action``,
    ``null_action``, ``action_error:not_text``, ``action_error:too_long``, ``tool_error:<tool>``) and
    ``error`` (the official error observation).

    ## Episode end
    Terminates after the plan is graded, or (no plan) when the official agent stops early: the same
    action three times in a row, or a fourth failure of one tool (AccommodationSearch and unknown actions:
    of the invalid-action counter) since the last successful action. Truncated (no plan) when
    ``max_steps`` collecting steps pass without ``Planner[...]``; Planner on the last step still gets its
    planning turn.

    ## Arguments
    - ``levels``: query levels (``easy``, ``medium``, ``hard``) or categories (``easy-3day`` ...
      ``hard-7day``) to play (default all); a task's category is ``<level>-<days>day``.
    - ``reward_mode``: ``dense`` (default) or ``final_pass``.
    - ``scoring``: ``official`` (default) or ``corrected`` (``evaluate.DEVIATIONS``).
    - ``max_steps``: collecting steps before truncation (default 30, the official agent's budget).
    - ``split``: the split file ``<data dir>/travelplanner/<split>.jsonl`` (or ``.csv``) in the HF column
      layout (default ``train``).
    - ``data_dir``: data root holding ``travelplanner/`` (default ``$GENENV_DATA_DIR``).

    ``reset(options={"task_id": "train/1"})`` plays the first query of the split.

    ## Version history
    - v0: initial version (the official zero-shot ReAct tool loop, 30 collecting steps, then a plan graded as
      in ``GenEnv-TravelPlanner-v0``)
    """

    def __init__(
        self,
        levels: Sequence[str] | None = None,
        split: str = "train",
        data_dir: str | None = None,
        render_mode: str | None = None,
        reward_mode: str = "dense",
        scoring: str = "official",
        max_steps: int = MAX_STEPS,
    ) -> None:
        domain = TravelPlannerToolsDomain(split, reward_mode, scoring, max_steps)
        super().__init__(domain, levels, data_dir, render_mode)
