"""Cross-check our official-mode API-Bank verdicts against the official code on every real API-call sample.

For every level-1 and level-2 API-call sample it builds model outputs (the gold call in three quoting
styles, each parameter dropped / changed / upper-cased / padded / renamed, content shortened and reworded,
an extra parameter, another API's name, positional arguments, no brackets, JSON, a call broken over lines,
prose around the call, two calls) and grades each with ours (``official.score_api_call``) and with the
official ``ToolManager`` and per-API ``check_api_call_correctness`` (the ``evaluate`` logic of
``evaluator.py``: first ``[Name(...)]``, name check, call, rule, ``KeyError`` -> incorrect), each call on
freshly loaded init databases. It prints the agreement and every disagreement.

The official code is imported from your checkout (``--official-dir``: the ``api-bank`` folder of
AlibabaResearch/DAMO-ConvAI); nothing of it is in this project. Its imports that need a network or a model
(sentence_transformers, googletrans, nltk, rank_bm25) are replaced by inert stand-ins written to a
temporary folder, so the samples of ToolSearcher, Dictionary, Translate and SearchEngine are skipped.
``evaluator.py`` itself is not imported (it needs openai wrappers); its ``evaluate`` branch for API turns
is a few lines, restated in ``official_verdict`` below.

    python benchmarks/apibank_crosscheck.py --official-dir /path/to/DAMO-ConvAI/api-bank \\
        [--data-dir ../shared/benchmarks] [--max-shown 30]
"""

from __future__ import annotations

import argparse
import collections
import copy
import json
import os
import random
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from genenv_gym.data_dir import data_root
from genenv_gym.envs.apibank import data
from genenv_gym.envs.apibank.extraction import render_gold_call
from genenv_gym.envs.apibank.official import score_api_call
from genenv_gym.envs.apibank.signatures import SIGNATURES
from genenv_gym.envs.apibank.world import World

SKIPPED = {"ToolSearcher", "Dictionary", "Translate", "SearchEngine"}
STUBS = {
    "sentence_transformers/__init__.py": "class SentenceTransformer:\n    pass\n\n\nclass util:\n    pass\n",
    "googletrans/__init__.py": "LANGUAGES = {}\n\n\nclass Translator:\n    pass\n",
    "nltk/__init__.py": "def download(*args, **kwargs):\n    pass\n",
    "nltk/tokenize/__init__.py": "def word_tokenize(text):\n    return text.split()\n",
    "rank_bm25.py": "class BM25Okapi:\n    def __init__(self, docs):\n        self.n = len(docs)\n",
}
_CALL = re.compile(r"\[(\w+)\((.*)\)\]")


class Official:
    """The official ToolManager with its databases reset to the init state before every call."""

    def __init__(self, official_dir: Path, root: Path) -> None:
        stubs = Path(tempfile.mkdtemp(prefix="apibank_stubs_"))
        for name, text in STUBS.items():
            (stubs / name).parent.mkdir(parents=True, exist_ok=True)
            (stubs / name).write_text(text)
        work = Path(tempfile.mkdtemp(prefix="apibank_official_"))
        (work / "apis").symlink_to(official_dir / "apis")
        (work / "init_database").symlink_to(root / "apibank" / "init_database")
        os.chdir(work)
        sys.path[:0] = [str(stubs), str(official_dir)]
        from api_call_extraction import parse_api_call
        from tool_manager import ToolManager

        self.parse = parse_api_call
        self.tool_manager = ToolManager
        self.manager = ToolManager()
        self.pristine = copy.deepcopy(self.manager.init_databases)

    def _fresh(self) -> None:
        databases = {k: v if k == "ImageCaptioning" else copy.deepcopy(v) for k, v in self.pristine.items()}
        for api in self.manager.apis:
            name = getattr(api["class"], "database_name", None)
            if name in databases:
                api["init_database"] = databases[name]
        self.manager.inited_tools = {}
        self.manager.token_checker = self.manager.init_tool("CheckToken")

    def official_verdict(self, truth: dict, output: str) -> bool | str:
        """``evaluator.py``'s verdict for an API turn (a string when the official script would crash)."""
        match = _CALL.search(output)
        if match is None:
            return False
        self._fresh()
        api_name, params = self.parse(match.group(0))
        if api_name != truth["api_name"]:
            return False
        try:
            result = self.manager.api_call(api_name, **params)
        except Exception:
            return False
        try:
            return bool(
                self.manager.init_tool(api_name).check_api_call_correctness(
                    result, copy.deepcopy(truth["result"])
                )
            )
        except KeyError:
            return False
        except Exception as error:
            return f"crash: {type(error).__name__}"

    def evaluator_verdict(self, truth: dict, output: str) -> bool | str:
        """The same verdict as ``evaluator.py`` computes it: a new ``ToolManager`` (the API modules scanned,
        every init database read from disk) for each sample, then ``evaluate``'s API branch."""
        match = _CALL.search(output)
        if match is None:
            return False
        manager = self.tool_manager()
        api_name, params = self.parse(match.group(0))
        if api_name != truth["api_name"]:
            return False
        try:
            result = manager.api_call(api_name, **params)
        except Exception:
            return False
        try:
            rule = manager.init_tool(api_name).check_api_call_correctness
            return bool(rule(result, copy.deepcopy(truth["result"])))
        except KeyError:
            return False
        except Exception as error:
            return f"crash: {type(error).__name__}"


def variants(truth: dict, rng: random.Random) -> list[tuple[str, str]]:
    """Model outputs around a sample's gold call, each with its kind."""
    name, params = truth["api_name"], dict(truth["param_dict"])
    out = [
        ("gold", render_gold_call(name, params)),
        ("prompt-style", "[{}({})]".format(name, ", ".join(f"{k}='{v}'" for k, v in params.items()))),
        ("double-quoted", "[{}({})]".format(name, ", ".join(f'{k}="{v}"' for k, v in params.items()))),
        ("extra", render_gold_call(name, {**params, "extra": "1"})),
        ("wrong-name", render_gold_call(rng.choice([n for n in SIGNATURES if n != name]), params)),
        ("positional", "[{}({})]".format(name, ", ".join(f"'{v}'" for v in params.values()))),
        ("no-brackets", render_gold_call(name, params)[1:-1]),
        ("json", json.dumps({"name": name, "arguments": params})),
        ("multi-line", render_gold_call(name, params).replace(", ", ",\n")),
        ("prose", "Sure! " + render_gold_call(name, params) + " Hope this helps."),
        ("two-calls", render_gold_call(name, params) + " " + render_gold_call(name, params)),
    ]
    for key, value in params.items():
        changed: dict[str, Any] = {
            "drop": {k: v for k, v in params.items() if k != key},
            "change": {**params, key: value + "x"},
            "upper": {**params, key: value.upper()},
            "pad": {**params, key: f" {value} "},
            "rename": {(k + "_x" if k == key else k): v for k, v in params.items()},
        }
        words = value.split(" ")
        if len(words) > 2:
            changed["shorten"] = {**params, key: " ".join(words[:-1])}
            changed["reword"] = {**params, key: " ".join([*words[1:], "extra"])}
        out += [(kind, render_gold_call(name, p)) for kind, p in changed.items()]
    return out


def graded_outputs(samples: list, seed: int = 0) -> list[tuple[str, str, dict, str]]:
    """(task id, kind, ground-truth turn, model output) of every variant of every API-call sample whose
    API the official code can run here (``SKIPPED`` left out), in the cross-check's order."""
    rng = random.Random(seed)
    return [
        (sample.task_id, kind, sample.ground_truth, output)
        for sample in samples
        if sample.ground_truth["api_name"] not in SKIPPED
        for kind, output in variants(sample.ground_truth, rng)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--official-dir", required=True, type=Path, help="the api-bank folder of a checkout")
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--max-shown", type=int, default=30)
    args = parser.parse_args()
    root = data_root(args.data_dir).resolve()
    samples = [s for s in data.load_samples(tuple(data.LEVEL_FOLDERS), str(root)) if s.kind == "api"]
    databases, recordings = data.init_databases(str(root)), data.recordings(str(root))
    official = Official(args.official_dir.resolve(), root)
    total, disagreements, crashes = 0, [], collections.Counter()
    by_kind: collections.Counter = collections.Counter()
    for task_id, kind, truth, output in graded_outputs(samples):
        theirs = official.official_verdict(truth, output)
        if isinstance(theirs, str):
            crashes[theirs] += 1
            theirs = False
        ours = score_api_call(World(databases, recordings), truth, output).correct
        total += 1
        by_kind[kind] += 1
        if ours != theirs:
            disagreements.append((task_id, kind, output[:160], theirs, ours))
    print(f"{total} outputs over {len(samples)} samples ({', '.join(sorted(SKIPPED))} skipped)")
    print(f"disagreements: {len(disagreements)}; official crashes: {dict(crashes)}")
    print("outputs by kind:", dict(sorted(by_kind.items())))
    for row in disagreements[: args.max_shown]:
        print(row)


if __name__ == "__main__":
    main()
