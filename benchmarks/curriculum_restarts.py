"""A shared curriculum killed in the middle of a training step, in each placement, and what that costs.

- ``ray-propose``: a named Ray actor (``shared_curriculum``) read as verl's live dataset reads it (``propose``
  per row), ``ray.kill(actor, no_restart=False)`` with groups in flight; the rollouts of the step go on
  recording, then the next steps run.
- ``ray-propose_at``: the same actor read as TRL's ranks read it (two ranks, ``propose_at`` per stream
  position, each playing half of every group), killed between the two ranks' reads of a step;
  ``ray-propose_at-played``: the same, rank 0 having played its half of the step before the kill.
- ``serve``: ``genenv serve --curriculum-dir`` killed with SIGKILL while clients' sessions play (each
  reset proposes, each step records), then started again; clients join again and play on.

Per placement: proposal ids handed out twice (for two rows, or two stream positions), groups over their
size, groups that can never close (phantom:
open at the end), records lost (sent by a rollout, in neither a closed group, an open one, nor the stale
count), and whether the curriculum's log file replays to its live state.

    PYTHONPATH=. python benchmarks/curriculum_restarts.py

With ``PYTHONPATH`` on another checkout, it measures that one (``--checkout`` names it in the output).
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ENV_ID = "GenEnv-Sim-Digits-v0"
N = 4


def read_events(path: str) -> list[dict[str, Any]]:
    """A log file's events (lines a crash cut short left out)."""
    events = []
    for line in Path(path).read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            events.append(json.loads(line))
        except ValueError:
            continue
    return events


def replays(log_path: str, live_state: dict[str, Any], group_size: int) -> str:
    """Whether a fresh service fed the log file ends in ``live_state``."""
    from genenv_gym.curriculum_service.service import CurriculumService, replay

    fresh = CurriculumService.for_env(ENV_ID, group_size=group_size)
    try:
        replay(fresh, read_events(log_path))
    except Exception as error:  # the finding
        return f"fails: {str(error)[:90]}"
    finally:
        fresh.close()
    same = {k: v for k, v in fresh.state().items()} == live_state
    return "replays to the live state" if same else "replays to another state"


def accounting(checkpoint: dict[str, Any], sent: int, group_size: int) -> dict[str, int]:
    """Records kept in closed groups, open groups and the stale count, against those sent."""
    open_groups = checkpoint["groups"]["open"]
    in_open = sum(len(outcomes) for _, _, outcomes in open_groups)
    over = sum(1 for _, size, outcomes in open_groups if len(outcomes) > size)
    kept = checkpoint["groups_completed"] * group_size + in_open + int(checkpoint.get("stale_records", 0))
    return {"open_groups_at_end": len(open_groups), "groups_over_size": over, "records_lost": sent - kept}


def outcome(task: Any, attempt: int) -> bool:
    return random.Random(f"{task.id}/{attempt}").random() < 0.5


def wait_for_new_actor(curriculum: Any, pid: int) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if curriculum.describe()["pid"] != pid:
                return
        except Exception:  # the actor is restarting
            pass
        time.sleep(0.2)
    raise TimeoutError("the actor did not come back")


def ray_run(mode: str, folder: Path) -> dict[str, Any]:
    import ray

    from genenv_gym.curriculum_service.ray_actor import shared_curriculum

    log, ckpt = str(folder / f"{mode}.log.jsonl"), str(folder / f"{mode}.ckpt")
    curriculum = shared_curriculum(
        f"restarts-{mode}", ENV_ID, group_size=N, checkpoint_path=ckpt, log_path=log
    )
    issued: list[tuple[str, int]] = []  # (proposal id, the row or stream position it was handed out for)
    sent = 0
    position = 0
    rows_per_step = 3

    def read_step(ranks_before_kill: int | None = None) -> list[list[Any]]:
        """Each rank's proposals of one step (``propose``: one reader; ``propose_at``: two ranks)."""
        nonlocal position
        if mode == "ray-propose":
            proposals = curriculum.propose(rows_per_step)
            issued.extend((p.proposal_id, len(issued)) for p in proposals)  # every proposal is a new row
            return [proposals]
        ranks = []
        for rank in range(2):
            if ranks_before_kill is not None and rank == ranks_before_kill:
                kill_and_wait()
            got = [curriculum.propose_at(position + i, 100 + position + i) for i in range(rows_per_step)]
            issued.extend((p.proposal_id, position + i) for i, p in enumerate(got))
            ranks.append(got)
        position += rows_per_step
        return ranks

    def play(ranks: list[list[Any]], attempts: range | None = None) -> None:
        nonlocal sent
        share = N // len(ranks)
        for rank, proposals in enumerate(ranks):
            for p in proposals:
                for a in attempts or range(share):
                    curriculum.record(p.task, outcome(p.task, rank * share + a), proposal_id=p.proposal_id)
                    sent += 1

    def kill_and_wait() -> None:
        pid = curriculum.describe()["pid"]
        ray.kill(curriculum.handle, no_restart=False)
        wait_for_new_actor(curriculum, pid)

    for _ in range(2):  # two full steps, then the trainer's checkpoint
        play(read_step())
    curriculum.checkpoint()
    if mode == "ray-propose":
        ranks = read_step()
        play(ranks, range(1))  # one rollout of each group recorded, then the actor dies
        kill_and_wait()
        play(ranks, range(1, N))  # the step's other rollouts still arrive
    elif mode == "ray-propose_at":
        ranks = read_step(ranks_before_kill=1)  # rank 0 read the step, the actor died, rank 1 reads it
        play(ranks)
    else:  # rank 0 read and played its half of the step, the actor died, rank 1 reads and plays its half
        first = [curriculum.propose_at(position + i, 100 + position + i) for i in range(rows_per_step)]
        issued.extend((p.proposal_id, position + i) for i, p in enumerate(first))
        for p in first:
            for a in range(N // 2):
                curriculum.record(p.task, outcome(p.task, a), proposal_id=p.proposal_id)
                sent += 1
        kill_and_wait()
        second = [curriculum.propose_at(position + i, 100 + position + i) for i in range(rows_per_step)]
        issued.extend((p.proposal_id, position + i) for i, p in enumerate(second))
        position += rows_per_step
        for p in second:
            for a in range(N // 2, N):
                curriculum.record(p.task, outcome(p.task, a), proposal_id=p.proposal_id)
                sent += 1
    for _ in range(2):
        play(read_step())
    state = curriculum.state()
    final = curriculum.checkpoint()
    ids = Counter(proposal_id for proposal_id, _ in set(issued))
    logged = Counter(i for e in read_events(log) if e["event"] == "propose" for i in e["ids"])
    result = {
        "ids_handed_out_twice": sum(1 for c in ids.values() if c > 1),
        "ids_logged_twice": sum(1 for c in logged.values() if c > 1),
        "groups_completed": state["groups_completed"],
        "distinct_proposals": len(ids),
        **accounting(final, sent, N),
        "records_sent": sent,
        "log": replays(log, state, N),
    }
    ray.kill(curriculum.handle)
    return result


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve_run(folder: Path) -> dict[str, Any]:
    import httpx

    from genenv_gym.curriculum_service.service import CurriculumService

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    command = [
        sys.executable, "-m", "genenv_gym.cli", "serve", "--env", ENV_ID, "--port", str(port),
        "--curriculum", f"digits={ENV_ID}", "--curriculum-dir", str(folder),
        "--curriculum-checkpoint-every", "2",
    ]  # fmt: skip

    def start() -> subprocess.Popen:
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{url}/health", timeout=2).status_code < 500:
                    return process
            except httpx.HTTPError:
                time.sleep(0.3)
        raise TimeoutError("genenv serve did not start")

    sent = 0

    def play(client: httpx.Client, sid: str, episodes: int) -> None:
        nonlocal sent
        for k in range(episodes):
            obs = client.post(f"/envs/{ENV_ID}/reset", json={"session_id": sid}).json()["observation"]
            digits = obs["text"].split(":", 1)[1].split()
            action = " ".join(reversed(digits)) if k % 2 else "wrong"
            done = client.post(f"/envs/{ENV_ID}/step", json={"action": {"text": action}, "session_id": sid})
            done.raise_for_status()
            sent += 1

    def sessions(count: int) -> tuple[httpx.Client, list[str]]:
        client = httpx.Client(base_url=url, timeout=60)
        made = []
        for _ in range(count):
            answer = client.post(
                f"/envs/{ENV_ID}/sessions", json={"env_kwargs": {"shared_curriculum": "digits"}}
            )
            answer.raise_for_status()
            made.append(answer.json()["session_id"])
        return client, made

    server = start()
    client, sids = sessions(2)
    for sid in sids:
        play(client, sid, 2 * N + 1)  # two groups each, and one episode of a third
    server.send_signal(signal.SIGKILL)
    server.wait()
    client.close()
    server = start()
    client, sids = sessions(2)
    for sid in sids:
        play(client, sid, 2 * N)
    client.close()
    server.send_signal(signal.SIGTERM)  # a graceful stop: the last checkpoint
    server.wait(timeout=60)
    log, ckpt = str(folder / "digits.log.jsonl"), str(folder / "digits.ckpt")
    final = pickle.loads(Path(ckpt).read_bytes())
    restored = CurriculumService.for_env(ENV_ID)
    restored.restore(final)
    state = restored.state()
    restored.close()
    logged = Counter(i for e in read_events(log) if e["event"] == "propose" for i in e["ids"])
    return {
        "ids_logged_twice": sum(1 for c in logged.values() if c > 1),
        "groups_completed": state["groups_completed"],
        **accounting(final, sent, N),
        "records_sent": sent,
        "log": replays(log, state, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    modes = ["ray-propose", "ray-propose_at", "ray-propose_at-played", "serve"]
    parser.add_argument("--modes", nargs="*", default=modes)
    parser.add_argument("--checkout", default=os.environ.get("PYTHONPATH", "."))
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="curriculum-restarts-"))
    if any(m.startswith("ray") for m in args.modes):
        import ray

        ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    for mode in args.modes:
        (folder / mode).mkdir()
        result = serve_run(folder / mode) if mode == "serve" else ray_run(mode, folder / mode)
        print(json.dumps({"checkout": args.checkout, "mode": mode, **result}), flush=True)


if __name__ == "__main__":
    main()
