"""The curriculum interface (curriculum_service/protocol.py) in its three placements: the in-process
``CurriculumService``, the Ray proxy ``RayCurriculum`` and a ``genenv serve`` session's ``SessionCurriculum``
play one script and give the same proposals, updates and final state; each class implements, method by
method, the protocol it declares; and ``curriculum`` names the service, ``curriculum_config`` the config."""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import random
import socket
import struct
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

from genenv_gym.curriculum import CurriculumConfig
from genenv_gym.curriculum_service import Curriculum, TrainerCurriculum
from genenv_gym.curriculum_service.ray_actor import METHODS, RayCurriculum
from genenv_gym.curriculum_service.service import CurriculumService
from genenv_gym.serve import frames
from genenv_gym.serve.curricula import CurriculumSpec, HostedCurricula
from genenv_gym.serve.curriculum_influence import InfluencePolicy
from genenv_gym.serve.session_curriculum import SessionCurriculum

ENV_ID = "GenEnv-Sim-Digits-v0"
#: The hosted curriculum's group size is its env's ``attempts``: the other placements are given the same.
GROUP = CurriculumConfig().attempts


def outcome(task: Any, attempt: int) -> bool:
    return random.Random(f"{task.id}/{attempt}").random() < 1.0 - task.level / 15


def described(proposals: list) -> list[tuple]:
    return [(p.proposal_id, p.task.id, p.task.level, p.task.to_json(), p.seed) for p in proposals]


def as_json(value: Any) -> Any:
    """``value`` as it crosses a wire (the session's answers are JSON: tuples arrive as lists)."""
    return json.loads(json.dumps(value))


def play_core(curriculum: Curriculum) -> list[Any]:
    """The script every placement plays (``Curriculum`` calls only): what it answered, in order."""
    said: list[Any] = []
    for _ in range(3):  # three rounds: two groups played whole, one abandoned mid-group, one never played
        proposals = curriculum.propose(4)
        said.append(described(proposals))
        whole, abandoned, unplayed = proposals[:2], proposals[2], proposals[3]
        for p in whole:
            for attempt in range(GROUP):
                update = curriculum.record(
                    p.task, outcome(p.task, attempt), proposal_id=p.proposal_id, group_size=GROUP
                )
                said.append(as_json(update))
        for attempt in range(GROUP // 2):
            curriculum.record(
                abandoned.task, attempt == 0, proposal_id=abandoned.proposal_id, group_size=GROUP
            )
        said.append(curriculum.discard(abandoned.proposal_id))
        said.append(curriculum.discard(unplayed.proposal_id))  # no open group: nothing to drop
        said.append(as_json(curriculum.state()))
    return said


def play_trainer(curriculum: TrainerCurriculum) -> list[Any]:
    """The core script, then the ``TrainerCurriculum`` calls: seeded proposals, whole groups, a validation
    record, a shared stream, a step's diagnostics, the log, and a checkpoint that a restore goes on from."""
    said = play_core(curriculum)
    seeded = curriculum.propose(2, seed=100)
    said.append(described(seeded))
    said.append(
        curriculum.record_group(seeded[0].task, [True, False, True, True], proposal_id=seeded[0].proposal_id)
    )
    said.append(curriculum.record(seeded[1].task, True, proposal_id=seeded[1].proposal_id, validation=True))
    stream = [curriculum.propose_at(index, 50 + index) for index in range(3)]
    said.append(described([*stream, curriculum.propose_at(1, 999)]))  # position 1 again: the same proposal
    for p in stream[:2]:
        said.append(
            curriculum.record_group(
                p.task, [outcome(p.task, a) for a in range(GROUP)], proposal_id=p.proposal_id
            )
        )
    said.append({"step": curriculum.end_step(), "then": curriculum.end_step()})  # "then": nothing since
    said.append(curriculum.log(start=3))
    saved = curriculum.checkpoint()
    said.append(curriculum.state())
    after = described(curriculum.propose(3))
    curriculum.restore(saved)
    said.append(curriculum.state())
    again = described(curriculum.propose(3))
    assert [d[1:] for d in again] == [
        d[1:] for d in after
    ]  # a restored curriculum goes on as the saved one did
    assert not {d[0] for d in again} & {d[0] for d in after}  # ... under proposal ids never handed out before
    said.append(again)
    return said


# -- the three placements ----------------------------------------------------------------------------------


@pytest.fixture
def in_process() -> Iterator[Callable[[], Curriculum]]:
    made: list[CurriculumService] = []

    def make() -> CurriculumService:
        made.append(CurriculumService.for_env(ENV_ID, group_size=GROUP, seed=0))
        return made[-1]

    yield make
    for service in made:
        service.close()


@pytest.fixture(scope="module")
def local_ray() -> Iterator[Any]:
    from trainer_episodes import require

    require("ray", "pip install 'genenv-gym[verl]'")
    import ray

    saved = os.environ.get("PYTHONPATH")  # the actor imports the checkout's genenv_gym
    paths = [str(Path(__file__).parents[2]), *sys.path]
    os.environ["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(p for p in paths if p))
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()
    if saved is None:
        os.environ.pop("PYTHONPATH", None)
    else:
        os.environ["PYTHONPATH"] = saved


@pytest.fixture
def on_ray(local_ray: Any, request: pytest.FixtureRequest) -> Iterator[Callable[[], Curriculum]]:
    from genenv_gym.curriculum_service.ray_actor import shared_curriculum

    made: list[RayCurriculum] = []

    def make() -> RayCurriculum:
        name = f"conformance-{request.node.name}-{len(made)}"
        made.append(shared_curriculum(name, ENV_ID, group_size=GROUP, seed=0))
        return made[-1]

    yield make
    for curriculum in made:
        local_ray.kill(curriculum.handle)


def serve_calls(sock: socket.socket, host: HostedCurricula, session: str) -> None:
    """The server's side of a session's socket: every ``C`` frame answered by the hosted curricula's own
    dispatcher (``HostedCurricula.call``), until the session's end closes."""
    header = struct.Struct(">I")

    def read(size: int) -> bytes:
        data = b""
        while len(data) < size:
            chunk = sock.recv(size - len(data))
            if not chunk:
                raise ConnectionError("closed")
            data += chunk
        return data

    try:
        while True:
            (length,) = header.unpack(read(header.size))
            frame = read(length)
            assert frame[:1] == frames.CALL
            sock.sendall(frames.encode(asyncio.run(host.call(session, "digits", frame[1:]))))
    except ConnectionError:
        pass
    finally:
        sock.close()


@pytest.fixture
def in_a_session() -> Iterator[Callable[[], Curriculum]]:
    opened: list[tuple[HostedCurricula, socket.socket, threading.Thread]] = []

    def make() -> SessionCurriculum:
        # The host's decay toward the prior (on by default for hosted curricula) is off here, as in the
        # other placements: the script compares the protocol, not the server's policy.
        policy = InfluencePolicy(half_life=None)
        host = HostedCurricula([CurriculumSpec("digits", ENV_ID)], lambda env_id: {}, policy=policy).start()
        assert host.describe()[0]["group_size"] == GROUP
        server_end, session_end = socket.socketpair()
        thread = threading.Thread(target=serve_calls, args=(server_end, host, "session-a"), daemon=True)
        thread.start()
        opened.append((host, session_end, thread))
        return SessionCurriculum(session_end)

    yield make
    for host, session_end, thread in opened:
        session_end.close()
        thread.join(10)
        host.close(checkpoint=False)


# -- one script, the same answers -------------------------------------------------------------------------


def test_every_placement_answers_the_core_script_alike(in_process, on_ray, in_a_session) -> None:
    expected = play_core(in_process())
    assert play_core(on_ray()) == expected
    assert play_core(in_a_session()) == expected
    final = expected[-1]
    assert final["proposals"] == 12 and final["groups_completed"] == 6 and final["dropped_groups"] == 3


def test_both_trainer_placements_answer_the_trainer_script_alike(in_process, on_ray) -> None:
    expected = play_trainer(in_process())
    assert play_trainer(on_ray()) == expected
    steps = next(said for said in expected if isinstance(said, dict) and "then" in said)
    step, then = steps["step"], steps["then"]
    assert (step["curriculum/groups"], step["curriculum/records"], step["curriculum/validation_records"]) == (
        9.0,  # 6 groups in the core script, 3 recorded whole
        42.0,
        1.0,
    )
    assert then["curriculum/records"] == 0.0 and then["curriculum/dropped_groups"] == 3.0


# -- each class implements the protocol it declares ---------------------------------------------------


def protocol_methods(protocol: type) -> dict[str, Callable]:
    """The methods ``protocol`` declares (its own and those of the protocols it extends)."""
    return {
        name: value
        for klass in reversed(protocol.__mro__)
        if getattr(klass, "_is_protocol", False) and klass.__module__ != "typing"
        for name, value in vars(klass).items()
        if not name.startswith("_") and callable(value)
    }


@pytest.mark.parametrize(
    ("placement", "protocol"),
    [
        (CurriculumService, TrainerCurriculum),
        (RayCurriculum, TrainerCurriculum),
        (SessionCurriculum, Curriculum),
    ],
)
def test_each_placement_implements_every_method_of_its_protocol(placement: type, protocol: type) -> None:
    assert issubclass(placement, protocol)
    declared = protocol_methods(protocol)
    assert set(declared) >= {"propose", "record", "discard", "state"}
    for name, stub in declared.items():
        owner = next(klass for klass in placement.__mro__ if name in vars(klass))
        assert not getattr(owner, "_is_protocol", False), (
            f"{placement.__name__}.{name} is the protocol's stub"
        )
        offered = inspect.signature(getattr(placement, name)).parameters
        for parameter in inspect.signature(stub).parameters.values():
            assert parameter.name in offered, f"{placement.__name__}.{name} lacks {parameter.name}"
            mine = offered[parameter.name]
            assert (mine.kind, mine.default) == (parameter.kind, parameter.default), (
                f"{placement.__name__}.{name}"
            )


def test_the_session_handle_is_only_a_curriculum_and_the_actor_allows_exactly_the_trainer_methods() -> None:
    server_end, session_end = socket.socketpair()
    try:
        session = SessionCurriculum(session_end)
        assert isinstance(session, Curriculum) and not isinstance(session, TrainerCurriculum)
    finally:
        server_end.close()
        session_end.close()
    assert set(protocol_methods(TrainerCurriculum)) == METHODS


# -- one name, one meaning ------------------------------------------------------------------------------


def test_the_config_is_curriculum_config_and_the_old_name_still_reads_it_with_a_warning() -> None:
    env = gym.make(ENV_ID, curriculum={"alpha": 0.3, "attempts": 3})
    base = env.unwrapped
    assert base.curriculum_config == CurriculumConfig(alpha=0.3, attempts=3)
    service = CurriculumService.for_env(ENV_ID, {"curriculum": {"alpha": 0.3, "attempts": 3}})
    try:
        assert service.curriculum_config == base.curriculum_config
        with pytest.warns(DeprecationWarning, match="curriculum_config"):
            assert base.curriculum is base.curriculum_config
        with pytest.warns(DeprecationWarning, match="curriculum_config"):
            assert service.curriculum is service.curriculum_config
    finally:
        service.close()
        env.close()
