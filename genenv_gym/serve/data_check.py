"""``genenv serve``'s start-up check: which served ids can play here (their data and extras present).

When the data dir holds every benchmark complete (``genenv data status``), a benchmark whose extra is
installed is trusted without playing its envs. Otherwise the ids of each benchmark whose own data is not
complete (and of the packages that declare no data of their own: they may read another's) are made and
reset once, as a session would: an id that fails (its data missing from the data dir, an extra not
installed) is not served, and the reason is said once per cause with the command that fixes it. An id that
plays the package's small fixtures (no data dir chosen, none installed) is served, and said to be.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from genenv_gym.datasets.data_dir import MissingDataError, data_root, fetch_command
from genenv_gym.datasets.status import benchmark_status
from genenv_gym.registry.extras import missing_modules
from genenv_gym.registry.manifest import Manifest, all_manifests
from genenv_gym.serve.catalog import Catalog

#: What the warnings (and log records) of an env playing the shipped fixtures instead of the benchmark say:
#: ``BenchmarkEnv``'s and the TravelPlanner simulator's.
FIXTURE_NOTICES = ("fixtures shipped with the package", "shipped fixture database")
#: Ids named in one line of the report before it says "and N more".
IDS_SHOWN = 4


@dataclass
class DataCheck:
    """The outcome: the ids that can be served, those on fixtures, and why the others cannot."""

    servable: list[str] = field(default_factory=list)
    on_fixtures: list[str] = field(default_factory=list)
    #: reason (one line, with the fix) -> the ids it stops
    refused: dict[str, list[str]] = field(default_factory=dict)

    def lines(self) -> list[str]:
        """What ``genenv serve`` says about the check (nothing when every id can be served on real data)."""
        out = [f"not serving {_ids(ids)}: {reason}" for reason, ids in sorted(self.refused.items())]
        if self.on_fixtures:
            out.append(
                f"serving {_ids(self.on_fixtures)} on the small fixtures shipped with the package, not the "
                "benchmark (their data is not installed: see 'genenv data status')"
            )
        return out


def ids_to_check(catalog: Catalog) -> list[str]:
    """The served ids that the check plays (the others are trusted: see the module docstring)."""
    trusted = _trusted_ids(catalog)
    return [env_id for env_id in catalog.env_ids if env_id not in trusted]


def check_served_ids(catalog: Catalog, to_check: Iterable[str] | None = None) -> DataCheck:
    """Which of ``catalog``'s ids can play now; ``to_check``: the ids to play (default ``ids_to_check``)."""
    check = DataCheck()
    to_check = set(ids_to_check(catalog) if to_check is None else to_check)
    for env_id in catalog.env_ids:
        if env_id not in to_check:
            check.servable.append(env_id)
            continue
        with _fixture_notices() as notices:
            try:
                env = catalog.make(env_id, {})
                try:
                    env.reset(seed=0)
                finally:
                    env.close()
            except Exception as error:  # what the first session would meet, said once per cause
                check.refused.setdefault(_reason(error.__cause__ or error, catalog, env_id), []).append(
                    env_id
                )
                continue
        check.servable.append(env_id)
        if notices:
            check.on_fixtures.append(env_id)
    return check


@contextmanager
def _fixture_notices() -> Iterator[list[str]]:
    """The warnings and log records, issued inside the block, that say the shipped fixtures stand in for the
    benchmark (collected, not shown: the check says it once)."""
    notices: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if _says_fixtures(record.getMessage()):
                notices.append(record.getMessage())

    handler, root = Collect(logging.WARNING), logging.getLogger()
    root.addHandler(handler)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield notices
        notices += [str(w.message) for w in caught if _says_fixtures(str(w.message))]
    finally:
        root.removeHandler(handler)


def _says_fixtures(message: str) -> bool:
    return any(notice in message for notice in FIXTURE_NOTICES)


def _trusted_ids(catalog: Catalog) -> set[str]:
    """Ids that need no check: of a benchmark whose data is complete where its envs read it and whose extra
    is installed (a package that declares no data of its own: only when every benchmark's data is)."""
    manifests = all_manifests()
    everything = all(_complete(m, catalog) for m in manifests if m.source is not None)
    trusted: set[str] = set()
    for manifest in manifests:
        if manifest.extra is not None and missing_modules(manifest.extra.name):
            continue
        if everything or (manifest.source is not None and _complete(manifest, catalog)):
            trusted.update(e.id for e in manifest.entries if e.id in catalog.env_ids)
    return trusted


def _complete(manifest: Manifest, catalog: Catalog) -> bool:
    """Whether the manifest's data is complete in the data dir of each of its served ids."""
    assert manifest.source is not None
    ids = [e.id for e in manifest.entries if e.id in catalog.env_ids] or [None]
    return all(benchmark_status(manifest.source, _root(catalog, env_id)).complete for env_id in ids)


def _root(catalog: Catalog, env_id: str | None) -> Path:
    return data_root(catalog.server_kwargs(env_id).get("data_dir") if env_id else None)


def _reason(error: BaseException, catalog: Catalog, env_id: str) -> str:
    if isinstance(error, MissingDataError) and error.benchmark:
        root = _root(catalog, env_id)
        return (
            f"no {error.benchmark} data in {root} (get it with: {fetch_command(error.benchmark, root)}, "
            "or point --data-dir at a folder that holds it)"
        )
    first_line = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return f"{type(error).__name__}: {first_line}"


def _ids(ids: Iterable[str]) -> str:
    ids = list(ids)
    shown = ", ".join(ids[:IDS_SHOWN])
    more = f" and {len(ids) - IDS_SHOWN} more" if len(ids) > IDS_SHOWN else ""
    return f"{len(ids)} id{'s' if len(ids) != 1 else ''} ({shown}{more})"
