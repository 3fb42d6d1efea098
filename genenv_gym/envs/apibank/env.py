"""``GenEnv-APIBank-v0`` (level-1), ``GenEnv-APIBank-L2-v0`` (level-2) and ``GenEnv-APIBank-Response-v0``."""

from __future__ import annotations

from collections.abc import Sequence

from genenv_gym.envs.apibank.domain import APIBankDomain, APIBankResponseDomain
from genenv_gym.envs.benchmark_env import BenchmarkEnv


class APIBankEnv(BenchmarkEnv):
    """API-Bank API-call samples on the official metric, with the ~50 APIs simulated in-process.

    ## Description
    Each episode is one official API-call sample (``evaluator.py``'s ``Sample.from_chat_history``): the
    dialogue up to an API turn, and the model must write that call. Level-1 (``level-1-given-desc``,
    399 samples) describes the dialogue's APIs; level-2 (``level-2-toolsearcher``, 135 samples) describes
    only ToolSearcher. The call is parsed as the official extraction parses it (never executed), run on a
    fresh copy of the init databases, and judged by the API's own official correctness rule.

    ## Observation space
    ``UnicodeText``: the official prompt (instruction and API descriptions as the system turn, then the
    history: user / assistant turns, and past API turns as ``[Api(k='v')] Response: ...`` system turns).
    ``info["messages"]`` and ``info["tools"]`` give the same as chat messages and API descriptions.

    ## Action space
    ``UnicodeText`` of at most 100,000 characters: ``[ApiName(key='value', ...)]``.

    ## Rewards
    1.0 when the official rule accepts the call, else 0.0. ``info["error_type"]`` is the error bucket
    (``no_call``, ``api_name_mismatch``, ``invalid_parameter``, ``missing_parameter``, ``checker_error``,
    ``exception``, ``output_mismatch``, ``input_mismatch``), ``info["api_output"]`` and
    ``info["api_exception"]`` what the simulated API returned, ``info["metrics"]["correct"]`` the verdict.

    ## Episode end
    Terminates after one step.

    ## Arguments
    - ``levels``: ``["level-1"]``, ``["level-2"]`` or both (default both).
    - ``data_dir``: data root holding ``apibank/`` in the official layout (default ``$GENENV_DATA_DIR``).
    - ``scoring``: ``"official"`` (default, bug-compatible with ``evaluator.py``) or ``"corrected"``
      (state carried across the dialogue's earlier API turns, typed parameters, current parameter
      names; the reference calls all pass). See docs/apibank.md.

    ``reset(options={"task_id": "level-1-given-desc/AddAlarm-level-1-1.jsonl#0"})`` plays one sample by
    its official folder, file and sample index.
    """

    def __init__(
        self,
        levels: Sequence[str] | None = None,
        data_dir: str | None = None,
        scoring: str = "official",
        render_mode: str | None = None,
    ) -> None:
        super().__init__(APIBankDomain(scoring), levels, data_dir, render_mode)


class APIBankResponseEnv(BenchmarkEnv):
    """API-Bank response samples: the AI reply after an API result, scored by ROUGE-L F1 as officially.

    ## Description
    Each episode is one official response sample: the dialogue up to and including an API turn, and the
    model writes the AI's next reply (375 level-1 and 103 level-2 samples).

    ## Observation space
    ``UnicodeText``: the official response prompt with the dialogue's API descriptions, then the history.

    ## Action space
    ``UnicodeText`` of at most 100,000 characters: the reply.

    ## Rewards
    ROUGE-L F1 against the recorded reply (``rouge`` 1.0.1, rounded to 4 places); empty output scores 0.
    ``info["success"]`` is ROUGE-L >= 0.5; ``info["metrics"]["rouge_l"]`` the score.

    ## Episode end
    Terminates after one step.

    ## Arguments
    - ``levels``: ``["level-1"]``, ``["level-2"]`` or both (default both).
    - ``data_dir``: data root holding ``apibank/`` (default ``$GENENV_DATA_DIR``).
    """

    def __init__(
        self,
        levels: Sequence[str] | None = None,
        data_dir: str | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__(APIBankResponseDomain(), levels, data_dir, render_mode)
