"""Where a check over every registered id is heavy, the default run covers one id per env class and domain
(the ids of one class differ only in the records they select); ``pytest -m slow`` runs every other id."""

from __future__ import annotations

import genenv_gym


def representative_ids() -> list[str]:
    """The first registered id of each (entry point, domain): 19 of the 43 ids."""
    first: dict[tuple[str, str], str] = {}
    for entry in genenv_gym.ENV_ENTRIES:
        first.setdefault((entry.entry_point, str(entry.kwargs.get("domain", ""))), entry.id)
    return list(first.values())
