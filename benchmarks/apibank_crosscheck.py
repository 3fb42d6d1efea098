"""Cross-check our official-mode API-Bank verdicts against the official code on every real API-call sample.

For every level-1 and level-2 API-call sample (every API, ToolSearcher, Dictionary, Translate and
SearchEngine included) it builds model outputs (the gold call in three quoting styles, each parameter
dropped / changed / upper-cased / padded / renamed, content shortened and reworded, an extra parameter,
another API's name, positional arguments, no brackets, JSON, a call broken over lines, prose around the
call, two calls) and grades each with ours (``official.score_api_call``) and with the official
``ToolManager`` and per-API ``check_api_call_correctness`` (the ``evaluate`` logic of ``evaluator.py``:
first ``[Name(...)]``, name check, call, rule, ``KeyError`` -> incorrect), each call on freshly loaded init
databases. It prints the agreement per API and per kind of output, and every disagreement. It also checks
``official_tool_search.PRESENT_DIGESTS`` against the entries the official ToolSearcher builds.

The official code is imported from your checkout (``--official-dir``: the ``api-bank`` folder of
AlibabaResearch/DAMO-ConvAI at commit 483554e); nothing of it is in this project. It runs unmodified;
only what needs the network or a neural model is replaced, by stand-ins written to a temporary folder:

- ``sentence_transformers`` (ToolSearcher's ranking model): the stand-in scores the API that our ranking
  picks (the recorded best match for recorded keywords, else our BM25) 1 and every other 0, so the
  official code builds its output from its own API classes for the API we rank first. This checks how
  the output is built and judged, not the ranking.
- ``requests`` (Dictionary's online dictionary): ``get`` answers the URL of a word that a dialogue
  recorded (the word as the official code sends it) with the recorded meanings, any other word with 404.
- ``googletrans.Translator`` (Google Translate): ``translate`` answers the (text, source, target) of a
  recorded translation with the recorded text and fails otherwise with our no-recording message;
  ``googletrans.LANGUAGES`` is the real table, read from googletrans 3.1.0a0 (``--googletrans-dir``:
  ``pip download --no-deps googletrans==3.1.0a0`` and unpack; the version the official requirements pin).
- nltk's ``punkt`` sentence splitter (a downloaded model) is skipped: SearchEngine's ``word_tokenize``
  runs with ``preserve_line=True`` (the queries are single sentences). rank_bm25 and nltk themselves are
  real (``pip install rank_bm25 nltk==3.6.5`` in a throwaway environment).

``ALL_PROXY`` is set to the empty text when unset: the official Translate writes the variable's old value
back (``os.environ['ALL_PROXY'] = proxy``), which raises a TypeError when it was unset.

``evaluator.py`` itself is not imported (it needs openai wrappers); its ``evaluate`` branch for API turns
is a few lines, restated in ``official_verdict`` below.

    python benchmarks/apibank_crosscheck.py --official-dir /path/to/DAMO-ConvAI/api-bank \\
        --googletrans-dir /path/to/googletrans-3.1.0a0 [--data-dir ../shared/benchmarks] [--max-shown 30]
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

from genenv_gym.datasets.data_dir import data_root
from genenv_gym.envs.apibank import data
from genenv_gym.envs.apibank.apis_info import tool_searcher
from genenv_gym.envs.apibank.extraction import render_gold_call
from genenv_gym.envs.apibank.official import score_api_call
from genenv_gym.envs.apibank.official_tool_search import PRESENT_DIGESTS, entry_digest, matched_name
from genenv_gym.envs.apibank.signatures import SIGNATURES
from genenv_gym.envs.apibank.world import World

#: Stand-ins for what needs the network or a model (see the module docstring); the ``RECORDED`` /
#: ``RANK`` names are filled in by ``Official`` before any API runs.
STUBS = {
    "sentence_transformers/__init__.py": (
        "RANK = None  # keywords -> the name of the API to rank first\n\n\n"
        "class SentenceTransformer:\n"
        "    def __init__(self, *args, **kwargs):\n        pass\n\n"
        "    def encode(self, text):\n        return text\n\n\n"
        "class _Score:\n"
        "    def __init__(self, value):\n        self.value = value\n\n"
        "    def item(self):\n        return self.value\n\n\n"
        "class util:\n"
        "    @staticmethod\n"
        "    def cos_sim(keywords, summary):\n"
        "        return _Score(1.0 if summary == RANK(keywords) else 0.0)\n"
    ),
    "requests/__init__.py": (
        "RECORDED = {}  # url -> recorded meanings\n\n\n"
        "class _Response:\n"
        "    def __init__(self, meanings):\n"
        "        self.status_code = 404 if meanings is None else 200\n"
        "        self.meanings = meanings\n\n"
        "    def json(self):\n        return [{'meanings': self.meanings}]\n\n\n"
        "def get(url, *args, **kwargs):\n    return _Response(RECORDED.get(url))\n"
    ),
    "googletrans/__init__.py": (
        "from googletrans_constants import LANGUAGES\n\n"
        "RECORDED = {}  # (text, source code or None, target code) -> recorded translation\n"
        "MISSING = 'Failed: no recorded translation for this text and these languages (offline replay).'\n"
        "\n\n"
        "class _Translated:\n"
        "    def __init__(self, text):\n        self.text = text\n\n\n"
        "class Translator:\n"
        "    def translate(self, text, src=None, dest='en'):\n"
        "        if (text, src, dest) not in RECORDED:\n"
        "            raise Exception(MISSING)\n"
        "        return _Translated(RECORDED[(text, src, dest)])\n"
    ),
}
DICTIONARY_URL = "https://api.dictionaryapi.dev/api/v2/entries/en_US/"
_CALL = re.compile(r"\[(\w+)\((.*)\)\]")


class Official:
    """The official ToolManager with its databases reset to the init state before every call."""

    def __init__(self, official_dir: Path, root: Path, googletrans_dir: Path) -> None:
        stubs = Path(tempfile.mkdtemp(prefix="apibank_stubs_"))
        for name, text in STUBS.items():
            (stubs / name).parent.mkdir(parents=True, exist_ok=True)
            (stubs / name).write_text(text)
        constants = (googletrans_dir / "googletrans" / "constants.py").read_text()
        (stubs / "googletrans_constants.py").write_text(constants)
        work = Path(tempfile.mkdtemp(prefix="apibank_official_"))
        (work / "apis").symlink_to(official_dir / "apis")
        (work / "init_database").symlink_to(root / "apibank" / "init_database")
        os.chdir(work)
        os.environ.setdefault("ALL_PROXY", "")
        sys.path[:0] = [str(stubs), str(official_dir)]
        self._stand_ins(str(root))
        from api_call_extraction import parse_api_call
        from tool_manager import ToolManager

        self.parse = parse_api_call
        self.tool_manager = ToolManager
        self.manager = ToolManager()
        self.pristine = copy.deepcopy(self.manager.init_databases)

    @staticmethod
    def _stand_ins(root: str) -> None:
        """Fill the stand-ins with the recorded replies and our ranking (see the module docstring)."""
        import googletrans
        import nltk
        import requests
        import sentence_transformers
        from apis import search_engine
        from apis.tool_search import ToolSearcher

        if not hasattr(requests, "RECORDED") or not hasattr(googletrans, "RECORDED"):
            raise RuntimeError("the stand-ins did not shadow requests / googletrans: run in a fresh process")
        search_engine.word_tokenize = lambda text: nltk.word_tokenize(text, preserve_line=True)
        world = World(data.init_databases(root), data.recordings(root))
        for key, recorded in world.recordings.items():
            inputs = json.loads(key[key.index("{") :])
            if recorded["exception"] is not None:
                continue
            if key.startswith("Dictionary{"):
                word = inputs["keyword"].replace("_", " ").strip().lower()
                requests.RECORDED[DICTIONARY_URL + word] = recorded["output"]
            elif key.startswith("Translate{"):
                source = inputs["src_lang"].lower() if "src_lang" in inputs else None
                target = inputs["tgt_lang"].lower() if "tgt_lang" in inputs else "en"
                assert target in googletrans.LANGUAGES and source in (None, *googletrans.LANGUAGES)
                googletrans.RECORDED[(inputs["src"], source, target)] = recorded["output"]
        summaries = {api["name"]: api["desc_for_search"] for api in ToolSearcher().apis}

        def rank(keywords: str) -> str | None:
            return summaries.get(matched_name(tool_searcher(world, keywords)))

        sentence_transformers.RANK = rank

    def present_entries(self) -> dict[str, dict]:
        """The entry the official ToolSearcher builds for each API (search text left out)."""
        from apis.tool_search import ToolSearcher

        return {
            api["name"]: {k: v for k, v in api.items() if k != "desc_for_search"}
            for api in ToolSearcher().apis
        }

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
    """(task id, kind, ground-truth turn, model output) of every variant of every API-call sample, in the
    cross-check's order."""
    rng = random.Random(seed)
    return [
        (sample.task_id, kind, sample.ground_truth, output)
        for sample in samples
        for kind, output in variants(sample.ground_truth, rng)
    ]


def check_digests(official: Official) -> list[str]:
    """The APIs whose digest in ``PRESENT_DIGESTS`` differs from the official entry's (or is missing)."""
    entries = official.present_entries()
    names = [n for n in SIGNATURES if n != "ToolSearcher"]
    return [n for n in names if n not in entries or PRESENT_DIGESTS.get(n) != entry_digest(entries[n])]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--official-dir", required=True, type=Path, help="the api-bank folder of a checkout")
    parser.add_argument("--googletrans-dir", required=True, type=Path, help="googletrans 3.1.0a0, unpacked")
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--max-shown", type=int, default=30)
    args = parser.parse_args()
    root = data_root(args.data_dir).resolve()
    samples = [s for s in data.load_samples(tuple(data.LEVEL_FOLDERS), str(root)) if s.kind == "api"]
    databases, recordings = data.init_databases(str(root)), data.recordings(str(root))
    official = Official(args.official_dir.resolve(), root, args.googletrans_dir.resolve())
    wrong_digests = check_digests(official)
    total, disagreements, crashes = 0, [], collections.Counter()
    by_kind: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    by_api: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    for task_id, kind, truth, output in graded_outputs(samples):
        theirs = official.official_verdict(truth, output)
        if isinstance(theirs, str):
            crashes[theirs] += 1
            theirs = False
        ours = score_api_call(World(databases, recordings), truth, output).correct
        total += 1
        for counts in (by_kind[kind], by_api[truth["api_name"]]):
            counts[0] += ours == theirs
            counts[1] += 1
        if ours != theirs:
            disagreements.append((task_id, kind, output[:160], theirs, ours))
    print(f"{total} outputs over {len(samples)} samples (every API)")
    print(f"agreement: {total - len(disagreements)} / {total}; official crashes: {dict(crashes)}")
    print(f"present-day ToolSearcher digests that differ from the official entries: {wrong_digests}")
    print("agreement by kind:", {k: f"{a}/{n}" for k, (a, n) in sorted(by_kind.items())})
    print("agreement by API:", {k: f"{a}/{n}" for k, (a, n) in sorted(by_api.items())})
    for row in disagreements[: args.max_shown]:
        print(row)


if __name__ == "__main__":
    main()
