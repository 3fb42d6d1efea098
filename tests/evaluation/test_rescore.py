"""``genenv rescore RUN_DIR``: an unchanged run's verdicts are reproduced on every benchmark id (oracle and
random, two tasks per category on offline data); a run whose data or checker changed says so first, then
which verdicts changed and why."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from representative_ids import every_id_the_rest_slow

from genenv_gym.cli.main import main
from genenv_gym.evaluation import evaluate
from genenv_gym.evaluation import pins as pins_module
from genenv_gym.evaluation.rescore import RESCORED_EPISODES, RESCORED_REPORT, rescore_run
from genenv_gym.fixtures import FIXTURES_DIR
from genenv_gym.registry.registration import is_simulator_id

#: Every benchmark id: one per env class by default, the others under ``-m slow``.
BENCHMARK_IDS = [p for p in every_id_the_rest_slow() if not is_simulator_id(p.values[0])]


def _run(out: Path, env_id: str, agent: str, env_kwargs: dict, **kwargs) -> None:
    report = evaluate(
        env_id,
        agent,
        show_progress=False,
        env_kwargs=env_kwargs,
        results_path=out / "episodes.jsonl",
        **kwargs,
    )
    (out / "report.json").write_text(json.dumps([report.to_dict()]), encoding="utf-8")


@pytest.mark.parametrize("env_id", BENCHMARK_IDS)
def test_an_unchanged_run_is_reproduced_on_every_benchmark_id(env_id, offline_envs, tmp_path):
    for agent in ("oracle", "random"):
        out = tmp_path / agent
        _run(out, env_id, agent, offline_envs.kwargs(env_id), limit=2)
        (result,) = rescore_run(out)
        assert result.headline() == [] and result.changed == 0, (env_id, result.lines())
        old = [json.loads(x) for x in (out / "episodes.jsonl").read_text(encoding="utf-8").splitlines()]
        new = [json.loads(x) for x in (out / RESCORED_EPISODES).read_text(encoding="utf-8").splitlines()]
        assert [(r["task_id"], r["success"], r["error_type"], r["pins"]) for r in old] == [
            (r["task_id"], r["success"], r["error_type"], r["pins"]) for r in new
        ], env_id
        old_report = json.loads((out / "report.json").read_text(encoding="utf-8"))[0]
        new_report = json.loads((out / RESCORED_REPORT).read_text(encoding="utf-8"))[0]
        for key in ("passed", "total", "summary", "errors", "pins"):
            assert old_report[key] == new_report[key], (env_id, key)


def test_a_simulator_run_is_replayed_from_its_seed(tmp_path):
    _run(tmp_path, "GenEnv-Sim-Digits-v0", "random", {}, episodes=6, seed=3)
    (result,) = rescore_run(tmp_path)
    assert result.episodes == 6 and result.changed == 0 and result.headline() == []


def test_a_changed_data_file_is_said_first_and_explains_the_changed_verdict(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("GENENV_NO_CACHE", "1")
    root = tmp_path / "data"
    shutil.copytree(FIXTURES_DIR / "bfcl", root / "bfcl")
    out = tmp_path / "run"
    play = ["eval", "--env", "GenEnv-BFCL-SimplePython-v0", "--agent", "oracle", "--no-progress"]
    assert main([*play, "--out", str(out), "--env-kwargs", json.dumps({"data_dir": str(root)})]) == 0
    path = root / "bfcl" / "possible_answer" / "BFCL_v4_simple_python.json"
    lines = path.read_text(encoding="utf-8").splitlines()
    edited = json.loads(lines[0])
    edited["ground_truth"] = [{"some_other_function": {}}]
    path.write_text("\n".join([json.dumps(edited), *lines[1:]]) + "\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["rescore", str(out), "--check"]) == 1
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == "the run's pins differ from the current ones:"
    assert "data changed: 1 of the run's tasks" in printed[1] and edited["id"] in printed[1]
    assert any("simple_python: 1 x pass -> fail, error type None -> " in line for line in printed)


def test_a_changed_checker_is_said_first_and_explains_the_changed_verdicts(tmp_path, capsys, monkeypatch):
    out = tmp_path / "run"
    play = ["eval", "--env", "GenEnv-Digits-v0", "--agent", "oracle", "--limit", "2", "--no-progress"]
    assert main([*play, "--out", str(out)]) == 0
    from genenv_gym.envs.digits.domain import DigitsDomain

    source = pins_module._module_source
    monkeypatch.setattr(
        pins_module,
        "_module_source",
        lambda module: source(module) + (b"# stricter" if module.endswith("one_line_answer") else b""),
    )
    pins_module.evaluator_code.cache_clear()
    verify = DigitsDomain.verify
    monkeypatch.setattr(DigitsDomain, "verify", lambda self, task, action: verify(self, task, action + " 0"))
    capsys.readouterr()
    try:
        assert main(["rescore", str(out)]) == 0
    finally:
        pins_module.evaluator_code.cache_clear()
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == "the run's pins differ from the current ones:"
    assert "checker code" in printed[1] and "data changed" not in "\n".join(printed)
    assert any(
        line.strip().startswith("level_0: 2 x pass -> fail, error type None -> wrong_answer (checker code")
        for line in printed
    )
    rescored = json.loads((out / RESCORED_REPORT).read_text(encoding="utf-8"))[0]
    assert rescored["overall"] == 0.0
    assert json.loads((out / "report.json").read_text(encoding="utf-8"))[0]["overall"] == 1.0


def test_a_run_resumed_by_another_agent_keeps_both_agents_pins(tmp_path, capsys):
    play = ["eval", "--env", "GenEnv-Digits-v0", "--limit", "1", "--no-progress", "--out", str(tmp_path)]
    assert main([*play, "--agent", "random"]) == 0
    assert main([*play, "--agent", "oracle", "--resume"]) == 0  # report.json now holds the oracle only
    capsys.readouterr()
    assert main(["rescore", str(tmp_path), "--check"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("env versions, data and evaluators: the same as the run's")
    assert "GenEnv-Digits-v0 (random): 8 episodes rescored, every verdict" in out


#: JSON values a foreign or damaged results file may hold, records with keys of the wrong kinds included.
FOREIGN = st.one_of(
    st.none(),
    st.integers(),
    st.text(max_size=5),
    st.dictionaries(
        st.sampled_from(["env_id", "agent", "index", "task_id", "success", "actions", "pins", "x"]),
        st.integers() | st.text(max_size=3) | st.lists(st.integers() | st.none(), max_size=2),
        max_size=8,
    ),
)

#: A well-formed episode of an env id that does not exist.
LOOKS_LIKE_AN_EPISODE = {"env_id": "GenEnv-Nothing-v0", "agent": "a", "index": 0, "task_id": 1, "success": 0}
LOOKS_LIKE_AN_EPISODE["actions"] = []


@given(st.lists(FOREIGN, min_size=1, max_size=4) | st.lists(st.just(LOOKS_LIKE_AN_EPISODE), min_size=1))
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_a_folder_of_foreign_lines_is_refused_with_a_message(tmp_path, capsys, lines):
    (tmp_path / "episodes.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    for command in (["rescore", str(tmp_path)], ["compare", str(tmp_path), str(tmp_path)]):
        assert main(command) in (1, 2)
        err = capsys.readouterr().err.strip()
        assert err and all(line.startswith(f"genenv {command[0]}: ") for line in err.splitlines())
