"""Regression guards on the adversarial set (tests/fixtures/adversarial_tasks, README there): on its
held-out part, at most 2% of each bad kind gets through the screen and at most 2% of the good controls
are rejected, in every domain; the real benchmark texts each writer imitates pass."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from genenv_gym.llm_simulator.simulator import reply_problem
from genenv_gym.llm_simulator.writer import TASK_WRITERS
from genenv_gym.registry.manifest import load

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "adversarial_tasks"
LIMIT = 0.02
TEXT_KINDS = ("injection", "invisible")
PAIR_KINDS = ("near_duplicate", "distinct")
#: Domains whose fixture tasks are parsed against the real benchmark data.
NEEDS_DATA = ("travelplanner_sim",)


def _benchmark():
    spec = importlib.util.spec_from_file_location(
        "screening_passthrough", ROOT / "benchmarks" / "screening_passthrough.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _screened(domain: str, reply: str) -> tuple[str, str] | None:
    return reply_problem(reply, getattr(load(TASK_WRITERS[domain]), "state_keys", ()))


def _records(domain: str, kind: str) -> list[dict]:
    path = FIXTURES / domain / f"{kind}.jsonl"
    if not path.is_file():
        return []
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r for r in rows if r.get("split") == "heldout"]


def _cells(kinds: tuple[str, ...]) -> list[tuple[str, str]]:
    return [
        (d.name, k) for d in sorted(FIXTURES.iterdir()) if d.is_dir() for k in kinds if _records(d.name, k)
    ]


def test_the_set_has_every_writer_domain_and_several_hundred_records_per_text_kind() -> None:
    from genenv_gym.llm_simulator.writer import TASK_WRITERS

    assert sorted(d.name for d in FIXTURES.iterdir() if d.is_dir()) == sorted(TASK_WRITERS)
    for domain in ("apibank", "bamboogle_sim", "bfcl", "travelplanner_sim"):
        lines = (FIXTURES / domain / "injection.jsonl").read_text().splitlines()
        assert len(lines) >= 300, domain


@pytest.mark.parametrize(("domain", "kind"), _cells(TEXT_KINDS))
def test_held_out_hostile_text_gets_through_at_most_two_percent(domain: str, kind: str) -> None:
    records = _records(domain, kind)
    passed = [r["note"] for r in records if _screened(domain, r["reply"]) is None]
    assert len(passed) <= LIMIT * len(records), (len(passed), len(records), passed[:5])


@pytest.mark.parametrize("domain", [d for d, _ in _cells(("valid",))])
def test_held_out_valid_tasks_are_rejected_at_most_two_percent(domain: str) -> None:
    records = _records(domain, "valid")
    rejected = [(r["note"], p) for r in records if (p := _screened(domain, r["reply"]))]
    assert len(rejected) <= LIMIT * len(records), (len(rejected), len(records), rejected[:5])


@pytest.mark.parametrize(("domain", "kind"), _cells(PAIR_KINDS))
def test_held_out_reworded_copies_are_caught_and_distinct_tasks_are_not(
    domain: str, kind: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    if domain in NEEDS_DATA:  # its tasks name cities of the real database
        monkeypatch.setenv("GENENV_DATA_DIR", str(request.getfixturevalue("shared_data_dir")))
    if domain == "alfworld":  # its goals are planned in the tiny games, by the engine
        request.getfixturevalue("alfworld_engine")
    cell = _benchmark().screen_records(domain, _records(domain, kind))
    assert cell["originals_rejected"] == 0
    wrong = cell["accepted"] if kind == "near_duplicate" else cell["total"] - cell["accepted"]
    assert wrong <= LIMIT * cell["total"], cell


@pytest.mark.shared_data
def test_real_benchmark_texts_pass_the_text_screen(shared_data_dir: Path) -> None:
    results = _benchmark().real_false_positives(str(shared_data_dir))
    for domain, real in results.items():
        assert real["total"] > 0, domain
        assert real["rejected"] <= LIMIT * real["total"], (domain, real)
