"""The curriculum service as a named Ray actor (one local Ray for the module): get-or-create by name, many
concurrent recorders in other processes, equality with one process fed the same order, checkpoint/restore."""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

import pytest
from trainer_episodes import require

require("ray", "pip install 'genenv-gym[verl]'")

import ray  # noqa: E402

from genenv_gym.curriculum_service.ray_actor import shared_curriculum  # noqa: E402
from genenv_gym.curriculum_service.service import CurriculumService, replay  # noqa: E402

ENV_ID = "GenEnv-Sim-Digits-v0"
N = 4


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    # the workers import this module (its remote recorder) and the checkout's genenv_gym
    saved = os.environ.get("PYTHONPATH")
    paths = [str(Path(__file__).parent), *sys.path]
    os.environ["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(p for p in paths if p))
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()
    if saved is None:
        os.environ.pop("PYTHONPATH", None)
    else:
        os.environ["PYTHONPATH"] = saved


def outcome(task, attempt: int) -> bool:
    return random.Random(f"{task.id}/{attempt}").random() < 1.0 - task.level / 15


@ray.remote(num_cpus=0)
def recorder(name: str, proposals: list, index: int) -> int:
    """A rollout worker: finds the curriculum by name and records its rollout of every proposal."""
    curriculum = shared_curriculum(name)
    mine = list(proposals)
    random.Random(index).shuffle(mine)
    for p in mine:
        curriculum.record(p.task, outcome(p.task, index), proposal_id=p.proposal_id, recorder=f"w{index}")
    return len(mine)


def test_concurrent_recorders_give_what_one_process_fed_the_logged_order_gives() -> None:
    curriculum = shared_curriculum("equality", ENV_ID, group_size=N, seed=11)
    assert shared_curriculum("equality", ENV_ID).describe() == curriculum.describe()  # get, not create
    for _ in range(3):  # three trainer steps: propose, N workers record concurrently, diagnostics
        proposals = curriculum.propose(8)
        assert sum(ray.get([recorder.remote("equality", proposals, i) for i in range(N)])) == 8 * N
        report = curriculum.end_step()
        assert report["curriculum/groups"] == 8.0 and report["curriculum/open_groups"] == 0.0
    log = curriculum.log()
    records = [e for e in log if e["event"] == "record"]
    assert len(records) == 3 * 8 * N and {e["recorder"] for e in records} == {f"w{i}" for i in range(N)}
    one_process = CurriculumService.for_env(ENV_ID, group_size=N, seed=11)
    replay(one_process, log)
    assert one_process.state() == curriculum.state()
    assert [p.task.id for p in one_process.propose(6)] == [p.task.id for p in curriculum.propose(6)]
    one_process.close()


def test_an_actor_that_dies_is_restored_from_its_last_checkpoint(tmp_path) -> None:
    path = str(tmp_path / "curriculum.json")
    curriculum = shared_curriculum("restored", ENV_ID, group_size=N, checkpoint_path=path)
    for _ in range(5):
        p = curriculum.propose(1)[0]
        curriculum.record_group(p.task, [outcome(p.task, a) for a in range(N)], proposal_id=p.proposal_id)
    saved = curriculum.checkpoint()
    before = curriculum.state()
    lost = curriculum.propose(1)[0]  # after the checkpoint: lost with the actor
    curriculum.record(lost.task, True, proposal_id=lost.proposal_id)
    pid = curriculum.describe()["pid"]
    ray.kill(curriculum.handle)
    successor = shared_curriculum("restored", ENV_ID, group_size=N, checkpoint_path=path)
    assert successor.describe()["pid"] != pid and successor.state() == before
    assert successor.propose(1)[0].task.id == lost.task.id  # it goes on from the checkpoint
    fresh = CurriculumService.for_env(ENV_ID, group_size=N)
    fresh.restore(saved)
    assert fresh.state() == before
    fresh.close()


def test_only_service_methods_reach_the_actor() -> None:
    curriculum = shared_curriculum("allow-list", ENV_ID)
    with pytest.raises(ray.exceptions.RayTaskError, match="not a curriculum service method"):
        ray.get(curriculum.handle.call.remote("close"))
