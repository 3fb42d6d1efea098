"""Bamboogle figures: bm25s index build time and queries/s on a generated corpus, and env steps/s.

    OMP_NUM_THREADS=1 python benchmarks/bamboogle_throughput.py --passages 100000

The corpus is written to a temporary folder in Search-R1's JSONL format (``"Title"\\ntext`` contents,
vocabulary of 20k made-up words with a Zipf-like frequency), so nothing is downloaded.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import gymnasium as gym
import numpy as np

import genenv_gym  # noqa: F401  (registers the ids)
from genenv_gym.envs.bamboogle.retrieval import BM25Retriever
from genenv_gym.fixtures import FIXTURES_DIR


def write_corpus(path: Path, passages: int, rng: np.random.Generator) -> list[str]:
    """A corpus of ``passages`` 60-word passages; returns the vocabulary."""
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    vocab = sorted({"".join(rng.choice(letters, size=int(rng.integers(4, 10)))) for _ in range(20000)})
    weights = 1.0 / np.arange(1, len(vocab) + 1)
    weights /= weights.sum()
    with path.open("w", encoding="utf-8") as handle:
        for i in range(passages):
            words = rng.choice(len(vocab), size=60, p=weights)
            text = " ".join(vocab[w] for w in words)
            handle.write(json.dumps({"id": str(i), "contents": f'"Passage {i}"\n{text}'}) + "\n")
    return vocab


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--passages", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--episodes", type=int, default=300)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "corpus.jsonl"
        vocab = write_corpus(corpus, args.passages, rng)
        start = time.perf_counter()
        BM25Retriever(corpus)
        build = time.perf_counter() - start
        start = time.perf_counter()
        retriever = BM25Retriever(corpus)
        load = time.perf_counter() - start
        queries = [" ".join(rng.choice(vocab, size=4)) for _ in range(args.queries)]
        start = time.perf_counter()
        for query in queries:
            retriever.search(query, 3)
        qps = args.queries / (time.perf_counter() - start)
    print(f"bm25s index build on {args.passages:,} passages: {build:.1f} s; cached index load {load:.2f} s")
    print(f"top-3 search: {qps:,.0f} queries/s ({args.queries} queries of 4 words)")
    for env_id, kwargs in (
        ("GenEnv-Bamboogle-v0", {"data_dir": str(FIXTURES_DIR)}),
        ("GenEnv-Sim-Bamboogle-v0", {}),
    ):
        env = gym.make(env_id, **kwargs)
        steps = 0
        start = time.perf_counter()
        env.reset(seed=0)
        for _ in range(args.episodes):
            done = False
            while not done:
                _, _, term, trunc, _ = env.step(env.unwrapped.episode.oracle_action())
                steps += 1
                done = term or trunc
            env.reset()
        rate = steps / (time.perf_counter() - start)
        print(
            f"{env_id}: {rate:,.0f} oracle steps/s ({steps} steps, {args.episodes} episodes, resets included)"
        )
        env.close()


if __name__ == "__main__":
    main()
