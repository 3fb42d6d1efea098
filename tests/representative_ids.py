"""Where a check over every registered id is heavy, the default run covers one id per env class and domain
(the ids of one class differ only in the records they select); ``pytest -m slow`` runs every other id."""

from __future__ import annotations

import pytest

import genenv_gym


def representative_ids() -> list[str]:
    """The first registered id of each (entry point, domain): 19 of the 43 ids."""
    first: dict[tuple[str, str], str] = {}
    for entry in genenv_gym.ENV_ENTRIES:
        first.setdefault((entry.entry_point, str(entry.kwargs.get("domain", ""))), entry.id)
    return list(first.values())


def every_id_the_rest_slow() -> list:
    """Every registered id as a test parameter, those outside ``representative_ids()`` marked ``slow``."""
    chosen = set(representative_ids())
    ids = [entry.id for entry in genenv_gym.ENV_ENTRIES]
    return [pytest.param(i, marks=() if i in chosen else pytest.mark.slow) for i in ids]
