"""genenv eval as a benchmarking tool: agents by spec, several envs, JSON/CSV, progress, resumable runs."""

from __future__ import annotations

import csv
import json

import pytest
from fake_llm_server import FakeLLMServer

from genenv_gym.cli.main import main
from genenv_gym.evaluation import ResumeError, evaluate, read_results
from genenv_gym.fixtures import FIXTURES_DIR


@pytest.fixture
def fixtures(monkeypatch):
    monkeypatch.setenv("GENENV_DATA_DIR", str(FIXTURES_DIR))


def test_several_envs_one_run_with_json_csv_and_an_overview(fixtures, tmp_path, capsys):
    report_json, report_csv = tmp_path / "r.json", tmp_path / "r.csv"
    envs = ["--env", "GenEnv-BFCL-Parallel-v0", "--env", "GenEnv-Sim-BFCL-v0"]
    outputs = ["--json", str(report_json), "--csv", str(report_csv)]
    code = main(["eval", *envs, "--agent", "oracle", "--episodes", "8", "--no-progress", *outputs])
    assert code == 0
    out = capsys.readouterr().out
    assert "GenEnv-BFCL-Parallel-v0 — agent oracle" in out and "level" in out  # per-level table for the sim
    assert out.count("GenEnv-Sim-BFCL-v0") >= 2  # its own table and the overview row
    reports = json.loads(report_json.read_text())
    assert [r["env_id"] for r in reports] == ["GenEnv-BFCL-Parallel-v0", "GenEnv-Sim-BFCL-v0"]
    assert reports[1]["episodes"] == 8 and reports[1]["overall"] == 1.0 and reports[1]["levels"]
    rows = list(csv.DictReader(report_csv.open()))
    assert {r["group"] for r in rows} >= {"category", "overall", "level"}
    overall = [r for r in rows if r["group"] == "overall"]
    assert [float(r["accuracy"]) for r in overall] == [1.0, 1.0]


def test_an_interrupted_simulator_run_resumes_to_the_same_results(tmp_path, capsys):
    args = ["eval", "--env", "GenEnv-Sim-BFCL-v0", "--agent", "random", "--episodes", "24", "--no-progress"]
    assert main([*args, "--out", str(tmp_path / "full")]) == 0
    full = read_results(tmp_path / "full" / "episodes.jsonl")
    part = tmp_path / "part"
    assert main([*args, "--out", str(part)]) == 0
    lines = (part / "episodes.jsonl").read_text().splitlines(keepends=True)
    (part / "episodes.jsonl").write_text("".join(lines[:9]) + lines[9][:30])  # killed while writing #10
    capsys.readouterr()
    assert main([*args, "--out", str(part)]) == 2  # an existing run is never overwritten silently
    assert "--resume" in capsys.readouterr().err
    assert main([*args, "--out", str(part), "--resume"]) == 0
    assert "9 episodes from the earlier run" in capsys.readouterr().out
    resumed = read_results(part / "episodes.jsonl")
    keys = ("index", "task_id", "level", "success", "actions")
    assert [[r[k] for k in keys] for r in resumed] == [[r[k] for k in keys] for r in full]
    assert json.loads((part / "report.json").read_text())[0]["resumed"] == 9


def test_resuming_a_benchmark_run_skips_finished_tasks(fixtures, tmp_path):
    results = tmp_path / "episodes.jsonl"
    first = evaluate("GenEnv-BFCL-v0", "oracle", limit=1, show_progress=False, results_path=results)
    lines = results.read_text().splitlines(keepends=True)
    results.write_text("".join(lines[:5]))
    again = evaluate(
        "GenEnv-BFCL-v0", "oracle", limit=1, show_progress=False, results_path=results, resume=True
    )
    assert again.resumed == 5 and again.to_dict()["total"] == first.to_dict()["total"]
    assert len(read_results(results)) == first.episodes
    with pytest.raises(ResumeError, match="does not match"):
        evaluate(
            "GenEnv-BFCL-v0", "oracle", show_progress=False, results_path=results, resume=True
        )  # no limit


def test_an_openai_compatible_agent_is_benchmarked(fixtures, tmp_path, capsys):
    server = FakeLLMServer()

    def reply(body):
        content = (
            "<think>none of these tools fit</think>\n```\n[]\n```"  # no call: right only for irrelevance
        )
        choice = {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
        return {"id": "c", "object": "chat.completion", "model": body["model"], "choices": [choice]}

    server.handlers["/v1/chat/completions"] = reply
    try:
        agent = f"openai:fake-model@{server.url}"
        code = main(
            [
                "eval",
                "--env",
                "GenEnv-BFCL-v0",
                "--agent",
                agent,
                "--no-progress",
                "--json",
                str(tmp_path / "r.json"),
            ]
        )
    finally:
        server.close()
    assert code == 0
    report = json.loads((tmp_path / "r.json").read_text())[0]
    assert report["agent"].startswith("openai:fake-model@")
    assert report["passed"]["irrelevance"] == report["total"]["irrelevance"] == 1
    assert report["passed"]["live_irrelevance"] == 1 and report["overall"] == 2 / 14
    sent = server.requests[0][1]
    assert sent["model"] == "fake-model" and sent["temperature"] == 0.0
    assert sent["messages"][0]["role"] == "system" and "functions" in sent["messages"][0]["content"]


def test_progress_bar_and_bad_agents(fixtures, capsys):
    assert main(["eval", "--env", "GenEnv-BFCL-SimplePython-v0", "--agent", "oracle"]) == 0
    assert "GenEnv-BFCL-SimplePython-v0 oracle" in capsys.readouterr().err  # the progress bar's label
    assert main(["eval", "--env", "GenEnv-BFCL-v0", "--agent", "gpt4"]) == 2
    assert "openai:MODEL@URL" in capsys.readouterr().err
    assert main(["eval", "--env", "GenEnv-BFCL-v0", "--agent", "nope:thing"]) == 2
    assert main(["eval", "--env", "GenEnv-BFCL-v0", "--resume"]) == 2
    assert "--out" in capsys.readouterr().err


def test_batched_llm_episodes_match_one_at_a_time(fixtures, tmp_path):
    server = FakeLLMServer()
    server.delay = 0.05

    def reply(body):  # answers each question by its first offered function: right for some tasks only
        system = body["messages"][0]["content"]
        name = system.split('"name": "')[1].split('"')[0] if '"name": "' in system else "none"
        choice = {
            "index": 0,
            "message": {"role": "assistant", "content": f"[{name}()]"},
            "finish_reason": "stop",
        }
        return {"id": "c", "object": "chat.completion", "model": body["model"], "choices": [choice]}

    server.handlers["/v1/chat/completions"] = reply
    agent = f"openai:m@{server.url}"
    try:
        one = evaluate("GenEnv-BFCL-v0", agent, show_progress=False)
        results = tmp_path / "episodes.jsonl"
        many = evaluate("GenEnv-BFCL-v0", agent, show_progress=False, batch_size=6, results_path=results)
    finally:
        server.close()
    assert server.max_in_flight > 1  # the batch went out together
    assert many.to_dict()["passed"] == one.to_dict()["passed"] and many.episodes == 14
    assert 0 < many.overall < 1
    assert sorted(r["index"] for r in read_results(results)) == list(range(14))


def test_batched_llm_episodes_keep_the_per_episode_metrics(fixtures, tmp_path):
    """Summaries built from info['metrics'] (TravelPlanner's rates) are the same batched or not."""
    server = FakeLLMServer()
    day = {"days": 1, "current_city": "from Millbrook to Harborview", "transportation": "-"}
    day |= {"breakfast": "-", "attraction": "-", "lunch": "-", "dinner": "-", "accommodation": "-"}

    def reply(body):
        choice = {"index": 0, "message": {"role": "assistant", "content": json.dumps([day])}}
        choice["finish_reason"] = "stop"
        return {"id": "c", "object": "chat.completion", "model": body["model"], "choices": [choice]}

    server.handlers["/v1/chat/completions"] = reply
    agent = f"openai:m@{server.url}"
    try:
        one = evaluate("GenEnv-TravelPlanner-v0", agent, show_progress=False)
        many = evaluate("GenEnv-TravelPlanner-v0", agent, show_progress=False, batch_size=4)
    finally:
        server.close()
    assert one.summary and many.summary == one.summary
    assert one.summary["Delivery Rate"] == 1.0


def _closed_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_an_unreachable_endpoint_is_counted_apart_from_wrong_answers_and_fails_the_command(
    fixtures, tmp_path, capsys, monkeypatch
):
    from genenv_gym.agents.backends.http import RetryPolicy

    monkeypatch.setattr(RetryPolicy, "delay", lambda self, attempt, retry_after=None: 0.0)
    agent = f"openai:m@http://127.0.0.1:{_closed_port()}/v1"  # a wrong port
    args = ["eval", "--env", "GenEnv-BFCL-SimplePython-v0", "--agent", agent, "--no-progress"]
    assert main([*args, "--json", str(tmp_path / "r.json")]) == 1
    out, err = capsys.readouterr()
    report = json.loads((tmp_path / "r.json").read_text())[0]
    assert report["requests"] == report["failed_requests"] == report["episodes"] > 0
    assert f"failed requests: {report['requests']} of {report['requests']}" in out
    assert "no model request succeeded" in err and "Connection" in err and "port" in err


def test_some_failed_requests_are_reported_without_failing_the_command(fixtures, tmp_path, capsys):
    server = FakeLLMServer()
    server.fail = [400]  # the first request is refused; a 400 is not retried
    try:
        args = ["eval", "--env", "GenEnv-BFCL-v0", "--agent", f"openai:m@{server.url}", "--no-progress"]
        assert main([*args, "--json", str(tmp_path / "r.json")]) == 0
    finally:
        server.close()
    report = json.loads((tmp_path / "r.json").read_text())[0]
    assert report["failed_requests"] == 1 and report["requests"] == report["episodes"]
    assert "HTTP 400" in report["request_error"]
    assert f"1 of {report['requests']} model requests failed" in capsys.readouterr().err


def test_ctrl_c_says_where_the_run_stopped_and_how_to_resume(tmp_path, capsys, monkeypatch):
    import genenv_gym.evaluation.play as play

    original, calls = play._play, {"n": 0}

    def play_then_ctrl_c(env, agent, reset_args, actions):
        calls["n"] += 1
        if calls["n"] == 4:
            raise KeyboardInterrupt
        return original(env, agent, reset_args, actions)

    monkeypatch.setattr(play, "_play", play_then_ctrl_c)
    args = ["eval", "--env", "GenEnv-Sim-BFCL-v0", "--agent", "random", "--episodes", "8", "--no-progress"]
    assert main([*args, "--out", str(tmp_path)]) == 130
    err = capsys.readouterr().err
    assert "interrupted during GenEnv-Sim-BFCL-v0 (0 of 1 envs finished; 3 of its episodes saved in" in err
    assert "--resume" in err and "Traceback" not in err
    monkeypatch.setattr(play, "_play", original)
    assert main([*args, "--out", str(tmp_path), "--resume"]) == 0
    assert "3 episodes from the earlier run" in capsys.readouterr().out
    calls["n"] = 0
    monkeypatch.setattr(play, "_play", play_then_ctrl_c)
    assert main(args) == 130
    assert "nothing was saved: run with --out DIR" in capsys.readouterr().err


def _math_entry(user: str, name: str, **arguments) -> str:
    """An environment LLM's reply for the BFCL multi-turn simulator: one turn, one MathAPI call."""
    turns = [{"user": user, "calls": [{"name": name, "arguments": arguments}]}]
    return json.dumps({"involved_classes": ["MathAPI"], "turns": turns})


def test_a_simulator_env_with_an_environment_llm_reports_what_its_screening_rejected(tmp_path, capsys):
    replies = [
        _math_entry("Add 2.5 and 4.0.", "add", a=2.5, b=4.0),
        _math_entry("Multiply 3.0 by 7.5.", "multiply", a=3.0, b=7.5),
        _math_entry("Subtract 1.25 from 9.0.", "subtract", a=9.0, b=1.25),
        "Sure! Here is a task for your agent.",  # not JSON
        json.dumps({"involved_classes": ["MathAPI"]}),  # no turns
        _math_entry("Add my two numbers.", "add", a=6.5, b=1.0),  # values the user never gives
    ]
    served = iter(range(10_000))
    server = FakeLLMServer()

    def chat(body):  # one round of six prompts gets the six replies above (in whatever order they arrive)
        content = replies[next(served) % len(replies)]
        choice = {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
        return {"id": "c", "object": "chat.completion", "model": body["model"], "choices": [choice]}

    server.handlers["/v1/chat/completions"] = chat
    env_kwargs = {
        "simulator": "llm",
        "batch_size": 2,
        "simulator_kwargs": {"backend": f"openai:env-llm@{server.url}", "batch_size": 6},
    }
    args = ["eval", "--env", "GenEnv-Sim-BFCL-MultiTurn-v0", "--agent", "oracle", "--episodes", "8"]
    try:
        code = main([*args, "--no-progress", "--env-kwargs", json.dumps(env_kwargs), "--out", str(tmp_path)])
    finally:
        server.close()
    assert code == 0
    out = capsys.readouterr().out
    assert "environment LLM: 6 tasks written, 3 accepted, 3 rejected (parse 2, semantic 1)" in out
    assert "top rejection reasons:" in out and "semantic: turn 0: no one states the value of add.a" in out
    report = json.loads((tmp_path / "report.json").read_text())[0]
    assert report["overall"] == 1.0 and report["episodes"] == 8
    screening = report["screening"]
    assert screening["generated"] == 6 and screening["accepted"] == 3 and screening["fallback"] == 0
    assert screening["rejected"] == {"parse": 2, "semantic": 1}
    reasons = dict(screening["top_reasons"])
    assert reasons["parse: missing key(s) ['turns']"] == 1 and sum(reasons.values()) == 3
    assert all(
        r["env_id"] == "GenEnv-Sim-BFCL-MultiTurn-v0" for r in read_results(tmp_path / "episodes.jsonl")
    )


def test_reports_without_an_environment_llm_carry_no_screening(fixtures):
    for env_id in ("GenEnv-BFCL-Parallel-v0", "GenEnv-Sim-BFCL-v0"):
        report = evaluate(env_id, "oracle", episodes=4, show_progress=False)
        assert "screening" not in report.to_dict() and "environment LLM" not in report.table()
