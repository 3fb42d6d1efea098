"""API-Bank throughput: API-call samples verified per second, ROUGE-L responses, dialogue steps, generation.

    OMP_NUM_THREADS=1 taskset -c 0 python benchmarks/apibank_throughput.py --data-dir ../shared/benchmarks

For each of ``--seconds``: official-mode verification of every level-1 and level-2 API-call sample with its
gold call (each on a fresh copy of the databases), corrected-mode verification (earlier API turns
replayed), ROUGE-L of the recorded responses, the multi-turn dialogue env's steps per second with the
oracle (resets included), and procedural task generation (validation included) per second. One core.
"""

from __future__ import annotations

import argparse
import itertools
import time

import gymnasium as gym
import numpy as np

import genenv_gym  # noqa: F401 - registers the ids
from genenv_gym.agents.scripted import OracleAgent
from genenv_gym.envs.apibank.domain import APIBankDomain, APIBankResponseDomain


def rate(fn, seconds: float) -> float:
    """Calls of ``fn`` per second over about ``seconds``."""
    count, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        fn()
        count += 1
    return count / (time.perf_counter() - start)


def verify_rate(domain, data_dir: str, seconds: float) -> float:
    tasks = domain.load_tasks(None, data_dir)
    pairs = itertools.cycle([(t, domain.oracle_action(t)) for t in tasks])
    return rate(lambda: domain.verify(*next(pairs)), seconds)


def dialogue_rate(data_dir: str, seconds: float) -> float:
    env = gym.make("GenEnv-APIBank-Dialogue-v0", data_dir=data_dir)
    oracle = OracleAgent(env.unwrapped)
    steps, start = 0, time.perf_counter()
    obs, info = env.reset(seed=0)
    while time.perf_counter() - start < seconds:
        obs, _, terminated, truncated, info = env.step(oracle.act(obs, info))
        steps += 1
        if terminated or truncated:
            obs, info = env.reset()
    return steps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data-dir", default=None, help="data root holding apibank/ (default $GENENV_DATA_DIR)"
    )
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    sim = APIBankDomain("corrected")
    figures = {
        "official API-call samples verified/s": verify_rate(
            APIBankDomain("official"), args.data_dir, args.seconds
        ),
        "corrected API-call samples verified/s": verify_rate(
            APIBankDomain("corrected"), args.data_dir, args.seconds
        ),
        "responses scored (ROUGE-L)/s": verify_rate(APIBankResponseDomain(), args.data_dir, args.seconds),
        "dialogue env steps/s (oracle, resets included)": dialogue_rate(args.data_dir, args.seconds),
        "generated tasks/s (level 2, validated)": rate(lambda: sim.generate(2, rng), args.seconds),
        "generated tasks/s (level 4, retrieval)": rate(lambda: sim.generate(4, rng), args.seconds),
    }
    for name, value in figures.items():
        print(f"{name:50s} {value:10.0f}")


if __name__ == "__main__":
    main()
