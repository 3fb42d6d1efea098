"""Steps per second, reset latency and transcript identity of GenEnv-ALFWorld-v0 against the raw engine.

The raw env is the one ALFWorld's own loader builds (``textworld.gym.register_games`` with the
``AlfredDemangler(shuffle=False)`` and ``AlfredInfos`` wrappers, one game per env): textworld 1.7.0 and
alfworld 0.4.2 unchanged. Both play the same games with the same commands, in one run, games interleaved
(the order rotated per game) so that machine load hits both alike; wall-clock and CPU time are reported.

Two kinds of trajectories: the stored expert walkthrough of every game (``--games``, all by default), and
``--random-steps`` admissible commands of a seeded random agent on ``--random-games`` games (drawn once on
our env, then replayed on both; they stop early only on a win). Every step's observation text, admissible
command list, reward and ``won`` flag are compared: ``identity`` counts the steps compared and the
mismatches (any mismatch also exits non-zero). Resets: ``first`` is a game's first reset (raw: on a fresh
env, as every raw reset translates the problem anew; ours: other games' caches warm), ``warm`` the next
reset of the same game, ``cold`` our first reset after emptying every cache; warm and cold are timed on the
first ``--reset-games`` walkthrough games.

``planner`` (plans/s with ``planner.plan_in_process``) and ``goal_validation`` (tasks/s of
``ALFWorldDomain.validate``, which replays each expert plan) time what the goal simulator runs; run with
``--only planner`` from an older checkout on PYTHONPATH for a before/after comparison.

    python benchmarks/alfworld_throughput.py --data-dir ../shared/benchmarks
    python benchmarks/alfworld_throughput.py --games 5 --random-games 5 --random-steps 30
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from typing import Any

import gymnasium as gym
import numpy as np

import genenv_gym  # noqa: F401  (registers the env ids)
from genenv_gym.envs.alfworld.data import GameRecord, discover_games
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


def random_commands(env: gym.Env, games: list[GameRecord], steps: int, seed: int) -> dict[str, list[str]]:
    """Per game, ``steps`` admissible commands of a seeded random agent (stopping early only on a win)."""
    rng = np.random.default_rng(seed)
    lists = {}
    for game in games:
        _, info = env.reset(options={"game": game.id})
        commands: list[str] = []
        for _ in range(steps):
            admissible = [c for c in info["admissible_commands"] if c != "help"]
            commands.append(admissible[int(rng.integers(len(admissible)))])
            _, _, terminated, _, info = env.step(commands[-1])
            if terminated:
                break
        lists[game.id] = commands
    return lists


def time_raw(game: GameRecord, commands: list[str], warm_too: bool) -> dict[str, Any]:
    """A fresh raw env: its first reset (and a second, ``warm_too``), the commands; the transcript."""
    env = raw_env(str(game.path))
    first, obs, infos = timed(env.reset)
    warm = None
    if warm_too:
        warm, obs, infos = timed(env.reset)
    transcript = [(obs, tuple(infos["admissible_commands"]), 0.0, bool(infos["won"]))]
    start, cpu = time.perf_counter(), time.process_time()
    for command in commands:
        obs, score, _, infos = env.step(command)
        transcript.append((obs, tuple(infos["admissible_commands"]), float(score), bool(infos["won"])))
    step_time, step_cpu = time.perf_counter() - start, time.process_time() - cpu
    env.close()
    return timing(first, warm, None, step_time, step_cpu, transcript)


def time_ours(env: gym.Env, game: GameRecord, commands: list[str], cold_too: bool) -> dict[str, Any]:
    """Our env: its first reset on the game (after emptying every cache, ``cold_too``), a second one, the
    commands; the transcript."""
    cold = None
    if cold_too:
        clear_caches()
        cold, _, _ = timed(lambda: env.reset(options={"game": game.id}))
        first = cold
    else:
        first, _, _ = timed(lambda: env.reset(options={"game": game.id}))
    warm, _, _ = timed(lambda: env.reset(options={"game": game.id}))
    state = env.unwrapped.episode.engine.state  # the observation adds the goal line to its text
    transcript = [(state.feedback, state.admissible_commands, 0.0, state.won)]
    start, cpu = time.perf_counter(), time.process_time()
    for command in commands:
        _, reward, _, _, info = env.step(command)
        transcript.append((info["feedback"], tuple(info["admissible_commands"]), float(reward), info["won"]))
    step_time, step_cpu = time.perf_counter() - start, time.process_time() - cpu
    return timing(first, warm, cold, step_time, step_cpu, transcript)


def timed(reset: Any) -> tuple[float, Any, Any]:
    """Seconds a reset took, and what it returned (observation, info)."""
    start = time.perf_counter()
    obs, info = reset()
    return time.perf_counter() - start, obs, info


def timing(
    first: float, warm: float | None, cold: float | None, step_time: float, step_cpu: float, transcript: list
) -> dict[str, Any]:
    """One game's timings and transcript."""
    return {
        "first": first,
        "warm": warm,
        "cold": cold,
        "step_time": step_time,
        "step_cpu": step_cpu,
        "transcript": transcript,
    }


def mismatches(ours: list[tuple], raw: list[tuple]) -> int:
    """Steps (reset included) whose text, admissible commands, reward or won flag differ."""
    return sum(a != b for a, b in zip(ours, raw, strict=False)) + abs(len(ours) - len(raw))


def compare(
    ours_env: gym.Env,
    games: list[GameRecord],
    commands: dict[str, list[str]],
    label: str,
    reset_games: int,
) -> dict[str, Any]:
    """Raw and ours on the same games and commands; their speeds, reset times and identity counts."""
    rows: dict[str, list[dict[str, Any]]] = {"raw": [], "ours": []}
    differing: list[str] = []
    for i, game in enumerate(games):
        runs = [
            ("raw", lambda g=game, r=i < reset_games: time_raw(g, commands[g.id], r)),
            ("ours", lambda g=game, r=i < reset_games: time_ours(ours_env, g, commands[g.id], r)),
        ]
        for name, run in runs[i % 2 :] + runs[: i % 2]:  # alternate the order against drifting load
            result = run()
            result["steps"] = len(commands[game.id])
            rows[name].append(result)
        if mismatches(rows["ours"][-1]["transcript"], rows["raw"][-1]["transcript"]):
            differing.append(game.id)
        print(f"{label} {i + 1}/{len(games)} {game.id}", file=sys.stderr, flush=True)
    summary: dict[str, Any] = {"games": len(games), "steps": sum(len(commands[g.id]) for g in games)}
    for name, results in rows.items():
        steps = sum(r["steps"] for r in results)
        summary[name] = {
            "steps_per_s": steps / sum(r["step_time"] for r in results),
            "steps_per_cpu_s": steps / sum(r["step_cpu"] for r in results),
            "first_reset_s_median": statistics.median(r["first"] for r in results),
        }
        for kind in ("warm", "cold"):
            times = [r[kind] for r in results if r[kind] is not None]
            if times:
                summary[name][f"{kind}_reset_s_median"] = statistics.median(times)
                summary[name][f"{kind}_reset_s_max"] = max(times)
                summary[name][f"{kind}_resets"] = len(times)
    summary["speedup"] = summary["ours"]["steps_per_s"] / summary["raw"]["steps_per_s"]
    summary["speedup_cpu"] = summary["ours"]["steps_per_cpu_s"] / summary["raw"]["steps_per_cpu_s"]
    summary["identity"] = {
        "steps_compared": sum(len(r["transcript"]) for r in rows["raw"]),
        "mismatched_steps": sum(
            mismatches(o["transcript"], r["transcript"])
            for o, r in zip(rows["ours"], rows["raw"], strict=True)
        ),
        "games_differing": differing,
    }
    return summary


def planner_throughput(data_dir: str | None, games: list[GameRecord]) -> dict[str, Any]:
    """Plans per second (fast-downward from each game's start, in this process) and goal validations per
    second (``ALFWorldDomain.validate`` on each game's task: its expert plan replayed on the engine)."""
    from genenv_gym.envs.alfworld.domain import ALFWorldDomain
    from genenv_gym.envs.alfworld.engine import AlfredEngine
    from genenv_gym.envs.alfworld.planner import plan_in_process

    clear_caches()
    engine = AlfredEngine()
    start = time.perf_counter()
    outcomes = [plan_in_process(engine, game_data(game)) for game in games]
    planned = time.perf_counter() - start
    engine.close()
    kwargs = {"data_dir": data_dir} if data_dir else {}
    domain = ALFWorldDomain(**kwargs)
    tasks = {task.id: task for task in domain.load_tasks()}
    chosen = [tasks[game.id] for game in games if game.id in tasks]
    start = time.perf_counter()
    problems = [domain.validate(task) for task in chosen]
    validated = time.perf_counter() - start
    domain.close()
    return {
        "plans": len(outcomes),
        "solved": sum(o.status == "solved" for o in outcomes),
        "plans_per_s": len(outcomes) / planned,
        "validations": len(chosen),
        "valid": sum(not p for p in problems),
        "validations_per_s": len(chosen) / validated,
    }


def game_data(game: GameRecord) -> dict[str, Any]:
    from genenv_gym.envs.alfworld.data import read_game

    return dict(read_game(game.path))


def spread_over(games: list[GameRecord], count: int) -> list[GameRecord]:
    """``count`` games evenly spaced over the sorted list (so over all six task types)."""
    picks = np.linspace(0, len(games) - 1, num=min(count, len(games))).round().astype(int)
    return [games[i] for i in dict.fromkeys(picks.tolist())]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data-dir", default=None, help="benchmark data root (default $GENENV_DATA_DIR)")
    parser.add_argument("--games", type=int, default=0, help="games whose walkthroughs are played (0: all)")
    parser.add_argument("--random-games", type=int, default=20, help="games played by the random agent")
    parser.add_argument("--random-steps", type=int, default=30, help="random commands per game")
    parser.add_argument(
        "--reset-games", type=int, default=10, help="walkthrough games also timed on warm and cold resets"
    )
    parser.add_argument("--planner-games", type=int, default=20, help="games planned and validated")
    parser.add_argument("--only", choices=("compare", "planner"), default=None, help="run one part only")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None, help="write the results as JSON here")
    args = parser.parse_args()

    games = discover_games(args.data_dir)
    summary: dict[str, Any] = {}
    if args.only != "planner":
        ours = gym.make("GenEnv-ALFWorld-v0", data_dir=args.data_dir)
        walked = games if args.games <= 0 else spread_over(games, args.games)
        walkthroughs = {g.id: list(g.walkthrough) for g in walked}
        summary["walkthroughs"] = compare(ours, walked, walkthroughs, "walkthrough", args.reset_games)
        spread = spread_over(games, args.random_games)
        randoms = random_commands(ours, spread, args.random_steps, args.seed)
        summary["random"] = compare(ours, spread, randoms, "random", 0)
        ours.close()
    if args.only != "compare":
        chosen = spread_over(games, args.planner_games)
        summary["planner"] = planner_throughput(args.data_dir, chosen)
    print(json.dumps(summary, indent=2))
    if args.out:
        with open(args.out, "w") as handle:
            json.dump(summary, handle, indent=2)
    if any(part["identity"]["mismatched_steps"] for part in summary.values() if "identity" in part):
        raise SystemExit("transcripts differ from the raw engine's")


if __name__ == "__main__":
    main()
