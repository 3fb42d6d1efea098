"""genenv export: verl / TRL / jsonl tables whose rows round-trip through the tasks' own verifier."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from genenv_gym.cli.main import main
from genenv_gym.envs.bfcl.domain import REFUSAL, BFCLDomain
from genenv_gym.export import export, rows_for
from genenv_gym.export.rewards import compute_score, score, trl_reward
from genenv_gym.fixtures import FIXTURES_DIR
from genenv_gym.task import Task

FIXTURE_KWARGS = {"data_dir": str(FIXTURES_DIR)}


def wrong_answer(task: Task) -> str:
    """An answer the verifier rejects: a call for an irrelevance task, else the refusal."""
    domain = BFCLDomain(task.evaluation.get("action_format", "python"))
    if task.category.endswith("irrelevance"):
        return domain.random_action(task, np.random.default_rng(0))
    return REFUSAL


def test_verl_parquet_has_verls_columns_and_round_trips_through_the_verifier(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    result = export("GenEnv-BFCL-v0", "verl", tmp_path / "bfcl.parquet", env_kwargs=FIXTURE_KWARGS)
    table = pq.read_table(result.path)
    assert result.rows == table.num_rows == 14 and result.split == "test"
    assert table.column_names == [
        "data_source",
        "prompt",
        "ability",
        "reward_model",
        "extra_info",
        "agent_name",
    ]
    rows = table.to_pylist()
    categories = set()
    for row in rows:
        assert row["data_source"] == "GenEnv-BFCL-v0" and row["ability"] == "genenv:bfcl"
        assert row["reward_model"]["style"] == "rule" and row["agent_name"] == "genenv_agent"
        assert [m["role"] for m in row["prompt"]] == ["system", "user"]
        task = Task.from_json(row["reward_model"]["ground_truth"])
        assert task.id == row["extra_info"]["task_id"] and row["extra_info"]["split"] == "test"
        categories.add(task.category)
        oracle = BFCLDomain().oracle_action(task)
        args = (row["data_source"], row["reward_model"]["ground_truth"], row["extra_info"])
        assert compute_score(args[0], oracle, args[1], args[2]) == 1.0, task.id
        assert compute_score(args[0], wrong_answer(task), args[1], args[2]) == 0.0, task.id
    assert len(categories) == 13


def test_trl_table_feeds_the_trl_reward_function(tmp_path):
    result = export("GenEnv-Sim-BFCL-v0", "trl", tmp_path / "sim.jsonl", num_tasks=30, seed=4)
    rows = [json.loads(line) for line in result.path.read_text().splitlines()]
    assert result.rows == len(rows) == 30 and result.split == "train"
    assert set(rows[0]) == {"prompt", "task", "task_id", "category", "level", "env_id"}
    tasks = [Task.from_json(row["task"]) for row in rows]
    assert all(t.provenance == "procedural" for t in tasks) and len({t.level for t in tasks}) > 3
    domain = BFCLDomain()
    right = [[{"role": "assistant", "content": domain.oracle_action(t)}] for t in tasks]  # conversational
    wrong = [wrong_answer(t) for t in tasks]  # standard (plain string) completions
    column = [row["task"] for row in rows]
    assert trl_reward(right, column) == [1.0] * 30
    assert trl_reward(wrong, column, task_id=[r["task_id"] for r in rows]) == [0.0] * 30
    pa_json = pytest.importorskip("pyarrow.json")  # what datasets.load_dataset("json") reads with
    table = pa_json.read_json(result.path)
    assert table.num_rows == 30 and table.schema.field("prompt").type.value_type.num_fields == 2


def test_simulator_export_is_seeded_and_trl_can_be_parquet(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    a = export("GenEnv-Sim-BFCL-v0", "jsonl", tmp_path / "a.jsonl", num_tasks=12, seed=9)
    b = export("GenEnv-Sim-BFCL-v0", "jsonl", tmp_path / "b.jsonl", num_tasks=12, seed=9)
    assert a.path.read_text() == b.path.read_text()
    tasks = [Task.from_json(line) for line in a.path.read_text().splitlines()]
    assert len(tasks) == 12 and all(score(t, BFCLDomain().oracle_action(t)) == 1.0 for t in tasks)
    c = export("GenEnv-Sim-BFCL-v0", "trl", tmp_path / "c.parquet", num_tasks=5)
    assert pq.read_table(c.path).num_rows == 5


def test_completions_are_read_like_llm_replies():
    task = _fixture_task("simple_python_0")
    assert Task.from_dict(rows_for([task], "jsonl", "GenEnv-BFCL-v0", "test")[0]) == task
    oracle = BFCLDomain().oracle_action(task)
    assert score(task, f"<think>the area formula</think>\n```python\n{oracle}\n```") == 1.0
    assert score(task, f"<think>x</think>{oracle}", parse=False) == 0.0
    assert score(task, "") == 0.0 and score(task.to_dict(), oracle) == 1.0


def test_cli_export_reports_rows_and_the_reward_to_use(tmp_path, capsys):
    out = tmp_path / "bfcl_sp.parquet"
    args = ["--env", "GenEnv-BFCL-SimplePython-v0", "--format", "verl", "--out", str(out)]
    code = main(["export", *args, "--env-kwargs", json.dumps(FIXTURE_KWARGS)])
    assert code == 0 and out.exists()
    printed = capsys.readouterr().out
    assert "wrote 2 verl rows" in printed and "custom_reward_function.name=compute_score" in printed
    config_line = next(line for line in printed.splitlines() if "agent_loop_config_path=" in line)
    assert Path(config_line.split("agent_loop_config_path=")[1]).read_text().count("name: genenv_agent") == 1
    assert main(["export", "--env", "GenEnv-Nope-v0", "--format", "jsonl"]) == 2
    assert main(["export", "--env", "GenEnv-BFCL-v0", "--format", "jsonl", "--env-kwargs", "[1]"]) == 2


def _fixture_task(task_id: str) -> Task:
    return next(t for t in BFCLDomain().load_tasks(["simple_python"], str(FIXTURES_DIR)) if t.id == task_id)


@pytest.fixture(scope="module")
def tiny_alfworld(tmp_path_factory):
    """The ALFWorld team's tiny hand-written games (skips without the engine)."""
    pytest.importorskip("alfworld")
    pytest.importorskip("textworld")
    tiny = pytest.importorskip("genenv_gym.envs.alfworld.tiny")
    return str(tiny.write_tiny_games(tmp_path_factory.mktemp("tiny")))


def test_alfworld_transcripts_are_graded_by_replaying_them(tiny_alfworld, tmp_path):
    result = export(
        "GenEnv-ALFWorld-v0", "trl", tmp_path / "alf.jsonl", env_kwargs={"data_dir": tiny_alfworld}
    )
    rows = [json.loads(line) for line in result.path.read_text().splitlines()][:2]
    assert json.loads(rows[0]["domain_kwargs"]) == {"data_dir": tiny_alfworld}
    tasks = [Task.from_json(row["task"]) for row in rows]
    walkthroughs = ["\n".join(t.evaluation["walkthrough"]) for t in tasks]
    settings = [row["domain_kwargs"] for row in rows]
    assert trl_reward(walkthroughs, [r["task"] for r in rows], domain_kwargs=settings) == [1.0, 1.0]
    assert trl_reward(["look", "inventory"], [r["task"] for r in rows], domain_kwargs=settings) == [0.0, 0.0]


def test_wrappers_export_and_eval_import_no_torch():
    import subprocess
    import sys

    modules = (
        "genenv_gym.wrappers.candidate_actions, genenv_gym.wrappers.token_ids, genenv_gym.wrappers.skill_sync"
    )
    code = (
        f"import {modules}, genenv_gym.wrappers.embeddings, genenv_gym.export, genenv_gym.export.rewards, "
        "genenv_gym.evaluation, sys; assert 'torch' not in sys.modules and 'transformers' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_cli_export_on_a_fresh_install_refuses_rather_than_export_fixtures(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("GENENV_DATA_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    out = tmp_path / "rows.jsonl"
    assert main(["export", "--env", "GenEnv-BFCL-v0", "--format", "jsonl", "--out", str(out)]) == 1
    assert "genenv data fetch bfcl" in capsys.readouterr().err and not out.exists()
