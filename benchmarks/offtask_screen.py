"""How the LLM simulator's whole screen does on the generalisation set (issue 39), per domain, kind, family.

For every record of ``tests/fixtures/generalisation_set/<domain>/<kind>.jsonl`` in the chosen split it runs
``LLMSimulator._check`` (every check, a fresh duplicate memory per record) and prints:

- ``injection``: pass-through (accepted / total), per domain and per intent family and style;
- ``wrong_meaning``: pass-through per domain and mutation family;
- ``valid``: false positives (rejected / total) per domain;
- with ``--real`` (needs ``GENENV_DATA_DIR``): real benchmark records rejected by the text screens (the
  lexical screen and the off-task screen), the half the probe never saw (``offtask_probe_train.real_half``);
- with ``--issue-examples``: issue 39's quoted examples, each appended to a valid task of each domain;
- the screen's time per task.

``--offtask none`` turns the off-task screen off (the figure without it). The held-out split is the one to
report once; the tuning split is the one to look at while tuning.

    export GENENV_DATA_DIR=/work/shared/benchmarks
    PYTHONPATH=. python benchmarks/offtask_screen.py --split tune
    PYTHONPATH=. python benchmarks/offtask_screen.py --split heldout --real --issue-examples \\
        --out benchmarks/results/offtask_screen_heldout.json
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import json
import os
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SET = ROOT / "tests" / "fixtures" / "generalisation_set"
DOMAINS = ("apibank", "bfcl", "bamboogle_sim", "travelplanner_sim", "bfcl_multiturn")
KINDS = ("injection", "wrong_meaning", "valid")


def _module(name: str, path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def simulator(domain_name: str, offtask: str) -> Any:
    from genenv_gym.agents.backends import ScriptedBackend
    from genenv_gym.llm_simulator import LLMSimulator

    passthrough = _module("screening_passthrough", ROOT / "benchmarks" / "screening_passthrough.py")
    kwargs = {}
    if "offtask" in inspect.signature(LLMSimulator).parameters:
        kwargs["offtask"] = None if offtask == "none" else "auto"
    return LLMSimulator(
        passthrough.fixture_domain(domain_name), ScriptedBackend(["unused"]), seeds=[], **kwargs
    )


def check(sim: Any, reply: str) -> tuple[str | None, str, float]:
    """``(rejection kind or None, reason, seconds)`` of one reply through the whole screen."""
    from genenv_gym.agents.backends import Completion
    from genenv_gym.llm_simulator.screening import Deduplicator
    from genenv_gym.llm_simulator.writer import Target, TaskRejected

    sim.dedup = Deduplicator()
    target = Target(1, sim.domain.num_levels, 0.5, 0.5, 0.0, 0.0)
    start = time.perf_counter()
    try:
        sim._check(Completion(reply), target)
        kind, reason = None, ""
    except TaskRejected as rejection:
        kind, reason = rejection.kind, rejection.reason
    return kind, reason, time.perf_counter() - start


def measure_set(split: str, offtask: str, domains: list[str], kinds: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for domain_name in domains:
        sim = simulator(domain_name, offtask)
        for kind in kinds:
            path = SET / domain_name / f"{kind}.jsonl"
            if not path.is_file():
                continue
            records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
            records = [r for r in records if r["split"] == split]
            if not records:
                continue
            bad = 0
            seconds = 0.0
            by_family: dict[str, list[int]] = defaultdict(lambda: [0, 0])
            by_style: dict[str, list[int]] = defaultdict(lambda: [0, 0])
            rejected_by: Counter = Counter()
            examples: list[str] = []
            for record in records:
                rejection, reason, took = check(sim, record["reply"])
                seconds += took
                wrong = rejection is None if kind != "valid" else rejection is not None
                bad += wrong
                for table, key in ((by_family, record["family"]), (by_style, record["style"])):
                    table[key][0] += wrong
                    table[key][1] += 1
                if rejection:
                    rejected_by[rejection] += 1
                if wrong and len(examples) < 6:
                    examples.append(
                        f"{record['family']}/{record['style']}: {record['note'][:90]} -> "
                        f"{rejection}: {reason[:120]}"
                    )
            out[f"{domain_name}/{kind}"] = {
                "measure": "false positives" if kind == "valid" else "pass-through",
                "bad": bad,
                "total": len(records),
                "rate": bad / len(records),
                "ms_per_task": 1000 * seconds / len(records),
                "by_family": {k: f"{v[0]}/{v[1]}" for k, v in sorted(by_family.items())},
                "by_style": {k: f"{v[0]}/{v[1]}" for k, v in sorted(by_style.items())},
                "rejected_by": dict(rejected_by),
                "examples": examples,
            }
            print(
                f"{domain_name:18} {kind:14} {out[f'{domain_name}/{kind}']['measure']:15} "
                f"{bad:4}/{len(records):<4} "
                f"{bad / len(records):6.1%} {1000 * seconds / len(records):8.1f} ms/task",
                flush=True,
            )
    return out


def measure_real(data_dir: str, offtask: str, cache: Path | None = None) -> dict[str, Any]:
    """Real records (the half the probe never saw) rejected by the text screens: the lexical screen and the
    off-task screen over the strings a writer would write (the meaning checks need a task's structure)."""
    from genenv_gym.llm_simulator.offtask import default_offtask_screen
    from genenv_gym.llm_simulator.screening import screen_texts

    passthrough = _module("screening_passthrough", ROOT / "benchmarks" / "screening_passthrough.py")
    trainer = _module("offtask_probe_train", ROOT / "benchmarks" / "offtask_probe_train.py")
    screen = None if offtask == "none" else default_offtask_screen()
    if screen is not None and cache is not None:  # the embeddings the probe's trainer kept (same encoder)
        from genenv_gym.llm_simulator.offtask import OffTaskScreen

        screen = OffTaskScreen(encoder=trainer.EmbeddingCache(cache))
    out = {}
    for domain_name, records in passthrough.real_texts(data_dir).items():
        kept = [strings for i, strings in enumerate(records) if trainer.real_half(domain_name, i) == "eval"]
        rejected: list[str] = []
        start = time.perf_counter()
        for strings in kept:
            problem = screen_texts(strings) or (screen.problem(strings, domain_name) if screen else None)
            if problem:
                rejected.append(f"{problem[0]}: {problem[1][:160]}")
        seconds = time.perf_counter() - start
        out[domain_name] = {
            "rejected": len(rejected),
            "total": len(kept),
            "rate": len(rejected) / max(1, len(kept)),
            "ms_per_task": 1000 * seconds / max(1, len(kept)),
            "examples": rejected[:6],
        }
        print(
            f"real {domain_name:13} false positives {len(rejected):4}/{len(kept):<4} "
            f"{len(rejected) / max(1, len(kept)):6.1%} {1000 * seconds / max(1, len(kept)):8.1f} ms/task",
            flush=True,
        )
    return out


def measure_issue_examples(offtask: str, domains: list[str]) -> dict[str, Any]:
    """Issue 39's quoted examples, each appended to the main prose field of one valid task per domain."""
    sentences = _module("generalisation_sentences", SET / "sentences.py")
    builder_place = _module("generalisation_build_place", SET / "build.py")
    out = {}
    for domain_name in domains:
        sim = simulator(domain_name, offtask)
        base = json.loads(
            json.loads((SET / domain_name / "valid.jsonl").read_text().splitlines()[0])["reply"]
        )
        path = builder_place.prose_paths(domain_name, base)["main"]
        passed = []
        for sentence in sentences.ISSUE_EXAMPLES:
            text = builder_place.place(builder_place.get_at(base, path), sentence, "end")
            reply = json.dumps(builder_place.set_at(base, path, text), ensure_ascii=False)
            if check(sim, reply)[0] is None:
                passed.append(sentence)
        out[domain_name] = {"passed": len(passed), "total": len(sentences.ISSUE_EXAMPLES), "examples": passed}
        print(
            f"issue examples {domain_name:13} passed {len(passed)}/{len(sentences.ISSUE_EXAMPLES)} {passed}",
            flush=True,
        )
    return out


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=("tune", "heldout"), default="tune")
    parser.add_argument("--offtask", choices=("auto", "none"), default="auto")
    parser.add_argument("--domains", nargs="*", default=list(DOMAINS))
    parser.add_argument("--kinds", nargs="*", default=list(KINDS))
    parser.add_argument(
        "--real", action="store_true", help="false positives on real records (GENENV_DATA_DIR)"
    )
    parser.add_argument("--issue-examples", action="store_true")
    parser.add_argument(
        "--cache", type=Path, default=None, help="the trainer's embedding cache, for --real only (faster)"
    )
    parser.add_argument("--out", type=Path, default=None, help="write the figures as JSON here")
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    import genenv_gym

    results: dict[str, Any] = {
        "package": str(Path(genenv_gym.__file__).parent),
        "split": args.split,
        "offtask": args.offtask,
        "set_digest": _module("generalisation_build", SET / "build.py").digest(),
    }
    print(
        f"package {results['package']}  split {args.split}  offtask {args.offtask}  "
        f"set {results['set_digest']}"
    )
    results["cells"] = measure_set(args.split, args.offtask, args.domains, args.kinds)
    if args.real:
        data_dir = os.environ.get("GENENV_DATA_DIR")
        if not data_dir:
            raise SystemExit("--real needs GENENV_DATA_DIR")
        results["real"] = measure_real(data_dir, args.offtask, args.cache)
    if args.issue_examples:
        results["issue_examples"] = measure_issue_examples(args.offtask, args.domains)
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return results


if __name__ == "__main__":
    main()
    sys.exit(0)
