"""What a request asserts: values it rules out or takes back are blanked; values it names twice compete."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from genenv_gym.envs.apibank.task_writer import APIBankTaskWriter
from genenv_gym.envs.bfcl.task_semantics import task_problems
from genenv_gym.registry.registration import make_domain
from genenv_gym.text.polarity import asserted_text, competing_values, excluded_spans

SET = Path(__file__).resolve().parents[1] / "fixtures" / "generalisation_set"


@pytest.mark.parametrize(
    ("text", "gone", "kept"),
    [
        ("Get the weather in Denver, not Reykjavik, on 2025-07-15.", "Reykjavik", "Denver"),
        ("Return at most 501 instead of 498 rows.", "498", "501"),
        ("Book it in Cafe Lumen (definitely not Hall B) at noon.", "Hall B", "Cafe Lumen"),
        ("Use zucchini... scratch that, eggplant.", "zucchini", "eggplant"),
        ("Remind me at 2023-04-02 18:15:00, sorry, I mean 2023-04-02 18:00:00.", "18:15:00", "18:00:00"),
        ("Follow mira_sol, no wait, make that urban_botanist, on Facebook.", "mira_sol", "urban_botanist"),
        ("Any city other than Paris works, say Lyon.", "Paris", "Lyon"),
    ],
)
def test_excluded_and_retracted_values_are_blanked_and_the_asked_one_kept(
    text: str, gone: str, kept: str
) -> None:
    asserted = asserted_text(text)
    assert gone not in asserted and kept in asserted
    assert len(asserted) == len(text)


@pytest.mark.parametrize(
    "text",
    [
        "Find restaurants not far from Paris.",
        "I do not want to miss the 2025-05-01 flight to Oslo.",
        "Calculate the area with base 10 and height 5, rounded to 2 decimals.",
        "Is Rinferrstad not the capital of Pelvaria?",
    ],
)
def test_a_plain_not_inside_a_clause_blanks_nothing(text: str) -> None:
    assert asserted_text(text) == text


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400))
def test_asserted_text_keeps_length_and_only_ever_blanks(text: str) -> None:
    asserted = asserted_text(text)
    assert len(asserted) == len(text)
    assert all(a == b or a == " " for a, b in zip(asserted, text, strict=True))
    for start, end in excluded_spans(text):
        assert 0 <= start <= end <= len(text)
    competing_values(text, {"2023-01-01", "AB12"})


def test_a_second_value_of_the_same_shape_competes_and_a_used_one_does_not() -> None:
    assert competing_values(
        "Set it for 2023-07-04 10:00:00. Last time it was 2023-04-20 06:00:00.", {"2023-04-20 06:00:00"}
    ) == ["2023-07-04 10:00:00"]
    assert competing_values("From 2025-05-01 to 2025-07-26.", {"2025-05-01", "2025-07-26"}) == []
    assert competing_values("Flight QF104 on 2025-05-06.", {"QF104"}) == []  # a date is no rival of a code
    assert competing_values("Check KL894, not QF104.", {"QF104"}) == ["KL894"]


def _records(domain: str, family: str) -> list[dict]:
    rows = [json.loads(line) for line in (SET / domain / "wrong_meaning.jsonl").read_text().splitlines()]
    return [r for r in rows if r["family"] == family and r["split"] == "tune"]


@pytest.mark.parametrize("family", ["negated", "corrected", "side_mention"])
def test_api_bank_requests_that_rule_out_or_retract_their_reference_value_are_wrong(family: str) -> None:
    writer = APIBankTaskWriter(make_domain("apibank"))
    rejected = 0
    records = _records("apibank", family)
    for record in records:
        data = json.loads(record["reply"])
        try:
            task = writer.parse(record["reply"], _target(writer), "llm:test")
        except Exception:
            rejected += 1
            continue
        rejected += bool(writer.semantic_problems(task)) or not data
    assert rejected == len(records)


def test_bfcl_questions_that_negate_or_retract_their_reference_value_are_mostly_wrong() -> None:
    records = _records("bfcl", "negated") + _records("bfcl", "corrected")
    passed = []
    for record in records:
        data = json.loads(record["reply"])
        if not task_problems(data["category"], data["question"], data["functions"], data["ground_truth"]):
            passed.append(record["note"])
    assert len(passed) <= 0.15 * len(records), passed


def _target(writer):
    from genenv_gym.llm_simulator.writer import Target

    return Target(1, writer.domain.num_levels, 0.5, 0.5, 0.0, 0.0)
