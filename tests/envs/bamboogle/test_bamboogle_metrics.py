"""Bamboogle metrics and answer extraction: the reference's edge cases, hostile text, and the real gold."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from genenv_gym.envs.bamboogle.data import load_questions, normalize_question
from genenv_gym.envs.bamboogle.extraction import cut_turn, extract_answer, parse_action
from genenv_gym.envs.bamboogle.metrics import (
    answer_metrics,
    cover_exact_match,
    exact_match,
    f1_score,
    normalize_answer,
    token_scores,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The Eiffel Tower!", "eiffel tower"),
        ("  a  AN the\tthen  ", "then"),
        ("theater", "theater"),
        ("U.S.A.", "usa"),
        ("rock-n-roll", "rocknroll"),
        ("a's", "as"),  # punctuation goes first: "as" is no article
        ("«Café» — Zoë", "«café» — zoë"),  # only ASCII punctuation is removed
        ("", ""),
        ("THE", ""),
    ],
)
def test_normalize_answer(text, expected):
    assert normalize_answer(text) == expected


def test_exact_and_cover_match():
    assert exact_match("The James Madison.", ["james madison"]) == 1.0
    assert exact_match("James Madison Jr", ["james madison"]) == 0.0
    assert cover_exact_match("President James Madison Jr", ["james madison"]) == 1.0
    assert cover_exact_match("Madison", ["james madison"]) == 0.0
    assert exact_match("x", "x") == 1.0  # a bare string is one golden answer
    assert exact_match("", ["the"]) == 1.0  # both normalise to empty
    assert cover_exact_match("anything", ["a"]) == 1.0  # empty golden answer is a substring of all
    assert exact_match("x", []) == 0.0


def test_f1_reference_rules():
    assert f1_score("james madison", ["james madison"]) == 1.0
    assert f1_score("madison", ["james madison"]) == pytest.approx(2 / 3)
    assert f1_score("james james madison", ["james madison"]) == pytest.approx(0.8)
    assert f1_score("yes", ["yes indeed"]) == 0.0  # yes/no/noanswer only match themselves
    assert f1_score("yes indeed", ["yes"]) == 0.0
    assert f1_score("Yes.", ["yes"]) == 1.0
    assert f1_score("no answer", ["noanswer"]) == 0.0
    assert f1_score("", [""]) == 0.0  # no tokens: nothing shared
    scores = token_scores("x y z", ["y", "x y z u v"])  # each of f1/precision/recall maxed separately
    assert scores["recall"] == 1.0 and scores["precision"] == 1.0 and scores["f1"] == pytest.approx(0.75)


def test_answer_metrics_of_no_answer():
    assert answer_metrics(None, ["x"]) == {"em": 0.0, "cover_em": 0.0, "f1": 0.0}


@pytest.mark.parametrize(
    ("text", "response", "reference"),
    [
        ("<answer> Paris </answer>", "Paris", None),
        ("<answer>a</answer> then <answer> b </answer>", "b", "b"),
        ("<answer>unclosed", None, None),
        ("<answer><answer>x</answer></answer>", "<answer>x", None),
        ("<answer>\nmulti\nline\n</answer>", "multi\nline", None),
        ("<ANSWER>x</ANSWER>", None, None),
        ("<answer></answer>", "", None),
        ("no tags", None, None),
    ],
)
def test_extract_answer(text, response, reference):
    assert extract_answer(text) == response
    assert extract_answer(text, mode="reference") == reference


def test_reference_mode_on_prompt_plus_response_counts_the_prompt_example():
    prompt = "For example, <answer> Beijing </answer>. Question: q?\n"
    assert extract_answer(prompt + "<answer> Paris </answer>", mode="reference") == "Paris"
    assert extract_answer(prompt + "I do not know", mode="reference") is None
    with pytest.raises(ValueError, match="extraction mode"):
        extract_answer("x", mode="strict")


@pytest.mark.parametrize(
    ("text", "action", "content"),
    [
        ("<think>x</think><search> who </search>", "search", "who"),
        ("<answer>A</answer><search>q</search>", "answer", "A"),
        ("<search>q</answer>", None, ""),
        ("<search>a<answer>b</answer></search>", "search", "a<answer>b</answer>"),
        ("<search>\n</search>", "search", ""),
        ("nothing", None, ""),
    ],
)
def test_parse_action(text, action, content):
    assert parse_action(text) == (action, content)


def test_cut_turn():
    assert cut_turn("<search>a</search> junk <answer>b</answer>") == "<search>a</search>"
    assert cut_turn("<answer>b</answer> tail </search>") == "<answer>b</answer> tail </search>"
    assert cut_turn("<answer>b</answer> tail") == "<answer>b</answer>"
    assert cut_turn("plain") == "plain"


def test_normalize_question():
    assert normalize_question("  Who is it ") == "Who is it?"
    assert normalize_question("Who?") == "Who?"


_PIECES = [*"<>/answerch \n\x00\u202e?.", "the", "<answer>", "</answer>", "<search>", "</search>"]
_hostile = st.lists(st.sampled_from(_PIECES) | st.text(max_size=5), max_size=40).map("".join)


@settings(max_examples=150, deadline=None)
@given(_hostile, st.lists(st.text(max_size=20), max_size=3))
def test_hostile_text_never_raises_and_keeps_invariants(text, golden):
    for mode in ("response", "reference"):
        answer = extract_answer(text, mode)
        assert answer is None or answer in text
    action, content = parse_action(text)
    assert action in (None, "search", "answer") and content in text
    scores = answer_metrics(text, golden)
    assert all(0.0 <= v <= 1.0 for v in scores.values())
    if scores["em"] == 1.0:
        assert scores["cover_em"] == 1.0
        assert scores["f1"] in (0.0, 1.0)
    assert normalize_answer(normalize_answer(text)) == normalize_answer(text)


def test_megabyte_response_with_thousands_of_tags():
    text = "<answer>" * 20000 + "x" + "</answer>" * 20000 + "\x00" * 1_000_000
    assert extract_answer(text) == "<answer>" * 19999 + "x"
    assert parse_action(text)[0] == "answer"


def test_gold_answers_score_em_one_on_all_125_questions(shared_data_dir):
    questions = load_questions(str(shared_data_dir))
    assert len(questions) == 125
    for q in questions:
        for gold in q.golden_answers:
            assert answer_metrics(gold, q.golden_answers) == {"em": 1.0, "cover_em": 1.0, "f1": 1.0}, q.id
        # mutations give the reference's values
        first = q.golden_answers[0]
        assert exact_match(f"The {first.upper()}.", q.golden_answers) == 1.0
        assert exact_match(f"{first} indeed", q.golden_answers) == 0.0
        assert cover_exact_match(f"it is {first} indeed", q.golden_answers) == 1.0
