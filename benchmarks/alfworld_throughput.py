"""Steps per second and reset latency of GenEnv-ALFWorld-v0 against the raw alfworld/textworld env.

The raw env is the one ALFWorld's own loader builds (``textworld.gym.register_games`` with the
``AlfredDemangler(shuffle=False)`` and ``AlfredInfos`` wrappers, one game per env). Both play the same games
with the same commands: each game's command list is drawn once (admissible commands of a seeded random agent,
so that almost no game ends early), then replayed on every env, games interleaved so that machine load hits
all alike; wall-clock and CPU time (which machine load disturbs less) are both reported. Three envs are timed:
raw, ours with the default cached engine, and ours on the unchanged engine (``cached_engine=False``, the
overhead of the Gymnasium layer alone). ``gym_layer_overhead`` is the time ``env.step`` spends outside the
engine's own step, relative to it (measured within the same calls, so machine load cancels out).

    python benchmarks/alfworld_throughput.py --data-dir ../shared/benchmarks --games 20 --steps 30
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any

import gymnasium as gym
import numpy as np

import genenv_gym  # noqa: F401  (registers the env ids)
from genenv_gym.envs.alfworld.data import discover_games
from genenv_gym.envs.alfworld.engine import clear_caches


def raw_env(game_file: str) -> Any:
    """The env ALFWorld's AlfredTWEnv.init_env would build, for one game."""
    import textworld
    import textworld.gym
    from alfworld.agents.environment.alfred_tw_env import AlfredDemangler, AlfredInfos

    infos = textworld.EnvInfos(won=True, admissible_commands=True, extras=["gamefile"])
    env_id = textworld.gym.register_games(
        [game_file], infos, max_episode_steps=50, wrappers=[AlfredDemangler(shuffle=False), AlfredInfos]
    )
    return textworld.gym.make(env_id)


def command_lists(env: gym.Env, game_ids: list[str], steps: int, seed: int) -> dict[str, list[str]]:
    """Per game, ``steps`` admissible commands of a seeded random agent (stopping early only on a win)."""
    rng = np.random.default_rng(seed)
    lists = {}
    for game in game_ids:
        _, info = env.reset(options={"game": game})
        commands = []
        for _ in range(steps):
            admissible = [c for c in info["admissible_commands"] if c not in ("help",)]
            commands.append(admissible[int(rng.integers(len(admissible)))])
            _, _, terminated, _, info = env.step(commands[-1])
            if terminated:
                break
        lists[game] = commands
    return lists


def time_raw(game_file: str, commands: list[str]) -> dict[str, Any]:
    env = raw_env(game_file)
    start = time.perf_counter()
    env.reset()
    first_reset = time.perf_counter() - start
    start = time.perf_counter()
    env.reset()
    second_reset = time.perf_counter() - start
    transcript = []
    start, cpu = time.perf_counter(), time.process_time()
    for command in commands:
        obs, _, _, infos = env.step(command)
        transcript.append((obs, tuple(infos["admissible_commands"]), bool(infos["won"])))
    step_time, step_cpu = time.perf_counter() - start, time.process_time() - cpu
    env.close()
    return {
        "first_reset": first_reset,
        "reset": second_reset,
        "step_time": step_time,
        "step_cpu": step_cpu,
        "transcript": transcript,
    }


def time_ours(env: gym.Env, game: str, commands: list[str]) -> dict[str, Any]:
    start = time.perf_counter()
    env.reset(options={"game": game})
    first_reset = time.perf_counter() - start
    start = time.perf_counter()
    env.reset(options={"game": game})
    second_reset = time.perf_counter() - start
    transcript = []
    start, cpu = time.perf_counter(), time.process_time()
    for command in commands:
        _, _, _, _, info = env.step(command)
        transcript.append((info["feedback"], tuple(info["admissible_commands"]), bool(info["won"])))
    step_time, step_cpu = time.perf_counter() - start, time.process_time() - cpu
    return {
        "first_reset": first_reset,
        "reset": second_reset,
        "step_time": step_time,
        "step_cpu": step_cpu,
        "transcript": transcript,
    }


def time_engine_calls(env: gym.Env) -> dict[str, float]:
    """Make the env's engine add up the time of its own ``step`` calls (what the Gymnasium layer wraps)."""
    engine = env.domain.player
    original = engine.step
    totals = {"engine_s": 0.0}

    def timed(command: str) -> Any:
        start = time.perf_counter()
        try:
            return original(command)
        finally:
            totals["engine_s"] += time.perf_counter() - start

    engine.step = timed
    return totals


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data-dir", default=None, help="benchmark data root (default $GENENV_DATA_DIR)")
    parser.add_argument("--games", type=int, default=20, help="games, spread over the six task types")
    parser.add_argument("--steps", type=int, default=30, help="commands per game")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None, help="write the results as JSON here")
    args = parser.parse_args()

    games = discover_games(args.data_dir)
    chosen = games[:: max(1, len(games) // args.games)][: args.games]
    ours = gym.make("GenEnv-ALFWorld-v0", data_dir=args.data_dir).unwrapped
    plain = gym.make("GenEnv-ALFWorld-v0", data_dir=args.data_dir, cached_engine=False).unwrapped
    lists = command_lists(ours, [g.id for g in chosen], args.steps, args.seed)
    clear_caches()  # the first reset of each game below is a cold one

    engine_time = {"ours": time_engine_calls(ours), "ours_uncached": time_engine_calls(plain)}
    results: dict[str, list[dict[str, Any]]] = {"raw": [], "ours": [], "ours_uncached": []}
    for i, game in enumerate(chosen):
        commands = lists[game.id]
        runs = [
            ("raw", lambda g=game, c=commands: time_raw(str(g.path), c)),
            ("ours", lambda g=game, c=commands: time_ours(ours, g.id, c)),
            ("ours_uncached", lambda g=game, c=commands: time_ours(plain, g.id, c)),
        ]
        for name, run in runs[i % 3 :] + runs[: i % 3]:  # rotate the order against drifting load
            result = run()
            result["steps"] = len(commands)
            results[name].append(result)
        same = all(
            r["transcript"] == results["raw"][-1]["transcript"]
            for r in (results["ours"][-1], results["ours_uncached"][-1])
        )
        if not same:
            raise SystemExit(f"transcripts differ on {game.id}")

    summary: dict[str, Any] = {"games": len(chosen), "commands": sum(len(c) for c in lists.values())}
    for name, rows in results.items():
        steps = sum(r["steps"] for r in rows)
        step_time = sum(r["step_time"] for r in rows)
        summary[name] = {
            "steps_per_s": steps / step_time,
            "steps_per_cpu_s": steps / sum(r["step_cpu"] for r in rows),
            "first_reset_s_median": statistics.median(r["first_reset"] for r in rows),
            "reset_s_median": statistics.median(r["reset"] for r in rows),
        }
    raw = summary["raw"]["steps_per_s"]
    for name, totals in engine_time.items():  # the share of env.step spent outside the engine
        step_time = sum(r["step_time"] for r in results[name])
        summary[name]["gym_layer_overhead"] = (step_time - totals["engine_s"]) / totals["engine_s"]
    raw_cpu = summary["raw"]["steps_per_cpu_s"]
    summary["overhead_ratio"] = {
        name: raw / summary[name]["steps_per_s"] for name in ("ours", "ours_uncached")
    }
    summary["overhead_ratio_cpu"] = {
        name: raw_cpu / summary[name]["steps_per_cpu_s"] for name in ("ours", "ours_uncached")
    }
    print(json.dumps(summary, indent=2))
    if args.out:
        with open(args.out, "w") as handle:
            json.dump(summary, handle, indent=2)


if __name__ == "__main__":
    main()
