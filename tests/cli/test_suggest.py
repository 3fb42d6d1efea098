"""The one message for a value outside its choices (``suggest.unknown_choice`` / ``check_choice``): it
names what was given and what is allowed, stays short whatever is given, and the modules that take a
choice use it."""

from __future__ import annotations

import pytest

from genenv_gym.suggest import SHOWN_CHARS, SHOWN_ITEMS, check_choice, unknown_choice


def test_the_message_names_the_value_a_close_choice_and_every_choice():
    message = unknown_choice("agent", "orcale", ("oracle", "random"))
    assert message == "unknown agent 'orcale' (did you mean 'oracle'?); choose from ['oracle', 'random']"
    assert (
        unknown_choice("split", "zzz", ["train", "test"])
        == "unknown split 'zzz'; choose from ['train', 'test']"
    )


def test_a_long_string_is_cut_so_a_hostile_value_cannot_flood_the_message():
    message = unknown_choice("split", "x" * 100_000, ["train"])
    assert f"'{'x' * SHOWN_CHARS}'" in message and "x" * (SHOWN_CHARS + 1) not in message
    assert message.endswith("; choose from ['train']") and len(message) < 200


@pytest.mark.parametrize(
    ("given", "shown"),
    [(None, "None"), (3, "3"), (2.5, "2.5"), (True, "True"), (b"raw", "b'raw'"), (("a",), "('a',)")],
)
def test_a_value_that_is_not_a_string_is_shown_as_python_writes_it(given, shown):
    assert (
        unknown_choice("engine", given, ["auto", "hf"])
        == f"unknown engine {shown}; choose from ['auto', 'hf']"
    )


def test_a_list_of_unknown_values_is_shown_whole_when_short_and_cut_when_long():
    assert (
        unknown_choice("levels", ["x", "y"], ["1", "2"])
        == "unknown levels ['x', 'y']; choose from ['1', '2']"
    )
    flood = [f"name{i}-" + "q" * 1000 for i in range(1000)]
    message = unknown_choice("levels", flood, ["1", "2"])
    assert (
        "name0-" in message and f"name{SHOWN_ITEMS - 1}-" in message and f"name{SHOWN_ITEMS}-" not in message
    )
    assert len(message) < (SHOWN_CHARS + 10) * (SHOWN_ITEMS + 2)


def test_a_value_whose_repr_fails_or_floods_still_gives_a_message():
    class Hostile:
        def __repr__(self) -> str:
            raise RuntimeError("no")

    class Loud:
        def __repr__(self) -> str:
            return "L" * 100_000

    assert unknown_choice("mode", Hostile(), ["a"]).endswith("; choose from ['a']")
    assert len(unknown_choice("mode", Loud(), ["a"])) < 200


def test_check_choice_passes_a_member_and_raises_the_message_otherwise():
    check_choice("mode", "a", ("a", "b"))
    check_choice("level", 2, range(1, 4))
    with pytest.raises(ValueError, match=r"^unknown mode 'c'; choose from \['a', 'b'\]$"):
        check_choice("mode", "c", ("a", "b"))
    with pytest.raises(ValueError, match=r"^unknown mode \{'a': 1\}; choose from \['a', 'b'\]$"):
        check_choice("mode", {"a": 1}, ("a", "b"))  # unhashable: still the message, not a TypeError
    with pytest.raises(ValueError, match=r"unknown mode None"):
        check_choice("mode", None, ("a", "b"))


def _agents_call(name):
    from genenv_gym.evaluation import check_agent

    return check_agent(name)


def _digits(name):
    from genenv_gym.envs.digits.domain import make_digits_domain

    return make_digits_domain(name)


def _task_type(name):
    from genenv_gym.envs.alfworld.task_types import task_type

    return task_type(name)


def _extraction(mode):
    from genenv_gym.envs.bamboogle.extraction import extract_answer

    return extract_answer("<answer>x</answer>", mode=mode)


def _action_format(fmt):
    from genenv_gym.envs.bfcl_multiturn.calls import check_action_format

    return check_action_format(fmt)


def _bfcl_categories(name):
    from genenv_gym.envs.bfcl.data import chosen_categories

    return chosen_categories([name])


@pytest.mark.parametrize(
    ("call", "given", "allowed"),
    [
        (_agents_call, "orcale", "choose from ['oracle', 'random'] or a backend spec (hf:PATH"),
        (_digits, "digitz", "choose from ["),
        (_task_type, "pick_and_plase", "or an official id 1-6"),
        (_extraction, "nope", "choose from ['response', 'reference']"),
        (_action_format, "yaml", "choose from ['python', 'json']"),
        (_bfcl_categories, "simple_pyton", "choose from ['simple_python'"),
    ],
)
def test_modules_that_take_a_choice_name_the_value_and_the_choices(call, given, allowed):
    with pytest.raises(ValueError) as caught:
        call(given)
    message = str(caught.value)
    assert message.startswith("unknown ") and repr(given) in message and allowed in message


def test_a_hostile_choice_from_a_task_is_cut_in_the_message():
    with pytest.raises(ValueError) as caught:
        _task_type("t" * 50_000)
    assert len(str(caught.value)) < 1000
