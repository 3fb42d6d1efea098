"""A curriculum ``genenv serve`` hosts (``--curriculum NAME=ID``): sessions of several clients join it by
name, every episode they play is proposed by and recorded into it, it outlives a client's disconnect and
the server's restart (its checkpoint), a replay of its log rebuilds it, and what a client or a session's
process may do to it is bounded (serve/curricula.py)."""

from __future__ import annotations

import asyncio
import json
import pickle
import socket
import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")
websockets_sync = pytest.importorskip("websockets.sync.client")

import gymnasium as gym  # noqa: E402

from genenv_gym.curriculum_service.service import CurriculumService, ServiceBusy, read_log, replay  # noqa: E402
from genenv_gym.serve.app import ServeConfig  # noqa: E402
from genenv_gym.serve.catalog import Catalog  # noqa: E402
from genenv_gym.serve.curricula import (  # noqa: E402
    JOIN_KEY,
    MAX_OUTSTANDING,
    MAX_PARTIAL,
    CurriculumSpec,
    HostedCurricula,
)
from genenv_gym.serve.limits import ServeLimits  # noqa: E402
from genenv_gym.serve.server import BackgroundServer  # noqa: E402

SIM = "GenEnv-Sim-Digits-v0"
OTHER = "GenEnv-Sim-Ladder-v0"


def no_kwargs(env_id: str) -> dict:
    return {}


def answer_for(observation: str, right: bool) -> str:
    digits = observation.split(":", 1)[1].split()
    return " ".join(reversed(digits)) if right else "wrong"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    directory = tmp_path_factory.mktemp("curricula")
    specs = (CurriculumSpec("digits", SIM), CurriculumSpec("ladder", OTHER))
    config = ServeConfig(
        Catalog([SIM, OTHER], no_kwargs),
        ServeLimits(workers=2, step_timeout_s=30),
        curricula=specs,
        curriculum_dir=str(directory),
        curriculum_checkpoint_every=2,
    )
    background = BackgroundServer(config)
    with background as url:
        yield url, background, directory


def hosted(background: BackgroundServer) -> HostedCurricula:
    return background.server.config.app.state.curricula


def client(url: str, source: str = "127.0.0.1") -> httpx.Client:
    return httpx.Client(base_url=url, transport=httpx.HTTPTransport(local_address=source), timeout=60)


def join(c: httpx.Client, name: str = "digits") -> str:
    answer = c.post(f"/envs/{SIM}/sessions", json={"env_kwargs": {JOIN_KEY: name}})
    assert answer.status_code == 201, answer.text
    return answer.json()["session_id"]


def play(c: httpx.Client, sid: str, right: bool) -> dict:
    obs = c.post(f"/envs/{SIM}/reset", json={"session_id": sid}).json()["observation"]
    done = c.post(
        f"/envs/{SIM}/step", json={"action": {"text": answer_for(obs["text"], right)}, "session_id": sid}
    )
    assert done.status_code == 200, done.text
    return done.json()["observation"]["info"]


def test_sessions_of_two_clients_play_one_curriculum_that_a_replay_of_its_log_rebuilds(server):
    url, background, _ = server
    service = hosted(background)._hosted["digits"].service
    before = service.state()
    with client(url) as a, client(url, "127.0.1.2") as b:
        sid_a = a.post(f"/envs/{SIM}/sessions", json={"env_kwargs": {JOIN_KEY: "digits"}}).json()[
            "session_id"
        ]
        sid_b = b.post(f"/envs/{SIM}/sessions", json={"env_kwargs": {JOIN_KEY: "digits"}}).json()[
            "session_id"
        ]
        updates = []
        for episode in range(8):  # 4 attempts per proposal: each session closes 2 groups
            for c, sid in ((a, sid_a), (b, sid_b)):
                info = play(c, sid, right=episode % 2 == 0)
                if "sim_update" in info:
                    updates.append(info["sim_update"])
        assert len(updates) == 4
        state = a.get("/curricula/digits").json()
        a.delete(f"/envs/{SIM}/sessions/{sid_a}")
        b.delete(f"/envs/{SIM}/sessions/{sid_b}")
    after = state["state"]
    assert after["groups_completed"] - before["groups_completed"] == 4
    assert after["proposals"] - before["proposals"] == 16  # each session asked for one batch of 8
    # both clients' sessions recorded into the same log, in the order their records arrived
    log = service.log()
    recorders = {e["recorder"] for e in log if e["event"] == "record"}
    assert len(recorders) >= 2
    fresh = CurriculumService.for_env(SIM, prior_half_life=service.prior_half_life)  # the server's decay
    try:
        replay(fresh, log)
        assert fresh.state()["skill"] == service.state()["skill"]
        assert fresh.checkpoint()["simulator"] == service.checkpoint()["simulator"]
    finally:
        fresh.close()


def test_a_curriculum_outlives_a_client_that_disconnects_mid_group(server):
    url, background, _ = server
    host, port = url.removeprefix("http://").split(":")
    dropped = hosted(background)._hosted["digits"].service.state()["dropped_groups"]
    with websockets_sync.connect(f"ws://{host}:{port}/envs/{SIM}/ws") as ws:
        ws.send(json.dumps({"type": "reset", "data": {"env_kwargs": {JOIN_KEY: "digits"}}}))
        obs = json.loads(ws.recv(timeout=60))["data"]["observation"]
        ws.send(json.dumps({"type": "step", "data": {"text": answer_for(obs["text"], True)}}))
        assert json.loads(ws.recv(timeout=60))["type"] == "observation"
        given_before = sum(len(v) for v in hosted(background)._hosted["digits"].given.values())
        assert given_before >= 1
    # the client is gone: its proposals are forgotten, its half group discarded, the curriculum goes on
    with client(url) as c:
        for _ in range(100):
            if not background.manager.sessions:
                break
            time.sleep(0.05)
        assert not hosted(background)._hosted["digits"].given
        state = c.get("/curricula/digits").json()["state"]
        assert state["dropped_groups"] == dropped + 1 and state["open_groups"] == 0
        sid = join(c)
        for _ in range(4):
            play(c, sid, right=True)
        later = c.get("/curricula/digits").json()["state"]
        assert later["groups_completed"] == state["groups_completed"] + 1
        c.delete(f"/envs/{SIM}/sessions/{sid}")


@pytest.mark.parametrize("transport", ["ws", "http"])
def test_the_remote_env_joins_a_hosted_curriculum_on_either_transport(server, transport):
    url, background, _ = server
    service = hosted(background)._hosted["digits"].service
    before = service.state()["groups_completed"]
    env = gym.make("GenEnv-Remote-v0", url=url, env_id=SIM, transport=transport, shared_curriculum="digits")
    try:
        for _ in range(4):
            obs, _ = env.reset()
            env.step(answer_for(obs, True))
    finally:
        env.close()
    assert service.state()["groups_completed"] == before + 1


def test_a_client_that_seeds_every_reset_leaves_no_group_waiting(server):
    """A seeded reset mid-group abandons the group: the session discards it, so a client that seeds each
    episode neither piles up open groups nor reaches the session's limit of groups recorded in part."""
    url, background, _ = server
    service = hosted(background)._hosted["digits"].service
    with client(url) as c:
        sid = join(c)
        before = c.get("/curricula/digits").json()["state"]
        for seed in range(MAX_PARTIAL + 4):
            obs = c.post(f"/envs/{SIM}/reset", json={"session_id": sid, "seed": seed}).json()["observation"]
            step = c.post(
                f"/envs/{SIM}/step",
                json={"action": {"text": answer_for(obs["text"], True)}, "session_id": sid},
            )
            assert step.status_code == 200, step.text
        after = c.get("/curricula/digits").json()["state"]
        c.delete(f"/envs/{SIM}/sessions/{sid}")
    assert after["open_groups"] <= before["open_groups"] + 1  # only the last group, still being played
    assert after["dropped_groups"] >= before["dropped_groups"] + MAX_PARTIAL + 3
    assert any(e["event"] == "discard" for e in service.log())


def test_clients_may_only_join_a_declared_curriculum_of_their_id(server):
    url, _, _ = server
    with client(url) as c:
        unknown = c.post(f"/envs/{SIM}/sessions", json={"env_kwargs": {JOIN_KEY: "nope"}})
        assert unknown.status_code == 404 and unknown.json()["code"] == "UNKNOWN_CURRICULUM"
        assert "digits" in unknown.json()["detail"]
        wrong_id = c.post(f"/envs/{SIM}/sessions", json={"env_kwargs": {JOIN_KEY: "ladder"}})
        assert wrong_id.status_code == 404
        not_text = c.post(f"/envs/{SIM}/sessions", json={"env_kwargs": {JOIN_KEY: ["digits"]}})
        assert not_text.status_code == 404
        oneshot = c.post(f"/envs/{SIM}/reset", json={"env_kwargs": {JOIN_KEY: "digits"}})
        assert oneshot.status_code == 422
        assert c.get("/curricula/nope").status_code == 404
        listed = c.get("/curricula").json()["curricula"]
        assert {(x["name"], x["env_id"], x["group_size"]) for x in listed} == {
            ("digits", SIM, 4),
            ("ladder", OTHER, 4),
        }
        assert c.get(f"/envs/{SIM}/spec").json()["shared_curricula"] == ["digits"]


def test_checkpoints_and_diagnostics_are_written_and_a_restarted_host_goes_on_from_them(server):
    url, background, directory = server
    with client(url) as c:
        sid = join(c)
        for _ in range(8):
            play(c, sid, right=False)
        c.delete(f"/envs/{SIM}/sessions/{sid}")
        diagnostics = c.get("/curricula/digits").json()["diagnostics"]
    assert diagnostics["curriculum/groups"] >= 1  # the last interval's (every 2 groups)
    assert {"curriculum/signal_share", "curriculum/too_hard_share", "curriculum/in_band_share"} <= set(
        diagnostics
    )
    lines = (directory / "digits.metrics.jsonl").read_text().splitlines()
    assert lines and "groups_completed" in json.loads(lines[-1])
    assert (directory / "digits.ckpt").exists()
    assert (directory / "digits.log.jsonl").exists()
    live = hosted(background)._hosted["digits"].service
    saved = HostedCurricula([CurriculumSpec("copy", SIM)], no_kwargs).start()
    try:
        hosted(background).checkpoint_all()
        saved._hosted["copy"].service.restore(pickle.loads((directory / "digits.ckpt").read_bytes()))
        restored = saved._hosted["copy"].service
        assert restored.state()["skill"] == live.state()["skill"]
        assert [p.task for p in restored.propose(3, seed=7)] == [p.task for p in live.propose(3, seed=7)]
    finally:
        saved.close(checkpoint=False)


def test_a_host_killed_between_checkpoints_never_reissues_an_id_and_its_log_replays(tmp_path):
    """``--curriculum-dir``: a host that dies without its shutdown checkpoint (kill -9) starts again from
    its last checkpoint as a new incarnation, written back before it proposes; restarted twice from one
    file, it still hands out new ids; its log file replays to the live state."""
    specs = [CurriculumSpec("digits", SIM)]

    def start() -> HostedCurricula:
        return HostedCurricula(specs, no_kwargs, str(tmp_path), checkpoint_every=1).start()

    def propose(host: HostedCurricula, session: str, n: int) -> list[str]:
        return [p["proposal_id"] for p in call(host, session, {"method": "propose", "n": n})["proposals"]]

    def record(host: HostedCurricula, session: str, pid: str, times: int) -> None:
        for attempt in range(times):
            message = {"method": "record", "proposal_id": pid, "success": attempt % 2 == 0}
            assert "error" not in call(host, session, message)

    first = start()
    issued = propose(first, "a", 2)
    for pid in issued:
        record(first, "a", pid, 4)  # each closed group writes a checkpoint
    lost = propose(first, "a", 1)
    record(first, "a", lost[0], 2)  # after the last checkpoint: lost with the process
    issued += lost
    first.close(checkpoint=False)  # killed: no shutdown checkpoint
    second = start()
    issued += propose(second, "b", 1)
    second.close(checkpoint=False)  # killed again before any group closed
    third = start()
    fresh = propose(third, "c", 2)
    for pid in fresh:
        record(third, "c", pid, 4)
    issued += fresh
    assert len(set(issued)) == len(issued) == 6
    state = third._hosted["digits"].service.state()
    assert state["groups_completed"] == 4 and state["open_groups"] == 0
    replayed = CurriculumService.for_env(SIM, prior_half_life=third._hosted["digits"].service.prior_half_life)
    replay(replayed, read_log(str(tmp_path / "digits.log.jsonl")))
    assert replayed.state() == state
    replayed.close()
    third.close(checkpoint=False)


# -- what a session's process may do to the curriculum (HostedCurricula.answer, no server) -----------------


@pytest.fixture(scope="module")
def host():
    curricula = HostedCurricula([CurriculumSpec("digits", SIM)], no_kwargs).start()
    yield curricula
    curricula.close(checkpoint=False)


def call(host: HostedCurricula, session: str, message) -> dict:
    return host.answer(session, "digits", json.dumps(message).encode())


def test_a_session_records_only_its_own_proposals_and_each_at_most_group_size_times(host):
    proposal = call(host, "session-a", {"method": "propose", "n": 1})["proposals"][0]
    pid = proposal["proposal_id"]
    assert "error" in call(host, "session-b", {"method": "record", "proposal_id": pid, "success": True})
    for _ in range(3):
        assert call(host, "session-a", {"method": "record", "proposal_id": pid, "success": True}) == {
            "update": None
        }
    closed = call(host, "session-a", {"method": "record", "proposal_id": pid, "success": False})
    assert closed["update"] is not None
    again = call(host, "session-a", {"method": "record", "proposal_id": pid, "success": True})
    assert "error" in again


def test_a_record_waits_on_a_thread_while_another_call_holds_the_curriculum(host):
    """The event loop records inline only when that cannot block: with the service held (a slow proposal
    say), ``record(wait=False)`` refuses at once and ``call`` finishes the record on a thread."""
    service = host._hosted["digits"].service
    pid = call(host, "busy", {"method": "propose", "n": 1})["proposals"][0]["proposal_id"]
    task = host._hosted["digits"].given["busy"][pid][0]
    logged = len(service.log())
    body = json.dumps({"method": "record", "proposal_id": pid, "success": True}).encode()
    loop = asyncio.new_event_loop()
    with service._lock:  # another call holds the service
        with pytest.raises(ServiceBusy):
            service.record(task, True, proposal_id=pid, wait=False)
        pending = loop.create_task(host.call("busy", "digits", body))
        loop.run_until_complete(asyncio.sleep(0.2))
        assert not pending.done()  # waiting for the service on a thread, the loop free meanwhile
    assert loop.run_until_complete(pending) == {"update": None}
    loop.close()
    assert len(service.log()) == logged + 1  # one record: the refused one left nothing


def test_a_session_opens_at_most_max_partial_groups_and_discards_only_its_own(host):
    ids = [
        p["proposal_id"]
        for p in call(host, "opener", {"method": "propose", "n": MAX_PARTIAL + 1})["proposals"]
    ]
    for pid in ids[:MAX_PARTIAL]:
        assert call(host, "opener", {"method": "record", "proposal_id": pid, "success": True}) == {
            "update": None
        }
    refused = call(host, "opener", {"method": "record", "proposal_id": ids[-1], "success": True})
    assert "limit" in refused["error"]
    assert "error" in call(host, "someone-else", {"method": "discard", "proposal_id": ids[0]})
    dropped = host._hosted["digits"].service.state()["dropped_groups"]
    assert call(host, "opener", {"method": "discard", "proposal_id": ids[0]}) == {"discarded": True}
    assert host._hosted["digits"].service.state()["dropped_groups"] == dropped + 1
    assert call(host, "opener", {"method": "record", "proposal_id": ids[-1], "success": True}) == {
        "update": None
    }
    assert "error" in call(host, "opener", {"method": "discard", "proposal_id": ids[0]})  # gone already


def test_a_session_cannot_hoard_or_misuse_calls(host):
    for bad in (0, 65, -1, True, "3", 2.5, None):
        assert "error" in call(host, "s", {"method": "propose", "n": bad})
    pid = call(host, "s", {"method": "propose", "n": 1})["proposals"][0]["proposal_id"]
    for bad in (1, "yes", None, 0.0):
        assert "error" in call(host, "s", {"method": "record", "proposal_id": pid, "success": bad})
    assert "error" in call(host, "s", {"method": "checkpoint"})
    assert "error" in call(host, "s", {"method": "restore", "state": {}})
    assert "error" in host.answer("s", "digits", b"[" * 10_000)
    assert "error" in host.answer("s", "digits", b"not json")
    assert "error" in host.answer("s", "elsewhere", b"{}")
    for _ in range(MAX_OUTSTANDING // 64 + 2):
        call(host, "hoarder", {"method": "propose", "n": 64})
    assert len(host._hosted["digits"].given["hoarder"]) == MAX_OUTSTANDING


@settings(max_examples=60, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=20),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
        max_leaves=12,
    )
)
def test_hostile_calls_are_answered_and_never_touch_another_sessions_groups(host, message):
    before = host._hosted["digits"].service.state()["groups_completed"]
    answer = host.answer("hostile", "digits", json.dumps(message).encode())
    assert isinstance(answer, dict)
    json.dumps(answer)
    assert host._hosted["digits"].service.state()["groups_completed"] == before


# -- the same interface in one process: envs that join a shared service -----------------------------------


def test_envs_joined_to_one_service_leave_the_state_one_env_leaves_when_fed_the_same_outcomes():
    shared = CurriculumService.for_env(SIM)
    envs = [gym.make(SIM) for _ in range(2)]
    for env in envs:
        env.unwrapped.join_curriculum(shared)
    outcomes = []
    for episode in range(16):
        env = envs[episode % 2]
        obs, _ = env.reset()
        right = (episode // 2) % 3 != 0
        _, _, _, _, done = env.step(answer_for(obs, right))
        outcomes.append(done["success"])
    assert shared.state()["groups_completed"] == 4
    assert envs[0].unwrapped.curriculum_state() == shared.state()
    alone = CurriculumService.for_env(SIM)
    try:
        replay(alone, shared.log())
        assert alone.checkpoint() == shared.checkpoint()
    finally:
        alone.close()
        shared.close()
        for env in envs:
            env.close()


def test_the_curriculum_flag_is_checked():
    assert CurriculumSpec.parse("math=GenEnv-Sim-Digits-v0") == CurriculumSpec("math", SIM)
    for bad in ("math", "=GenEnv-Sim-Digits-v0", "../x=GenEnv-Sim-Digits-v0", "a/b=X", "math="):
        with pytest.raises(ValueError, match="--curriculum"):
            CurriculumSpec.parse(bad)
    with pytest.raises(ValueError, match="only a simulator id"):
        HostedCurricula([CurriculumSpec("fixed", "GenEnv-Digits-v0")], no_kwargs)
    with pytest.raises(ValueError, match="twice"):
        HostedCurricula([CurriculumSpec("a", SIM), CurriculumSpec("a", SIM)], no_kwargs)


def test_genenv_serve_refuses_a_curriculum_it_cannot_host(capsys):
    from genenv_gym.cli.main import main

    assert main(["serve", "--curriculum", "no-equals-sign"]) == 2
    assert "NAME=ENV_ID" in capsys.readouterr().err
    assert main(["serve", "--env", SIM, "--curriculum", f"x={OTHER}"]) == 2
    assert "does not serve" in capsys.readouterr().err
    assert main(["serve", "--env", "GenEnv-Digits-v0", "--curriculum", "x=GenEnv-Digits-v0"]) == 2
    assert "only a simulator id" in capsys.readouterr().err


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")  # uvicorn's exit(3)
def test_a_curriculum_that_cannot_be_built_stops_the_server_from_starting():
    config = ServeConfig(
        Catalog([SIM], lambda env_id: {"batch_size": 0}), curricula=(CurriculumSpec("broken", SIM),)
    )
    background = BackgroundServer(config, start_timeout_s=20)
    with pytest.raises(RuntimeError, match="did not start"):
        background.__enter__()
    background.thread.join(10)
    assert not background.thread.is_alive()
    assert background.manager.zygote.pid is None  # the zygote forked before the build was stopped


def test_a_process_gets_at_most_a_few_curriculum_calls_answered_per_request():
    """A subverted session process that loops on calls within one request gets refusals past the cap,
    and the server never stops reading its reply."""
    from genenv_gym.serve import frames
    from genenv_gym.serve.worker import MAX_CALLS_PER_REQUEST, WorkerProcess

    server_end, process_end = socket.socketpair()
    answers: list[dict] = []

    def subverted_process() -> None:
        frames.receive(process_end)  # the request
        for _ in range(MAX_CALLS_PER_REQUEST + 3):
            process_end.sendall(frames.encode_reply(frames.CALL, b'{"method": "state"}'))
            answers.append(frames.receive(process_end))
        process_end.sendall(frames.encode_reply(frames.OK, b'{"done": true}'))

    served: list[bytes] = []

    async def on_call(body: bytes) -> dict:
        served.append(body)
        return {"state": {}}

    async def ask() -> bytes:
        worker = WorkerProcess(2**30, server_end)  # no such process: nothing to kill if it went wrong
        await worker.connect()
        return await worker.ask({"op": "step", "action": "x"}, on_call)

    thread = threading.Thread(target=subverted_process)
    thread.start()
    assert asyncio.run(ask()) == b'{"done": true}'
    thread.join(5)
    process_end.close()
    assert len(served) == MAX_CALLS_PER_REQUEST
    assert all("error" in a for a in answers[MAX_CALLS_PER_REQUEST:])
    assert all("state" in a for a in answers[:MAX_CALLS_PER_REQUEST])


def test_genenv_serve_exits_1_when_the_app_does_not_start(monkeypatch, capsys):
    """A curriculum whose build fails at start-up (after the zygote's fork) makes uvicorn give up; the
    command then says so and exits 1."""
    import genenv_gym.serve.server
    from genenv_gym.cli.main import main

    class Server:
        started = False

        def run(self) -> None:
            return None

    monkeypatch.setattr(genenv_gym.serve.server, "uvicorn_server", lambda *args, **kwargs: Server())
    assert main(["serve", "--env", SIM, "--curriculum", f"x={SIM}"]) == 1
    assert "did not start" in capsys.readouterr().err
