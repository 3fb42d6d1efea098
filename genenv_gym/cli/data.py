"""``genenv data``: fetch the benchmarks from their official sources, and see what is present."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from genenv_gym.registry.manifest import benchmark_names
from genenv_gym.suggest import did_you_mean

DIR_HELP = "data root (default: $GENENV_DATA_DIR, else ~/.cache/genenv_gym/data)"


def add_data_command(commands: Any) -> argparse.ArgumentParser:
    """Register ``data`` (with ``fetch`` and ``status``) on the ``genenv`` subparsers object."""
    parser = commands.add_parser(
        "data",
        help="fetch benchmark data from the official sources; show what is present",
        description="Benchmark data lives in DIR/<benchmark>/ (DIR: --dir, else $GENENV_DATA_DIR, else "
        f"~/.cache/genenv_gym/data). {_origins_sentence()}",
    )
    actions = parser.add_subparsers(dest="data_command", required=True)
    fetch_parser = actions.add_parser("fetch", help="download a benchmark (or all) and check it")
    fetch_parser.add_argument("name", help=", ".join(benchmark_names()) + ", or all")
    fetch_parser.add_argument("--dir", default=None, help=DIR_HELP)
    fetch_parser.set_defaults(func=cmd_data_fetch)
    status_parser = actions.add_parser("status", help="which benchmarks are present and complete")
    status_parser.add_argument("--dir", default=None, help=DIR_HELP)
    status_parser.set_defaults(func=cmd_data_status)
    return parser


def _origins_sentence() -> str:
    """Which benchmarks pip alone fetches and which need the open internet, from their manifests."""
    from genenv_gym.datasets.sources import SOURCES

    parts = []
    for source in SOURCES.values():
        if not source.needs_open_internet:
            package = source.origins[0].requirement.split("==")[0]
            parts.append(f"{source.display_name} comes from the official {package} wheel on PyPI (pip)")
    online = [s.display_name for s in SOURCES.values() if s.needs_open_internet]
    if online:
        parts.append(f"{_and(online)} need the open internet")
    return "; ".join(parts) + "."


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def cmd_data_fetch(args: argparse.Namespace) -> int:
    from genenv_gym.datasets.download import FetchError, fetch
    from genenv_gym.datasets.sources import SOURCES

    names = sorted(SOURCES) if args.name == "all" else [args.name]
    if args.name != "all" and args.name not in SOURCES:
        print(
            f"genenv data fetch: unknown benchmark {args.name!r}{did_you_mean(args.name, SOURCES)}; "
            f"choose one of {sorted(SOURCES)} or all",
            file=sys.stderr,
        )
        return 2
    failed = []
    for name in names:
        print(f"{name}: fetching ({SOURCES[name].notes})", flush=True)
        try:
            result = fetch(name, args.dir)
        except FetchError as error:
            print(f"{name}: could not fetch: {error}", file=sys.stderr)
            failed.append(name)
            continue
        problems = result.status.problems if result.status else []
        verdict = "complete" if result.complete else "incomplete: " + "; ".join(problems)
        print(f"{name}: {len(result.files)} files in {result.target} — {verdict}")
        if not result.complete:
            failed.append(name)
    if failed:
        print(f"not fetched completely: {', '.join(failed)} (README.md, 'Benchmark data')", file=sys.stderr)
    return 1 if failed else 0


def cmd_data_status(args: argparse.Namespace) -> int:
    from genenv_gym.datasets.data_dir import data_root
    from genenv_gym.datasets.sources import SOURCES
    from genenv_gym.datasets.status import benchmark_status

    root = data_root(args.dir)
    print(f"data root: {root}")
    for source in SOURCES.values():
        print(benchmark_status(source, root).line())
    return 0
