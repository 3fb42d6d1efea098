"""Where a check over every registered id is heavy, the default run covers one id per env class (the ids of
one class differ only in the records or the domain they serve: the simulator env is played once, on
``GenEnv-Sim-BFCL-v0``); ``pytest -m slow`` runs every other id."""

from __future__ import annotations

import pytest

import genenv_gym


def representative_ids() -> list[str]:
    """The first registered id of each env class (README quotes how many: tests/house/test_docs.py checks
    it)."""
    first: dict[str, str] = {}
    for entry in genenv_gym.ENV_ENTRIES:
        first.setdefault(entry.entry_point, entry.id)
    return list(first.values())


def every_id_the_rest_slow() -> list:
    """Every registered id as a test parameter, those outside ``representative_ids()`` marked ``slow``."""
    chosen = set(representative_ids())
    ids = [entry.id for entry in genenv_gym.ENV_ENTRIES]
    return [pytest.param(i, marks=() if i in chosen else pytest.mark.slow) for i in ids]
