"""The multi-turn checker's fast paths give exactly what the general paths give.

The call-string reader without ``ast``, backend state copies by pickle, backends built straight from a
scenario, and the long-context filler encoded once: each is compared with the general path it replaces
(``ast``, ``copy.deepcopy``, construct-then-``_load_scenario``, ``json.dumps``), on hostile input too.
"""

from __future__ import annotations

import copy
import json
import random
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from genenv_gym.envs.bfcl_multiturn import long_context
from genenv_gym.envs.bfcl_multiturn.calls import (
    BACKENDS,
    STATELESS,
    _parse_with_ast,
    _simple_call,
    parse_call_string,
)
from genenv_gym.envs.bfcl_multiturn.executor import format_result
from genenv_gym.envs.bfcl_multiturn.state_copy import copy_state

PIECES = [
    "f", "cd", "(", ")", "=", ",", " ", "\t", "'", '"', "a", "x", "1", "0", "-", ".", "True", "None", "if",
    "\\", "\n", "\r", "\x00", "\x0c", "\u00a0", "é", "\ud800", "__debug__", "1e5", "_", "[", "]", "#", "a=1",
]  # fmt: skip


def _reference(text: str) -> object:
    try:
        return _parse_with_ast(text)
    except ValueError:
        return "ValueError"


def _same_call(fast: object, text: str) -> None:
    reference = _reference(text)
    assert fast == reference, text
    assert _types(fast) == _types(reference), text


def _types(call: object) -> list:
    def kind(value: object) -> object:
        return [kind(v) for v in value] if isinstance(value, list) else type(value)

    return [kind(v) for v in (*call.args, *call.kwargs.values())]


@pytest.mark.parametrize(
    "text",
    [
        "cd(folder='document')",
        'mv(source="a b.txt", destination="c,d)")',
        "f(a=1, b=-2.50, c=True, d=None, e=False,)",
        "f()",
        "f(a=-0, b=-0.0, c=12345678901234567890)",
        "f(a=1, a=2)",
        "f('positional', [1, 'x, y]', None,], b=[ ])",
        "lockDoors(unlock=False, door=['driver', 'passenger'])",
    ],
)
def test_simple_calls_read_as_ast_reads_them(text: str) -> None:
    fast = _simple_call(text)
    assert fast is not None
    _same_call(fast, text)


@pytest.mark.parametrize(
    "text",
    [
        "f(a='x\\n')",  # an escape
        "f(a=01)",  # not a Python literal
        "f(a=1e5)",
        "f(a=[[1]])",  # nested lists
        "f(a=1, 'x')",  # a positional argument after a keyword one
        "f([1,,2])",
        "if(a=1)",  # a keyword as the name
        "f(True=1)",
        "f(a=1, )",  # whitespace after the trailing comma
        "f(a=1,,)",
        "f(a='\u00a0')" + "\u00a0",
        "f(a=1) + g(b=2)",
        "o.f(a=1)",
        "f(a='\x00')",
    ],
)
def test_anything_else_takes_the_ast_path(text: str) -> None:
    assert _simple_call(text) is None
    parsed = _reference(text)
    assert parse_call_string(text) == parsed if parsed != "ValueError" else True


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=14), st.randoms(use_true_random=False))
def test_fast_reader_never_disagrees_with_ast(pieces: list[str], rng: random.Random) -> None:
    body = "".join(pieces)
    arguments = ", ".join(
        rng.choice(["", "a=", "b=", "if=", "x1 = "])
        + rng.choice([repr(body), body, "-3", "1.5", "None", f"[{body}]", "[1, 'a',]"])
        for _ in range(rng.randint(0, 3))
    )
    for text in (f"f({arguments})", f"f({body})", f"{body}(a=1)"):
        fast = _simple_call(text.strip())
        if fast is not None:
            _same_call(fast, text)


@pytest.mark.parametrize(
    "text",
    [
        "f([1" + " " * 20000 + "x])",
        "f([1" + " \t" * 10000 + ", , ])",
        "f(" + "a=1 , " * 20000 + " x)",
        "f(" + " " * 20000 + "a" + " " * 20000 + "=" + " " * 20000 + "x)",
        "f(" + "'a', " * 10000 + "'" + ")",
    ],
)
def test_fast_reader_stays_linear_on_hostile_text(text: str) -> None:
    start = time.perf_counter()
    assert _simple_call(text) is None
    assert time.perf_counter() - start < 0.5


@pytest.mark.shared_data
def test_real_ground_truth_calls_read_the_same(multiturn_entries: list[dict]) -> None:
    simple = 0
    for entry in multiturn_entries:
        for turn in entry["ground_truth"]:
            for text in turn:
                fast = _simple_call(text.strip())
                if fast is not None:
                    simple += 1
                    _same_call(fast, text)
    assert simple > 0


@pytest.fixture(scope="module")
def multiturn_entries(shared_data_dir) -> list[dict]:
    from genenv_gym.envs.bfcl_multiturn.data import load_entries

    return load_entries(None, str(shared_data_dir))


def test_copy_state_is_a_deep_copy_that_keeps_types_and_sharing() -> None:
    shared = [1, 2]
    value = {"a": shared, "b": shared, 3: {4, 5}, "t": (1, [2]), "f": -0.0, "n": None}
    copied = copy_state(value)
    assert copied == value and copied is not value
    assert copied["a"] is copied["b"] and copied["a"] is not shared
    assert type(copied[3]) is set and type(copied["t"]) is tuple
    assert copy_state(value) == copy.deepcopy(value)
    unpicklable = {"f": lambda: 1}
    assert copy_state(unpicklable)["f"] is unpicklable["f"]  # deepcopy's answer for functions


def _state(instance: object) -> dict:
    out = {}
    for key, value in vars(instance).items():
        if key == "_random":
            out[key] = value.getstate()
        elif key == "_current_dir":
            out[key] = value.name
        else:
            out[key] = value
    return out


@pytest.mark.shared_data
@pytest.mark.parametrize("long", [False, True])
def test_backends_built_from_a_scenario_equal_built_then_loaded(
    multiturn_entries: list[dict], long: bool
) -> None:
    for entry in multiturn_entries[::7]:
        for name in entry["involved_classes"]:
            if name in STATELESS:
                continue
            config = entry["initial_config"].get(name, {})
            loaded = BACKENDS[name]()
            loaded._load_scenario(copy.deepcopy(config), long_context=long)
            built = BACKENDS[name](copy.deepcopy(config), long_context=long)
            assert _state(built) == _state(loaded), (entry["id"], name)


def test_filler_values_are_encoded_as_json_dumps_encodes_them() -> None:
    long_context.reset_filler()
    for name in ("MA_5_EXTENSION", "CAR_STATUS_METADATA_EXTENSION", "WATCH_LIST_EXTENSION"):
        value = long_context.filler(name)
        for result in ({"price": 1.5, "MA(5)": value, "é": "ü"}, {1: value}, {"s": {1}, "v": value}):
            try:
                expected = json.dumps(result)
            except TypeError:
                expected = str(result)
            assert format_result(result) == expected
        assert long_context.filler_json(value) == json.dumps(value)
        assert long_context.filler_json(json.loads(json.dumps(value))) is None  # an equal value is not it


def test_an_official_filler_is_a_regular_file_and_one_per_process(tmp_path) -> None:
    """The filler is process-wide: a second, different file while one is in use is refused (another env
    of the process would show it), and only a regular file of bounded size is read."""
    long_context.reset_filler()
    with pytest.raises(ValueError, match="regular file"):
        long_context.load_official_filler("/dev/zero")
    values = long_context._generate()
    files = []
    for mark in ("A", "B"):
        path = tmp_path / f"long_context_{mark}.py"
        marked = {**values, "PARKING_BRAKE_INSTRUCTION": f"{mark}-brake"}
        path.write_text("\n".join(f"{name} = {value!r}" for name, value in marked.items()) + "\n")
        files.append(path)
    try:
        long_context.load_official_filler(files[0])
        long_context.load_official_filler(files[0])  # the same file again: nothing changes
        assert long_context.filler("PARKING_BRAKE_INSTRUCTION") == "A-brake"
        with pytest.raises(ValueError, match="in use in this process"):
            long_context.load_official_filler(files[1])
        assert long_context.filler("PARKING_BRAKE_INSTRUCTION") == "A-brake"
    finally:
        long_context.reset_filler()
    assert long_context.filler_source() == "generated"
