"""How well the LLM simulator's meaning screen separates wrong tasks from good ones, per domain.

For each domain with a task writer (API-Bank, BFCL, Sim-Bamboogle, Sim-TravelPlanner) it prints:

- pass-through: the share of the ``semantic`` adversarial fixtures
  (``tests/fixtures/adversarial_tasks/<domain>/semantic.jsonl``; development and held-out parts apart)
  that the simulator's screen accepts, each reply screened alone (``LLMSimulator._check`` with a fresh
  duplicate memory: the fixtures share base tasks, and duplicates are not what they test);
- false positives on valid procedural tasks: ``--procedural`` tasks per domain from ``domain.generate``
  (a seed the fixtures do not use), written in the writer's JSON and screened the same way: the share
  rejected (``semantic`` and any kind but duplicates);
- false positives on the real benchmark records that can be written as the domain's task (needs
  ``GENENV_DATA_DIR``): BFCL's single-turn Python categories, API-Bank level-1 API-call samples
  (ToolSearcher ones left out), TravelPlanner's train and validation queries (the text check only: the
  solver's plan is not needed for it); real Bamboogle questions have no chain in the synthetic world,
  so there is nothing to compare;
- the time the meaning check takes per task.

The script uses only the writers' public methods, so it also measures an older checkout (copy it there):

    PYTHONPATH=. GENENV_DATA_DIR=/work/shared/benchmarks python benchmarks/semantic_screen.py
"""

from __future__ import annotations

import argparse
import ast
import csv
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

from genenv_gym.agents.backends import Completion, ScriptedBackend
from genenv_gym.llm_simulator import LLMSimulator
from genenv_gym.llm_simulator.screening import Deduplicator
from genenv_gym.llm_simulator.writer import Target, TaskRejected
from genenv_gym.registry.registration import make_domain
from genenv_gym.task import Task

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "adversarial_tasks"
DOMAINS = ("apibank", "bfcl", "bamboogle_sim", "travelplanner_sim")
#: Fixture lines per part (the development part first): as ``build_semantic.PER_PART``.
PER_PART = {"apibank": 200, "bfcl": 200, "bamboogle_sim": 200, "travelplanner_sim": 150}


def simulator(name: str) -> LLMSimulator:
    kwargs = {"scoring": "corrected"} if name == "apibank" else {}
    return LLMSimulator(make_domain(name, **kwargs), ScriptedBackend(["unused"]), seeds=[], seed=0)


def screen(sim: LLMSimulator, reply: str, level: int) -> str | None:
    """The kind a reply is rejected with, or None when the screen accepts it."""
    sim.dedup = Deduplicator()
    target = Target(level, sim.domain.num_levels, 0.5, 0.0, 0.0, 0.0)
    try:
        sim._check(Completion(reply), target)
    except TaskRejected as rejection:
        return rejection.kind
    return None


def fixture_passthrough(name: str, sim: LLMSimulator) -> dict[str, str]:
    path = FIXTURES / name / "semantic.jsonl"
    if not path.is_file():
        return {"dev": "no fixture", "heldout": "no fixture"}
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    out = {}
    for part, chunk in (("dev", lines[: PER_PART[name]]), ("heldout", lines[PER_PART[name] :])):
        kinds = Counter(screen(sim, line["reply"], 0) or "ACCEPTED" for line in chunk)
        passed = kinds.pop("ACCEPTED", 0)
        out[part] = (
            f"{passed}/{len(chunk)} passed ({passed / max(len(chunk), 1):.1%}); rejected {dict(kinds)}"
        )
    return out


def procedural_fp(name: str, sim: LLMSimulator, n: int) -> str:
    domain = sim.domain
    content_of = sys.modules[type(sim.writer).__module__].task_content
    rng = np.random.default_rng(777)
    levels = domain.num_levels - 1 if name == "apibank" else domain.num_levels  # no ToolSearcher level
    kinds: Counter = Counter()
    total = 0
    for i in range(n):
        task = domain.generate(i % levels, rng)
        if domain.validate(task):
            continue
        total += 1
        kinds[screen(sim, json.dumps(content_of(task)), task.level) or "ACCEPTED"] += 1
    accepted = kinds.pop("ACCEPTED", 0)
    semantic = kinds.get("semantic", 0)
    return (
        f"{semantic}/{total} rejected as semantic ({semantic / max(total, 1):.1%}); "
        f"{total - accepted} rejected in all {dict(kinds)}"
    )


def _real_tasks(name: str, sim: LLMSimulator) -> list[Task]:
    domain = sim.domain
    if name == "bfcl":
        from genenv_gym.envs.bfcl.task_writer import WRITABLE_CATEGORIES

        return domain.load_tasks(list(WRITABLE_CATEGORIES))
    if name == "apibank":
        from genenv_gym.envs.apibank import data

        tasks = []
        for sample in data.load_samples(("level-1",)):
            history = [dict(t) for t in sample.history]
            if sample.kind != "api" or "ToolSearcher" in {sample.ground_truth["api_name"], *sample.apis}:
                continue
            tasks.append(
                domain.make_task(
                    sample.task_id,
                    history,
                    sample.ground_truth,
                    sample.apis,
                    evaluation={"scoring": "corrected", "history": history},
                    difficulty={},
                    provenance="benchmark",
                    category="level-1",
                )
            )
        return tasks
    if name == "travelplanner_sim":
        root = Path(os.environ["GENENV_DATA_DIR"]) / "travelplanner"
        rows = [json.loads(line) for line in (root / "train.jsonl").read_text().splitlines() if line.strip()]
        with (root / "validation_selected_3rows.csv").open(encoding="utf-8") as handle:
            rows += list(csv.DictReader(handle))
        tasks = []
        for row in rows:
            query = {k: row[k] for k in ("org", "dest", "query")}
            for key in ("date", "local_constraint"):
                query[key] = ast.literal_eval(row[key]) if isinstance(row[key], str) else row[key]
            for key in ("days", "visiting_city_number", "people_number", "budget"):
                query[key] = int(row[key])
            tasks.append(Task(id="real", domain=name, messages=(), evaluation={"query": query}))
        return tasks
    return []


def real_fp(name: str, sim: LLMSimulator) -> str:
    if not os.environ.get("GENENV_DATA_DIR"):
        return "GENENV_DATA_DIR not set"
    if name == "bamboogle_sim":
        return "not expressible (real questions have no chain in the synthetic world)"
    tasks = _real_tasks(name, sim)
    rejected = [t for t in tasks if sim.writer.semantic_problems(t)]
    return f"{len(rejected)}/{len(tasks)} rejected ({len(rejected) / max(len(tasks), 1):.1%})"


def check_time(name: str, sim: LLMSimulator, n: int = 200) -> str:
    content_of = sys.modules[type(sim.writer).__module__].task_content
    rng = np.random.default_rng(5)
    tasks = [sim.domain.generate(i % 4, rng) for i in range(min(n, 50))]
    tasks = [
        t for t in tasks if not sim.domain.validate(t) and "ToolSearcher" not in json.dumps(content_of(t))
    ]
    start = time.perf_counter()
    for task in tasks:
        sim.writer.semantic_problems(task)
    return f"{(time.perf_counter() - start) / max(len(tasks), 1) * 1000:.2f} ms per task"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--domains", nargs="*", default=list(DOMAINS))
    parser.add_argument("--procedural", type=int, default=300, help="valid procedural tasks per domain")
    args = parser.parse_args()
    for name in args.domains:
        sim = simulator(name)
        print(f"== {name}")
        for part, line in fixture_passthrough(name, sim).items():
            print(f"  semantic fixtures, {part}: {line}")
        print(f"  procedural false positives: {procedural_fp(name, sim, args.procedural)}")
        print(f"  real-record false positives: {real_fp(name, sim)}")
        print(f"  meaning check: {check_time(name, sim)}")


if __name__ == "__main__":
    main()
