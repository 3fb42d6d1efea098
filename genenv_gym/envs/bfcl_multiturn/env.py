"""The BFCL multi-turn benchmark envs: whole entries (``GenEnv-BFCL-MultiTurn-v0`` and its per-category ids)
and single turns (``GenEnv-BFCL-LongContext-Step-v0``, the GenEnv paper's protocol)."""

from __future__ import annotations

from collections.abc import Sequence

from genenv_gym.envs.benchmark_env import BenchmarkEnv
from genenv_gym.envs.bfcl_multiturn import long_context
from genenv_gym.envs.bfcl_multiturn.domain import BFCLMultiTurnDomain, BFCLMultiTurnStepDomain
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
    ``info["tools"]`` at reset give the first turn as chat messages and the docs shown from the start;
    each later step's ``info["turn_messages"]`` holds the messages added after the agent's action (the
    ``tool`` results of its calls, or the next user turn).
    What the agent is shown of its calls' results is bounded (:mod:`.shown_results`): a result longer than
    100,000 characters is cut, ending ``... [truncated: X of Y characters]``, and once a step's shown
    results reach 400,000 characters each later call of that step shows
    ``[not shown: Y characters; this step's results passed 400,000 characters]``. The official data is far
    below both (longest result 31,689 characters, longest step 70,446), and the checker always compares
    the full results.

    ## Action space
    ``UnicodeText`` of at most 100,000 characters: ``[func(a=1), g()]`` (decoded with ``ast``, never
    executed as code) with ``action_format="python"`` (default), or a JSON list of
    ``{"name": ..., "arguments": {...}}`` tool calls with ``action_format="json"`` (the single-turn
    env's JSON decoder; the system prompt then asks for that format); any other text ends the agent's
    turn.

    ## Rewards
    0.0 until the end; then 1.0 if every checked turn passed, else 0.0. The final ``info`` has
    ``success``, ``error_type`` (the official ``multi_turn:...`` strings), ``error``, ``turn_verdicts``
    (one per turn) and ``metrics`` (``success``, ``turns_passed``). Every step's ``info`` has ``turn``,
    and after a call step ``execution_results`` (as shown); a step that ends a turn has ``turn_verdict``.

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
      values to use (read with ``ast``; process-wide: every env of the process shows it, and an env asking
      for a different file while one is in use raises); by default a generated filler of the same shape.
      ``genenv serve`` never lets a client set it.
    - ``action_format``: ``"python"`` (``[f(a=1)]``, the official prompting format) or ``"json"`` (JSON
      tool calls).

    ``reset(options={"task_id": "multi_turn_base_0"})`` plays one entry by its official id.

    ## Version history
    - v0: initial version (the four multi-turn categories, 200 entries each, every turn judged by bfcl-eval
      2026.3.23's multi-turn checker)
    - v0, amended (issue 45): the results shown to the agent are bounded (100,000 characters per result,
      400,000 per step, with markers); no official episode's transcript or any verdict changes, so the id
      stays v0
    """

    #: The domain class whose tasks and episodes the env serves.
    domain_class: type[BFCLMultiTurnDomain] = BFCLMultiTurnDomain

    def __init__(
        self,
        categories: Sequence[str] | None = None,
        data_dir: str | None = None,
        max_steps_per_turn: int = MAXIMUM_STEP_LIMIT,
        strict_irrelevance: bool = False,
        official_filler: str | None = None,
        action_format: str = "python",
        render_mode: str | None = None,
    ) -> None:
        if official_filler is not None:
            long_context.load_official_filler(official_filler)
        domain = self.domain_class(max_steps_per_turn, strict_irrelevance, action_format)
        super().__init__(domain, categories, data_dir, render_mode)


class BFCLMultiTurnStepEnv(BFCLMultiTurnEnv):
    """BFCL v4 multi-turn, one turn per episode, after the ground truth of the earlier turns.

    ## Description
    The GenEnv paper's BFCL protocol: every turn of every entry (``GenEnv-BFCL-LongContext-Step-v0``: the
    200 ``multi_turn_long_context`` entries, 734 turns) is its own task. The state before the turn is
    reached by playing the ground-truth calls of the earlier turns on fresh backends (long-context mode for
    that category); the agent then plays only this turn, as in ``GenEnv-BFCL-MultiTurn-v0``: calls run on
    the backends and come back as ``tool`` messages, text that is not a call ends the turn. The turn is
    judged by the same reimplementation of bfcl-eval 2026.3.23's checker: state equal to the ground truth's
    after the turn, and the turn's ground-truth results among the results so far (the replayed turns'
    included, as officially). A turn whose ground truth is empty is not checked (it passes, as in the
    official runner) unless ``strict_irrelevance``.

    ## Observation space
    ``UnicodeText``: BFCL's default prompting system prompt with the function docs, then the conversation:
    each earlier user turn, the ground-truth calls as one assistant step with their results as ``tool``
    messages and the reply "I have completed the request.", then this turn's user message (and, after each
    call step, the agent's calls and their results, bounded as in ``GenEnv-BFCL-MultiTurn-v0``).
    ``info["messages"]`` at reset is the same as chat.

    ## Action space
    ``UnicodeText`` of at most 100,000 characters: ``[func(a=1), g()]`` (or JSON tool calls with
    ``action_format="json"``), or text that ends the turn; the replayed earlier turns are written in the
    same format.

    ## Rewards
    0.0 until the turn ends; then 1.0 if it passed the official state and response checks, else 0.0. The
    final ``info`` has ``success``, ``error_type`` (``multi_turn:...``), ``error``, ``turn_verdict`` and
    ``metrics`` (``success``, ``checked``).

    ## Episode end
    Terminates when the agent ends the turn, or when the turn passes the official step limit (more than 20
    call steps: force-terminated, reward 0, unless it is the entry's last turn, which is then judged).

    ## Arguments
    As ``GenEnv-BFCL-MultiTurn-v0``.

    ``reset(options={"task_id": "multi_turn_long_context_0#turn2"})`` plays one turn. The tasks are built
    by playing every entry's ground truth once (a second or more for 200 entries) when the env is first made
    on this data and code; later makes read them from the on-disk task cache
    (``genenv_gym.datasets.task_cache``).

    ## Version history
    - v0: initial version (the 734 turns of the 200 long-context entries, each reached by replaying the
      earlier turns' ground truth)
    - v0, amended (issue 45): the results shown to the agent are bounded as in ``GenEnv-BFCL-MultiTurn-v0``
      (no official turn's transcript or verdict changes, so the id stays v0)
    """

    domain_class = BFCLMultiTurnStepDomain
