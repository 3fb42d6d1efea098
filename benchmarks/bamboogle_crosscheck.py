"""Cross-check our Bamboogle metrics and extraction against the reference functions on generated text.

FlashRAG's metrics are loaded from its published wheel (``pip download --no-deps flashrag-dev==0.1.2``;
pass ``--flashrag-wheel``), its heavy dependencies never imported: only ``flashrag/evaluator/utils.py``
and ``metrics.py`` are loaded from the wheel. Search-R1 is not on PyPI: with ``--search-r1-dir`` (a
checkout of PeterGriffinJin/Search-R1) its own ``verl/utils/reward_score/qa_em.py`` is loaded and compared
(``normalize_answer``, ``em_check``, ``subem_check``, ``extract_solution``); without it, the same functions
re-typed below (in this script only, never in the package) stand in.

    python benchmarks/bamboogle_crosscheck.py \
        --flashrag-wheel /tmp/flashrag_whl/flashrag_dev-0.1.2-py3-none-any.whl --search-r1-dir /tmp/Search-R1
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import re
import string
import sys
import tempfile
import types
import zipfile
from pathlib import Path

from genenv_gym.envs.bamboogle.extraction import extract_answer, parse_action
from genenv_gym.envs.bamboogle.metrics import cover_exact_match, exact_match, normalize_answer, token_scores


# --- Search-R1 verl/utils/reward_score/qa_em.py, re-typed for comparison only -----------------------
def ref_normalize_answer(s):
    def remove_articles(text):
        return re.sub(r"\b(a|an|the)\b", " ", text)

    def white_space_fix(text):
        return " ".join(text.split())

    def remove_punc(text):
        exclude = set(string.punctuation)
        return "".join(ch for ch in text if ch not in exclude)

    return white_space_fix(remove_articles(remove_punc(s.lower())))


def ref_em_check(prediction, golden_answers):
    if isinstance(golden_answers, str):
        golden_answers = [golden_answers]
    pred = ref_normalize_answer(prediction)
    return int(any(ref_normalize_answer(g) == pred for g in golden_answers))


def ref_subem_check(prediction, golden_answers):
    if isinstance(golden_answers, str):
        golden_answers = [golden_answers]
    pred = ref_normalize_answer(prediction)
    return int(any(ref_normalize_answer(g) in pred for g in golden_answers))


def ref_extract_solution(solution_str):
    matches = list(re.finditer(r"<answer>(.*?)</answer>", solution_str, re.DOTALL))
    if len(matches) <= 1:
        return None
    return matches[-1].group(1).strip()


def ref_postprocess_prediction(prediction):
    match = re.search(r"<(search|answer)>(.*?)</\1>", prediction, re.DOTALL)
    return (match.group(1), match.group(2).strip()) if match else (None, "")


# ------------------------------------------------------------------------------------------------------


def load_search_r1(checkout: Path) -> types.ModuleType:
    """Search-R1's own ``qa_em.py`` (it imports only ``re``, ``string`` and ``random``)."""
    spec = importlib.util.spec_from_file_location("qa_em", checkout / "verl/utils/reward_score/qa_em.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_flashrag(wheel: Path) -> types.ModuleType:
    """FlashRAG's ``flashrag.evaluator.metrics`` from the wheel, without its package ``__init__``."""
    root = Path(tempfile.mkdtemp(prefix="flashrag_"))
    with zipfile.ZipFile(wheel) as archive:
        for name in ("flashrag/evaluator/utils.py", "flashrag/evaluator/metrics.py"):
            archive.extract(name, root)
    for package in ("flashrag", "flashrag.evaluator"):
        module = types.ModuleType(package)
        module.__path__ = [str(root / package.replace(".", "/"))]
        sys.modules[package] = module
    modules = {}
    for name in ("utils", "metrics"):
        full = f"flashrag.evaluator.{name}"
        spec = importlib.util.spec_from_file_location(full, root / "flashrag/evaluator" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[full] = module
        spec.loader.exec_module(module)
        modules[name] = module
    return modules["metrics"]


WORDS = [
    "the",
    "a",
    "an",
    "The",
    "James",
    "madison",
    "yes",
    "no",
    "noanswer",
    "Paris",
    "1999",
    "U.S.",
    "Titan",
    "IIIE",
    "café",
    "ZOË",
    "rock-n-roll",
    "an.",
    "theater",
    "!",
    "'s",
    "\t",
    "\n",
    "  ",
    "—",
]
TAGS = ["<answer>", "</answer>", "<search>", "</search>", "<think>", "</think>", "<information>"]


def random_text(rng: random.Random, tags: bool) -> str:
    pool = WORDS + (TAGS * 3 if tags else [])
    pieces = [rng.choice(pool) for _ in range(rng.randint(0, 12))]
    if rng.random() < 0.2:
        pieces.append("".join(rng.choice(string.printable) for _ in range(rng.randint(0, 8))))
    return rng.choice([" ", "", " "]).join(pieces)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--flashrag-wheel", type=Path, required=True)
    parser.add_argument("--search-r1-dir", type=Path, default=None, help="a checkout of Search-R1")
    parser.add_argument("--n", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    global ref_normalize_answer, ref_em_check, ref_subem_check, ref_extract_solution
    if args.search_r1_dir is not None:
        qa_em = load_search_r1(args.search_r1_dir)
        ref_normalize_answer, ref_em_check = qa_em.normalize_answer, qa_em.em_check
        ref_subem_check, ref_extract_solution = qa_em.subem_check, qa_em.extract_solution
        print(f"Search-R1 reference: {args.search_r1_dir / 'verl/utils/reward_score/qa_em.py'}")
    metrics = load_flashrag(args.flashrag_wheel)
    config = {"dataset_name": "bamboogle"}
    flash_em, flash_sub, flash_f1 = (
        metrics.ExactMatch(config),
        metrics.Sub_ExactMatch(config),
        metrics.F1_Score(config),
    )
    rng = random.Random(args.seed)
    mismatches = 0
    checks = 0
    for _ in range(args.n):
        pred = random_text(rng, tags=False)
        golden = [random_text(rng, tags=False) for _ in range(rng.randint(1, 3))]
        if rng.random() < 0.3:
            golden[0] = pred.upper() if rng.random() < 0.5 else f"the {pred}."
        response = random_text(rng, tags=True)
        pairs = [
            (normalize_answer(pred), ref_normalize_answer(pred)),
            (exact_match(pred, golden), ref_em_check(pred, golden)),
            (cover_exact_match(pred, golden), ref_subem_check(pred, golden)),
            (exact_match(pred, golden), flash_em.calculate_em(pred, golden)),
            (cover_exact_match(pred, golden), flash_sub.calculate_sub_em(pred, golden)),
            (token_scores(pred, golden), flash_f1.token_level_scores(pred, golden)),
            (extract_answer(response, "reference"), ref_extract_solution(response)),
            (parse_action(response), ref_postprocess_prediction(response)),
        ]
        for ours, ref in pairs:
            checks += 1
            if ours != ref:
                mismatches += 1
                print("MISMATCH", repr(pred), golden, repr(response), ours, ref)
    print(f"{args.n} generated cases, {checks} comparisons, {mismatches} mismatches")
    sys.exit(1 if mismatches else 0)


if __name__ == "__main__":
    main()
