"""BFCL multi-turn: loading, call parsing and the official state / response checker."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from genenv_gym.datasets.data_dir import MissingDataError
from genenv_gym.envs.bfcl.decode_errors import DecodeError
from genenv_gym.envs.bfcl_multiturn import data
from genenv_gym.envs.bfcl_multiturn.calls import (
    Call,
    NestedCall,
    decode_calls,
    make_instances,
    parse_call_string,
    parse_model_call,
    run_call,
)
from genenv_gym.envs.bfcl_multiturn.checker import (
    EMPTY_TURN,
    FORCE_TERMINATED,
    IRRELEVANCE_ERROR,
    RESPONSE_MISMATCH,
    STATE_MISMATCH,
    check_entry,
    unordered_missing,
)
from genenv_gym.fixtures import FIXTURES_DIR

FIXTURES = str(FIXTURES_DIR)


def entry(entry_id: str, root: str = FIXTURES) -> dict:
    category = entry_id.rsplit("_", 1)[0]
    return next(e for e in data.load_entries([category], root) if e["id"] == entry_id)


def as_model_turns(truth: list[list[str]]) -> list[list[list[str]]]:
    """The ground truth played as the model's run: each non-empty turn one call step."""
    return [[list(turn)] if turn else [] for turn in truth]


def test_fixtures_cover_every_category_and_three_classes():
    entries = data.load_entries(None, FIXTURES)
    assert {e["category"] for e in entries} == set(data.CATEGORIES)
    assert len({c for e in entries for c in e["involved_classes"]}) >= 3


def test_missed_function_docs_are_held_out_until_their_turn():
    e = entry("multi_turn_miss_func_0")
    assert "sort" not in [f["name"] for f in e["function"]]
    assert [d["name"] for d in e["holdout"]["2"]] == ["sort"]
    assert e["question"][2] == []


def test_unknown_category_and_missing_files(tmp_path):
    with pytest.raises(ValueError, match="unknown BFCL multi-turn categories"):
        data.load_entries(["multi_turn_composite"], FIXTURES)
    with pytest.raises(MissingDataError, match=r"BFCL_v4_multi_turn_base\.json"):
        data.load_entries(["multi_turn_base"], str(tmp_path))


def test_every_fixture_ground_truth_passes_its_checker():
    for e in data.load_entries(None, FIXTURES):
        verdict = check_entry(e, as_model_turns(e["ground_truth"]))
        assert verdict.valid, (e["id"], verdict)
        assert [o.checked for o in verdict.turns] == [bool(t) for t in e["ground_truth"]]


def test_ground_truth_calls_parse_as_literals_only():
    assert parse_call_string("wc('results.txt', mode='l')") == Call("wc", {"mode": "l"}, ("results.txt",))
    assert parse_call_string("mean(numbers=[1.0, -2])").kwargs == {"numbers": [1.0, -2]}
    for bad in ("__import__('os').system('x')", "f(a=g())", "f(a=b)", "1 + 2", "f(("):
        with pytest.raises(ValueError):
            parse_call_string(bad)


def test_positional_ground_truth_arguments_are_bound_by_name():
    instances = make_instances(["GorillaFileSystem"], entry("multi_turn_base_0")["initial_config"], False)
    run_call(instances, Call("cd", {"folder": "lab"}))
    assert run_call(instances, Call("wc", {"mode": "l"}, ("results.txt",))) == '{"count": 3, "type": "lines"}'


def test_model_text_is_decoded_not_executed():
    assert decode_calls("[cd(folder='lab'), ls()]") == [Call("cd", {"folder": "lab"}), Call("ls", {})]
    assert decode_calls("[]") == []
    assert decode_calls("[]") == []
    nested = decode_calls("[get_ticket(ticket_id=add(a=3, b=4))]")[0]
    assert nested.kwargs["ticket_id"] == NestedCall(Call("add", {"a": 3, "b": 4}))
    with pytest.raises(DecodeError, match="empty dict"):
        decode_calls("[edit_ticket(ticket_id=7, updates={})]")
    with pytest.raises(DecodeError, match="invalid syntax"):
        decode_calls("I am done.")


def test_refused_private_dotted_and_unknown_names():
    instances = make_instances(["TicketAPI", "MathAPI"], {}, False)
    assert (
        run_call(instances, Call("exit", {})) == "Error during execution: Function call exit is not allowed."
    )
    assert run_call(instances, Call("os.remove", {})).endswith("Function call remove is not allowed.")
    assert run_call(instances, Call("os.system", {})) == "Error during execution: name 'os' is not defined"
    for name in ("_load_scenario", "__init__", "nope"):
        assert run_call(instances, Call(name, {})) == f"Error during execution: name '{name}' is not defined"
    assert run_call(instances, Call("add", {"a": 1, "c": 2})).startswith("Error during execution: ")


def test_nested_call_arguments_run_their_method():
    instances = make_instances(["MathAPI"], {}, False)
    call = decode_calls("[add(a=add(a=1, b=2), b=4)]")[0]
    assert run_call(instances, call) == '{"error": "Both inputs must be numbers"}'  # add got add's dict
    assert run_call(instances, decode_calls("[add(a=nope(x=1), b=4)]")[0]) == (
        "Error during execution: name 'nope' is not defined"
    )


def test_response_rule_is_an_unordered_multiset_containment():
    assert unordered_missing(["a", "b"], ["b", "x", "a"]) == []
    assert unordered_missing(["a", "a"], ["a"]) == ["a"]


def test_state_mismatch_names_the_attribute():
    e = entry("multi_turn_base_0")
    turns = as_model_turns(e["ground_truth"])
    turns[1] = [["create_ticket(title='Trial 2 failed', description='trial 2 failed', priority=4)"]]
    verdict = check_entry(e, turns)
    assert verdict.error_type == STATE_MISMATCH
    assert verdict.turns[1].details["differing_attributes"] == {"TicketAPI": ["ticket_queue"]}
    assert [o.valid for o in verdict.turns] == [True, False, False]  # the state stays wrong


def test_response_mismatch_when_a_read_is_missing():
    e = entry("multi_turn_base_0")
    turns = as_model_turns(e["ground_truth"])
    turns[0] = [["cd(folder='lab')"]]  # same state, but the grep result was never produced
    verdict = check_entry(e, turns)
    assert (verdict.valid, verdict.error_type) == (False, RESPONSE_MISMATCH)
    assert "for turn 0" in verdict.error


def test_results_of_earlier_turns_count_and_order_is_free():
    e = entry("multi_turn_base_0")
    turns = as_model_turns(e["ground_truth"])
    turns[0] = [["cd(folder='lab')", "grep(file_name='results.txt', pattern='failed')", "wc('results.txt')"]]
    turns[2] = [["wc(file_name='results.txt', mode='l')"]]
    assert check_entry(e, turns).valid
    turns[0] = [["cd(folder='lab')"], ["grep(file_name='results.txt', pattern='failed')"]]
    assert check_entry(e, turns).valid


def test_a_turn_without_calls_fails_when_calls_were_expected():
    e = entry("multi_turn_base_1")
    verdict = check_entry(e, [[["fillFuelTank(fuelAmount=20.5)"]], []])
    assert (verdict.error_type, verdict.error) == (EMPTY_TURN, "Model response list is empty for turn 1")


def test_fewer_turns_is_force_termination():
    e = entry("multi_turn_base_1")
    assert check_entry(e, [[["fillFuelTank(fuelAmount=20.5)"]]]).error_type == FORCE_TERMINATED


def test_miss_param_turn_is_not_checked_unless_strict_irrelevance():
    e = entry("multi_turn_miss_param_0")
    early = [[["get_ticket(ticket_id=7)"]], [["close_ticket(ticket_id=7)"]], [["close_ticket(ticket_id=7)"]]]
    verdict = check_entry(e, early)
    assert verdict.valid and not verdict.turns[1].checked
    assert check_entry(e, early, strict_irrelevance=True).error_type == IRRELEVANCE_ERROR
    assert check_entry(e, as_model_turns(e["ground_truth"]), strict_irrelevance=True).valid


@pytest.mark.shared_data
def test_every_real_ground_truth_passes_its_checker(shared_data_dir):
    passed = {}
    for category in data.CATEGORIES:
        entries = data.load_entries([category], str(shared_data_dir))
        assert len(entries) == 200
        passed[category] = sum(check_entry(e, as_model_turns(e["ground_truth"])).valid for e in entries)
    assert passed == dict.fromkeys(data.CATEGORIES, 200)


def _read_call_as_json_loads(e: dict) -> tuple[list[list[str]], int, str] | None:
    """The entry's ground truth with its first ``find`` call replaced by ``json.loads`` of that call's
    recorded result (turn, result), or None when it has no such call."""
    from genenv_gym.envs.bfcl_multiturn.checker import GroundTruthRun

    run = GroundTruthRun(e, long_context=False)
    for turn, calls in enumerate(e["ground_truth"]):
        results = run.run_turn(turn)
        for i, call in enumerate(calls):
            if call.startswith("find("):
                turns = [list(t) for t in e["ground_truth"]]
                turns[turn][i] = f"json.loads(s={results[i]!r})"
                return turns, turn, results[i]
    return None


@pytest.mark.shared_data
def test_module_calls_are_judged_as_the_official_eval_runs_them(shared_data_dir):
    """The official loop evals call strings where ``json`` is imported: ``json.loads`` of a read-only
    call's result gives the same result string, so the run passes; an unknown module or attribute fails
    with the official error, and nothing raises out of the checker."""
    found = None
    for e in data.load_entries(["multi_turn_base"], str(shared_data_dir)):
        found = _read_call_as_json_loads(e)
        if found is not None:
            break
    assert found is not None
    turns, turn, result = found
    assert result.startswith('{"matches": ')
    verdict = check_entry(e, as_model_turns(turns))
    assert verdict.valid, verdict
    instances = make_instances(e["involved_classes"], e["initial_config"], False)
    call = next(c for c in turns[turn] if c.startswith("json.loads("))
    assert run_call(instances, decode_calls(f"[{call}]")[0]) == result  # decoded model text: the same
    for other, message in (
        ("os.listdir(path='.')", "name 'os' is not defined"),
        ("json.load(fp='x')", "json.load is not run here"),
        ("json.nope(s='x')", "module 'json' has no attribute 'nope'"),
        ("json.loads(s=", "was never closed"),
    ):
        assert message in run_call(instances, parse_model_call(other))
        broken = [list(t) for t in turns]
        broken[turn] = [c if not c.startswith("json.loads(") else other for c in broken[turn]]
        assert check_entry(e, as_model_turns(broken)).error_type == RESPONSE_MISMATCH


@settings(max_examples=200, deadline=None)
@given(
    st.one_of(
        st.text(max_size=60),
        st.sampled_from(
            ["json.loads(s=", "json.", "a.b.c(x=1)", "f(**{'a': 1})", "f(a=1 + 2)", "(", "lambda: 0"]
        ),
    )
)
def test_model_call_strings_never_raise(text):
    """Whatever the model wrote, reading and running its call string records a result; nothing raises."""
    instances = make_instances(["MathAPI", "TicketAPI"], {}, False)
    call = parse_model_call(text)
    assert isinstance(run_call(instances, call), str)


def test_hostile_module_calls_stay_bounded():
    instances = make_instances(["MathAPI"], {}, False)
    deep = "json.loads(s='" + "[" * 100_000 + "')"
    assert run_call(instances, parse_model_call(deep)).startswith("Error during execution: ")
    nested = "add(a=" * 300 + "1" + ")" * 300
    assert run_call(instances, parse_model_call(nested)).startswith("Error during execution: ")
    huge = "json.dumps(obj=[1, 2], indent=1000000000)"
    assert "not run here" in run_call(instances, parse_model_call(huge))
