"""Steps per second of every registered env id, its verifier alone, and vector envs at 1-8 copies.

    python benchmarks/env_throughput.py --data-dir ../shared/benchmarks [--ids GenEnv-BFCL-v0 ...]
        [--seconds 2] [--vector GenEnv-BFCL-SimplePython-v0]

For each id: the scripted oracle plays episodes for ``--seconds`` (env steps per second, resets included),
then ``Domain.verify`` grades for as long the same tasks' oracle answers (single-turn domains) or replays
their oracle transcripts (multi-turn domains whose ``verify`` takes one: steps replayed per second): the
verifier alone, the difference being the env's own overhead. ``--vector ID`` also times
``gymnasium.make_vec`` (sync and async) at 1, 2, 4 and 8 copies with a fixed action. One core: run it on
an idle machine and compare ratios from one run.
"""

from __future__ import annotations

import argparse
import json
import time

import gymnasium as gym

import genenv_gym
from genenv_gym.agents.scripted import OracleAgent
from genenv_gym.domain import SingleTurnEpisode


def env_rate(env_id: str, kwargs: dict, seconds: float) -> tuple[float, float | None]:
    """(env steps/s with the oracle, verifier steps/s: checks/s of the same answers for single-turn
    domains, steps/s of the oracle transcripts replayed by ``Domain.verify`` for multi-turn ones whose
    verify takes a transcript; None where neither applies)."""
    env = gym.make(env_id, **kwargs)
    agent = OracleAgent(env)
    steps, pairs, multi_turn_tasks = 0, [], {}
    obs, info = env.reset(seed=0)
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        action = agent.act(obs, info)
        episode = env.unwrapped.episode
        if isinstance(episode, SingleTurnEpisode):
            if len(pairs) < 1000:
                pairs.append((episode.task, action))
        elif len(multi_turn_tasks) < 50:
            multi_turn_tasks.setdefault(episode.task.id, episode.task)
        obs, _, terminated, truncated, info = env.step(action)
        steps += 1
        if terminated or truncated:
            obs, info = env.reset()
    env_rate = steps / (time.perf_counter() - start)
    domain = env.unwrapped.domain
    if not pairs:
        pairs = transcripts(domain, list(multi_turn_tasks.values()))
    verify_rate = None
    if pairs:
        checks = verified_steps = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            task, action, *length = pairs[checks % len(pairs)]
            domain.verify(task, action)
            checks += 1
            verified_steps += length[0] if length else 1
        verify_rate = verified_steps / (time.perf_counter() - start)
    env.close()
    return env_rate, verify_rate


def transcripts(domain: object, tasks: list) -> list[tuple[object, str, int]]:
    """(task, oracle transcript, its steps) for the tasks of a multi-turn domain whose oracle answer is a
    JSON transcript that ``verify`` replays; [] for other domains."""
    out = []
    for task in tasks:
        try:
            action = domain.oracle_action(task)
            length = len(json.loads(action))
            if not domain.verify(task, action).success:
                return []
        except Exception:  # no transcript form for this domain: no verifier-alone figure
            return []
        out.append((task, action, length))
    return out


def vector_rate(env_id: str, kwargs: dict, copies: int, mode: str, seconds: float) -> float:
    # Text observations cannot go through async's shared memory (it flattens by a fixed charset).
    vector_kwargs = {"shared_memory": False} if mode == "async" else {}
    envs = gym.make_vec(
        env_id, num_envs=copies, vectorization_mode=mode, vector_kwargs=vector_kwargs, **kwargs
    )
    envs.reset(seed=0)
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        envs.step(["[]"] * copies)  # autoreset after each single-turn episode
        steps += copies
    rate = steps / (time.perf_counter() - start)
    envs.close()
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None, help="benchmark data root (default: GENENV_DATA_DIR)")
    parser.add_argument("--ids", nargs="*", default=None)
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--vector", default=None, help="an id to time with make_vec at 1, 2, 4, 8 copies")
    args = parser.parse_args()
    ids = args.ids or [e.id for e in genenv_gym.ENV_ENTRIES]
    print(f"{'env id':<42}{'env steps/s':>12}{'verify/s':>11}{'env/verify':>11}")
    for env_id in ids:
        kwargs = {} if "-Sim-" in env_id or args.data_dir is None else {"data_dir": args.data_dir}
        if env_id == "GenEnv-Sim-ALFWorld-v0" and args.data_dir:  # its scenes come from the data too
            kwargs = {"domain_kwargs": {"data_dir": args.data_dir, "scene_split": "valid_unseen"}}
        try:
            rate, verify = env_rate(env_id, kwargs, args.seconds)
        except Exception as error:  # a benchmark without data here: say so and go on
            print(f"{env_id:<42}  not measured: {str(error).splitlines()[0][:80]}")
            continue
        shown = f"{verify:>11.0f}{rate / verify:>11.2f}" if verify else f"{'-':>11}{'-':>11}"
        print(f"{env_id:<42}{rate:>12.1f}{shown}")
    if args.vector:
        kwargs = {} if args.data_dir is None else {"data_dir": args.data_dir}
        print(f"\n{args.vector}: make_vec steps/s (fixed action)")
        for mode in ("sync", "async"):
            rates = [vector_rate(args.vector, kwargs, n, mode, args.seconds) for n in (1, 2, 4, 8)]
            print(
                f"  {mode:<6}"
                + "".join(f"{n} copies {r:>8.0f}   " for n, r in zip((1, 2, 4, 8), rates, strict=True))
            )


if __name__ == "__main__":
    main()
