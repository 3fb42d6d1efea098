"""Benchmark your own model: a Hugging Face folder (or hub id, or GGUF file) scored on envs with their
official metrics, as ``genenv eval --agent hf:PATH`` does, from Python (README, "Benchmarking agents").

    pip install -e ".[train]"
    python examples/eval_own_model.py --model /path/to/checkpoint --env GenEnv-BFCL-SimplePython-v0 --limit 20
    python examples/eval_own_model.py --model tiny      # a tiny random-weight model saved to a temp folder

``--model tiny`` stands in for a checkpoint of yours: it builds a 2-layer random model, saves it with
``save_pretrained`` and evaluates that folder (it scores 0: it writes noise). The same run from the shell:
``genenv eval --agent hf:FOLDER --env ... --limit N --max-new-tokens N --out DIR``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any


def tiny_checkpoint(folder: Path) -> Path:
    """A random-weight 2-layer model and its tokenizer saved in ``folder``, as a trained checkpoint is."""
    from genenv_gym.agents.tiny_model import build_tiny

    model, tokenizer = build_tiny()
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="tiny", help="a folder, a GGUF file, a hub id, or 'tiny'")
    parser.add_argument(
        "--env", action="append", help="env id (repeatable; default GenEnv-BFCL-SimplePython-v0)"
    )
    parser.add_argument("--limit", type=int, default=5, help="tasks per category")
    parser.add_argument("--max-new-tokens", type=int, default=64)
    parser.add_argument("--batch-size", type=int, default=4, help="episodes played at once")
    parser.add_argument("--out", default=None, help="run folder: episodes.jsonl and report.json")
    args = parser.parse_args(argv)

    from genenv_gym.agents.backends import SamplingParams, make_backend
    from genenv_gym.evaluation import evaluate, overview_table

    model = args.model
    if model == "tiny":
        model = str(tiny_checkpoint(Path(tempfile.mkdtemp(prefix="genenv-model-"))))
    backend = make_backend(f"hf:{model}")  # loaded once, shared by every env
    params = SamplingParams(temperature=0.0, max_new_tokens=args.max_new_tokens)
    out = Path(args.out) if args.out else None
    reports = []
    for env_id in args.env or ["GenEnv-BFCL-SimplePython-v0"]:
        report = evaluate(
            env_id,
            f"hf:{model}",
            limit=args.limit,
            backend=backend,
            llm_kwargs={"params": params},
            batch_size=args.batch_size,
            results_path=out / "episodes.jsonl" if out else None,
        )
        print(f"\n{env_id}\n{report.table()}")  # per category, the summaries, why episodes failed
        reports.append(report)
    print("\n" + overview_table(reports))
    if out:
        (out / "report.json").write_text(json.dumps([r.to_dict() for r in reports], indent=2))
    return {"model": model, "reports": [r.to_dict() for r in reports]}


if __name__ == "__main__":
    main()
