"""The versions the docs say were tested are the ones the extras pin (docs/trainers.md, "Tested versions")."""

from __future__ import annotations

import re
from pathlib import Path

import tomllib
from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]


def versions_in_docs() -> list[tuple[str, str, str]]:
    """``(package, extra, version)`` rows of docs/trainers.md's "Tested versions" table."""
    text = (ROOT / "docs" / "trainers.md").read_text(encoding="utf-8")
    section = text.split("## Tested versions", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([^`]+)` \| (`[^`]+`|none) \| ([0-9][^ |]*) \|$", section, re.MULTILINE)
    return [(package, extra.strip("`"), version) for package, extra, version in rows]


def extras() -> dict[str, list[Requirement]]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    optional = data["project"]["optional-dependencies"]
    return {name: [Requirement(r) for r in reqs] for name, reqs in optional.items()}


def test_every_tested_version_is_what_its_extra_pins():
    rows, pinned = versions_in_docs(), extras()
    assert {p for p, _, _ in rows} >= {"openenv", "skyrl-gym", "trl", "verl"}
    for package, extra, version in rows:
        if extra == "none":
            assert all(r.name != package for reqs in pinned.values() for r in reqs), package
            continue
        matches = [r for r in pinned[extra] if r.name == package]
        assert matches, f"the {extra!r} extra does not name {package}"
        for requirement in matches:
            assert Version(version) in requirement.specifier, (str(requirement), version)
            exact = [s.version for s in requirement.specifier if s.operator == "=="]
            assert exact in ([], [version]), (str(requirement), version)


def test_the_test_extra_installs_openenv_not_openenv_core():
    """``openenv`` and ``openenv-core`` install the same top-level package: one or the other."""
    names = {r.name for r in extras()["test"]}
    assert "openenv" in names and "openenv-core" not in names
    version = next(v for p, _, v in versions_in_docs() if p == "openenv")
    assert f"`openenv` {version}" in (ROOT / "docs" / "serving.md").read_text(encoding="utf-8")
