"""Cross-check our BFCL multi-turn checker against the official bfcl-eval one on every real entry.

For every entry of the four multi-turn categories it builds model runs and judges each with our
:func:`genenv_gym.envs.bfcl_multiturn.checker.check_entry` and with the official ``multi_turn_checker`` (read
from an unpacked bfcl-eval wheel, never copied into the project), then compares the verdicts (valid and
error type). The runs:

- ``ground_truth``: the possible answer itself, each turn one call step;
- ``drop_call``: one ground-truth call of a random non-empty turn left out;
- ``insert_call``: a random call of the entry inserted at a random place of a random non-empty turn;
- ``reverse_turn``: a random non-empty turn's calls in reverse order;
- ``move_to_previous``: a random non-empty turn's calls made at the end of the turn before (entries whose
  only non-empty turn is the first are skipped);
- ``skip_turn``: a random non-empty turn answered without any call;
- ``premature_answer``: a random turn of two or more calls answered after its first call only;
- ``alter_value``: one argument value of one call changed (the first quoted string gets ``_x`` appended, else
  the first number is increased by one; entries with no literal are skipped);
- ``json_loads``: one call whose ground-truth result is a JSON object replaced by
  ``json.loads(s=<that result>)`` (the official loop evals call strings where ``json`` is imported);
- ``json_dumps``: the same call replaced by ``json.dumps(obj=<the result's value>)``;
- ``module_error``: one call replaced by a call the official namespace fails on (``os.listdir(path='.')``,
  ``json.nope(s='x')``) or one that it runs but we do not (``re.findall(pattern='a', string='banana')``);
- ``positional``: every call of a random non-empty turn written with positional arguments (its leading
  arguments in the method's parameter order);
- ``broken_call``: one call string cut before its closing parenthesis (a syntax error), or with its first
  argument's value replaced by a bare name (``undefined_value``).

Besides the verdicts it compares, call by call, the result strings each side records for the model's calls
(the official ``execute_multi_turn_func_call`` on the run's call strings, ours ``run_call`` on
``parse_model_call`` of the same strings: ``bfcl_multiturn_official.differing_results``), and counts the
strings that differ by function.

A mutated turn with more than one call is played as two call steps (its first call, then the rest). Our side
runs on the official long-context filler read from the same wheel (``long_context.load_official_filler``),
so both sides see the same files, tickers and cards; ``--generated-filler`` runs ours on the generated
filler instead and shows the entries whose verdict depends on the filler values.

How to run (the wheel's ``bfcl_eval`` must import in this interpreter; it needs nothing beyond the
standard library and ``mpmath`` for the multi-turn checker)::

    pip download --no-deps bfcl-eval==2026.3.23 -d /tmp/w && unzip -q /tmp/w/bfcl_eval-*.whl -d /tmp/bfclw4
    python benchmarks/bfcl_multiturn_checker_crosscheck.py /tmp/bfclw4 [--data-dir ../shared/benchmarks]

The exit status is 1 when any verdict differs, 0 otherwise.
"""

from __future__ import annotations

import argparse
import ast
import copy
import inspect
import json
import random
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bfcl_multiturn_official import DATA_ROOT, FUNC_SOURCE, differing_results, official_executor

from genenv_gym.envs.bfcl_multiturn import long_context
from genenv_gym.envs.bfcl_multiturn.calls import find_method, make_instances, parse_call_string
from genenv_gym.envs.bfcl_multiturn.checker import GroundTruthRun, check_entry
from genenv_gym.envs.bfcl_multiturn.data import CATEGORIES, load_entries

MUTATIONS = (
    "drop_call",
    "insert_call",
    "reverse_turn",
    "move_to_previous",
    "skip_turn",
    "premature_answer",
    "alter_value",
    "json_loads",
    "json_dumps",
    "module_error",
    "positional",
    "broken_call",
)
RUNS = ("ground_truth", *MUTATIONS)

Turns = list[list[str]]


def wheel_root(path: str) -> Path:
    """The directory holding ``bfcl_eval/`` (the unpacked wheel), given it or ``bfcl_eval`` itself."""
    root = Path(path).resolve()
    if root.name == "bfcl_eval":
        root = root.parent
    if not (root / "bfcl_eval" / "eval_checker" / "multi_turn_eval" / "multi_turn_checker.py").is_file():
        raise SystemExit(f"{path}: no bfcl_eval/eval_checker/multi_turn_eval/multi_turn_checker.py there")
    return root


def official_checker(root: Path) -> Callable[..., dict[str, Any]]:
    """The official ``multi_turn_checker``, imported from the unpacked wheel."""
    sys.path.insert(0, str(root))
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import multi_turn_checker

    return multi_turn_checker


def _non_empty(turns: Turns) -> list[int]:
    return [i for i, turn in enumerate(turns) if turn]


def _altered(call: str) -> str:
    """``call`` with its first string argument extended by ``_x``, else its first number plus one."""
    try:
        tree = ast.parse(call, mode="eval")
    except SyntaxError:
        return call
    constants = [n for n in ast.walk(tree) if isinstance(n, ast.Constant) and not isinstance(n.value, bool)]
    strings = [n for n in constants if isinstance(n.value, str)]
    numbers = [n for n in constants if isinstance(n.value, int | float)]
    if strings:
        strings[0].value += "_x"
    elif numbers:
        numbers[0].value += 1
    else:
        return call
    return ast.unparse(tree)


def truth_results(entry: dict[str, Any]) -> dict[str, str]:
    """Ground-truth call string -> the result it records (its first occurrence), for the module mutations."""
    run = GroundTruthRun(entry, "long_context" in entry["category"])
    results: dict[str, str] = {}
    for turn, calls in enumerate(entry["ground_truth"]):
        for call, result in zip(calls, run.run_turn(turn), strict=True):
            results.setdefault(call, result)
    return results


def _json_object(result: str) -> dict | None:
    try:
        value = json.loads(result)
    except ValueError:
        return None
    return value if isinstance(value, dict) and json.dumps(value) == result else None


def _positional(entry: dict[str, Any], call: str) -> str:
    """``call`` with its leading arguments, in the method's parameter order, written by position."""
    parsed = parse_call_string(call)
    instances = make_instances(entry["involved_classes"], entry["initial_config"], False)
    method = find_method(instances, parsed.name)
    if method is None or parsed.args:
        return call
    kwargs = dict(parsed.kwargs)
    args = []
    for name in inspect.signature(method).parameters:
        if name not in kwargs:
            break
        args.append(repr(kwargs.pop(name)))
    return f"{parsed.name}({', '.join([*args, *(f'{k}={v!r}' for k, v in kwargs.items())])})"


MODULE_ERRORS = ("os.listdir(path='.')", "json.nope(s='x')", "re.findall(pattern='a', string='banana')")


def mutate(truth: Turns, kind: str, rng: random.Random, entry: dict[str, Any] | None = None) -> Turns | None:
    """The ground truth changed by one mutation of ``kind``; None when the entry has no place for it
    (``entry`` is needed by the module and positional kinds)."""
    turns = [list(turn) for turn in truth]
    if kind in ("json_loads", "json_dumps", "module_error", "positional", "broken_call"):
        return _call_mutation(turns, kind, rng, entry)
    choices = [i for i in _non_empty(turns) if i > 0 or kind != "move_to_previous"]
    if kind == "premature_answer":
        choices = [i for i in choices if len(turns[i]) >= 2]
    if kind == "alter_value":
        choices = [i for i in choices if any(_altered(call) != call for call in turns[i])]
    if not choices:
        return None
    i = rng.choice(choices)
    if kind == "drop_call":
        turns[i].pop(rng.randrange(len(turns[i])))
    elif kind == "insert_call":
        calls = [call for turn in truth for call in turn]
        turns[i].insert(rng.randrange(len(turns[i]) + 1), rng.choice(calls))
    elif kind == "reverse_turn":
        turns[i].reverse()
    elif kind == "move_to_previous":
        turns[i - 1] += turns[i]
        turns[i] = []
    elif kind == "skip_turn":
        turns[i] = []
    elif kind == "premature_answer":
        turns[i] = turns[i][:1]
    elif kind == "alter_value":
        j = rng.choice([j for j, call in enumerate(turns[i]) if _altered(call) != call])
        turns[i][j] = _altered(turns[i][j])
    else:
        raise ValueError(f"unknown mutation {kind!r}")
    return turns


def _call_mutation(turns: Turns, kind: str, rng: random.Random, entry: dict[str, Any] | None) -> Turns | None:
    """The call-rewriting mutations (see the module docstring)."""
    places = [(i, j) for i in _non_empty(turns) for j in range(len(turns[i]))]
    if entry is None or not places:
        return None
    if kind in ("json_loads", "json_dumps"):
        results = truth_results(entry)
        places = [(i, j) for i, j in places if _json_object(results.get(turns[i][j], "")) is not None]
        if not places:
            return None
        i, j = rng.choice(places)
        result = results[turns[i][j]]
        if kind == "json_loads":
            turns[i][j] = f"json.loads(s={result!r})"
        else:
            turns[i][j] = f"json.dumps(obj={_json_object(result)!r})"
    elif kind == "module_error":
        i, j = rng.choice(places)
        turns[i][j] = rng.choice(MODULE_ERRORS)
    elif kind == "positional":
        i = rng.choice(_non_empty(turns))
        turns[i] = [_positional(entry, call) for call in turns[i]]
    else:
        i, j = rng.choice(places)
        call = turns[i][j]
        parsed = parse_call_string(call)
        if parsed.kwargs and rng.random() < 0.5:
            first = next(iter(parsed.kwargs))
            rest = [f"{k}={v!r}" for k, v in list(parsed.kwargs.items())[1:]]
            turns[i][j] = f"{parsed.name}({', '.join([f'{first}=undefined_value', *rest])})"
        else:
            turns[i][j] = call.rstrip()[:-1]
    return turns


def as_steps(turns: Turns, split: bool) -> list[list[list[str]]]:
    """A run of call strings per turn as call steps: one step per turn, or (``split``) the first call then
    the rest; an empty turn has no step."""
    out = []
    for turn in turns:
        if not turn:
            out.append([])
        elif split and len(turn) > 1:
            out.append([turn[:1], turn[1:]])
        else:
            out.append([list(turn)])
    return out


def official_entry(entry: dict[str, Any]) -> dict[str, Any]:
    """The fields of an entry the official checker reads, as plain JSON (its own copy)."""
    return json.loads(json.dumps({k: entry[k] for k in ("id", "initial_config", "involved_classes")}))


@dataclass(frozen=True)
class ModelRun:
    """One judged run: an entry of a category, the kind of run, and its call steps per turn."""

    category: str
    entry: dict[str, Any]
    kind: str
    model: list[list[list[str]]]


def model_runs(data_dir: str, seed: int = 0) -> list[ModelRun]:
    """Every run the cross-check judges, in order: per entry of each category, its ground truth and each
    mutation that has a place in it (a mutated turn of several calls played as two call steps)."""
    rng = random.Random(seed)
    runs = []
    for category in CATEGORIES:
        for entry in load_entries([category], data_dir):
            truth = entry["ground_truth"]
            plans = [("ground_truth", copy.deepcopy(truth))]
            plans += [(k, mutate(truth, k, rng, entry)) for k in MUTATIONS]
            for kind, turns in plans:
                if turns is not None:
                    steps = as_steps(turns, split=kind != "ground_truth")
                    runs.append(ModelRun(category, entry, kind, steps))
    return runs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("wheel", help="the unpacked bfcl-eval wheel (the directory holding bfcl_eval/)")
    parser.add_argument("--data-dir", default=str(DATA_ROOT), help="data root holding bfcl/")
    parser.add_argument("--seed", type=int, default=0, help="seeds the mutations")
    parser.add_argument("--generated-filler", action="store_true", help="run ours on the generated filler")
    parser.add_argument("--max-shown", type=int, default=20, help="disagreements printed")
    args = parser.parse_args()

    root = wheel_root(args.wheel)
    checker = official_checker(root)
    execute, namespace = official_executor(root)
    if not args.generated_filler:
        long_context.load_official_filler(root / FUNC_SOURCE / "long_context.py")
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 3000))
    agree: Counter[tuple[str, str]] = Counter()
    total: Counter[tuple[str, str]] = Counter()
    official_valid: Counter[tuple[str, str]] = Counter()
    differences = []
    compared: Counter[str] = Counter()
    differing: Counter[str] = Counter()
    shown_results: list[tuple[str, str, str]] = []
    start = time.monotonic()
    for number, run in enumerate(model_runs(args.data_dir, args.seed)):
        category, entry, kind, model = run.category, run.entry, run.kind, run.model
        truth = entry["ground_truth"]
        try:  # the model name keys the official checker's process-wide instance cache: keep it unique
            result = checker(model, truth, official_entry(entry), category, f"crosscheck_{number + 1}")
        except Exception as error:  # an official crash is a verdict we cannot match
            result = {"valid": False, "error_type": f"crash: {type(error).__name__}"}
        ours = check_entry(entry, model)
        compared[kind] += sum(len(step) for steps in model for step in steps)
        entry_json = official_entry(entry)
        playback = (
            entry_json["initial_config"],
            entry["involved_classes"],
            entry["id"],
            "long_context" in category,
        )
        for call, official_result, our_result in differing_results(
            execute, namespace, f"results_{number + 1}", playback, model
        ):
            differing[call.split("(", 1)[0]] += 1
            if len(shown_results) < args.max_shown:
                shown_results.append((call[:100], official_result[:160], our_result[:160]))
        theirs = (bool(result["valid"]), None if result["valid"] else result.get("error_type"))
        key = (category, kind)
        total[key] += 1
        official_valid[key] += theirs[0]
        if theirs == (ours.valid, ours.error_type):
            agree[key] += 1
        else:
            differences.append((entry["id"], kind, theirs, (ours.valid, ours.error_type)))

    print(f"{'category':<24}{'run':<18}{'agree':>7}{'runs':>7}{'official valid':>16}")
    for key in sorted(total, key=lambda k: (CATEGORIES.index(k[0]), RUNS.index(k[1]))):
        print(f"{key[0]:<24}{key[1]:<18}{agree[key]:>7}{total[key]:>7}{official_valid[key]:>16}")
    print(
        f"all: {sum(agree.values())}/{sum(total.values())} verdicts identical "
        f"(filler: {'generated' if args.generated_filler else 'official'}; {time.monotonic() - start:.0f} s)"
    )
    for entry_id, kind, theirs, ours in differences[: args.max_shown]:
        print(f"  {entry_id} {kind}: official {theirs}, ours {ours}")
    print(
        f"call results: {sum(compared.values()) - sum(differing.values())}/{sum(compared.values())} "
        f"strings identical; differing by function: {dict(differing.most_common())}"
    )
    for call, official_result, our_result in shown_results:
        print(f"  {call}: official {official_result!r}, ours {our_result!r}")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
