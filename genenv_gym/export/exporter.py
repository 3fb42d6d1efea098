"""Writing an env's tasks as training data for LLM trainers (``genenv export``).

Which tasks: a benchmark env's official tasks in file order (``limit``: at most that many per category);
a simulator env's proposals, ``num_tasks`` of them drawn by its environment policy in its current state
with a generator seeded by ``seed``.

Formats (one row per task; ``rows_for`` builds them, ``write_rows`` writes them):

- ``verl``: a parquet table with verl's RL columns: ``data_source`` (the env id), ``prompt`` (chat
  messages), ``ability`` (``genenv:<domain>``), ``reward_model`` (``{"style": "rule", "ground_truth":
  <Task JSON>}``) and ``extra_info`` (``index``, ``split``, ``task_id``, ``category``, ``level``,
  ``provenance``, ``env_id``, ``domain`` and, for a domain reading a data folder other than the default,
  ``domain_kwargs``) and ``agent_name`` (``genenv_agent``: verl's agent loop that plays the env live,
  ``genenv_gym/integrations/verl_agent_loop.py``; rows without it are single-turn prompts). Grade with
  ``genenv_gym/export/rewards.py:compute_score``, or let the agent loop give the env's reward.
- ``trl``: a table ``datasets.load_dataset`` reads (JSON Lines, or parquet when the path ends in
  ``.parquet``) with ``prompt`` (chat messages, TRL's conversational prompt-only format), ``task`` (the
  Task JSON, which ``rewards.trl_reward`` receives), ``task_id``, ``category``, ``level``, ``env_id``.
- ``jsonl``: the Tasks themselves, one ``Task.to_json()`` per line (``Task.from_json`` reads them back).
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from genenv_gym.domain import Domain
from genenv_gym.suggest import check_choice
from genenv_gym.task import Task, thaw

FORMATS = ("verl", "trl", "jsonl")
#: Default output file name suffix per format.
SUFFIX = {"verl": ".parquet", "trl": ".jsonl", "jsonl": ".jsonl"}
#: The ``agent_name`` of verl rows: the agent loop registered by ``genenv_gym.integrations.verl_agent_loop``.
VERL_AGENT_NAME = "genenv_agent"


@dataclass(frozen=True)
class ExportResult:
    """What ``export`` wrote."""

    path: Path
    format: str
    rows: int
    env_id: str
    split: str


def is_simulator(env: gym.Env) -> bool:
    """Whether an env serves generated tasks (it has a simulator and no fixed task list)."""
    return (
        getattr(env.unwrapped, "simulator", None) is not None
        and getattr(env.unwrapped, "tasks", None) is None
    )


def collect_tasks(
    env_id: str,
    limit: int | None = None,
    num_tasks: int = 100,
    seed: int = 0,
    env_kwargs: dict[str, Any] | None = None,
) -> tuple[list[Task], dict[str, Any]]:
    """The tasks of an env (see the module docstring), and the arguments its domain needs to grade them.

    The domain arguments are its ``data_dir`` when it reads one that is not the default (ALFWorld replays
    transcripts on its game files); the reward functions receive them through the rows.
    """
    env = gym.make(env_id, **(env_kwargs or {}))
    try:
        return _collect(env, env_id, limit, num_tasks, seed)
    finally:
        env.close()


def _collect(
    env: gym.Env, env_id: str, limit: int | None, num_tasks: int, seed: int
) -> tuple[list[Task], dict[str, Any]]:
    base = env.unwrapped
    data_dir = getattr(base.domain, "data_dir", None)
    domain_kwargs = {"data_dir": str(data_dir)} if data_dir else {}
    if is_simulator(env):
        base.np_random = np.random.default_rng(seed)
        return list(base.simulator.propose(num_tasks, base.tracker.estimate(), base.np_random)), domain_kwargs
    tasks = getattr(base, "tasks", None)
    if tasks is None:
        raise ValueError(f"{env_id} has neither a task list nor a simulator: nothing to export")
    per_category: dict[str, int] = defaultdict(int)
    chosen = []
    for task in tasks:
        if limit is None or per_category[task.category] < limit:
            per_category[task.category] += 1
            chosen.append(task)
    return chosen, domain_kwargs


def _prompt(task: Task, domain: Domain | None) -> list[dict[str, str]]:
    messages = domain.opening_chat(task) if domain is not None else thaw(task.messages)
    return [{"role": str(m.get("role", "user")), "content": str(m.get("content", ""))} for m in messages]


def rows_for(
    tasks: list[Task],
    fmt: str,
    env_id: str,
    split: str,
    domain_kwargs: dict[str, Any] | None = None,
    domain: Domain | None = None,
) -> list[dict[str, Any]]:
    """One row per task in the layout of ``fmt`` (see the module docstring).

    ``domain_kwargs`` (verl and TRL rows) go in as a JSON string, ``domain_kwargs``, for the reward functions.
    A row's ``prompt`` is the chat the env's ``reset`` opens the task with (``domain.opening_chat``; without
    a domain, the task's messages, which is the same for every domain but ALFWorld-Step's).
    """
    check_choice("format", fmt, FORMATS)
    if fmt == "jsonl":
        return [task.to_dict() for task in tasks]
    rows = []
    for index, task in enumerate(tasks):
        meta: dict[str, Any] = {
            "task_id": task.id,
            "category": task.category,
            "level": task.level,
            "env_id": env_id,
        }
        if domain_kwargs:
            meta["domain_kwargs"] = json.dumps(domain_kwargs, sort_keys=True)
        if fmt == "verl":
            rows.append(
                {
                    "data_source": env_id,
                    "prompt": _prompt(task, domain),
                    "ability": f"genenv:{task.domain}",
                    "reward_model": {"style": "rule", "ground_truth": task.to_json()},
                    "extra_info": {
                        "index": index,
                        "split": split,
                        **meta,
                        "provenance": task.provenance,
                        "domain": task.domain,
                    },
                    "agent_name": VERL_AGENT_NAME,
                }
            )
        else:
            rows.append({"prompt": _prompt(task, domain), "task": task.to_json(), **meta})
    return rows


def write_rows(rows: list[dict[str, Any]], path: str | Path, fmt: str) -> Path:
    """Write rows as parquet (verl, or any path ending in ``.parquet``) or JSON Lines."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "verl" or path.suffix == ".parquet":
        if fmt == "jsonl":
            raise ValueError("the jsonl format writes JSON Lines; give a path that does not end in .parquet")
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError as error:
            raise ImportError("parquet output needs pyarrow: pip install 'genenv-gym[export]'") from error
        pq.write_table(pa.Table.from_pylist(rows), path)
    else:
        with path.open("w", encoding="utf-8") as fh:
            for row in rows:
                fh.write(json.dumps(row, ensure_ascii=False, sort_keys=fmt == "jsonl") + "\n")
    return path


def export(
    env_id: str,
    fmt: str,
    out: str | Path | None = None,
    limit: int | None = None,
    num_tasks: int = 100,
    seed: int = 0,
    split: str | None = None,
    env_kwargs: dict[str, Any] | None = None,
) -> ExportResult:
    """Collect an env's tasks and write them in ``fmt``; ``out`` defaults to ``<env_id>.<format><suffix>``.

    ``split`` (the ``extra_info.split`` of verl rows) defaults to ``train`` for simulator envs and ``test``
    for benchmark envs.
    """
    check_choice("format", fmt, FORMATS)
    env = gym.make(env_id, **(env_kwargs or {}))
    try:
        tasks, domain_kwargs = _collect(env, env_id, limit, num_tasks, seed)
        if split is None:
            generated = all(not t.provenance.startswith("benchmark") for t in tasks)
            split = "train" if generated else "test"
        rows = rows_for(tasks, fmt, env_id, split, domain_kwargs, env.unwrapped.domain)
    finally:
        env.close()
    path = Path(out) if out is not None else Path(f"{env_id}.{fmt}{SUFFIX[fmt]}")
    written = write_rows(rows, path, fmt)
    return ExportResult(written, fmt, len(tasks), env_id, split)
