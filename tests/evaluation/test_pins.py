"""Every episode record and report is pinned to the env version, the task's data, the evaluator and the
agent; the fingerprints change when the data or the checker does, and not otherwise."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import gymnasium as gym
import pytest

import genenv_gym
from genenv_gym.evaluation import evaluate
from genenv_gym.evaluation import pins as pins_module
from genenv_gym.evaluation.pins import (
    env_version,
    evaluator_code,
    evaluator_pin,
    task_list_fingerprints,
)
from genenv_gym.fixtures import FIXTURES_DIR
from genenv_gym.registry.manifest import Evaluator, all_manifests, load


def test_every_env_class_declares_its_version_in_its_docstring():
    for entry in genenv_gym.ENV_ENTRIES:
        version = env_version(load(entry.entry_point))
        assert version is not None, f"{entry.entry_point} has no '## Version history' entry"
        assert entry.id.endswith(f"-{version}"), (entry.id, version)


def test_the_newest_version_in_the_history_is_the_pinned_one():
    class Env:
        """An env.

        ## Version history
        - v0: initial version
        - v1: a fixed checker (older runs differ on
          two categories)
        """

    assert env_version(Env) == "v1"
    assert env_version(type("Bare", (), {"__doc__": "no history"})) is None


def test_every_benchmark_declares_an_evaluator_whose_modules_exist():
    for manifest in all_manifests():
        assert manifest.evaluator is not None, f"{manifest.package}'s manifest declares no evaluator"
        assert len(evaluator_code(manifest.evaluator)) == pins_module.FINGERPRINT_CHARS
    assert evaluator_pin("bfcl")["name"] == "bfcl-eval"


def _bfcl_copy(tmp_path: Path) -> Path:
    root = tmp_path / "data"
    shutil.copytree(FIXTURES_DIR / "bfcl", root / "bfcl")
    return root


def _fingerprints(data_dir: Path) -> dict[str, str]:
    env = gym.make("GenEnv-BFCL-SimplePython-v0", data_dir=str(data_dir))
    try:
        return dict(task_list_fingerprints(env.unwrapped.tasks))
    finally:
        env.close()


def test_a_task_fingerprint_changes_with_its_own_records_only(tmp_path, monkeypatch):
    monkeypatch.setenv("GENENV_NO_CACHE", "1")
    root = _bfcl_copy(tmp_path)
    before = _fingerprints(root)
    assert _fingerprints(root) == before  # the same data: the same fingerprints
    path = root / "bfcl" / "possible_answer" / "BFCL_v4_simple_python.json"
    lines = path.read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    first["ground_truth"] = [{"some_other_function": {}}]
    lines[0] = json.dumps(first)
    time.sleep(0.01)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    after = _fingerprints(root)
    changed = {task for task in before if before[task] != after[task]}
    assert changed == {first["id"]}


def test_fingerprints_of_a_task_list_are_computed_once(monkeypatch):
    env = gym.make("GenEnv-Digits-v0")
    tasks = env.unwrapped.tasks
    first = task_list_fingerprints(tasks)
    monkeypatch.setattr(pins_module, "task_fingerprint", lambda task: pytest.fail("computed again"))
    assert task_list_fingerprints(tasks) is first
    env.close()


def test_the_checker_fingerprint_changes_with_its_code_only(tmp_path, monkeypatch):
    module = tmp_path / "toy_checker_for_pins.py"
    module.write_text("def verify(answer):\n    return answer == 'yes'\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    evaluator = Evaluator("toy", "1", ("toy_checker_for_pins",))
    before = evaluator_code(evaluator)
    evaluator_code.cache_clear()
    assert evaluator_code(evaluator) == before
    module.write_text("def verify(answer):\n    return answer.strip() == 'yes'\n", encoding="utf-8")
    evaluator_code.cache_clear()
    assert evaluator_code(evaluator) != before
    evaluator_code.cache_clear()


def test_records_and_reports_name_what_they_are_pinned_to(tmp_path):
    results = tmp_path / "episodes.jsonl"
    report = evaluate(
        "GenEnv-BFCL-SimplePython-v0",
        "random",
        limit=2,
        show_progress=False,
        env_kwargs={"data_dir": str(FIXTURES_DIR)},
        results_path=results,
    )
    records = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]
    for record in records:
        pins = record["pins"]
        assert pins["env_id"] == "GenEnv-BFCL-SimplePython-v0" and pins["env_version"] == "v0"
        assert pins["evaluator"]["name"] == "bfcl-eval" and pins["evaluator"]["version"]
        assert pins["agent"] == "random" and pins["package"] == genenv_gym.__version__
        assert len(pins["data"]) == pins_module.FINGERPRINT_CHARS and pins["sample"] == 0
    saved = report.to_dict()["pins"]
    assert saved["tasks"] == len(records) and saved["env_kwargs"] == {"data_dir": str(FIXTURES_DIR)}
    assert saved["data"] == pins_module.data_fingerprint((r["task_id"], r["pins"]["data"]) for r in records)
    assert "default_rng([seed, i])" in saved["seed_schedule"]
