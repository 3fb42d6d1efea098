"""The BFCL multi-turn benchmark env (``GenEnv-BFCL-MultiTurn-v0`` and its per-category ids)."""

from __future__ import annotations

from collections.abc import Sequence

from genenv_gym.envs.benchmark_env import BenchmarkEnv
from genenv_gym.envs.bfcl_multiturn import long_context
from genenv_gym.envs.bfcl_multiturn.domain import BFCLMultiTurnDomain
from genenv_gym.envs.bfcl_multiturn.episode import MAXIMUM_STEP_LIMIT


class BFCLMultiTurnEnv(BenchmarkEnv):
    """Berkeley Function Calling Leaderboard v4, multi-turn categories, on the official checker.

    ## Description
    Each episode is one BFCL multi-turn entry (``multi_turn_base``, ``multi_turn_miss_func``,
    ``multi_turn_miss_param``, ``multi_turn_long_context``: 200 each). The entry's backends (file system,
    messaging, posting, tickets, trading, travel, vehicle, math: our implementations of the official
    classes) are loaded from its ``initial_config``; the user's turns are shown one at a time. At each step
    the agent writes calls, which run on the backends (their results come back as ``tool`` messages), or
    text that is not a call, which ends its turn. Each turn is judged when it ends by a reimplementation of
    bfcl-eval 2026.3.23's multi-turn checker: the backends' state must equal the ground truth's (the
    turn's possible answer run on its own backends) and the ground truth's execution results must appear
    among the agent's. In miss_func turns the held-out function docs are shown instead of a user message;
    turns with an empty ground truth (the information is missing) are not checked.

    ## Observation space
    ``UnicodeText``: BFCL's default prompting system prompt with the function docs, then the conversation
    so far (user, assistant and tool turns, each headed by its role). ``info["messages"]`` and
    ``info["tools"]`` at reset give the first turn as chat messages and the docs shown from the start.

    ## Action space
    ``UnicodeText`` of at most 100,000 characters: ``[func(a=1), g()]`` (decoded with ``ast``, never
    executed as code), or any other text, which ends the agent's turn.

    ## Rewards
    0.0 until the end; then 1.0 if every checked turn passed, else 0.0. The final ``info`` has
    ``success``, ``error_type`` (the official ``multi_turn:...`` strings), ``error``, ``turn_verdicts``
    (one per turn) and ``metrics`` (``success``, ``turns_passed``). Every step's ``info`` has ``turn``,
    and after a call step ``execution_results``; a step that ends a turn has ``turn_verdict``.

    ## Episode end
    Terminates after the agent ends the last turn, or when a turn exceeds the official step limit
    (more than 20 call steps: force-terminated, reward 0, unless in the last turn, which is then judged).

    ## Arguments
    - ``categories``: some of the four categories (default all).
    - ``data_dir``: data root holding ``bfcl/`` in the official layout (default ``$GENENV_DATA_DIR``).
    - ``max_steps_per_turn``: the step limit (default 20, the official ``MAXIMUM_STEP_LIMIT``).
    - ``strict_irrelevance``: also fail an entry whose agent called a function in a turn with an empty
      ground truth (the official rule bfcl-eval 2026.3.23 defines but does not apply; default False).
    - ``official_filler``: path of an unpacked bfcl-eval ``long_context.py`` whose long-context filler
      values to use (read with ``ast``, process-wide); by default a generated filler of the same shape.

    ``reset(options={"task_id": "multi_turn_base_0"})`` plays one entry by its official id.
    """

    def __init__(
        self,
        categories: Sequence[str] | None = None,
        data_dir: str | None = None,
        max_steps_per_turn: int = MAXIMUM_STEP_LIMIT,
        strict_irrelevance: bool = False,
        official_filler: str | None = None,
        render_mode: str | None = None,
    ) -> None:
        if official_filler is not None:
            long_context.load_official_filler(official_filler)
        domain = BFCLMultiTurnDomain(max_steps_per_turn, strict_irrelevance)
        super().__init__(domain, categories, data_dir, render_mode)
