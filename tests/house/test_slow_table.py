"""README's table of `slow` tests names exactly the test files that have `slow` tests.

The files with `slow` tests are read from this run's collection (tests/conftest.py records them before
``-m 'not slow'`` deselects them). When this run did not collect the whole suite (one file run on its
own), they come from a collection of the whole suite in a subprocess, so the check means the same either way.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SLOW_FILES

ROOT = Path(__file__).resolve().parents[2]
TABLE_HEAD = "| check | default run (and CI) | `-m slow` adds |"


def table_files(readme: str) -> set[str]:
    """The test files the slow table's rows name in their first column."""
    table = readme.partition(TABLE_HEAD)[2].split("\n\n")[0]
    rows = [line for line in table.splitlines() if line.startswith("|") and not line.startswith("|---")]
    return {path for row in rows for path in re.findall(r"tests/[\w/]+/test_\w+\.py", row.split("|")[1])}


def collected_the_whole_suite(config: pytest.Config) -> bool:
    here = config.invocation_params.dir
    return any((here / arg.split("::")[0]).resolve() in (ROOT, ROOT / "tests") for arg in config.args)


def slow_files_of_the_whole_suite() -> set[str]:
    listing = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-m",
            "slow",
            "-p",
            "no:cacheprovider",
            "tests",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    ).stdout
    return {line.split("::")[0] for line in listing.splitlines() if "::" in line}


def test_the_slow_table_names_every_file_with_slow_tests(request: pytest.FixtureRequest) -> None:
    if collected_the_whole_suite(request.config):
        slow = request.config.stash[SLOW_FILES]
    else:
        slow = slow_files_of_the_whole_suite()
    named = table_files((ROOT / "README.md").read_text(encoding="utf-8"))
    assert slow, "no slow test found: the collection hook or the subprocess listing is broken"
    assert not slow - named, f"README's slow table lacks {sorted(slow - named)}"
    assert not named - slow, f"README's slow table names files without slow tests: {sorted(named - slow)}"


def test_the_table_reader_reads_the_first_column_only() -> None:
    readme = (
        f"intro\n\n{TABLE_HEAD}\n|---|---|---|\n| a (`tests/x/test_a.py`) | see tests/x/test_b.py | more |\n"
        "| b (`tests/y/z/test_c.py`, `tests/helpers/ids.py`) | x | y |\n\nafter tests/x/test_d.py\n"
    )
    assert table_files(readme) == {"tests/x/test_a.py", "tests/y/z/test_c.py"}
