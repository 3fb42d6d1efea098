"""``GenEnv-BFCL-v0`` and its per-category variants."""

from __future__ import annotations

from collections.abc import Sequence

from genenv_gym.envs.benchmark_env import BenchmarkEnv
from genenv_gym.envs.bfcl.domain import BFCLDomain


class BFCLEnv(BenchmarkEnv):
    """Berkeley Function Calling Leaderboard (v4), single-turn AST categories, on the official metric.

    ## Description
    Each episode is one BFCL record. The agent reads BFCL's default system prompt (the candidate
    functions as JSON, the required call format) followed by the user turn, and answers with function
    calls. The answer is graded by a reimplementation of bfcl-eval 2026.3.23's AST checker: function
    name, required and unexpected parameters, type rules, string standardisation, optional parameters,
    parallel calls in any order; irrelevance passes iff the answer decodes to no call, live_relevance iff
    it decodes to at least one. Java and JavaScript answers are parsed with tree-sitter, as official.

    ## Observation space
    ``UnicodeText`` (a ``spaces.Text`` accepting any characters): the prompt, each chat turn headed by
    its role. ``info["messages"]`` and ``info["tools"]`` give the same prompt as chat messages and the
    raw function specs for chat-template agents.

    ## Action space
    ``UnicodeText`` of at most 100,000 characters: the model's answer, ``[f(a=1), g(b='x')]`` with
    ``action_format="python"`` (default) or a JSON list of ``{"name", "arguments"}`` tool calls with
    ``action_format="json"``. Model output is parsed with ``ast`` / tree-sitter and never executed.

    ## Rewards
    1.0 if the checker accepts the answer, else 0.0. ``info["error_type"]`` carries the official error
    type (``simple_function_checker:missing_required``, ``ast_decoder:decoder_failed``, ...) and
    ``info["error"]`` the reason.

    ## Episode end
    Terminates after one step. Calling ``step`` again before ``reset`` raises.

    ## Arguments
    - ``categories``: BFCL categories to draw from (default: all 13 AST categories).
    - ``data_dir``: benchmark data root holding ``bfcl/`` (default ``$GENENV_DATA_DIR``).
    - ``action_format``: ``"python"`` or ``"json"``.

    ``reset(options={"task_id": "simple_python_0"})`` plays a record by its official id.

    ## Version history
    - v0: initial version (BFCL v4's 13 single-turn AST categories, graded by a reimplementation of bfcl-eval
      2026.3.23's AST checker)
    """

    def __init__(
        self,
        categories: Sequence[str] | None = None,
        data_dir: str | None = None,
        action_format: str = "python",
        render_mode: str | None = None,
    ) -> None:
        super().__init__(BFCLDomain(action_format), categories, data_dir, render_mode)
