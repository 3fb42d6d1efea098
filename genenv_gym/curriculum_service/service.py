"""The curriculum service: one simulator and skill tracker that every rollout of a run proposes from and
records into, whatever process the rollout runs in.

``CurriculumService`` is the in-process placement and the object every other placement hosts (a named Ray
actor: ``ray_actor``; ``genenv serve``: serve/curricula.py). It implements ``protocol.TrainerCurriculum``
(protocol.py declares the interface and which placement offers which part of it):

- ``propose(n)``: ``n`` tasks the simulator proposes now, at the tracker's current estimate, each with a
  proposal id (the key its group is counted by; unique for the life of the curriculum, restores included,
  see below) and the seed it was drawn with. Seeds follow one counter
  from the service's ``seed``, so a service's proposals are a function of its seed and of the sequence of
  records before each proposal. ``propose_at(index, seed)``: the proposal at position ``index`` of a
  stream that several processes read (TRL's ranks each read the whole stream and keep their slice): made
  when the first reader asks, the same proposal for every later one. Its id names the position and the task
  (``@INDEX:TASK``): a position made again after a restart with the same task is the same proposal, and the
  group gathers every reader's rollouts of it; with another task it is another proposal.
- ``record(task, success, proposal_id=..., group_size=..., validation=...)``: one finished episode. The
  tracker sees it; its group (keyed by the proposal id, else the task id) closes at its declared size,
  across all recorders, and updates the simulator with the group's ``Outcome``. Validation records are
  logged and counted apart, and change nothing. ``record_group``: a whole group at once.
- ``discard(proposal_id)``: a group its player abandoned leaves the open groups (counted as dropped).
- ``end_step()``: the diagnostics of the records since the last call (``diagnostics.StepDiagnostics``).
- ``state()``, ``checkpoint()`` / ``restore(state)``; a checkpoint also holds where a ``propose_at`` stream
  goes on (one past the furthest position played) and the positions read ahead of it, so that a trainer
  resuming its stream there reads the same rows the uninterrupted run would have.
- Restarts: every ``restore`` begins a new incarnation of the curriculum (one more than the checkpoint's and
  than its own), and the ids ``propose`` makes carry it (``K.N:TASK``; ``N:TASK`` before any restore), so an
  id is never handed out for two rows, even when the proposals made after the checkpoint are made again
  (same seeds, same tasks). A record for a proposal of an earlier incarnation that the restored state does
  not know (made after the checkpoint, lost with the process) is logged and counted apart
  (``stale_records``): it changes nothing and never joins a group. A host that restores from its own file
  writes the new incarnation's checkpoint at once (``checkpoint_file.restore_from_file``), so two restarts
  from one file never share one.
- ``log()``: every proposal and record in the order it arrived, each ``checkpoint`` and each ``restore``
  (which names the checkpoint it went back to); ``replay(service, log)`` plays a log into a fresh service,
  which then holds the same state and proposes the same tasks, also across crashes: at a restore the replay
  goes back to its own state at that checkpoint, so events the restored curriculum never saw (after the
  checkpoint, before the crash) count as they did live.
"""

from __future__ import annotations

import json
import os
import re
import threading
import warnings
from collections import OrderedDict, deque
from collections.abc import Mapping, Sequence
from dataclasses import asdict, is_dataclass
from typing import Any

import numpy as np

from genenv_gym.curriculum import CurriculumConfig
from genenv_gym.curriculum_service.diagnostics import StepDiagnostics
from genenv_gym.curriculum_service.groups import GroupTable
from genenv_gym.curriculum_service.protocol import Proposal, TrainerCurriculum
from genenv_gym.simulator import Outcome, Simulator
from genenv_gym.skill import SkillEstimate, SkillTracker
from genenv_gym.task import Task

#: Open groups kept at most (a group a dead worker left incomplete is dropped once this many are newer).
DEFAULT_MAX_OPEN_GROUPS = 4096
#: Proposals remembered for their conditioning context (only bounds memory: records carry their task).
MAX_REMEMBERED = 8192
#: Log events kept in memory (all of them go to ``log_path`` when one is given).
MAX_LOG_IN_MEMORY = 100_000
#: A proposal id this service makes: ``N:TASK`` (before any restore) or ``K.N:TASK`` (incarnation K).
_PROPOSAL_ID = re.compile(r"(?:(\d+)\.)?\d+:")


class ServiceBusy(RuntimeError):
    """Another call holds the service (``record(..., wait=False)``): nothing was recorded."""


class CurriculumService(TrainerCurriculum):
    """A simulator and a skill tracker served to many recorders (see the module docstring).

    Args:
        simulator: the environment policy (any ``Simulator``; it runs unchanged).
        tracker: the agent's skill tracker (its levels are the domain's).
        curriculum_config: alpha and k_min of the in-band diagnostic (None: the simulator's, else the
            defaults).
        group_size: the group size a record declares when it names none (GRPO's n).
        seed: the first proposal seed.
        max_open_groups: open groups kept at most.
        log_path: a JSON Lines file every log event is appended to (the whole run's arrival order, for
            ``replay``); the last ``MAX_LOG_IN_MEMORY`` events are kept in memory either way.
        owner: closed by ``close`` (the env the simulator and tracker came from), if any.
        prior_half_life: completed groups after which the pull of past updates on the simulator's policy
            has halved: after every completed group the policy moves back toward its prior by
            ``1 - 2 ** (-1 / prior_half_life)`` (None: never, as in training; ignored, and None in
            ``state``, for a simulator without ``relax_toward_prior``: only the procedural one has it).
            A hosted curriculum sets it (serve/curricula.py), so that a client that stops reporting
            stops holding the policy where it pulled it; a ``replay`` of its log needs a service with
            the same value.
    """

    def __init__(
        self,
        simulator: Simulator,
        tracker: SkillTracker,
        curriculum_config: CurriculumConfig | None = None,
        group_size: int = 1,
        seed: int = 0,
        max_open_groups: int = DEFAULT_MAX_OPEN_GROUPS,
        log_path: str | None = None,
        owner: Any = None,
        prior_half_life: float | None = None,
    ) -> None:
        if group_size < 1:
            raise ValueError(f"group_size must be >= 1, got {group_size}")
        if prior_half_life is not None and not prior_half_life > 0:
            raise ValueError(f"prior_half_life must be > 0 groups (or None: no decay), got {prior_half_life}")
        self.simulator = simulator
        self.tracker = tracker
        self.curriculum_config: CurriculumConfig = (
            curriculum_config or getattr(simulator, "curriculum", None) or CurriculumConfig()
        )
        self.group_size = group_size
        self.seed = seed
        #: None where the simulator has no prior to relax toward (the LLM simulator): ``state`` shows it
        self.prior_half_life = prior_half_life if hasattr(simulator, "relax_toward_prior") else None
        self._owner = owner
        self._lock = threading.Lock()
        self._groups = GroupTable(max_open_groups)
        self._remembered: OrderedDict[str, SkillEstimate] = OrderedDict()
        self._at: OrderedDict[int, Proposal] = OrderedDict()
        self._index_of: dict[str, int] = {}  # proposal id -> its stream position (those in ``_at``)
        self._played_through = -1  # the furthest stream position a training record was made for
        self._next_seed = seed
        self._proposals = 0
        self._incarnation = 0
        self._stale = 0
        self._completed = 0
        self._step = StepDiagnostics()
        self._log: deque[dict[str, Any]] = deque(maxlen=MAX_LOG_IN_MEMORY)
        self._logged = 0
        self._log_file = _open_log(log_path) if log_path else None
        #: the simulator's update statistics, one per completed group
        self.updates: list[dict[str, float]] = []

    @classmethod
    def for_env(
        cls, env_id: str, env_kwargs: Mapping[str, Any] | None = None, **kwargs: Any
    ) -> CurriculumService:
        """The curriculum of a simulator id (``GenEnv-Sim-*``): its env's simulator and tracker."""
        import gymnasium as gym

        env = gym.make(env_id, **dict(env_kwargs or {}))
        base = env.unwrapped
        if not hasattr(base, "simulator"):
            env.close()
            raise ValueError(
                f"{env_id} serves fixed tasks: only a simulator id (GenEnv-Sim-*) has a curriculum"
            )
        return cls(base.simulator, base.tracker, base.curriculum_config, owner=env, **kwargs)

    @property
    def curriculum(self) -> CurriculumConfig:
        """Deprecated: the config, ``curriculum_config`` (``curriculum`` names the service itself)."""
        warnings.warn(
            "CurriculumService.curriculum is the CurriculumConfig: read curriculum_config",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.curriculum_config

    # -- proposing -------------------------------------------------------------------------------------------
    def propose(self, n: int = 1, seed: int | None = None) -> list[Proposal]:
        """``n`` tasks proposed now at the agent's current skill (seeds from the service's counter, or
        ``seed``, ``seed + 1``, ... when given)."""
        with self._lock:
            context = self.tracker.estimate()
            first = self._next_seed if seed is None else int(seed)
            out = []
            for offset in range(n):
                task = self.simulator.propose(1, context, np.random.default_rng(first + offset))[0]
                proposal_id = self._new_id(task)
                self._remember(proposal_id, context)
                self._remember(task.id, context)
                out.append(Proposal(proposal_id, task, first + offset))
            if seed is None:
                self._next_seed += n
            self._append({"event": "propose", "n": n, "seed": seed, "ids": [p.proposal_id for p in out]})
            return out

    def propose_at(self, index: int, seed: int) -> Proposal:
        """The proposal at stream position ``index``: drawn with ``seed`` when first asked for, the same one
        for every later caller (while it is among the last ``MAX_REMEMBERED`` positions asked for)."""
        with self._lock:
            made = self._at.get(index)
            if made is not None:
                return made
            context = self.tracker.estimate()
            task = self.simulator.propose(1, context, np.random.default_rng(int(seed)))[0]
            self._proposals += 1
            made = Proposal(f"@{index}:{task.id}", task, int(seed))
            self._remember(made.proposal_id, context)
            self._remember(task.id, context)
            self._at[index] = made
            self._index_of[made.proposal_id] = index
            while len(self._at) > MAX_REMEMBERED:
                self._index_of.pop(self._at.popitem(last=False)[1].proposal_id, None)
            self._append(
                {"event": "propose", "n": 1, "seed": int(seed), "ids": [made.proposal_id], "index": index}
            )
            return made

    def _new_id(self, task: Task) -> str:
        """The next proposal id (see the module docstring), counted."""
        prefix = f"{self._incarnation}." if self._incarnation else ""
        self._proposals += 1
        return f"{prefix}{self._proposals - 1}:{task.id}"

    def _stale_key(self, key: str) -> bool:
        """Whether ``key`` is a proposal of an earlier incarnation that this state does not know."""
        match = _PROPOSAL_ID.match(key)
        if match is None or int(match.group(1) or 0) == self._incarnation:
            return False
        return key not in self._remembered and key not in self._groups

    def _append(self, event: dict[str, Any]) -> None:
        event["seq"] = self._logged
        self._logged += 1
        self._log.append(event)
        if self._log_file is not None:
            self._log_file.write(json.dumps(event) + "\n")
            self._log_file.flush()

    def _remember(self, key: str, context: SkillEstimate) -> None:
        self._remembered[key] = context
        self._remembered.move_to_end(key)
        while len(self._remembered) > MAX_REMEMBERED:
            self._remembered.popitem(last=False)

    # -- recording -------------------------------------------------------------------------------------------
    def record(
        self,
        task: Task,
        success: bool,
        *,
        proposal_id: str | None = None,
        group_size: int | None = None,
        validation: bool = False,
        recorder: str = "",
        wait: bool = True,
    ) -> dict[str, float] | None:
        """Record one finished episode of ``task``; the update statistics when it closes a group.
        ``wait=False``: raise ServiceBusy at once, recording nothing, when another call holds the service
        (an event loop records inline only when it will not block)."""
        if not self._lock.acquire(blocking=wait):
            raise ServiceBusy("another call holds the curriculum service")
        try:
            return self._record(task, bool(success), proposal_id, group_size, validation, recorder)
        finally:
            self._lock.release()

    def discard(self, proposal_id: str, recorder: str = "") -> bool:
        """Drop the open group of ``proposal_id``, which its player abandoned before it was complete (a
        seeded reset mid-group): it updates nothing and no longer takes a place among the open groups.
        Whether there was one."""
        with self._lock:
            self._append({"event": "discard", "key": proposal_id, "recorder": recorder})
            return self._groups.discard(proposal_id)

    def record_group(
        self,
        task: Task,
        successes: Sequence[bool],
        *,
        proposal_id: str | None = None,
        validation: bool = False,
        recorder: str = "",
    ) -> dict[str, float] | None:
        """Record a whole group of ``task`` (its size is ``len(successes)``); the update statistics."""
        stats = None
        with self._lock:
            for success in successes:
                stats = self._record(task, bool(success), proposal_id, len(successes), validation, recorder)
        return stats

    def _record(
        self,
        task: Task,
        success: bool,
        proposal_id: str | None,
        group_size: int | None,
        validation: bool,
        recorder: str,
    ) -> dict[str, float] | None:
        key = proposal_id or task.id
        size = int(group_size or self.group_size)
        level = min(int(task.level), self.tracker.num_levels - 1)
        event = {
            "event": "record",
            "key": key,
            "success": success,
            "group_size": size,
            "validation": validation,
            "recorder": recorder,
        }
        if key not in self._remembered:  # not a proposal of this service: replay needs the task itself
            event["task"] = task.to_json()
        if proposal_id is not None and self._stale_key(key):  # lost with an earlier incarnation
            event["stale"] = True
            self._append(event)
            self._stale += 1
            return None
        self._append(event)
        self._step.add_record(level, success, validation)
        if validation:
            return None
        self._played_through = max(self._played_through, self._index_of.get(key, -1))
        self.tracker.update(level, success)
        outcomes = self._groups.add(key, success, size)
        if outcomes is None:
            return None
        context = self._remembered.get(key) or self._remembered.get(task.id)
        stats = dict(self.simulator.update([Outcome(task, sum(outcomes), len(outcomes), context)]))
        if self.prior_half_life is not None:
            self.simulator.relax_toward_prior(1.0 - 2.0 ** (-1.0 / self.prior_half_life))
        self.updates.append(stats)
        self._completed += 1
        self._step.add_group(outcomes, self.curriculum_config, updated=stats.get("kept", 1.0) > 0)
        return stats

    # -- reporting ----------------------------------------------------------------------------------------
    def end_step(self) -> dict[str, float]:
        """The diagnostics of the records since the last ``end_step`` (``curriculum/...`` floats)."""
        with self._lock:
            report = self._step.report(len(self._groups), self._groups.dropped)
            self._step = StepDiagnostics()
            return report

    def state(self) -> dict[str, Any]:
        """The agent's skill estimate and the simulator's state, as JSON-able values."""
        with self._lock:
            state: dict[str, Any] = {
                "skill": self.tracker.estimate().to_dict(),
                "proposals": self._proposals,
                "groups_completed": self._completed,
                "open_groups": len(self._groups),
                "dropped_groups": self._groups.dropped,
                "stale_records": self._stale,
                "prior_half_life": self.prior_half_life,
            }
            if hasattr(
                self.simulator, "state"
            ):  # the LLM simulator's statistics (its state_dict holds records)
                state["simulator"] = self.simulator.state()
            elif hasattr(self.simulator, "state_dict"):
                state["simulator"] = self.simulator.state_dict()
            return state

    def log(self, start: int = 0) -> list[dict[str, Any]]:
        """The proposals and records from the ``start``-th (their ``seq``) on, in the order they arrived
        (the last ``MAX_LOG_IN_MEMORY``; the whole run's are in ``log_path``)."""
        with self._lock:
            return [dict(e) for e in self._log if e["seq"] >= start]

    # -- checkpoint ---------------------------------------------------------------------------------------
    def checkpoint(self) -> dict[str, Any]:
        """Everything ``restore`` needs to go on as this service would (JSON-able with the procedural
        simulator; the LLM simulator's part holds its pending records, picklable). The log marks it
        (``log_mark``: the incarnation and ``seq`` of its ``checkpoint`` event), for a restore to name."""
        with self._lock:
            stats = getattr(self.simulator, "stats", None)
            self._append({"event": "checkpoint", "incarnation": self._incarnation})
            return {
                "incarnation": self._incarnation,
                "log_mark": [self._incarnation, self._logged - 1],
                "stale_records": self._stale,
                "simulator": self.simulator.state_dict() if hasattr(self.simulator, "state_dict") else None,
                "simulator_stats": _jsonable(asdict(stats)) if is_dataclass(stats) else None,
                "tracker": self.tracker.state_dict(),
                "groups": self._groups.state_dict(),
                "remembered": [[key, ctx.to_dict()] for key, ctx in self._remembered.items()],
                "next_seed": self._next_seed,
                "proposals": self._proposals,
                "groups_completed": self._completed,
                "stream": self._stream_state(),
            }

    def _stream_state(self) -> dict[str, Any]:
        """Where a stream read with ``propose_at`` goes on (``next``: one past the furthest position played)
        and the positions proposed beyond it (read ahead of training, not played yet): a reader that resumes
        from ``next`` gets those same proposals again."""
        ahead = [
            [index, p.proposal_id, p.task.to_json(), p.seed]
            for index, p in self._at.items()
            if index > self._played_through
        ]
        return {"next": self._played_through + 1, "ahead": ahead}

    def restore(self, state: Mapping[str, Any]) -> None:
        """Go on from a ``checkpoint``, as a new incarnation (see the module docstring); the log (in memory)
        and the step's diagnostics start afresh, with a ``restore`` event that names the checkpoint."""
        with self._lock:
            if state.get("simulator") is not None:
                self.simulator.load_state_dict(state["simulator"])
            stats = getattr(self.simulator, "stats", None)
            if state.get("simulator_stats") is not None and is_dataclass(stats):
                for name, value in state["simulator_stats"].items():
                    current = getattr(stats, name)
                    setattr(stats, name, type(current)(value))
            self.tracker.load_state_dict(state["tracker"])
            self._groups.load_state_dict(state["groups"])
            self._remembered = OrderedDict((key, _estimate(ctx)) for key, ctx in state["remembered"])
            self._next_seed = int(state["next_seed"])
            self._proposals = int(state["proposals"])
            self._completed = int(state["groups_completed"])
            stream = state.get("stream") or {"next": 0, "ahead": []}  # a checkpoint of an older version
            self._played_through = int(stream["next"]) - 1
            self._at = OrderedDict(
                (int(index), Proposal(pid, Task.from_json(task), int(seed)))
                for index, pid, task, seed in stream["ahead"]
            )
            self._index_of = {p.proposal_id: index for index, p in self._at.items()}
            self._incarnation = max(int(state.get("incarnation", 0)), self._incarnation) + 1
            self._stale = int(state.get("stale_records", 0))
            self._step = StepDiagnostics()
            self._log.clear()
            self._append(
                {"event": "restore", "incarnation": self._incarnation, "from": state.get("log_mark")}
            )

    def close(self) -> None:
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None
        if self._owner is not None:
            self._owner.close()
            self._owner = None


def replay(service: CurriculumService, log: Sequence[Mapping[str, Any]]) -> list[Proposal]:
    """Play ``log`` (``CurriculumService.log``, or a ``log_path`` file read by ``read_log``) into
    ``service``: the same proposals, records, checkpoints and restores in the same order (a restore goes back
    to the service's own state at the checkpoint it names). Returns the proposals; raises ValueError where
    one differs from the log's, or where the log restores a checkpoint it does not hold (a log that begins
    with a restore replays into a service restored from that checkpoint)."""
    proposals: list[Proposal] = []
    by_id: dict[str, Task] = {}
    saved: dict[tuple[int, int], dict[str, Any]] = {}
    for event in log:
        if event["event"] == "checkpoint":
            saved[(int(event["incarnation"]), int(event["seq"]))] = service.checkpoint()
        elif event["event"] == "restore":
            mark = tuple(event["from"]) if event.get("from") is not None else None
            if mark in saved:
                service.restore(saved[mark])
            elif service._incarnation != int(event["incarnation"]):
                raise ValueError(
                    f"replay: the log restores checkpoint {mark}, which it does not hold: restore the "
                    "service from that checkpoint first and replay the log from its restore on"
                )
            if service._incarnation != int(event["incarnation"]):
                raise ValueError(
                    f"replay diverged: restored as incarnation {service._incarnation}, log has "
                    f"{event['incarnation']}"
                )
        elif event["event"] == "propose":
            if "index" in event:
                made = [service.propose_at(event["index"], event["seed"])]
            else:
                made = service.propose(event["n"], event["seed"])
            if [p.proposal_id for p in made] != list(event["ids"]):
                raise ValueError(
                    f"replay diverged: proposed {[p.proposal_id for p in made]}, log has {event['ids']}"
                )
            proposals += made
            by_id.update((key, p.task) for p in made for key in (p.proposal_id, p.task.id))
        elif event["event"] == "discard":
            service.discard(event["key"], event["recorder"])
        else:
            task = Task.from_json(event["task"]) if "task" in event else by_id[event["key"]]
            service.record(
                task,
                event["success"],
                proposal_id=event["key"],
                group_size=event["group_size"],
                validation=event["validation"],
                recorder=event["recorder"],
            )
    return proposals


def _open_log(path: str) -> Any:
    """``path`` opened for appending, on a line of its own (a crash may have cut the last line short)."""
    with open(path, "ab+") as raw:
        if raw.seek(0, os.SEEK_END) > 0 and raw.seek(-1, os.SEEK_END) >= 0 and raw.read(1) != b"\n":
            raw.write(b"\n")
    return open(path, "a", encoding="utf-8")


def read_log(path: str) -> list[dict[str, Any]]:
    """The events of a ``log_path`` file, for ``replay``. A line that a crash cut short (the last line, or
    one right before a restore) is left out; any other line that is not JSON raises ValueError."""
    with open(path, encoding="utf-8", errors="replace") as handle:  # a cut line may end inside a character
        lines = [line for line in handle.read().split("\n") if line.strip()]
    events: list[dict[str, Any]] = []
    for number, line in enumerate(lines):
        try:
            events.append(json.loads(line))
        except ValueError:
            follows = lines[number + 1] if number + 1 < len(lines) else None
            if follows is not None and '"event": "restore"' not in follows:
                raise ValueError(f"{path}:{number + 1}: not a log event (the file is damaged)") from None
    return events


def _estimate(raw: Mapping[str, Any]) -> SkillEstimate:
    return SkillEstimate(
        success=tuple(raw["success"]),
        evidence=tuple(raw["evidence"]),
        frontier=int(raw["frontier"]),
        recent_success=float(raw["recent_success"]),
    )


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=dict))
