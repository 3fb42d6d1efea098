"""Episodes of several env ids played at the same moment, each id's on its own thread, as one verl worker
plays them (every id's env work on ``LiveTasks.executor``), compared with the same episodes played alone."""

from __future__ import annotations

import sys
import threading
import traceback
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from trainer_episodes import oracle_script, random_script, short_tasks

from genenv_gym.integrations.live_tasks import LiveTasks
from genenv_gym.registry.registration import ENV_ENTRIES
from genenv_gym.task import Task

#: The benchmark ids of each family (the package its entry point lives in), in registration order.
FAMILIES: dict[str, list[str]] = {}
for _entry in ENV_ENTRIES:
    if "Sim-" not in _entry.id:
        FAMILIES.setdefault(_entry.entry_point.split(".")[2].split(":")[0], []).append(_entry.id)


def family_ids(family: str) -> tuple[str, str]:
    """The family's first id, and its second (the first again when it has one only): a family paired with
    itself plays two of its ids at once."""
    ids = FAMILIES[family]
    return ids[0], ids[1 if len(ids) > 1 else 0]


#: What one step says: observation, reward, terminated, truncated, success.
Step = tuple[str, float, bool, bool, bool]


@dataclass(frozen=True)
class Plan:
    """The episodes one id plays: ``(task, script)`` pairs, and what each gave played alone."""

    tasks: LiveTasks
    plays: tuple[tuple[Task, tuple[str, ...]], ...]
    alone: tuple[list[Step], ...] = ()


def plan_for(tasks: LiveTasks, count: int = 1) -> Plan:
    """The oracle's and a random script on the id's ``count`` shortest tasks."""
    plays = []
    for index, task in enumerate(short_tasks(tasks, count)):
        plays.append((task, tuple(oracle_script(tasks, task))))
        plays.append((task, tuple(random_script(tasks, task, seed=index, most=4))))
    alone = tuple(play(tasks, task, script) for task, script in plays)
    return Plan(tasks, tuple(plays), alone)


def play(tasks: LiveTasks, task: Task, script: Sequence[str]) -> list[Step]:
    """One episode of ``task`` by ``script`` (to its end or the script's), step by step."""
    episode, steps = tasks.start(task), []
    try:
        for action in script:
            if episode.done:
                break
            result = episode.step(action)
            steps.append(
                (
                    str(result.observation),
                    float(result.reward),
                    bool(result.terminated),
                    bool(result.truncated),
                    bool(result.info.get("success", False)),
                )
            )
    finally:
        episode.close()
    return steps


def play_plan(plan: Plan, rounds: int = 1) -> list[list[Step]]:
    """Every episode of the plan, ``rounds`` times over, in order."""
    return [play(plan.tasks, task, script) for _ in range(rounds) for task, script in plan.plays]


@contextmanager
def fast_thread_switching() -> Iterator[None]:
    """Threads switch every 10 microseconds (instead of 5 ms), so that unsafe shared state shows."""
    saved = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        yield
    finally:
        sys.setswitchinterval(saved)


def play_at_once(plans: Sequence[Plan], rounds: int = 2) -> list[list[list[Step]] | str]:
    """Each plan played on its own id's thread (``LiveTasks.executor``), all started together; per plan its
    episodes, or the error it raised (with its traceback's last line)."""
    barrier = threading.Barrier(len(plans))

    def run(plan: Plan) -> list[list[Step]] | str:
        barrier.wait()
        try:
            return play_plan(plan, rounds)
        except Exception as error:  # an error is the finding: return it to compare
            last = traceback.format_exc().strip().splitlines()[-1]
            return f"{type(error).__name__}: {error} ({last})"

    with fast_thread_switching():
        futures = [plan.tasks.executor.submit(run, plan) for plan in plans]
        return [future.result() for future in futures]


def mismatches(plans: Sequence[Plan], results: Sequence[Any], rounds: int = 2) -> list[str]:
    """What differs between each plan played alone and as in ``results``."""
    found = []
    for plan, result in zip(plans, results, strict=True):
        alone = list(plan.alone) * rounds
        if isinstance(result, str):
            found.append(f"{plan.tasks.env_id}: {result}")
        elif result != alone:
            bad = next(i for i, (a, b) in enumerate(zip(result, alone, strict=True)) if a != b)
            found.append(f"{plan.tasks.env_id}: episode {bad} differs from the one played alone")
    return found
