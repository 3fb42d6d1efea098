"""Episodes of two benchmark families started at the same moment, each id's on its own thread as one verl
worker runs them (``LiveTasks.executor``), play exactly as each plays alone: every engine, parser and cache
that two ids (or two envs of one id) reach at once is safe to share. The default run pairs one id per
family with every family (itself included, through its second id or a second env of its one id);
``pytest -m slow`` pairs every id with one id of every family."""

from __future__ import annotations

import itertools

import pytest
from concurrent_play import FAMILIES, family_ids, mismatches, plan_for, play_at_once
from trainer_episodes import live

from genenv_gym.integrations.live_tasks import LiveTasks
from genenv_gym.registry.registration import ENV_ENTRIES

pytestmark = pytest.mark.shared_data

FAMILY_NAMES = sorted(FAMILIES)
_PLANS: dict = {}


@pytest.fixture
def plans(shared_data_dir, request):
    """Each id's plan (its episodes and what they give alone), made once per session; ``key`` is (env id,
    copy): copy 1 is a second env of the id."""
    if any("ALFWorld" in key[0] for key in request.node.callspec.params.values() if isinstance(key, tuple)):
        request.getfixturevalue("alfworld_engine")

    def plan(key: tuple[str, int]):
        if key not in _PLANS:  # the session's env of the id (the trainer tests' too), or a second one
            _PLANS[key] = plan_for(live(key[0]) if key[1] == 0 else LiveTasks(key[0], 1))
        return _PLANS[key]

    return plan


def _pair(a: str, b: str) -> tuple[tuple[str, int], tuple[str, int]]:
    first, second = family_ids(b)
    if a != b:
        return (family_ids(a)[0], 0), (first, 0)
    return (first, 0), (second, int(second == first))


@pytest.mark.parametrize(
    "left,right",
    [
        pytest.param(*_pair(a, b), id=f"{a}+{b}")
        for a, b in itertools.combinations_with_replacement(FAMILY_NAMES, 2)
    ],
)
def test_two_families_started_at_once_play_as_each_plays_alone(plans, left, right):
    pair = [plans(left), plans(right)]
    assert mismatches(pair, play_at_once(pair)) == []


@pytest.mark.slow
@pytest.mark.parametrize(
    "left,right",
    [
        pytest.param(
            (entry.id, 0),
            (family_ids(family)[0], int(entry.id == family_ids(family)[0])),
            id=f"{entry.id}+{family}",
        )
        for entry in ENV_ENTRIES
        for family in FAMILY_NAMES
    ],
)
def test_every_id_started_at_once_with_every_family_plays_as_alone(plans, left, right):
    pair = [plans(left), plans(right)]
    assert mismatches(pair, play_at_once(pair, rounds=3), rounds=3) == []
