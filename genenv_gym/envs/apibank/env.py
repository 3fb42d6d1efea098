"""The API-Bank benchmark envs: API calls (level-1, level-2), responses and whole dialogues."""

from __future__ import annotations

from collections.abc import Sequence

from genenv_gym.envs.apibank.domain import APIBankDialogueDomain, APIBankDomain, APIBankResponseDomain
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
    ``exception``, ``output_mismatch``, ``input_mismatch``), ``info["api_output"]`` (JSON text, None when
    there is no output) and ``info["api_exception"]`` what the simulated API returned,
    ``info["metrics"]["correct"]`` the verdict.

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

    ## Version history
    - v0: initial version (399 level-1 and 135 level-2 API-call samples, the official correctness rules;
      ``scoring`` official or corrected)
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
    ROUGE-L F1 against the recorded reply (``rouge`` 1.0.1, rounded to 4 places); empty output scores 0, and
    so does output over 4,000 characters (not scored; the longest reply is 1,335).
    ``info["success"]`` is ROUGE-L >= 0.5; ``info["metrics"]["rouge_l"]`` the score.

    ## Episode end
    Terminates after one step.

    ## Arguments
    - ``levels``: ``["level-1"]``, ``["level-2"]`` or both (default both).
    - ``data_dir``: data root holding ``apibank/`` (default ``$GENENV_DATA_DIR``).

    ## Version history
    - v0: initial version (375 level-1 and 103 level-2 response samples, ROUGE-L F1 by ``rouge`` 1.0.1)
    """

    def __init__(
        self,
        levels: Sequence[str] | None = None,
        data_dir: str | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__(APIBankResponseDomain(), levels, data_dir, render_mode)


class APIBankDialogueEnv(BenchmarkEnv):
    """A whole API-Bank dialogue, the agent playing the AI side against the recorded user.

    ## Description
    Each episode is one recorded dialogue (214 level-1, 50 level-2). The user's turns come from the
    recording; at each turn the agent calls an API (the simulated API answers with its real output; state
    persists through the episode) or replies in text, which moves the dialogue to the user's next turns.
    Level-2 dialogues describe only ToolSearcher.

    ## Observation space
    ``UnicodeText``: the instruction and API descriptions, then the conversation so far (API results as
    ``[Api(k='v')] Response: ...`` system turns). ``info["messages"]`` at reset is the opening as chat
    messages; each later step's ``info["turn_messages"]`` holds the turns added after the agent's action
    (an API result, the user's next turns, or none when the agent speaks again).

    ## Action space
    ``UnicodeText``: ``[ApiName(key='value', ...)]`` or a reply. Parameters are typed as declared.

    ## Rewards
    0.0 until the end; then 1.0 if every recorded API effect was reached (for each recorded API turn, in
    order, an agent call of that API returned what the reference call returns on the recording's state,
    under the corrected rules), else 0.0. ``info["metrics"]["effects_reached"]`` is the fraction reached.

    ## Episode end
    Terminates after the reply that exhausts the recording; truncates after ``max_steps`` actions
    (default twice the recording's AI and API turns, plus 4).

    ## Arguments
    - ``levels``: ``["level-1"]``, ``["level-2"]`` or both (default both).
    - ``data_dir``: data root holding ``apibank/`` (default ``$GENENV_DATA_DIR``).
    - ``max_steps``: the step limit per episode.

    ## Version history
    - v0: initial version (214 level-1 and 50 level-2 dialogues against the recorded user, reward 1 when every
      recorded API effect is reached)
    """

    def __init__(
        self,
        levels: Sequence[str] | None = None,
        data_dir: str | None = None,
        max_steps: int | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__(APIBankDialogueDomain(max_steps), levels, data_dir, render_mode)
