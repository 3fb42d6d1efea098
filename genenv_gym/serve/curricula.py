"""Named curricula ``genenv serve`` hosts, which sessions of a simulator id join (``--curriculum NAME=ID``).

The operator declares each one; a client only joins one by name (``env_kwargs={"shared_curriculum":
NAME}`` when it opens a session of that id): every episode of every joined session is then proposed by,
and recorded into, one ``CurriculumService`` that lives in the server's process, built from the id with the
operator's kwargs. It outlives the sessions: a client that disconnects loses its episodes in flight, and
the curriculum goes on with the others (and with the sessions of later clients).

A session's process reaches it only through ``call`` (serve/session_curriculum.py), and only so:

- ``propose`` (``n`` in ``[1, MAX_PROPOSE]``): the proposals are remembered as this session's (at most
  ``MAX_OUTSTANDING`` of them, the oldest forgotten first);
- ``record`` (``proposal_id``, ``success``): an episode of one of this session's proposals, at most
  ``group_size`` times each, with at most ``MAX_PARTIAL`` of its groups recorded in part at once (so that
  one client cannot push the other sessions' open groups out of the curriculum's bound by opening groups it
  never finishes); the task and the group size are the server's, never the session's;
- ``discard`` (``proposal_id``): one of this session's proposals abandoned (a seeded reset mid-group): it
  is forgotten and its group, if open, dropped from the curriculum;
- ``state``: the curriculum's ``state()``.

How much one client (an identity, serve/identity.py) may move a curriculum is bounded
(serve/curriculum_influence.py): each group's first record decides whether the group counts (the client's
share of the recent groups, token holders only where the operator says so); a group held back is answered
as any other and never reach the curriculum; clients whose outcomes disagree with the others' on the
same levels are flagged in its state; and the pull of every counted group on the simulator's level policy
decays (``InfluencePolicy.half_life``), so a client that stops stops holding the curriculum where it
pulled it.

Anything else is refused with a message and changes nothing, and so is any call past the fourth of one
request (``worker.MAX_CALLS_PER_REQUEST``). A proposal runs on a thread (the event loop
stays free while a simulator proposes), and so does a checkpoint; a record, short and the most frequent
call, runs on the event loop when no other call holds the curriculum, on a thread when one does. The
service serialises them; a call counts towards the request's time limit, like the env work around it.

With ``directory``, each curriculum appends its log (``NAME.log.jsonl``, the arrival order of every
proposal and record) and its diagnostics (``NAME.metrics.jsonl``, every ``checkpoint_every`` completed
groups), writes ``NAME.ckpt`` (a pickle, as the Ray actor's: the server's own file) at those points and at
shutdown, and starts from that file when the server starts again. Without it, a curriculum lives as long as
the server process.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from genenv_gym.curriculum_service.checkpoint_file import restore_from_file, write_checkpoint
from genenv_gym.curriculum_service.service import CurriculumService, ServiceBusy
from genenv_gym.registry.registration import is_simulator_id
from genenv_gym.serve.client_kwargs import JOIN_KEY
from genenv_gym.serve.curriculum_influence import InfluenceBound, InfluencePolicy
from genenv_gym.serve.errors import ServeError
from genenv_gym.task import Task

#: Proposals one call may ask for.
MAX_PROPOSE = 64
#: Unfinished proposals remembered per session (a session that keeps asking forgets its oldest).
MAX_OUTSTANDING = 1024
#: Groups one session may have recorded in part at once (an env finishes one group before the next).
MAX_PARTIAL = 16
#: The largest curriculum call accepted, in bytes.
MAX_CALL_BYTES = 4096
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


class UnknownCurriculum(ServeError):
    status, code = 404, "UNKNOWN_CURRICULUM"


@dataclass(frozen=True)
class CurriculumSpec:
    """One hosted curriculum: its ``name`` and the simulator id it serves."""

    name: str
    env_id: str

    @classmethod
    def parse(cls, text: str) -> CurriculumSpec:
        """``NAME=ENV_ID`` (``--curriculum``); ValueError naming what is wrong."""
        name, sep, env_id = text.partition("=")
        name, env_id = name.strip(), env_id.strip()
        if not sep or not env_id:
            raise ValueError(f"--curriculum {text!r}: expected NAME=ENV_ID")
        if not _NAME.fullmatch(name) or ".." in name:
            raise ValueError(
                f"--curriculum {text!r}: a name is 1-64 letters, numerals, '_', '.' or '-' (first a letter "
                "or numeral)"
            )
        return cls(name, env_id)


class _Hosted:
    """One curriculum, its sessions' proposals and its files."""

    def __init__(
        self,
        spec: CurriculumSpec,
        service: CurriculumService,
        directory: str | None,
        policy: InfluencePolicy | None = None,
    ) -> None:
        self.spec = spec
        self.service = service
        self.group_size = service.curriculum_config.attempts
        self.directory = directory
        self.lock = threading.Lock()
        #: session id -> proposal id -> [task, records left]
        self.given: dict[str, OrderedDict[str, list[Any]]] = {}
        #: session id -> the proposal ids of its groups recorded in part
        self.partial: dict[str, set[str]] = {}
        self.groups_since_checkpoint = 0
        self.last_diagnostics: dict[str, float] = {}
        self.influence = InfluenceBound(policy)
        #: session id -> its client (identity), from its first call
        self.clients: dict[str, str] = {}
        #: proposal ids whose groups are held back (not counted: serve/curriculum_influence.py)
        self.held_back: set[str] = set()

    def path(self, suffix: str) -> str | None:
        return os.path.join(self.directory, f"{self.spec.name}.{suffix}") if self.directory else None


class HostedCurricula:
    """The server's named curricula (see the module docstring).

    The specs are checked when it is made; ``start`` builds the curricula (the server calls it after it has
    forked its zygote, so that what a simulator loads, a model on a GPU say, stays out of the sessions'
    processes).

    Args:
        specs: the curricula to host (names distinct, each a simulator id).
        env_kwargs: the operator's kwargs of an env id (``Catalog.server_kwargs``).
        directory: where logs, diagnostics and checkpoints go (None: nowhere).
        checkpoint_every: completed groups between two checkpoints.
        policy: how much one client may move a curriculum (serve/curriculum_influence.py).
    """

    def __init__(
        self,
        specs: Iterable[CurriculumSpec],
        env_kwargs: Any,
        directory: str | None = None,
        checkpoint_every: int = 50,
        policy: InfluencePolicy | None = None,
    ) -> None:
        if checkpoint_every < 1:
            raise ValueError(f"checkpoint_every must be >= 1, got {checkpoint_every}")
        self.specs = list(specs)
        names = [spec.name for spec in self.specs]
        for name in names:
            if names.count(name) > 1:
                raise ValueError(f"--curriculum: the name {name!r} is declared twice")
        for spec in self.specs:
            if not is_simulator_id(spec.env_id):
                raise ValueError(
                    f"--curriculum: {spec.env_id} is not a simulator id: only a simulator id "
                    "(GenEnv-Sim-*) has a curriculum"
                )
        self.env_kwargs = env_kwargs
        self.directory = directory
        self.checkpoint_every = checkpoint_every
        self.policy = policy
        self._hosted: dict[str, _Hosted] = {}

    def start(self) -> HostedCurricula:
        """Build every curriculum (each from its checkpoint, when its directory holds one); idempotent."""
        if self._hosted or not self.specs:
            return self
        if self.directory:
            os.makedirs(self.directory, exist_ok=True)
        try:
            for spec in self.specs:
                built = self._build(spec, self.env_kwargs(spec.env_id), self.directory, self.policy)
                self._hosted[spec.name] = built
        except BaseException:
            self.close(checkpoint=False)
            raise
        return self

    @staticmethod
    def _build(
        spec: CurriculumSpec, kwargs: Mapping[str, Any], directory: str | None, policy: InfluencePolicy | None
    ) -> _Hosted:
        log = os.path.join(directory, f"{spec.name}.log.jsonl") if directory else None
        half_life = (policy or InfluencePolicy()).half_life
        service = CurriculumService.for_env(spec.env_id, kwargs, log_path=log, prior_half_life=half_life)
        hosted = _Hosted(spec, service, directory, policy)
        saved = hosted.path("ckpt")
        if saved:
            restore_from_file(service, saved)
        return hosted

    def __len__(self) -> int:
        return len(self._hosted)

    def names_for(self, env_id: str) -> list[str]:
        """The curricula a session of ``env_id`` may join."""
        return [name for name, h in self._hosted.items() if h.spec.env_id == env_id]

    def describe(self) -> list[dict[str, Any]]:
        return [
            {"name": name, "env_id": h.spec.env_id, "group_size": h.group_size}
            for name, h in self._hosted.items()
        ]

    def take(self, env_id: str, kwargs: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any] | None]:
        """A client's kwargs without ``JOIN_KEY``, and what the session's process needs to join the named
        curriculum (None when none is named); UnknownCurriculum (404) for a name this server does not host
        for ``env_id``."""
        rest = dict(kwargs)
        if JOIN_KEY not in rest:
            return rest, None
        name = rest.pop(JOIN_KEY)
        hosted = self._hosted.get(name) if isinstance(name, str) else None
        if hosted is None or hosted.spec.env_id != env_id:
            offered = self.names_for(env_id)
            raise UnknownCurriculum(
                f"{JOIN_KEY}: this server hosts no curriculum {str(name)[:80]!r} for {env_id}; "
                + (f"it hosts {offered}" if offered else "it hosts none for this id")
            )
        return rest, {"name": hosted.spec.name, "group_size": hosted.group_size}

    def state(self, name: str) -> dict[str, Any]:
        """A curriculum's state and the diagnostics of its last checkpoint interval."""
        hosted = self._get(name)
        return {
            "name": name,
            "env_id": hosted.spec.env_id,
            "group_size": hosted.group_size,
            "state": hosted.service.state(),
            "diagnostics": dict(hosted.last_diagnostics),
            "influence": hosted.influence.state(),
        }

    def _get(self, name: str) -> _Hosted:
        hosted = self._hosted.get(name)
        if hosted is None:
            raise UnknownCurriculum(
                f"this server hosts no curriculum {name[:80]!r}; it hosts {list(self._hosted)}"
            )
        return hosted

    # -- a session's calls ---------------------------------------------------------------------------------
    async def call(self, session_id: str, name: str, body: bytes, client: str = "unknown") -> dict[str, Any]:
        """Answer one call of a session's process (of ``client``, serve/identity.py). A record (short, and
        the most frequent call) runs on the event loop when the curriculum is free, on a thread when another
        call holds it; a proposal (a simulator may take seconds) and a checkpoint always run on a thread."""
        hosted, request = self._parse(name, body)
        if hosted is None:
            return request
        self._seen(hosted, session_id, client)
        if request.get("method") != "record":
            return await asyncio.to_thread(self._dispatch, hosted, session_id, request)
        reserved = self._reserve(hosted, session_id, request)
        if "error" in reserved or "held_back" in reserved:
            return reserved
        try:
            update = self._apply(hosted, session_id, reserved, wait=False)
        except ServiceBusy:
            update = await asyncio.to_thread(self._apply, hosted, session_id, reserved, True)
        if update is not None and self._checkpoint_due(hosted):
            await asyncio.to_thread(self._checkpoint, hosted)
        return {"update": update}

    def answer(self, session_id: str, name: str, body: bytes, client: str = "unknown") -> dict[str, Any]:
        """The answer to one call, all of it on this thread: ``{"error": ...}`` for anything refused."""
        hosted, request = self._parse(name, body)
        if hosted is None:
            return request
        self._seen(hosted, session_id, client)
        return self._dispatch(hosted, session_id, request)

    @staticmethod
    def _seen(hosted: _Hosted, session_id: str, client: str) -> None:
        """Remember a session's client at its first call (it counts as active until it is forgotten)."""
        with hosted.lock:
            if session_id in hosted.clients:
                return
            hosted.clients[session_id] = client
        hosted.influence.joined(client)

    def _parse(self, name: str, body: bytes) -> tuple[_Hosted | None, dict[str, Any]]:
        """The curriculum and the call's JSON object, or None and the error to answer."""
        hosted = self._hosted.get(name)
        if hosted is None:
            return None, {"error": f"no curriculum {name!r}"}
        if len(body) > MAX_CALL_BYTES:
            return None, {"error": f"a call of {len(body)} bytes; at most {MAX_CALL_BYTES}"}
        try:
            request = json.loads(body)
        except (ValueError, RecursionError):
            request = None
        if not isinstance(request, dict):
            return None, {"error": "a call is a JSON object"}
        return hosted, request

    def _dispatch(self, hosted: _Hosted, session_id: str, request: dict[str, Any]) -> dict[str, Any]:
        method = request.get("method")
        if method == "propose":
            return self._propose(hosted, session_id, request.get("n"))
        if method == "record":
            reserved = self._reserve(hosted, session_id, request)
            if "error" in reserved or "held_back" in reserved:
                return reserved
            update = self._apply(hosted, session_id, reserved, wait=True)
            if update is not None and self._checkpoint_due(hosted):
                self._checkpoint(hosted)
            return {"update": update}
        if method == "discard":
            return self._discard(hosted, session_id, request.get("proposal_id"))
        if method == "state":
            return {"state": hosted.service.state()}
        return {
            "error": f"unknown method {str(method)[:40]!r}; one of ['propose', 'record', 'discard', 'state']"
        }

    def _discard(self, hosted: _Hosted, session_id: str, proposal_id: Any) -> dict[str, Any]:
        with hosted.lock:
            given = hosted.given.get(session_id, {})
            if not isinstance(proposal_id, str) or given.pop(proposal_id, None) is None:
                return {"error": "not a proposal given to this session (or one it has forgotten)"}
            hosted.partial.get(session_id, set()).discard(proposal_id)
            hosted.held_back.discard(proposal_id)
        return {"discarded": hosted.service.discard(proposal_id, recorder=session_id[:8])}

    def _propose(self, hosted: _Hosted, session_id: str, n: Any) -> dict[str, Any]:
        if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= MAX_PROPOSE:
            return {"error": f"n must be an integer in [1, {MAX_PROPOSE}]"}
        proposals = hosted.service.propose(n)
        with hosted.lock:
            given = hosted.given.setdefault(session_id, OrderedDict())
            for p in proposals:
                given[p.proposal_id] = [p.task, hosted.group_size]
            partial = hosted.partial.setdefault(session_id, set())
            while len(given) > MAX_OUTSTANDING:
                oldest = given.popitem(last=False)[0]
                partial.discard(oldest)
                hosted.held_back.discard(oldest)
        return {
            "proposals": [
                {"proposal_id": p.proposal_id, "task": p.task.to_json(), "seed": p.seed} for p in proposals
            ]
        }

    def _reserve(self, hosted: _Hosted, session_id: str, request: dict[str, Any]) -> dict[str, Any]:
        """One of the session's records of a proposal given to it, taken (its task, id and outcome), or the
        error to answer."""
        proposal_id, success = request.get("proposal_id"), request.get("success")
        if not isinstance(success, bool):
            return {"error": "success must be true or false"}
        with hosted.lock:
            given = hosted.given.get(session_id, {})
            entry = given.get(proposal_id) if isinstance(proposal_id, str) else None
            if entry is None:
                return {
                    "error": "not a proposal given to this session, one it has forgotten, or one whose "
                    f"{hosted.group_size} episodes are recorded already"
                }
            partial = hosted.partial.setdefault(session_id, set())
            if proposal_id not in partial and len(partial) >= MAX_PARTIAL:
                return {
                    "error": f"this session has {len(partial)} groups recorded in part, the limit: finish "
                    "one before starting another"
                }
            client = hosted.clients.get(session_id, "unknown")
            first = entry[1] == hosted.group_size
            entry[1] -= 1
            if entry[1] == 0:
                del given[proposal_id]
                partial.discard(proposal_id)
            else:
                partial.add(proposal_id)
            held = proposal_id in hosted.held_back
        if first and not hosted.influence.admit(client):
            held = True
            with hosted.lock:  # none of its records reaches the curriculum: it never opens there
                hosted.held_back.add(proposal_id)
        if held:
            if entry[1] == 0:
                with hosted.lock:
                    hosted.held_back.discard(proposal_id)
            return {"update": None, "held_back": True}
        hosted.influence.outcome(client, _level(entry[0]), success)
        return {"task": entry[0], "proposal_id": proposal_id, "success": success}

    @staticmethod
    def _apply(hosted: _Hosted, session_id: str, reserved: dict[str, Any], wait: bool) -> dict | None:
        task: Task = reserved["task"]
        return hosted.service.record(
            task,
            reserved["success"],
            proposal_id=reserved["proposal_id"],
            group_size=hosted.group_size,
            recorder=session_id[:8],
            wait=wait,
        )

    def _checkpoint_due(self, hosted: _Hosted) -> bool:
        """Count a completed group; whether a checkpoint is due."""
        with hosted.lock:
            hosted.groups_since_checkpoint += 1
            if hosted.groups_since_checkpoint < self.checkpoint_every:
                return False
            hosted.groups_since_checkpoint = 0
            return True

    def forget(self, session_id: str, name: str) -> None:
        """A closed session's proposals in curriculum ``name``, and its groups recorded in part, which no one
        can finish now: they are discarded from the curriculum (counted as dropped)."""
        hosted = self._hosted.get(name)
        if hosted is None:
            return
        with hosted.lock:
            hosted.given.pop(session_id, None)
            partial = hosted.partial.pop(session_id, set())
            hosted.held_back -= partial
            client = hosted.clients.pop(session_id, None)
        if client is not None:
            hosted.influence.left(client)
        for proposal_id in partial:
            hosted.service.discard(proposal_id, recorder=session_id[:8])

    # -- files ---------------------------------------------------------------------------------------------
    def _checkpoint(self, hosted: _Hosted) -> None:
        diagnostics = hosted.service.end_step()
        hosted.last_diagnostics = diagnostics
        metrics, saved = hosted.path("metrics.jsonl"), hosted.path("ckpt")
        if metrics:
            line = {"time": time.time(), "groups_completed": hosted.service.state()["groups_completed"]}
            with open(metrics, "a", encoding="utf-8") as handle:
                handle.write(json.dumps({**line, **diagnostics}) + "\n")
        if saved:
            write_checkpoint(hosted.service, saved)

    def checkpoint_all(self) -> None:
        for hosted in self._hosted.values():
            self._checkpoint(hosted)

    def close(self, checkpoint: bool = True) -> None:
        """Checkpoint every curriculum (when ``checkpoint``) and close it."""
        for hosted in self._hosted.values():
            if checkpoint:
                self._checkpoint(hosted)
            hosted.service.close()
        self._hosted = {}


def _level(task: Task) -> int:
    try:
        return int(task.level)
    except (TypeError, ValueError, AttributeError):
        return 0
