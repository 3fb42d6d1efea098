"""The allow-list of what a remote client may set: every key declared or refused with the allowed ones,
every value within its bounds, hostile JSON refused cleanly, and declarations that match the envs."""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from genenv_gym.datasets.data_dir import entry_name
from genenv_gym.registry.client_params import (
    MAX_DEPTH,
    TASK_FIELDS,
    Choice,
    Choices,
    ClientParams,
    Fields,
    Flag,
    Integer,
    ParamError,
    Real,
    TaskData,
    Text,
    json_depth_ok,
)
from genenv_gym.registry.manifest import all_manifests, load
from genenv_gym.registry.registration import DOMAINS, ENV_ENTRIES
from genenv_gym.task import Task

PARAMS = ClientParams(
    kwargs={
        "mode": Choice(("a", "b")),
        "levels": Choices(("x", "y", "z")),
        "n": Integer(1, 64),
        "p": Real(0.0, 1.0),
        "on": Flag(),
        "nested": Fields({"k": Integer(0, 3)}),
    },
    options={"task_id": Text(), "task": TaskData(max_chars=10_000)},
)


def test_an_undeclared_key_is_forbidden_and_the_message_lists_the_allowed_ones():
    for kwargs, path in [
        ({"data_dir": "/etc"}, "env_kwargs.data_dir"),
        ({"nested": {"backend": "openai:m@http://x"}}, "env_kwargs.nested.backend"),
        # a forbidden key anywhere wins over a bad value elsewhere: always 403 for it
        ({"mode": "bad", "nested": {"trust_remote_code": True}}, "env_kwargs.nested.trust_remote_code"),
    ]:
        with pytest.raises(ParamError) as caught:
            PARAMS.check_kwargs(kwargs)
        assert caught.value.forbidden and caught.value.path == path
    assert "a client may set: k)" in str(caught.value)  # the nested object's own keys
    with pytest.raises(ParamError, match="a client may set: levels, mode, n, nested, on, p"):
        PARAMS.check_kwargs({"url": "http://x"})
    with pytest.raises(ParamError, match=r"a client may set: none"):
        ClientParams().check_kwargs({"anything": 1})


def test_values_outside_their_bounds_are_refused_naming_the_bound():
    bad = [
        ({"mode": "c"}, "one of"),
        ({"mode": True}, "one of"),
        ({"levels": []}, "non-empty list"),
        ({"levels": ["x", "x"]}, "twice"),
        ({"levels": "x"}, "non-empty list"),
        ({"n": 65}, r"\[1, 64\]"),
        ({"n": 2.0}, "integer"),
        ({"n": True}, "integer"),
        ({"p": float("nan")}, "number"),
        ({"p": 1.5}, "number"),
        ({"on": 1}, "true or false"),
        ({"nested": [1]}, "object"),
        ({"nested": {"k": 9}}, r"\[0, 3\]"),
    ]
    for kwargs, reason in bad:
        with pytest.raises(ParamError, match=reason) as caught:
            PARAMS.check_kwargs(kwargs)
        assert not caught.value.forbidden, kwargs
    good = {"mode": "a", "levels": ["z", "x"], "n": 64, "p": 1, "on": False, "nested": {"k": 0}}
    assert PARAMS.check_kwargs(good) == {**good, "p": 1.0}


def test_a_task_is_data_of_bounded_shape_and_size():
    task = Task("t1", "digits", messages=({"role": "user", "content": "hi"},), evaluation={"answer": "1"})
    assert PARAMS.check_options({"task": task.to_dict()})["task"] == task.to_dict()
    for value, reason in [
        ({}, "non-empty string"),
        ({"id": "x", "domain": "d", "bogus": 1}, "unknown Task field"),
        ({"id": "x", "domain": "d", "evaluation": []}, "object"),
        ({"id": "x", "domain": "d", "messages": "hi"}, "list"),
        ({"id": "x", "domain": "d", "evaluation": {"a": "b" * 20_000}}, "larger than"),
        ("a/path/to/task.json", "JSON object"),
    ]:
        with pytest.raises(ParamError, match=reason):
            PARAMS.check_options({"task": value})
    assert set(TASK_FIELDS) == set(task.to_dict())


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.sampled_from(["mode", "levels", "n", "p", "on", "nested", "x"]), JSON, max_size=6))
def test_any_json_is_accepted_within_bounds_or_refused_with_a_param_error(kwargs):
    try:
        checked = PARAMS.check_kwargs(kwargs)
    except ParamError as error:
        assert error.path.startswith("env_kwargs.")
        return
    assert set(checked) <= set(PARAMS.kwargs)
    if "n" in checked:
        assert type(checked["n"]) is int and 1 <= checked["n"] <= 64
    if "p" in checked:
        assert 0.0 <= checked["p"] <= 1.0


@settings(max_examples=100, deadline=None)
@given(JSON)
def test_any_json_as_a_task_is_accepted_as_a_task_dict_or_refused(value):
    try:
        checked = PARAMS.check_options({"task": value})["task"]
    except ParamError:
        return
    assert set(checked) <= set(TASK_FIELDS) and isinstance(checked["id"], str)


def test_depth_is_measured_without_recursion():
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    assert not json_depth_ok(deep)
    shallow: dict = {}
    node = shallow
    for _ in range(MAX_DEPTH - 1):
        node["a"] = {}
        node = node["a"]
    assert json_depth_ok(shallow)


@given(st.text(max_size=40))
def test_a_data_entry_name_is_never_a_path(name):
    try:
        entry_name(name, "x")
    except ValueError:
        return
    assert "/" not in name and "\\" not in name and not name.startswith(".") and name


def _declared(params, prefix=""):
    for key, param in params.items():
        yield f"{prefix}{key}"
        if isinstance(param, Fields):
            yield from _declared(param.params, f"{prefix}{key}.")


#: What only the operator may set, whatever the env: data and model locations, endpoints, secrets, code.
SERVER_ONLY = re.compile(
    r"(dir|path|file|url|root|cache|host|backend|model|trust_remote_code|filler|retriever|tokenizer|"
    r"plan_cache|corpus|timeout|retries|engine)s?$|(^|_)(token|key|secret)$",
    re.IGNORECASE,
)


def _keywords(taker: Callable[..., Any], forwards_to: tuple[Callable[..., Any], ...] = ()) -> set[str]:
    """The keyword arguments ``taker`` (a class or a factory) takes by name; when it also takes
    ``**kwargs``, those of where they go: its base classes, and ``forwards_to``."""
    is_class = isinstance(taker, type)
    parameters = inspect.signature(taker.__init__ if is_class else taker).parameters
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    names = {n for n, p in parameters.items() if n != "self" and p.kind in kinds}
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        for other in (*(taker.__mro__[1:] if is_class else ()), *forwards_to):
            if other is not object:
                names |= _keywords(other)
    return names


def _env_class(env_id: str) -> type:
    module, name = gym.registry[env_id].entry_point.split(":")
    return getattr(importlib.import_module(module), name)


#: The manifest of each registered id.
MANIFEST_OF = {entry.id: manifest for manifest in all_manifests() for entry in manifest.entries}


@pytest.mark.parametrize("entry", ENV_ENTRIES, ids=lambda e: e.id)
def test_every_declared_kwarg_is_one_the_env_takes_and_none_is_the_operators(entry):
    # The server checks a client's kwargs against this declaration alone (serve/client_kwargs.py): a key
    # declared here that the constructor does not take would fail only when the env is built.
    domains = tuple(load(spec.domain) for spec in MANIFEST_OF[entry.id].domains)  # where **kwargs go
    accepted = _keywords(_env_class(entry.id), forwards_to=domains)
    for key in entry.client.kwargs:
        assert key in accepted, (entry.id, key)
    for key in _declared(entry.client.kwargs):
        assert not SERVER_ONLY.search(key.rsplit(".", 1)[-1]), (entry.id, key)
    if "simulator" in entry.client.kwargs:
        assert entry.client.kwargs["simulator"] == Choice(("procedural",))


@pytest.mark.parametrize("entry", ENV_ENTRIES, ids=lambda e: e.id)
def test_every_declared_nested_key_is_one_its_object_takes(entry):
    from genenv_gym.curriculum import CurriculumConfig
    from genenv_gym.simulator import ProceduralSimulator

    nested = {key for key, param in entry.client.kwargs.items() if isinstance(param, Fields)}
    takers = {"curriculum": CurriculumConfig, "simulator_kwargs": ProceduralSimulator}
    if "domain_kwargs" in nested:
        takers["domain_kwargs"] = load(DOMAINS[entry.kwargs["domain"]])
    assert nested <= set(takers), f"{entry.id}: no test knows what takes {sorted(nested - set(takers))}"
    for key in nested:
        for inner in entry.client.kwargs[key].params:
            assert inner in _keywords(takers[key]), (entry.id, f"{key}.{inner}")


def test_declared_choices_are_the_domains_own():
    from genenv_gym.envs.alfworld.data import SPLITS as ALFWORLD_SPLITS
    from genenv_gym.envs.alfworld.manifest import SPLITS
    from genenv_gym.envs.alfworld.task_types import TASK_TYPE_NAMES
    from genenv_gym.envs.apibank.data import LEVEL_FOLDERS
    from genenv_gym.envs.apibank.domain import SCORINGS as APIBANK_SCORINGS
    from genenv_gym.envs.bamboogle.episode import REWARDS
    from genenv_gym.envs.bamboogle.generator import ANSWER_TYPES
    from genenv_gym.envs.bamboogle.manifest import LOOP, SIM_DOMAIN
    from genenv_gym.envs.bfcl_multiturn.calls import ACTION_FORMATS
    from genenv_gym.envs.bfcl_multiturn.data import CATEGORIES
    from genenv_gym.envs.bfcl_multiturn.manifest import CATEGORIES as DECLARED_CATEGORIES
    from genenv_gym.envs.travelplanner.domain import LEVELS, REWARD_MODES
    from genenv_gym.envs.travelplanner.evaluate import SCORINGS

    by_id = {e.id: e.client for e in ENV_ENTRIES}
    assert SPLITS == ALFWORLD_SPLITS
    assert by_id["GenEnv-ALFWorld-v0"].kwargs["task_types"].values == TASK_TYPE_NAMES
    assert by_id["GenEnv-APIBank-v0"].kwargs["levels"].values == tuple(LEVEL_FOLDERS)
    assert by_id["GenEnv-APIBank-v0"].kwargs["scoring"].values == APIBANK_SCORINGS
    assert LOOP["reward"].values == REWARDS and SIM_DOMAIN["answer_types"].values == ANSWER_TYPES
    assert DECLARED_CATEGORIES == CATEGORIES
    assert by_id["GenEnv-BFCL-MultiTurn-v0"].kwargs["action_format"].values == ACTION_FORMATS
    travel = by_id["GenEnv-TravelPlanner-v0"].kwargs
    assert travel["levels"].values == LEVELS and travel["reward_mode"].values == REWARD_MODES
    assert travel["scoring"].values == SCORINGS


def _task_at(path: tuple[str, ...], count: int) -> dict:
    """A task whose ``path`` holds ``count``: a list of that many items, or the int itself for a number."""
    leaf: object = count if path[-1] in ("days", "visiting_city_number", "max_steps") else ["x"] * count
    for key in reversed(path):
        leaf = {key: leaf}
    return {"id": "t", "domain": "d", **leaf}  # type: ignore[dict-item]


def test_every_family_declares_task_bounds_that_refuse_past_them_naming_what():
    import importlib
    import re

    from genenv_gym.registry.client_params import ParamError, TaskData
    from genenv_gym.registry.manifest import ENVS_DIR

    families = 0
    for path in sorted(ENVS_DIR.glob("*/manifest.py")):
        bounds = getattr(
            importlib.import_module(f"genenv_gym.envs.{path.parent.name}.manifest"), "TASK_BOUNDS", None
        )
        if bounds is None:
            continue
        families += 1
        data = TaskData(bounds=bounds)
        for bound in bounds:
            if "*" in bound.path:
                continue
            data.check(_task_at(bound.path, bound.limit), "options.task")
            with pytest.raises(ParamError, match=re.escape(bound.what)):
                data.check(_task_at(bound.path, bound.limit + 1), "options.task")
    assert families >= 9


def test_a_task_bound_counts_across_the_items_a_star_takes_and_ignores_other_shapes():
    from genenv_gym.registry.client_params import TaskBound

    calls = TaskBound("expected calls", ("evaluation", "ground_truth", "*"), 3)
    assert calls.count({"evaluation": {"ground_truth": [[1, 2], [3, 4], None]}}) == 4
    assert calls.count({"evaluation": {"ground_truth": "not a list"}}) == 0
    assert TaskBound("days", ("query", "days"), 30).count({"query": {"days": True}}) == 0
