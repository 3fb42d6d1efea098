import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from genenv_gym.task import FrozenDict, Task

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4)
    ),
    max_leaves=20,
)


def make_task(**overrides):
    fields = {
        "id": "t0",
        "domain": "bfcl",
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [{"name": "f", "parameters": {"type": "dict", "properties": {}}}],
        "evaluation": {"ground_truth": [{"f": {"a": [1, ""]}}]},
        "difficulty": {"level": 3},
        "provenance": "procedural",
        "category": "simple_python",
    }
    fields.update(overrides)
    return Task(**fields)


def test_task_is_frozen_deeply():
    task = make_task()
    with pytest.raises(AttributeError):
        task.id = "other"
    with pytest.raises(TypeError):
        task.evaluation["ground_truth"] = None
    assert isinstance(task.messages, tuple)
    assert isinstance(task.evaluation, FrozenDict)


def test_json_round_trip_and_hash():
    task = make_task()
    again = Task.from_json(task.to_json())
    assert again == task
    assert hash(again) == hash(task)
    assert json.loads(task.to_json())["evaluation"]["ground_truth"] == [{"f": {"a": [1, ""]}}]
    assert task.level == 3


@given(evaluation=st.dictionaries(st.text(max_size=8), json_values, max_size=5))
def test_round_trip_any_json_evaluation(evaluation):
    task = make_task(evaluation=evaluation)
    assert Task.from_json(task.to_json()) == task
    assert task.to_dict()["evaluation"] == json.loads(json.dumps(evaluation))


def test_bad_records_raise_clear_errors():
    with pytest.raises(ValueError, match="non-empty id"):
        make_task(id="")
    with pytest.raises(ValueError, match="unknown Task fields"):
        Task.from_dict({**make_task().to_dict(), "colour": "red"})
