"""Benchmark manifests: every benchmark's facts live in its own package, and the central modules read them.

A central module (anything in genenv_gym outside a benchmark package: registration, the writer lookup,
data sources, extras, the agent, the wrappers, the paper table, the CLI, the trainer, ...) never holds a
benchmark's name in its code, nor imports a benchmark package by name. Default argument values are the
one allowed place (e.g. the trainer's default domain), and docstrings may give examples.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import tomllib

import genenv_gym
from genenv_gym.registry.data_source import Source
from genenv_gym.registry.extras import EXTRA_MODULES
from genenv_gym.registry.manifest import ENVS_DIR, all_manifests, domain_specs, load
from genenv_gym.registry.registration import DOMAINS, ENV_ENTRIES

PACKAGE = Path(genenv_gym.__file__).parent
MANIFESTS = all_manifests()
BENCHMARK_PACKAGES = {m.package for m in MANIFESTS}


def _benchmark_words() -> re.Pattern[str]:
    """Every benchmark's package, domain, data-folder and display names, as one pattern."""
    names = set(BENCHMARK_PACKAGES) | set(domain_specs())
    for manifest in MANIFESTS:
        if manifest.source is not None:
            names |= {manifest.source.name, manifest.source.display_name}
        names |= {column.name for column in manifest.paper_columns}
    stems = {n for n in names if "_" not in n} | {n.split("_")[0] for n in names}
    alternatives = "|".join(sorted(map(re.escape, stems), key=len, reverse=True))
    # a name, not the start or end of another word: "addition" is not in "additionally", "bfcl" is in "bfcl_x"
    return re.compile(rf"(?<!(?-i:[a-z]))(?:{alternatives})(?!(?-i:[a-z]))", re.IGNORECASE)


def _central_modules() -> list[Path]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).parts
        if parts[0] == "envs" and len(parts) > 2 and parts[1] in BENCHMARK_PACKAGES:
            continue
        out.append(path)
    return out


def _allowed_constants(tree: ast.AST) -> set[int]:
    """Docstrings, default argument values and class-level field defaults."""
    allowed: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            allowed.add(id(body[0].value))
        if isinstance(node, ast.arguments):
            allowed |= {id(d) for d in [*node.defaults, *node.kw_defaults] if d is not None}
        if isinstance(node, ast.ClassDef):
            allowed |= {
                id(s.value) for s in node.body if isinstance(s, ast.AnnAssign) and s.value is not None
            }
    return allowed


def benchmark_mentions(path: Path, words: re.Pattern[str]) -> list[str]:
    """Where a module's code names a benchmark (string constants) or imports a benchmark package."""
    tree = ast.parse(path.read_text())
    allowed = _allowed_constants(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in allowed:
            if words.search(node.value):
                found.append(f"line {node.lineno}: {node.value[:60]!r}")
        elif isinstance(node, ast.ImportFrom | ast.Import):
            modules = (
                [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
            )
            for module in modules:
                parts = module.split(".")
                if parts[:2] == ["genenv_gym", "envs"] and len(parts) > 2 and parts[2] in BENCHMARK_PACKAGES:
                    found.append(f"line {node.lineno}: imports {module}")
    return found


def test_the_central_modules_name_no_benchmark():
    words = _benchmark_words()
    assert words.search("bfcl_multiturn") and words.search("API-Bank")  # the pattern is not empty
    offenders = {
        str(path.relative_to(PACKAGE)): mentions
        for path in _central_modules()
        if (mentions := benchmark_mentions(path, words))
    }
    assert not offenders, f"benchmark facts outside their package (move them to its manifest.py): {offenders}"


def test_the_check_catches_a_table_key_a_branch_and_an_import(tmp_path):
    words = _benchmark_words()
    module = tmp_path / "central.py"
    module.write_text(
        '"""Docstrings may say bfcl."""\n'
        "from genenv_gym.envs.bfcl.domain import BFCLDomain\n"
        'TABLE = {"alfworld": 64}\n'
        'def f(name, domain="digits"):\n'
        '    return name == "travelplanner_sim"\n'
    )
    mentions = benchmark_mentions(module, words)
    assert [m.split(":")[0] for m in mentions] == ["line 2", "line 3", "line 5"], mentions


def test_every_benchmark_package_has_a_manifest_and_nothing_else_registers_ids():
    packages = {p.name for p in ENVS_DIR.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert packages == BENCHMARK_PACKAGES
    assert not list(ENVS_DIR.glob("*/ids.py"))
    assert [e.id for e in ENV_ENTRIES] == [e.id for m in MANIFESTS for e in m.entries]
    assert len({e.id for e in ENV_ENTRIES}) == len(ENV_ENTRIES)


def test_every_reference_in_every_manifest_loads():
    for spec in domain_specs().values():
        for reference in (spec.domain, spec.task_writer, spec.call_format, spec.candidate_source):
            if reference is not None:
                assert load(reference) is not None, reference
    simulated = {e.kwargs["domain"] for m in MANIFESTS for e in m.entries if "domain" in e.kwargs}
    assert simulated <= set(DOMAINS)


def test_every_manifest_extra_is_a_pip_extra_and_every_source_is_complete():
    pyproject = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text())
    extras = pyproject["project"]["optional-dependencies"]
    for manifest in MANIFESTS:
        if manifest.extra is not None:
            assert manifest.extra.name in extras and manifest.extra.name in EXTRA_MODULES
        if manifest.source is not None:
            assert isinstance(manifest.source, Source)
            assert manifest.source.origins and (manifest.source.required or manifest.source.required_globs)
    assert set(EXTRA_MODULES) <= set(extras)


@pytest.mark.parametrize("manifest", MANIFESTS, ids=lambda m: m.package)
def test_paper_columns_name_registered_ids(manifest):
    ids = {e.id for e in ENV_ENTRIES}
    for column in manifest.paper_columns:
        assert column.env_id in ids
