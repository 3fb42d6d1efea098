"""Benchmarking an agent on envs with their official metrics: per-category and per-level scores, resumable.

``evaluate`` plays one agent on one env:

- benchmark envs: every task in file order (``limit``: at most that many per category);
- simulator envs (no fixed task list): ``episodes`` episodes of the curriculum, from ``reset(seed=seed)``.

Agents (``make_eval_agent``): ``oracle`` and ``random`` (the scripted baselines), or an LLM through any
backend spec (``hf:PATH``, ``openai:MODEL@URL``, ``sglang:PATH``, ``sglang-server:URL``, ``tiny:ARCH``).

Every finished episode is appended to ``results_path`` (JSON Lines) as soon as it ends, with the actions
taken. With ``resume=True`` the episodes already in that file are not played again: a benchmark task is
skipped by its index, and a simulator env gets its recorded actions replayed (cheap, no agent call) so its
curriculum reaches the same state before the run goes on. Scripted agents draw from a generator seeded
per episode, so a resumed run gives the same results as an uninterrupted one.

A simulator env whose tasks an environment LLM writes (``simulator="llm"``) also reports what its
screening decided (``EvalReport.screening``: tasks written, accepted, rejected by kind, the top reasons).

``batch_size > 1`` plays an LLM agent on several copies of a benchmark env at once, with one batched
backend call per step of all of them (the hf and sglang backends generate the batch together).

Every record and report is pinned (``pins``: the env version, the task's data fingerprint, the evaluator and
its code, the agent and its sampling settings, the package version); ``samples=k`` plays every task k times
(``pass_at_k``: pass@k, pass^k, the per-task success rate); ``rescore`` judges a stored run again without
the agent and ``compare`` compares two runs over their shared tasks (docs/reproducible_scores.md).

The modules: ``play`` (``evaluate`` and the episodes), ``report`` (``EvalReport``, its table and CSV, the
overview), ``results_file`` (the resumable JSON Lines file, a run folder read back), ``agents`` (checking an
agent name, the backend built once), ``pins``, ``pass_at_k``, ``rescore``, ``compare``. Every public name of
the first four is importable from this package.
"""

from genenv_gym.evaluation.agents import (
    SCRIPTED_AGENTS,
    EvalAgent,
    check_agent,
    is_llm_agent,
    make_backend_once,
    request_failure,
)
from genenv_gym.evaluation.play import ERROR_CHARS_KEPT, evaluate
from genenv_gym.evaluation.report import (
    CSV_FIELDS,
    EXAMPLE_CHARS,
    NAME_WIDTH,
    TOP_FAILURES_SHOWN,
    TOP_REASONS_KEPT,
    TOP_REASONS_SHOWN,
    EvalReport,
    overview_table,
    screening_lines,
    screening_summary,
    write_csv,
)
from genenv_gym.evaluation.results_file import ResumeError, read_results

__all__ = [
    "CSV_FIELDS",
    "ERROR_CHARS_KEPT",
    "EXAMPLE_CHARS",
    "NAME_WIDTH",
    "SCRIPTED_AGENTS",
    "TOP_FAILURES_SHOWN",
    "TOP_REASONS_KEPT",
    "TOP_REASONS_SHOWN",
    "EvalAgent",
    "EvalReport",
    "ResumeError",
    "check_agent",
    "evaluate",
    "is_llm_agent",
    "make_backend_once",
    "overview_table",
    "read_results",
    "request_failure",
    "screening_lines",
    "screening_summary",
    "write_csv",
]
