"""MathAPI backend and the safe executor of BFCL multi-turn: official values, errors, hostile calls."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from genenv_gym.envs.bfcl_multiturn.executor import execute_call, find_method
from genenv_gym.envs.bfcl_multiturn.math_api import MathAPI


def _run(name: str, **kwargs: object) -> str:
    return execute_call({"MathAPI": MathAPI()}, name, kwargs)


def test_arithmetic_results_are_json_like_official_loop() -> None:
    assert _run("add", a=2, b=3) == '{"result": 5}'
    assert _run("divide", a=1, b=0) == '{"error": "Cannot divide by zero"}'
    assert json.loads(_run("mean", numbers=[1, 2, 3, 6])) == {"result": 3.0}
    assert json.loads(_run("standard_deviation", numbers=[2, 4, 4, 4, 5, 5, 7, 9])) == {"result": 2.0}
    assert _run("percentage", part=1, whole=0) == '{"error": "Whole value cannot be zero"}'
    assert _run("sum_values", numbers=[]) == '{"error": "Cannot calculate sum of an empty list"}'


def test_conversions_and_their_errors() -> None:
    api = MathAPI()
    assert api.si_unit_conversion(2, "km", "m") == {"result": 2000.0}
    assert api.si_unit_conversion(2, "km", "parsec") == {
        "error": "Conversion from 'km' to 'parsec' is not supported"
    }
    assert api.si_unit_conversion("2", "km", "m") == {"error": "Value must be a number"}
    assert api.imperial_si_conversion(100, "celsius", "fahrenheit") == {"result": 212.0}
    assert api.imperial_si_conversion(5, "kg", "kg") == {"result": 5}


def test_precision_results_keep_their_types_and_do_not_leak_precision() -> None:
    api = MathAPI()
    root = api.square_root(2, 5)["result"]
    assert isinstance(root, Decimal) and str(root) == "1.4142"
    assert Decimal(1) / Decimal(3) == Decimal("0.3333333333333333333333333333")
    assert abs(float(api.logarithm(8, 2, 10)["result"]) - 3.0) < 1e-9
    # not JSON-serialisable, so rendered with str() as the official loop does
    assert _run("square_root", number=4, precision=3) == "{'result': Decimal('2')}"
    assert api.square_root(-1, 3) == {"error": "Cannot calculate square root of a negative number"}


def test_type_errors_are_official_error_dicts() -> None:
    assert _run("add", a="x", b=1) == '{"error": "Both inputs must be numbers"}'
    assert _run("multiply", a=[1], b=3) == '{"error": "Both inputs must be numbers"}'
    assert _run("power", base="ab", exponent=3) == '{"error": "Both inputs must be numbers"}'
    assert _run("min_value", numbers=[1, "a"]) == ('{"error": "All elements in the list must be numbers"}')


def test_hostile_names_never_reach_python_attributes() -> None:
    instances = {"MathAPI": MathAPI()}
    for name in ["__init__", "__class__", "_load_scenario", "eval", "os.system", "METHODS"]:
        assert find_method(instances, name) is None
        assert execute_call(instances, name, {}).startswith("Error during execution: ")
    out = execute_call(instances, "add", {"a": 1, "c": 2})
    assert out.startswith("Error during execution: ") and "unexpected keyword" in out
    assert _run("power", base=10.0, exponent=1e6).startswith("Error during execution: ")


@settings(max_examples=60, deadline=None)
@given(
    name=st.sampled_from((*MathAPI.METHODS, "nope", "__dict__")),
    kwargs=st.dictionaries(
        st.sampled_from(["a", "b", "numbers", "value", "precision", "base", "x"]),
        st.one_of(
            st.integers(-(10**6), 10**6),
            st.floats(allow_nan=True),
            st.text(max_size=5),
            st.lists(st.integers(-5, 5), max_size=4),
            st.none(),
        ),
        max_size=3,
    ),
)
def test_garbage_calls_always_give_a_string(name: str, kwargs: dict) -> None:
    assert isinstance(execute_call({"MathAPI": MathAPI()}, name, kwargs), str)


@pytest.mark.shared_data
def test_logarithm_prints_at_its_precision_as_officially_on_real_records(shared_data_dir) -> None:
    """The official logarithm sets mpmath's precision process-wide and its result prints at it right after
    the call: the real ``logarithm(value=20,base=10,precision=2)`` shows ``mpf('1.3027')``. Ours prints the
    same without changing the process's precision."""
    import mpmath

    from genenv_gym.envs.bfcl_multiturn import data
    from genenv_gym.envs.bfcl_multiturn.checker import GroundTruthRun

    call = "logarithm(value=20,base=10,precision=2)"
    e = next(
        e
        for e in data.load_entries(["multi_turn_base"], str(shared_data_dir))
        if call in str(e["ground_truth"])
    )
    run = GroundTruthRun(e, long_context=False)
    results = {}
    for turn, calls in enumerate(e["ground_truth"]):
        results.update(zip(calls, run.run_turn(turn), strict=True))
    assert results[call] == "{'result': mpf('1.3027')}"
    assert mpmath.mp.dps == 15
    assert _run("logarithm", value=980.0, base=20, precision=10) == "{'result': mpf('2.299121531134')}"
