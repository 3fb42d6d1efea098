"""Every verifier timed against its official counterpart on the same inputs, one core, one run.

For each benchmark it builds the cross-check's inputs (``benchmarks/*crosscheck*.py``: gold outputs and
their mutations), grades a seeded sample of them with ours and with the official code, interleaved (ours,
then official, ``--trials`` times; the best rate of each is kept), checks that the two verdicts agree on
every timed input, and prints one table: benchmark, items, ours items/s, official items/s, ratio,
verdict mismatches. The table is also written as JSON (``--out``).

- **bfcl**: single-turn AST categories, the crosscheck's cases of ``--bfcl-records`` sampled records (the
  two JSON kinds our decoder accepts by design, ``LENIENT_BY_DESIGN``, left out). Ours:
  ``checker.grade_output``. Official: bfcl-eval's ``eval_runner._evaluate_single_ast_entry`` /
  ``_evaluate_single_relevance_entry`` with its decoders, in a worker process of the bfcl-eval venv pinned
  to the same core. Verdict: valid and error type. With ``--bfcl-by-kind``, one more row per path our
  decoder takes (``bfcl_path``: Python read without ``ast``, through ``ast`` with or without a decoded
  call, a syntax error, Java / JavaScript, JSON; ``rel/`` for the relevance categories), each side timed
  on the same subset.
- **bfcl_multiturn**: the multi-turn crosscheck's runs (ground truth and seven mutations of every entry).
  Ours: ``check_entry``. Official: ``multi_turn_checker`` (it executes each call string with ``eval``
  on backend instances it keeps in its module globals; they are dropped after each pass, untimed).
  Verdict: valid and error type.
- **apibank**: the crosscheck's outputs for every API-call sample. Ours: ``official.score_api_call`` on a
  new ``World``. Official, two rows: ``evaluator.py`` as written (a new ``ToolManager`` per sample: API
  modules scanned, init databases read from disk), and the crosscheck's harness (one ``ToolManager``,
  databases deep-copied before each sample). Verdict: correct or not.
- **bamboogle**: for each question, Search-R1 solutions (its prompt plus a response answering with the
  gold, a case/article/punctuation variant, another question's answer, a wrong long answer, no answer).
  Ours: ``extract_answer(mode="reference")`` and ``answer_metrics``. Official: Search-R1's
  ``qa_em.compute_score_em`` and ``compute_score_subem`` (their 1-in-64 debug prints go to a buffer),
  and FlashRAG's ``F1_Score.token_level_scores`` on ``extract_solution``'s answer. Verdict: EM,
  cover-EM and F1.
- **travelplanner**: the 45 train plans and the crosscheck's mutations (the over-long-field kind left
  out: the official regexes are super-linear there). Ours: ``evaluate_plan``. Official: ``eval.py``'s
  per-plan step: ``commonsense_constraint.evaluation``, then ``hard_constraint.evaluation`` when the plan
  is complete and within the sandbox (pandas look-ups over CSVs loaded once at import, outside the
  timing). Verdict: every constraint's value, or that the evaluation raises.

Getting the official code (these /tmp paths are the defaults of the ``--*-dir`` / ``--*-wheel`` /
``--bfcl-python`` options; a missing one skips that benchmark and says how to get it)::

    pip download --no-deps bfcl-eval==2026.3.23 -d /tmp/w && unzip -q -o /tmp/w/*.whl -d /tmp/bfclw4
    python3 -m venv /tmp/bfcl-venv && /tmp/bfcl-venv/bin/pip install bfcl-eval==2026.3.23 soundfile
    git -C /work/.mirror/AlibabaResearch+DAMO-ConvAI/repo archive HEAD api-bank | tar -x -C /tmp/damo
    pip download --no-deps googletrans==3.1.0a0 -d /tmp/gtw && tar -xzf /tmp/gtw/*.tar.gz -C /tmp
    pip install rank_bm25 nltk==3.6.5     # API-Bank's SearchEngine runs them (see apibank_crosscheck.py)
    git -C /work/.mirror/PeterGriffinJin+Search-R1/repo archive HEAD verl | tar -x -C /tmp/Search-R1
    pip download --no-deps flashrag-dev==0.1.2 -d /tmp/flashrag_whl
    git -C /work/.mirror/OSU-NLP-Group+TravelPlanner/repo archive HEAD evaluation tools utils \\
        | tar -x -C /tmp/tp_official          # and pandas in this venv: pip install pandas==2.3.3 pytz

How to run::

    OMP_NUM_THREADS=1 python benchmarks/verifier_speed.py [--data-dir /work/shared/benchmarks] \\
        [--seconds 2] [--trials 3] [--only bfcl,apibank] [--out benchmarks/results/verifier_speed.json]

``--seconds`` is how long one official pass over the timed sample takes (the sample is cut to fit it, but
holds at least ``--min-items`` inputs); each side repeats its pass until it has run a third of that. The
exit status is 1 when any verdict differs.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import io
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"
DEFAULT_DATA = Path(os.environ.get("GENENV_DATA_DIR", ROOT.parent / "shared" / "benchmarks"))
DEFAULT_OUT = BENCHMARKS / "results" / "verifier_speed.json"
SUITES = ("bfcl", "bfcl_multiturn", "apibank", "bamboogle", "travelplanner")
TARGET_RATIO = 3.0

Grade = Callable[[Any], Any]


# ============================================================ timing (standard library only: the BFCL worker
# runs this file under the bfcl-eval venv's python)


def calibrate(grade: Grade, items: Sequence[Any], seconds: float) -> int:
    """How many of ``items``, graded in order, take about ``seconds`` (at least 1; all when faster)."""
    start = time.perf_counter()
    for done, item in enumerate(items, 1):
        grade(item)
        if time.perf_counter() - start >= seconds:
            return done
    return len(items)


def timed_passes(grade: Grade, items: Sequence[Any], min_seconds: float) -> tuple[float, list[Any]]:
    """Items graded per second over whole passes of ``items`` lasting at least ``min_seconds``, and the
    verdicts of the last pass."""
    done, elapsed, verdicts = 0, 0.0, []
    while elapsed < min_seconds or not done:
        start = time.perf_counter()
        verdicts = [grade(item) for item in items]
        elapsed += time.perf_counter() - start
        done += len(items)
    return done / elapsed, verdicts


def pin_to_one_core() -> str:
    """Pin this process (and the workers it starts) to one CPU; says which, or why not."""
    if not hasattr(os, "sched_setaffinity"):
        return "not pinned (no sched_setaffinity here)"
    cpu = sorted(os.sched_getaffinity(0))[0]
    os.sched_setaffinity(0, {cpu})
    return f"pinned to CPU {cpu}"


# ===================================================================================== sides and suites


class LocalSide:
    """A verifier run in this process; ``prepare`` (untimed) gives each pass its own copy of the inputs,
    ``after_pass`` (untimed) cleans up what a pass left behind."""

    def __init__(
        self,
        grade: Grade,
        items: Sequence[Any],
        prepare: Callable[[Any], Any] | None = None,
        after_pass: Callable[[], None] | None = None,
    ) -> None:
        self.grade, self.items = grade, items
        self.prepare, self.after_pass = prepare, after_pass

    def _inputs(self, n: int) -> list[Any]:
        chosen = self.items[:n]
        return [self.prepare(item) for item in chosen] if self.prepare else list(chosen)

    def calibrate(self, seconds: float) -> int:
        n = calibrate(self.grade, self._inputs(len(self.items)), seconds)
        if self.after_pass:
            self.after_pass()
        return n

    def run(self, n: int, min_seconds: float) -> tuple[float, list[Any]]:
        if self.prepare is None:
            rate, verdicts = timed_passes(self.grade, self.items[:n], min_seconds)
        else:  # fresh inputs for every pass: the passes are timed one by one
            done, elapsed = 0, 0.0
            while elapsed < min_seconds or not done:
                inputs = self._inputs(n)
                rate, verdicts = timed_passes(self.grade, inputs, 0.0)
                elapsed += n / rate
                done += n
            rate = done / elapsed
        if self.after_pass:
            self.after_pass()
        return rate, verdicts

    def close(self) -> None:
        pass


class WorkerSide:
    """A verifier run in another interpreter (a venv with conflicting pins), driven over a pipe: the
    worker is this file with ``--bfcl-worker``, started after this process is pinned, so on the same core."""

    def __init__(self, command: list[str]) -> None:
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self._read()  # "ready"

    def _read(self) -> Any:
        line = self.process.stdout.readline() if self.process.stdout else ""
        if not line:
            raise RuntimeError(f"the official worker ended (exit status {self.process.wait()})")
        return json.loads(line)

    def _ask(self, *words: object) -> Any:
        assert self.process.stdin is not None
        self.process.stdin.write(" ".join(map(str, words)) + "\n")
        self.process.stdin.flush()
        return self._read()

    def calibrate(self, seconds: float) -> int:
        return int(self._ask("calibrate", seconds))

    def run(self, n: int, min_seconds: float) -> tuple[float, list[Any]]:
        rate, verdicts = self._ask("run", n, min_seconds)
        return float(rate), verdicts

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._ask("quit")
        self.process.wait(timeout=30)


class WorkerSubset:
    """The cases of one ``bfcl_path`` (``*``: all) of a shared BFCL worker; the last subset closed ends it."""

    def __init__(self, worker: WorkerSide, label: str, sharing: list[int]) -> None:
        self.worker, self.label, self.sharing = worker, label, sharing
        sharing[0] += 1

    def calibrate(self, seconds: float) -> int:
        self.worker._ask("select", self.label)
        return self.worker.calibrate(seconds)

    def run(self, n: int, min_seconds: float) -> tuple[float, list[Any]]:
        self.worker._ask("select", self.label)
        return self.worker.run(n, min_seconds)

    def close(self) -> None:
        self.sharing[0] -= 1
        if self.sharing[0] == 0:
            self.worker.close()


@dataclass
class Suite:
    """One row of the table: the same inputs for both sides, and what each timing includes."""

    name: str
    ours: LocalSide | WorkerSide
    official: LocalSide | WorkerSide | WorkerSubset
    total: int
    includes: str
    #: Turns a verdict into the form compared (ours and the official one are compared after it).
    same: Callable[[Any, Any], bool] = lambda a, b: a == b


def measure(suite: Suite, seconds: float, trials: int, min_items: int) -> dict[str, Any]:
    """Interleaved timing of both sides on the same sample; the best rate of each and the mismatches."""
    n = max(suite.official.calibrate(seconds), min(min_items, suite.total))  # also the official warm-up
    suite.ours.run(n, 0.0)  # ours' warm-up
    best_ours = best_official = 0.0
    ours_verdicts: list[Any] = []
    official_verdicts: list[Any] = []
    for _ in range(trials):
        rate, ours_verdicts = suite.ours.run(n, seconds / 3)
        best_ours = max(best_ours, rate)
        rate, official_verdicts = suite.official.run(n, seconds / 3)
        best_official = max(best_official, rate)
    mismatches = sum(not suite.same(a, b) for a, b in zip(ours_verdicts, official_verdicts, strict=True))
    return {
        "benchmark": suite.name,
        "items": n,
        "inputs available": suite.total,
        "ours items/s": round(best_ours, 1),
        "official items/s": round(best_official, 1),
        "ratio": round(best_ours / best_official, 2),
        "verdict mismatches": mismatches,
        "timing includes": suite.includes,
    }


@contextlib.contextmanager
def official_imports_undone() -> Iterator[None]:
    """Undo what loading one benchmark's official code did to this process: the folders it put on
    ``sys.path``, the modules imported from them (official code bases share names such as ``utils``),
    and the working directory."""
    path, cwd = list(sys.path), os.getcwd()
    try:
        yield
    finally:
        added = [Path(entry).resolve() for entry in sys.path if entry and entry not in path]
        for name, module in list(sys.modules.items()):
            source = getattr(module, "__file__", None)
            if source and any(Path(source).resolve().is_relative_to(folder) for folder in added):
                del sys.modules[name]
        sys.path[:] = path
        os.chdir(cwd)


def sample(items: list[Any], seed: int = 0) -> list[Any]:
    """The items in a seeded random order (a prefix of it then covers every kind of input)."""
    shuffled = list(items)
    random.Random(seed).shuffle(shuffled)
    return shuffled


def _import_benchmark(name: str) -> Any:
    """A sibling script of ``benchmarks/`` as a module."""
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    return __import__(name)


# ============================================================================================== BFCL


def bfcl_path(case: dict[str, Any]) -> str:
    """Which path our decoder takes for a case (untimed; see ``--bfcl-by-kind``)."""
    from genenv_gym.envs.bfcl.categories import NO_GROUND_TRUTH, language_of
    from genenv_gym.envs.bfcl.decode import _decode_with_ast
    from genenv_gym.envs.bfcl.decode_errors import DecodeError
    from genenv_gym.envs.bfcl.literal_calls import read_literal_calls
    from genenv_gym.envs.bfcl.output_text import bracket_wrap

    category = case["category"]
    relevance = category in NO_GROUND_TRUTH or "relevance" in category
    prefix = "rel/" if relevance else ""
    if case["format"] == "json":
        return prefix + "json"
    if not relevance and language_of(category) != "python":
        return prefix + "java_js"
    source = bracket_wrap(case["output"])
    if read_literal_calls(source) is not None:
        return prefix + "py_literal"
    try:
        _decode_with_ast(source)
    except DecodeError as exc:
        return prefix + ("py_syntax_error" if str(exc).startswith("invalid syntax") else "py_ast_no_call")
    return prefix + "py_ast"


def bfcl_suite(data_dir: Path, official_python: Path, max_records: int, by_kind: bool = False) -> list[Suite]:
    """Single-turn AST categories (and, ``by_kind``, one row per ``bfcl_path``); the official side in the
    bfcl-eval venv."""
    if not official_python.exists():
        raise FileNotFoundError(
            f"{official_python}: no bfcl-eval venv (python3 -m venv /tmp/bfcl-venv && "
            "/tmp/bfcl-venv/bin/pip install bfcl-eval==2026.3.23 soundfile)"
        )
    crosscheck = _import_benchmark("bfcl_crosscheck")
    from genenv_gym.envs.bfcl.categories import AST_CATEGORIES
    from genenv_gym.envs.bfcl.checker import grade_output

    records = []
    for category in AST_CATEGORIES:
        for index, record in enumerate(crosscheck.load_category(data_dir, category)):
            records.append({**record, "_index": index})
    records = sample(records)[:max_records]
    by_key = {(r["category"], r["_index"]): r for r in records}
    cases = crosscheck.build_cases(records, crosscheck._load_test_module())
    cases = sample([c for c in cases if c["kind"] not in crosscheck.LENIENT_BY_DESIGN])

    def ours(case: dict[str, Any]) -> tuple[bool, str | None]:
        record = by_key[(case["category"], case["index"])]
        result = grade_output(
            case["output"], record["function"], record["ground_truth"], case["category"], case["format"]
        )
        # The official checker formats its error messages for every invalid output; ours are formatted
        # when first read (checker.CheckResult), so they are read here to time the same work.
        _ = result.errors
        return bool(result.valid), None if result.valid else result.error_type

    for case in cases:
        case["path"] = bfcl_path(case) if by_kind else "*"
    cases_file = Path(tempfile.mkdtemp(prefix="verifier_speed_")) / "bfcl_cases.json"
    cases_file.write_text(json.dumps(cases))
    worker = WorkerSide(
        [str(official_python), str(Path(__file__).resolve()), "--bfcl-worker", str(cases_file), str(data_dir)]
    )
    sharing = [0]
    suites = [
        Suite(
            "bfcl",
            LocalSide(ours, cases),
            WorkerSubset(worker, "*", sharing),
            len(cases),
            f"decode + AST check of one output ({len(records)} sampled records, every case of each); the "
            "official side in its own process (bfcl-eval pins tree_sitter 0.21)",
            same=lambda a, b: list(a) == list(b),
        )
    ]
    for label in sorted({case["path"] for case in cases} - {"*"}):
        subset = [case for case in cases if case["path"] == label]
        suites.append(
            Suite(
                f"bfcl: {label}",
                LocalSide(ours, subset),
                WorkerSubset(worker, label, sharing),
                len(subset),
                f"the {label} cases of the bfcl row",
                same=lambda a, b: list(a) == list(b),
            )
        )
    return suites


def bfcl_worker(cases_path: str, data_dir: str) -> None:
    """The official side of the ``bfcl`` suite: answers ``calibrate S`` / ``run N S`` / ``quit`` on stdin."""
    sys.path.insert(0, str(BENCHMARKS))
    import bfcl_crosscheck

    every_case = json.loads(Path(cases_path).read_text())
    cases = every_case
    official = bfcl_crosscheck.official_grader(Path(data_dir), {c["category"] for c in cases})

    def grade(case: dict[str, Any]) -> tuple[bool, str | None]:
        result = official(case, decoded=False)
        return result["valid"], None if result["valid"] else result["error_type"]

    def reply(value: Any) -> None:
        sys.stdout.write(json.dumps(value) + "\n")
        sys.stdout.flush()

    reply("ready")
    for line in sys.stdin:
        command, *args = line.split()
        if command == "calibrate":
            reply(calibrate(grade, cases, float(args[0])))
        elif command == "run":
            reply(timed_passes(grade, cases[: int(args[0])], float(args[1])))
        elif command == "select":
            cases = [c for c in every_case if args[0] == "*" or c.get("path") == args[0]]
            reply(len(cases))
        else:
            return


# ================================================================================ BFCL multi-turn


def bfcl_multiturn_suite(data_dir: Path, wheel: Path) -> Suite:
    """The multi-turn crosscheck's runs, the official checker imported from the unpacked wheel."""
    crosscheck = _import_benchmark("bfcl_multiturn_checker_crosscheck")
    root = crosscheck.wheel_root(str(wheel))
    checker = crosscheck.official_checker(root)
    from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_utils

    from genenv_gym.envs.bfcl_multiturn import long_context
    from genenv_gym.envs.bfcl_multiturn.checker import check_entry

    long_context.load_official_filler(root / crosscheck.FILLER)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 3000))
    runs = sample(crosscheck.model_runs(str(data_dir)))
    items = [(run, crosscheck.official_entry(run.entry)) for run in runs]
    names = iter(range(1 << 62))

    def official(item: tuple[Any, dict]) -> tuple[bool, str | None]:
        run, entry = item
        try:  # a unique model name: the official instance cache is keyed by it
            result = checker(
                run.model, run.entry["ground_truth"], entry, run.category, f"vspeed_{next(names)}"
            )
        except Exception as error:
            return False, f"crash: {type(error).__name__}"
        return bool(result["valid"]), None if result["valid"] else result.get("error_type")

    def drop_instances() -> None:
        for name in [n for n in vars(multi_turn_utils) if n.startswith("vspeed_")]:
            delattr(multi_turn_utils, name)

    def ours(item: tuple[Any, dict]) -> tuple[bool, str | None]:
        verdict = check_entry(item[0].entry, item[0].model)
        return verdict.valid, verdict.error_type

    return Suite(
        "bfcl_multiturn",
        LocalSide(ours, items),
        LocalSide(official, items, after_pass=drop_instances),
        len(items),
        "every turn's calls and the ground truth's executed on fresh backends, state and response checks; "
        "official: call strings run with eval (its instance cache emptied after each pass, untimed)",
    )


# ========================================================================================= API-Bank


def apibank_suites(data_dir: Path, official_dir: Path, googletrans_dir: Path) -> list[Suite]:
    """Two rows: the official code as ``evaluator.py`` runs it, and as the crosscheck's harness does."""
    if not (official_dir / "tool_manager.py").is_file():
        raise FileNotFoundError(
            f"{official_dir}: no api-bank checkout (git -C /work/.mirror/AlibabaResearch+DAMO-ConvAI/repo "
            "archive HEAD api-bank | tar -x -C /tmp/damo)"
        )
    crosscheck = _import_benchmark("apibank_crosscheck")
    from genenv_gym.envs.apibank import data
    from genenv_gym.envs.apibank.official import score_api_call
    from genenv_gym.envs.apibank.world import World

    root = str(data_dir)
    samples = [s for s in data.load_samples(tuple(data.LEVEL_FOLDERS), root) if s.kind == "api"]
    databases, recordings = data.init_databases(root), data.recordings(root)
    with contextlib.redirect_stdout(io.StringIO()):
        official = crosscheck.Official(official_dir.resolve(), data_dir, googletrans_dir.resolve())
    items = sample([(truth, output) for _, _, truth, output in crosscheck.graded_outputs(samples)])

    def ours(item: tuple[dict, str]) -> bool:
        return score_api_call(World(databases, recordings), item[0], item[1]).correct

    def as_bool(verdict: bool | str) -> bool:
        return verdict is True  # an official crash counts as incorrect, as in the crosscheck

    def per_sample_manager(item: tuple[dict, str]) -> bool:
        return as_bool(official.evaluator_verdict(*item))

    def shared_manager(item: tuple[dict, str]) -> bool:
        return as_bool(official.official_verdict(*item))

    return [
        Suite(
            "apibank (evaluator.py)",
            LocalSide(ours, items),
            LocalSide(per_sample_manager, items),
            len(items),
            "extraction, the API call on the initial databases, the API's correctness rule; official: a new "
            "ToolManager per sample as evaluator.py makes it (API modules scanned, databases read)",
        ),
        Suite(
            "apibank (shared ToolManager)",
            LocalSide(ours, items),
            LocalSide(shared_manager, items),
            len(items),
            "as above; official: one ToolManager, its databases deep-copied before each sample (the "
            "crosscheck's harness, cheaper than evaluator.py)",
        ),
    ]


# ======================================================================================== Bamboogle


def bamboogle_solutions(data_dir: Path) -> list[tuple[str, list[str]]]:
    """(solution text, golden answers): per question, Search-R1's prompt followed by responses whose
    answer is the gold one, a spelling variant of it, another question's, a wrong long one, or none."""
    from genenv_gym.envs.bamboogle.data import load_questions, normalize_question
    from genenv_gym.envs.bamboogle.prompt import render_prompt

    questions = load_questions(str(data_dir))
    rng = random.Random(0)
    out = []
    for i, question in enumerate(questions):
        gold = question.golden_answers[0]
        other = questions[(i + 1) % len(questions)].golden_answers[0]
        answers = [
            gold,
            gold.upper() + ".",
            f"The {gold}!",
            other,
            f"{other} and {gold} in {rng.randint(1, 99)}",
        ]
        prompt = render_prompt(normalize_question(question.question))
        reasoning = "<think> I should search. </think><search> query </search><information> x </information>"
        responses = [f"{reasoning}<answer> {answer} </answer>" for answer in answers]
        responses.append(f"{reasoning} I do not know.")
        out += [(prompt + response, list(question.golden_answers)) for response in responses]
    return out


def bamboogle_suite(data_dir: Path, search_r1: Path, flashrag_wheel: Path) -> Suite:
    """Search-R1's EM / cover-EM rewards and FlashRAG's F1 against ours on the same solution texts."""
    qa_em_path = search_r1 / "verl" / "utils" / "reward_score" / "qa_em.py"
    if not qa_em_path.is_file() or not flashrag_wheel.is_file():
        raise FileNotFoundError(
            f"{qa_em_path} or {flashrag_wheel} missing (git -C /work/.mirror/PeterGriffinJin+Search-R1/repo "
            "archive HEAD verl | tar -x -C /tmp/Search-R1; pip download --no-deps flashrag-dev==0.1.2 -d "
            "/tmp/flashrag_whl)"
        )
    crosscheck = _import_benchmark("bamboogle_crosscheck")
    from genenv_gym.envs.bamboogle.extraction import extract_answer
    from genenv_gym.envs.bamboogle.metrics import answer_metrics

    qa_em = crosscheck.load_search_r1(search_r1)
    f1 = crosscheck.load_flashrag(flashrag_wheel).F1_Score({"dataset_name": "bamboogle"})
    items = sample(bamboogle_solutions(data_dir))
    prints = io.StringIO()

    def official(item: tuple[str, list[str]]) -> tuple[float, float, float]:
        solution, golden = item
        with contextlib.redirect_stdout(prints):
            em = qa_em.compute_score_em(solution, {"target": golden})
            cover = qa_em.compute_score_subem(solution, {"target": golden})
        answer = qa_em.extract_solution(solution)
        return float(em), float(cover), 0.0 if answer is None else f1.token_level_scores(answer, golden)["f1"]

    def ours(item: tuple[str, list[str]]) -> tuple[float, float, float]:
        scores = answer_metrics(extract_answer(item[0], "reference"), item[1])
        return scores["em"], scores["cover_em"], scores["f1"]

    def flush() -> None:
        prints.seek(0)
        prints.truncate()

    return Suite(
        "bamboogle",
        LocalSide(ours, items),
        LocalSide(official, items, after_pass=flush),
        len(items),
        "answer extraction from prompt + response (the last of two or more <answer> pairs), EM, cover-EM, "
        "token F1",
    )


# ===================================================================================== TravelPlanner

RAISED = "raise"


def _official_plan_verdict(commonsense_eval: Callable, hard_eval: Callable, query: dict, plan: Any) -> Any:
    """``eval.py``'s per-plan step, as (commonsense values, hard values or None); RAISED where it raises."""
    if not plan:
        return "not delivered"
    try:
        box = commonsense_eval(query, plan)
    except Exception:
        return RAISED
    commonsense = {key: value[0] for key, value in box.items()}
    if not (box["is_not_absent"][0] and box["is_valid_information_in_sandbox"][0]):
        return commonsense, None
    try:
        hard = {key: value[0] for key, value in hard_eval(query, plan).items()}
    except Exception:
        return commonsense, RAISED
    return commonsense, hard


def _our_plan_verdict(verdict: Any) -> Any:
    """Our ``PlanVerdict`` in the form of ``_official_plan_verdict``."""
    if not verdict.delivered:
        return "not delivered"
    malformed = bool(verdict.error) and verdict.error.startswith("malformed plan")
    if malformed or any(result.raised for result in verdict.commonsense.values()):
        return RAISED
    commonsense = {key: result.passed for key, result in verdict.commonsense.items()}
    if verdict.hard is None:
        return commonsense, None
    if any(result.raised for result in verdict.hard.values()):
        return commonsense, RAISED
    return commonsense, {key: result.passed for key, result in verdict.hard.items()}


def travelplanner_suite(data_dir: Path, official_dir: Path) -> Suite:
    """The 45 train plans and their mutations, ours against the official per-plan evaluation."""
    if not (official_dir / "evaluation" / "commonsense_constraint.py").is_file():
        raise FileNotFoundError(
            f"{official_dir}: no TravelPlanner checkout (git -C /work/.mirror/OSU-NLP-Group+TravelPlanner/"
            "repo archive HEAD evaluation tools utils | tar -x -C /tmp/tp_official; pip install pandas)"
        )
    crosscheck = _import_benchmark("travelplanner_crosscheck")
    from genenv_gym.envs.travelplanner.database import Database
    from genenv_gym.envs.travelplanner.evaluate import evaluate_plan
    from genenv_gym.envs.travelplanner.sandbox import sandbox_for

    db = Database.load(data_dir)
    sandbox_for(db)  # our look-up indexes, built once (as the official CSVs are loaded once)
    crosscheck.read_train_rows(data_dir)
    workdir = Path(tempfile.mkdtemp(prefix="verifier_speed_tp_"))
    oc, oh, _ = crosscheck.load_official(official_dir.resolve(), data_dir, db, workdir)
    items = sample(
        [
            (query, plan)
            for _, _, kind, query, plan in crosscheck.mutated_plans(db)
            if kind != "over_long_field"
        ]
    )

    def official(item: tuple[dict, Any]) -> Any:
        with contextlib.redirect_stdout(io.StringIO()):
            return _official_plan_verdict(oc.evaluation, oh.evaluation, *item)

    def ours(item: tuple[dict, Any]) -> Any:
        return _our_plan_verdict(evaluate_plan(item[0], item[1], db))

    return Suite(
        "travelplanner",
        LocalSide(ours, items, prepare=copy.deepcopy),
        LocalSide(official, items, prepare=copy.deepcopy),
        len(items),
        "8 commonsense constraints, then the 5 hard ones when the plan is complete and in the sandbox; "
        "each pass on its own deep copy of the plans (untimed); official: pandas look-ups",
    )


# ============================================================================================== main


def build_suite(name: str, args: argparse.Namespace) -> list[Suite]:
    """The rows of one benchmark."""
    data_dir = Path(args.data_dir).resolve()
    if name == "bfcl":
        return bfcl_suite(data_dir, Path(args.bfcl_python), args.bfcl_records, args.bfcl_by_kind)
    if name == "bfcl_multiturn":
        return [bfcl_multiturn_suite(data_dir, Path(args.bfcl_wheel))]
    if name == "apibank":
        return apibank_suites(data_dir, Path(args.apibank_dir), Path(args.googletrans_dir))
    if name == "bamboogle":
        return [bamboogle_suite(data_dir, Path(args.search_r1_dir), Path(args.flashrag_wheel))]
    return [travelplanner_suite(data_dir, Path(args.travelplanner_dir))]


COLUMNS = (
    ("benchmark", 30),
    ("items", 7),
    ("ours items/s", 14),
    ("official items/s", 18),
    ("ratio", 8),
    ("verdict mismatches", 20),
)


def progress_line(row: dict[str, Any]) -> str:
    """One measured row as a line of progress."""
    return (
        f"{row['benchmark']}: {row['items']} items, ours {row['ours items/s']:,.0f}/s, official "
        f"{row['official items/s']:,.0f}/s, x{row['ratio']}, {row['verdict mismatches']} mismatches"
    )


def print_table(rows: list[dict[str, Any]]) -> None:
    """The table: one line per row, a skipped benchmark with its reason."""
    print(
        "".join(
            f"{name:<{width}}" if i == 0 else f"{name:>{width}}" for i, (name, width) in enumerate(COLUMNS)
        )
    )
    for row in rows:
        if "skipped" in row:
            print(f"{row['benchmark']:<30}skipped: {row['skipped']}")
            continue
        cells = [f"{row['benchmark']:<30}"]
        cells += [f"{row[name]:>{width},}" for name, width in COLUMNS[1:]]
        print("".join(cells))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", default=str(DEFAULT_DATA), help="benchmarks root (GENENV_DATA_DIR)")
    parser.add_argument("--seconds", type=float, default=2.0, help="one official pass over the timed sample")
    parser.add_argument("--trials", type=int, default=3, help="interleaved timings; the best is kept")
    parser.add_argument(
        "--min-items", type=int, default=100, help="timed sample size at least (where the official is slow)"
    )
    parser.add_argument("--only", default="", help=f"comma-separated subset of {','.join(SUITES)}")
    parser.add_argument("--out", default=str(DEFAULT_OUT), help="where the table is written as JSON")
    parser.add_argument(
        "--bfcl-python", default="/tmp/bfcl-venv/bin/python", help="python of the bfcl-eval venv"
    )
    parser.add_argument(
        "--bfcl-records", type=int, default=400, help="BFCL records sampled (all their cases)"
    )
    parser.add_argument(
        "--bfcl-by-kind", action="store_true", help="also one bfcl row per path our decoder takes (bfcl_path)"
    )
    parser.add_argument("--bfcl-wheel", default="/tmp/bfclw4", help="the unpacked bfcl-eval wheel")
    parser.add_argument("--apibank-dir", default="/tmp/damo/api-bank", help="DAMO-ConvAI's api-bank folder")
    parser.add_argument(
        "--googletrans-dir", default="/tmp/googletrans-3.1.0a0", help="googletrans 3.1.0a0, unpacked"
    )
    parser.add_argument("--search-r1-dir", default="/tmp/Search-R1", help="a Search-R1 checkout (verl/)")
    parser.add_argument(
        "--flashrag-wheel",
        default="/tmp/flashrag_whl/flashrag_dev-0.1.2-py3-none-any.whl",
        help="FlashRAG wheel",
    )
    parser.add_argument("--travelplanner-dir", default="/tmp/tp_official", help="evaluation/ tools/ utils/")
    parser.add_argument("--bfcl-worker", nargs=2, metavar=("CASES", "DATA"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.out = str(Path(args.out).resolve())  # the API-Bank harness changes directory
    if args.bfcl_worker:
        bfcl_worker(*args.bfcl_worker)
        return 0

    os.environ["OMP_NUM_THREADS"] = "1"
    sys.path.insert(0, str(ROOT))
    pinned = pin_to_one_core()
    names = [n for n in args.only.split(",") if n] or list(SUITES)
    unknown = sorted(set(names) - set(SUITES))
    if unknown:
        parser.error(f"unknown benchmark(s) {unknown}; choose from {', '.join(SUITES)}")
    print(f"python {platform.python_version()}, {pinned}, {args.seconds} s per official pass, ", end="")
    print(f"best of {args.trials} interleaved trials")
    rows: list[dict[str, Any]] = []
    for name in names:
        with official_imports_undone():
            try:
                suites = build_suite(name, args)
            except (FileNotFoundError, ImportError, SystemExit) as error:
                rows.append({"benchmark": name, "skipped": str(error).splitlines()[0]})
                print(f"{name}: skipped: {rows[-1]['skipped']}", flush=True)
                continue
            for suite in suites:
                row = measure(suite, args.seconds, args.trials, args.min_items)
                rows.append(row)
                print(progress_line(row), flush=True)
                suite.ours.close()
                suite.official.close()
    print()
    print_table(rows)
    slow = [r["benchmark"] for r in rows if "ratio" in r and r["ratio"] < TARGET_RATIO]
    if slow:
        print(f"under {TARGET_RATIO}x the official speed: {', '.join(slow)}")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    meta = {
        "command": " ".join(["python benchmarks/verifier_speed.py", *sys.argv[1:]]),
        "python": platform.python_version(),
        "cpu": pinned,
        "seconds": args.seconds,
        "trials": args.trials,
        "min items": args.min_items,
        "bfcl records": args.bfcl_records,
        "bfcl by kind": args.bfcl_by_kind,
    }
    out.write_text(json.dumps({"setup": meta, "rows": rows}, indent=2) + "\n")
    print(f"written to {out}")
    return 1 if any(r.get("verdict mismatches") for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
