"""README.md stays true: it names every registered env id and the test command CI runs."""

import os
import re
import subprocess
import sys
from pathlib import Path

import genenv_gym

ROOT = Path(__file__).resolve().parents[1]


def test_readme_lists_every_env_id():
    readme = (ROOT / "README.md").read_text()
    missing = [e.id for e in genenv_gym.ENV_ENTRIES if f"`{e.id}`" not in readme]
    assert not missing, f"README.md's env table lacks {missing}"


def test_ci_runs_the_readme_set_up_and_test_commands():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert 'pip install -e ".[test]"\npython -m pytest -q' in readme
    assert 'pip install -q -e ".[test]"' in ci and "\npython -m pytest -q\n" in ci
    main_job = "genenv eval --env GenEnv-BFCL-v0 --agent oracle --limit 50"
    assert main_job in readme and main_job in ci


def test_architecture_covers_every_module_and_points_only_inside_the_repo():
    architecture = (ROOT / "docs" / "architecture.md").read_text()
    package = ROOT / "genenv_gym"
    missing = []
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        folder = path.parent.relative_to(ROOT).as_posix() + "/"
        named = (
            path.name == "__init__.py"
            or relative in architecture
            or relative.removeprefix("genenv_gym/") in architecture
            or f"`{path.name}`" in architecture
            or (folder != "genenv_gym/" and folder in architecture)
        )
        if not named:
            missing.append(relative)
    assert not missing, f"docs/architecture.md does not cover {missing}"
    assert "../shared" not in architecture and "planning repo" not in architecture


def test_every_env_class_docstring_has_a_version_history_naming_its_ids_version():
    import importlib

    missing = []
    for entry in genenv_gym.ENV_ENTRIES:
        module, name = entry.entry_point.split(":")
        doc = getattr(importlib.import_module(module), name).__doc__ or ""
        version = entry.id.rsplit("-", 1)[1]
        history = doc.partition("## Version history\n")[2]
        if not history.lstrip().startswith(f"- {version}: initial version ("):
            missing.append(entry.id)
    assert not missing, f"these ids' env classes have no version history naming their version: {missing}"


def test_docs_carry_no_drafting_leftovers():
    for doc in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]:
        text = doc.read_text()
        for leftover in ("README-ready", ".venv/bin/python", "of the notes", "TODO", "TBD"):
            assert leftover not in text, f"{doc.name} still says {leftover!r}"


def test_readme_python_example_runs(shared_data_dir, tmp_path):
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, flags=re.S)
    assert blocks
    script = tmp_path / "readme_example.py"
    script.write_text("\n".join(blocks))
    env = {**os.environ, "GENENV_DATA_DIR": str(shared_data_dir)}
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "1.0 None" in done.stdout


def test_every_known_reference_failure_is_listed_in_the_defects_doc():
    from genenv_gym.envs.bfcl.known_defects import EXPECTED_FAILURES

    doc = (ROOT / "docs" / "benchmark_defects.md").read_text()
    assert [rid for rid in EXPECTED_FAILURES if f"`{rid}`" not in doc] == []


def test_every_apibank_reference_failure_is_listed_in_its_doc():
    from genenv_gym.envs.apibank.known_defects import OFFICIAL_GOLD_FAILURES

    doc = (ROOT / "docs" / "apibank.md").read_text()
    assert [tid for tid in OFFICIAL_GOLD_FAILURES if tid not in doc] == []
    assert (
        "apibank.md#official-gold-calls-that-fail-92" in (ROOT / "docs" / "benchmark_defects.md").read_text()
    )
