"""The Bamboogle benchmark env: Search-R1's search loop over the 125 questions."""

from __future__ import annotations

from typing import Any

from genenv_gym.envs.bamboogle.domain import BamboogleDomain
from genenv_gym.envs.benchmark_env import BenchmarkEnv


class BamboogleEnv(BenchmarkEnv):
    """Bamboogle (125 two-hop questions) in Search-R1's multi-turn search protocol.

    ## Description
    Each episode is one question of ``bamboogle/test.jsonl`` (FlashRAG format). The agent reasons in
    ``<think>``, searches with ``<search>query</search>`` and receives the top-k passages as
    ``<information>Doc 1(Title: ...) ...</information>``, and ends with ``<answer>...</answer>``.

    ## Observation space
    ``UnicodeText``: Search-R1's prompt with the question (stripped, ``?`` appended), then the transcript:
    each turn as kept (cut at the first ``</search>``/``</answer>``) followed by its information block or
    the reference's invalid-action message. A step's ``info["turn_messages"]`` holds that block as one
    user message (what a chat agent adds after its own turn).

    ## Action space
    ``UnicodeText``: the agent's turn text (cut to ``max_response_tokens``).

    ## Rewards
    0 until the answer; then EM (``reward="f1"`` or ``"cover_em"`` to change) of the last ``<answer>`` of
    the agent's turns against the golden answers. ``info``: ``em``, ``cover_em``, ``f1``, ``answer``,
    ``searches``, ``passages``, ``metrics`` (em/cover_em/f1/turns/searches for ``genenv eval``),
    ``error_type`` (``invalid_action``, ``retrieval_error``, ``search_budget``, ``action_error:*``).

    ## Episode end
    Terminates on an answer; truncates after turn ``max_turns + 1`` (default 5: four search turns and the
    reference's final no-search turn) with reward 0.

    ## Arguments
    - ``data_dir``: data root holding ``bamboogle/test.jsonl`` (default ``$GENENV_DATA_DIR``).
    - ``retriever``: ``"none"`` (closed-book, default: searches return no passages), ``"bm25"`` (needs
      ``corpus_path``, a JSONL corpus), ``"http"`` (needs ``retriever_url``, a Search-R1 server).
    - ``topk`` (3), ``max_turns`` (4), ``max_response_tokens`` / ``max_obs_tokens`` (500; measured with
      ``tokenizer`` when given, else 4 characters per token), ``timeout`` / ``retries`` for ``http``.
    - ``extraction``: ``"response"`` (only the agent's turns) or ``"reference"`` (the whole transcript,
      fewer than two ``<answer>`` pairs = no answer, as Search-R1's ``extract_solution``).

    ## Version history
    - v0: initial version (the 125 questions in Search-R1's search loop, closed-book by default, EM of the
      last answer)
    """

    def __init__(self, data_dir: str | None = None, render_mode: str | None = None, **kwargs: Any) -> None:
        super().__init__(BamboogleDomain(**kwargs), None, data_dir, render_mode)
