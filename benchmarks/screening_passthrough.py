"""How much of the adversarial set gets through ``LLMSimulator.screen``, and how many good tasks it rejects.

    PYTHONPATH=. GENENV_DATA_DIR=../shared/benchmarks python benchmarks/screening_passthrough.py \\
        [--split heldout] [--json]

Every record of ``tests/fixtures/adversarial_tasks/<domain>/<kind>.jsonl`` is fed as a completion to a
fresh-deduplicator ``LLMSimulator`` of its domain (a scripted backend; no model). Pairs (``original`` +
``reply``) screen the original first, then the copy. Printed per domain x kind: for bad kinds the
pass-through (accepted / total), for the controls (``valid``, ``distinct``) the false-positive rate
(rejected / total), the rejection kinds, and the mean screening time per task. With ``GENENV_DATA_DIR``
set, the real benchmark texts each writer imitates are screened as a writer's strings and their
false-positive rate is printed too. Run against another checkout of the package by putting it first on
``PYTHONPATH`` (the fixture folder is a flag).
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "adversarial_tasks"
#: Kinds whose records are good tasks: a rejection is a false positive.
CONTROL_KINDS = ("valid", "distinct")


def load_records(folder: Path, split: str) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """``(domain, kind) -> records`` of the fixture folder, keeping ``split`` (all, dev, heldout)."""
    out = {}
    for path in sorted(folder.glob("*/*.jsonl")):
        records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        if split != "all":
            records = [r for r in records if r.get("split", "dev") == split]
        out[(path.parent.name, path.stem)] = records
    return out


def fixture_domain(domain_name: str) -> Any:
    """The domain the set's records of ``domain_name`` were written for: the registered one, except
    ALFWorld's, whose records are goals in the six tiny hand-written games (built in a temporary folder;
    needs the ALFWorld engine), so that no real game is needed to build or screen them."""
    from genenv_gym.registry.registration import make_domain

    if domain_name != "alfworld":
        return make_domain(domain_name)
    import tempfile

    from genenv_gym.envs.alfworld.domain import ALFWorldDomain
    from genenv_gym.envs.alfworld.tiny import write_tiny_games

    root = write_tiny_games(Path(tempfile.mkdtemp(prefix="alfworld_tiny_")))
    return ALFWorldDomain(data_dir=str(root), scene_split="valid_unseen", plan_cache=None)


def screen_records(domain_name: str, records: list[dict[str, Any]]) -> dict[str, Any]:
    """Accepted count, rejection kinds and time of ``records`` through a fresh simulator's screen, without the
    off-task screen by meaning (``benchmarks/offtask_screen.py`` measures that one)."""
    from genenv_gym.agents.backends import Completion, ScriptedBackend
    from genenv_gym.llm_simulator import LLMSimulator, Target

    domain = fixture_domain(domain_name)
    kwargs = {"offtask": None} if "offtask" in inspect.signature(LLMSimulator).parameters else {}
    sim = LLMSimulator(domain, ScriptedBackend(["unused"]), seeds=[], seed=0, **kwargs)
    target = Target(1, domain.num_levels, 0.5, 0.5, 0.0, 0.0)
    accepted = screened = originals_rejected = 0
    kinds: Counter = Counter()
    seconds = 0.0
    for record in records:
        sim.dedup = type(sim.dedup)(sim.dedup.threshold)
        if "original" in record:
            start = time.perf_counter()
            first = sim.screen(Completion(record["original"]), target, {})
            seconds += time.perf_counter() - start
            screened += 1
            if first is None:
                originals_rejected += 1
                continue
        before = Counter(sim.stats.rejected)
        start = time.perf_counter()
        task = sim.screen(Completion(record["reply"]), target, {})
        seconds += time.perf_counter() - start
        screened += 1
        if task is not None:
            accepted += 1
        else:
            kinds.update(Counter(sim.stats.rejected) - before)
    total = len(records) - originals_rejected
    return {
        "total": total,
        "accepted": accepted,
        "originals_rejected": originals_rejected,
        "rejected_by": dict(kinds),
        "ms_per_task": 1000 * seconds / screened if screened else 0.0,
    }


def real_texts(data_dir: str) -> dict[str, list[list[str]]]:
    """Per writer domain, the real benchmark records it imitates, each as the strings a writer would write
    (BFCL: the categories the writer writes; API-Bank: user and assistant turns; Bamboogle: questions;
    TravelPlanner: the train and validation query texts)."""
    from genenv_gym.envs.bfcl.task_writer import WRITABLE_CATEGORIES, task_content
    from genenv_gym.llm_simulator.screening import strings_in
    from genenv_gym.registry.registration import make_domain
    from genenv_gym.task import thaw

    out: dict[str, list[list[str]]] = {}
    bfcl = make_domain("bfcl").load_tasks(data_dir=data_dir)
    out["bfcl"] = [list(strings_in(task_content(t))) for t in bfcl if t.category in WRITABLE_CATEGORIES]
    out["apibank"] = [
        [m["content"] for m in thaw(t.messages) if m["role"] in ("user", "assistant")]
        for t in make_domain("apibank").load_tasks(data_dir=data_dir)
    ]
    out["bamboogle_sim"] = [
        [t.evaluation["question"]] for t in make_domain("bamboogle").load_tasks(data_dir=data_dir)
    ]
    queries = [
        thaw(t.evaluation["query"])["query"]
        for t in make_domain("travelplanner").load_tasks(data_dir=data_dir)
    ]
    validation = Path(data_dir) / "travelplanner" / "example_evaluation.jsonl"
    if validation.is_file():
        queries += [json.loads(line)["query"] for line in validation.read_text().splitlines() if line.strip()]
    out["travelplanner_sim"] = [[q] for q in queries]
    return out


def real_false_positives(data_dir: str) -> dict[str, dict[str, Any]]:
    """Per domain: real records whose strings the text screen rejects (count, total, examples)."""
    from genenv_gym.llm_simulator.screening import unsafe_reasons

    out = {}
    for domain_name, records in real_texts(data_dir).items():
        rejected = []
        start = time.perf_counter()
        for strings in records:
            if reasons := unsafe_reasons(strings):
                rejected.append(reasons[0][:160])
        seconds = time.perf_counter() - start
        out[domain_name] = {
            "total": len(records),
            "rejected": len(rejected),
            "examples": rejected[:5],
            "ms_per_task": 1000 * seconds / max(1, len(records)),
        }
    return out


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fixtures", type=Path, default=FIXTURES)
    parser.add_argument("--split", choices=("all", "dev", "heldout"), default="all")
    parser.add_argument("--domains", nargs="*", help="only these domains")
    parser.add_argument("--kinds", nargs="*", help="only these kinds")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--no-real", action="store_true", help="skip the real-data false positives")
    args = parser.parse_args(argv)
    import genenv_gym

    results: dict[str, Any] = {
        "package": str(Path(genenv_gym.__file__).parent),
        "split": args.split,
        "cells": {},
    }
    for (domain_name, kind), records in load_records(args.fixtures, args.split).items():
        if (args.domains and domain_name not in args.domains) or (args.kinds and kind not in args.kinds):
            continue
        if not records:
            continue
        cell = screen_records(domain_name, records)
        cell["control"] = kind in CONTROL_KINDS
        results["cells"][f"{domain_name}/{kind}"] = cell
    data_dir = os.environ.get("GENENV_DATA_DIR")
    if data_dir and not args.no_real:
        results["real"] = real_false_positives(data_dir)
    if args.json:
        print(json.dumps(results, indent=1))
    else:
        print_table(results)
    return results


def print_table(results: dict[str, Any]) -> None:
    print(f"package: {results['package']}   split: {results['split']}")
    print(f"{'domain/kind':34} {'measure':>15} {'rate':>7} {'ms/task':>8}  rejected by")
    for name, cell in results["cells"].items():
        if cell["control"]:
            bad, label = cell["total"] - cell["accepted"], "false positive"
        else:
            bad, label = cell["accepted"], "pass-through"
        rate = bad / cell["total"] if cell["total"] else 0.0
        shown = f"{bad}/{cell['total']}"
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(cell["rejected_by"].items(), key=lambda kv: -kv[1]))
        print(f"{name:34} {label[:5] + ' ' + shown:>15} {rate:7.1%} {cell['ms_per_task']:8.2f}  {kinds}")
    for name, real in results.get("real", {}).items():
        rate = real["rejected"] / real["total"] if real["total"] else 0.0
        shown = f"{real['rejected']}/{real['total']}"
        print(
            f"{'real ' + name:34} {'false ' + shown:>15} {rate:7.1%} "
            f"{real['ms_per_task']:8.2f}  {real['examples'][:2]}"
        )


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
