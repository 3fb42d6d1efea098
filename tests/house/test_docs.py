"""README.md stays true: it names every registered env id and the test command CI runs."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import genenv_gym

ROOT = Path(__file__).resolve().parents[2]


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
    for doc in [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]:
        text = doc.read_text()
        for leftover in ("README-ready", ".venv/bin/python", "of the notes", "TODO", "TBD"):
            assert leftover not in text, f"{doc.name} still says {leftover!r}"


#: What README's Python examples print, as README's comments say, on the fixtures and on the real data.
README_PRINTS = ["1.0 None", "0.0 simple_function_checker:wrong_func_name", "0.0 0.006737946999085467"]


def _run_readme_python(tmp_path: Path, env: dict) -> subprocess.CompletedProcess:
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, flags=re.S)
    assert blocks
    for line in README_PRINTS:
        assert f"  # {line}" in readme, f"README no longer says its example prints {line!r}"
    script = tmp_path / "readme_example.py"
    script.write_text("\n".join(blocks) + "\nprint('answer:', answer)\n")  # README's comment on it
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=600, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    printed = done.stdout.splitlines()
    assert [line for line in README_PRINTS if line not in printed] == [], done.stdout[-2000:]
    return done


def test_readme_python_examples_run_on_a_fresh_install(tmp_path):
    """No GENENV_DATA_DIR, an empty cache: gym.make plays the shipped fixtures and says so."""
    env = {k: v for k, v in os.environ.items() if k != "GENENV_DATA_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    done = _run_readme_python(tmp_path, env)
    assert "running on the small fixtures shipped with the package" in done.stderr
    assert "genenv data fetch bfcl" in done.stderr
    assert "rectangle" in done.stdout


@pytest.mark.shared_data
def test_readme_python_examples_run_on_the_real_data(shared_data_dir, tmp_path):
    env = {**os.environ, "GENENV_DATA_DIR": str(shared_data_dir)}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    done = _run_readme_python(tmp_path, env)
    assert "fixtures" not in done.stderr
    answer = "[calculate_triangle_area(base=10, height=5, unit='units')]"
    assert f"answer: {answer}" in done.stdout.splitlines()
    assert f"oracle_action()  # {answer}" in (ROOT / "README.md").read_text()


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


def _flat(text: str) -> str:
    """``text`` with every run of whitespace as one space (a quoted phrase may wrap anywhere)."""
    return " ".join(text.split())


def test_docs_quote_no_counts_of_tests():
    """How many tests a file has changes with every test added: the docs say what the tests check instead."""
    for doc in [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]:
        counts = re.findall(r"\b\d+ tests\b", doc.read_text())
        assert counts == [], f"{doc.name} quotes {counts}"


def test_readme_env_table_is_the_registry_s():
    """README's table of env ids is exactly what ``genenv list --markdown`` prints."""
    from genenv_gym.cli.main import env_table_markdown

    assert env_table_markdown() in (ROOT / "README.md").read_text()


def test_counts_of_ids_and_test_cases_quoted_in_the_docs_are_the_code_s():
    from representative_ids import representative_ids
    from vector_modes import MODES

    ids, chosen = len(genenv_gym.ENV_ENTRIES), len(representative_ids())
    readme = _flat((ROOT / "README.md").read_text())
    assert f"one id per env class ({chosen} of the {ids} ids" in readme
    assert f"| the other {ids - chosen} ids |" in readme
    assert f"(`tests/envs/test_vector_modes.py`, {ids * len(MODES)} cases)" in readme
    trainers = _flat((ROOT / "docs" / "trainers.md").read_text())
    assert f"**every registered id** (all {ids}," in trainers


EXAMPLES = ROOT / "examples"


def test_readme_runs_every_example_and_its_excerpts_are_the_scripts_code():
    """Each script in examples/ is shown in README with the command that runs it; a README block that says
    it comes from an example (``# examples/NAME.py``) holds only lines of that script."""
    readme = (ROOT / "README.md").read_text()
    scripts = sorted(p.name for p in EXAMPLES.glob("*.py"))
    assert scripts and [s for s in scripts if f"python examples/{s}" not in readme] == []
    excerpts = re.findall(r"```py(?:thon)?\n# (examples/\S+\.py)[^\n]*\n(.*?)```", readme, flags=re.S)
    assert excerpts
    for name, block in excerpts:
        code = {line.strip() for line in (ROOT / name).read_text().splitlines()}
        foreign = [line for line in block.splitlines() if line.strip() and line.strip() not in code]
        assert foreign == [], f"README's excerpt of {name} has lines the script lacks: {foreign}"


def _anchors(markdown: str) -> set[str]:
    """GitHub's anchors of a Markdown file's headings (lower case, punctuation dropped, spaces to hyphens)."""
    text = re.sub(r"```.*?```", "", markdown, flags=re.S)
    headings = re.findall(r"^#{1,6} (.+)$", text, flags=re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


def test_relative_links_in_the_docs_point_at_files_and_headings_that_exist():
    broken = []
    for doc in [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]:
        text = re.sub(r"```.*?```", "", doc.read_text(), flags=re.S)
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            file = (doc.parent / path).resolve() if path else doc
            if not file.exists():
                broken.append(f"{doc.relative_to(ROOT)}: {target}")
            elif anchor and file.suffix == ".md" and anchor not in _anchors(file.read_text()):
                broken.append(f"{doc.relative_to(ROOT)}: {target} (no such heading)")
    assert not broken, f"links to nothing: {broken}"
