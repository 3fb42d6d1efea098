"""Every script in examples/ runs, at a tiny size, and does what README says it does. (The SB3 example runs at
its full size in tests/wrappers/test_wrappers_sb3.py, which checks the figures README quotes from it.)"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

import pytest

from genenv_gym.registry.extras import install_line

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def example(name: str):
    """The ``main`` of examples/<name>.py."""
    return runpy.run_path(str(EXAMPLES / name))["main"]


def test_every_example_has_a_test():
    tested = {"sb3_curriculum.py"}  # tests/wrappers/test_wrappers_sb3.py
    source = Path(__file__).read_text()
    tested |= {p.name for p in EXAMPLES.glob("*.py") if f'example("{p.name}")' in source}
    assert {p.name for p in EXAMPLES.glob("*.py")} == tested


def test_serve_remote_plays_over_a_server_of_its_own():
    pytest.importorskip("fastapi")
    pytest.importorskip("uvicorn")
    summary = example("serve_remote.py")(["--env", "GenEnv-BFCL-SimplePython-v0", "--episodes", "2"])
    assert summary["url"].startswith("http://127.0.0.1:")
    assert [e["steps"] for e in summary["episodes"]] == [1, 1]
    assert all(e["return"] == 0.0 and e["task_id"] for e in summary["episodes"])  # "[]" answers nothing
    assert summary["vector_rewards"] == [0.0, 0.0]


def test_export_verl_writes_rows_that_verls_reward_function_grades(tmp_path):
    pytest.importorskip("pyarrow")
    out = tmp_path / "bfcl.parquet"
    summary = example("export_verl.py")(["--limit", "1", "--out", str(out)])
    assert summary["path"] == str(out) and out.is_file() and summary["rows"] >= 10
    assert {"data_source", "prompt", "reward_model", "extra_info", "agent_name"} <= set(summary["columns"])
    assert summary["scores"] == {"reference answer": 1.0, "wrong answer": 0.0}
    assert (
        f"data.train_files={out}" in summary["verl"]
        and "custom_reward_function.name=compute_score" in (summary["verl"])
    )


def test_eval_own_model_scores_a_saved_checkpoint(tmp_path):
    pytest.importorskip("transformers")
    run = tmp_path / "run"
    summary = example("eval_own_model.py")(
        ["--model", "tiny", "--limit", "2", "--max-new-tokens", "4", "--out", str(run)]
    )
    assert (Path(summary["model"]) / "config.json").is_file()
    (report,) = summary["reports"]
    assert report["env_id"] == "GenEnv-BFCL-SimplePython-v0" and report["episodes"] == 2
    assert report["errors"] and set(report["error_examples"]) == set(report["errors"])
    assert len((run / "episodes.jsonl").read_text().splitlines()) == 2 and (run / "report.json").is_file()


def test_trl_grpo_trains_two_steps_and_reports_its_curriculum_consistently(tmp_path):
    pytest.importorskip("trl")
    summary = example("trl_grpo.py")(
        ["--steps", "2", "--max-completion-length", "16", "--output-dir", str(tmp_path)]
    )
    assert summary["steps"] == 2 and len(summary["reward_per_step"]) == 2
    curriculum = summary["curriculum"]
    assert curriculum["groups_reported"] == 2 * 2  # two groups per step
    assert 0 <= curriculum["rwr_steps"] <= curriculum["groups_reported"]
    assert abs(sum(curriculum["level_probs"]) - 1) < 1e-3


def test_export_verl_says_why_a_multi_turn_row_has_no_score(tmp_path):
    pytest.importorskip("pyarrow")
    out = tmp_path / "mt.parquet"
    summary = example("export_verl.py")(
        ["--env", "GenEnv-BFCL-MultiTurn-v0", "--limit", "1", "--out", str(out)]
    )
    assert list(summary["scores"]) == ["none"] and "multi-turn" in summary["scores"]["none"]


def test_the_sb3_example_without_its_extra_prints_the_install_line(monkeypatch):
    monkeypatch.setitem(sys.modules, "stable_baselines3", None)
    monkeypatch.setattr(sys, "argv", ["sb3_curriculum.py"])
    with pytest.raises(SystemExit) as exit_info:
        runpy.run_path(str(EXAMPLES / "sb3_curriculum.py"), run_name="__main__")
    assert str(exit_info.value) == (
        "examples/sb3_curriculum.py needs the 'sb3' extra (missing: stable_baselines3): "
        + install_line("sb3")
    )
