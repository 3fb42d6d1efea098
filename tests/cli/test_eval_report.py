"""What ``genenv eval`` prints under an env's table: why episodes failed (error types with one example
reply each), in columns that long category names do not break."""

from __future__ import annotations

from genenv_gym.evaluation import TOP_FAILURES_SHOWN, EvalReport, evaluate
from genenv_gym.fixtures import FIXTURES_DIR


def test_a_failing_run_says_why_with_an_example_reply_per_error_type():
    report = evaluate(
        "GenEnv-BFCL-v0", "random", limit=3, show_progress=False, env_kwargs={"data_dir": str(FIXTURES_DIR)}
    )
    table = report.table()
    lines = table.splitlines()
    start = lines.index(next(line for line in lines if line.startswith("why episodes failed")))
    ranked = sorted(report.errors.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP_FAILURES_SHOWN]
    for k, (error_type, count) in enumerate(ranked):
        assert lines[start + 1 + 2 * k].split() == [str(count), error_type]
        example = report.error_examples[error_type]
        assert lines[start + 2 + 2 * k].strip().startswith(f"e.g. {example['task_id']}: reply ")
        assert example["error"] and example["reply"]
    saved = report.to_dict()
    assert set(saved["error_examples"]) == set(report.errors)


def test_examples_are_cut_to_one_line_and_the_rest_is_counted():
    report = EvalReport("GenEnv-X-v0", "random")
    for i in range(TOP_FAILURES_SHOWN + 2):
        report.add(
            {
                "task_id": f"t{i}",
                "category": "c",
                "success": False,
                "error_type": f"kind_{i}",
                "error": "why\n" * 100,
                "actions": ["first", "line one\nline two " + "x" * 300],
            }
        )
    lines = report.failure_lines()
    assert lines[0].endswith("; 2 more in the JSON report):")
    example = lines[2]
    assert "e.g. t0: reply 'line one line two xxx" in example and "\n" not in example
    assert len(example) < 300 and example.count("…") == 2
    assert EvalReport("GenEnv-X-v0", "oracle").failure_lines() == []


def test_long_category_names_keep_the_columns_aligned():
    report = EvalReport("GenEnv-ALFWorld-Step-v0", "random")
    for category in ("pick_heat_then_place_in_recep", "look_at_obj_in_light"):
        report.add({"task_id": category, "category": category, "success": False})
    report.summary = {"a summary score with a rather long name indeed": 0.5}
    rows = report.table().splitlines()
    header, first, second, overall = rows[:4]
    assert first.startswith("pick_heat_then_place_in_recep ")
    assert len({len(header), len(first), len(second), len(overall)}) == 1
    assert rows[4].endswith("50.0%") and rows[4].startswith("a summary score with a rather long name indeed ")
