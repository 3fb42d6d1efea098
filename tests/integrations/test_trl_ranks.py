"""Several TRL processes on one curriculum: every rank reads the same rows from TRL's own repeated stream,
and the groups that straddle ranks are counted once, as one process fed the same groups in the same order."""

from __future__ import annotations

import random

import pytest
from trainer_episodes import require

require("trl", "pip install 'genenv-gym[trl]'")
from trl.trainer.utils import repeat_iterable_dataset  # noqa: E402

from genenv_gym.curriculum_service.service import CurriculumService, replay  # noqa: E402
from genenv_gym.integrations.trl_env import row_of, trl_environment  # noqa: E402

ENV_ID = "GenEnv-Sim-Digits-v0"
GROUP, PROMPTS, RANKS = 4, 2, 4  # a global batch of 2 groups of 4; each rank keeps 2 rollouts of it


def outcome(task, position: int) -> bool:
    return random.Random(f"{task.id}/{position}").random() < 1.0 - task.level / 15


def test_ranks_on_one_curriculum_read_the_same_groups_and_count_them_once() -> None:
    shared = CurriculumService.for_env(ENV_ID, group_size=GROUP, seed=0)
    ranks = [trl_environment(ENV_ID, GROUP, curriculum=shared) for _ in range(RANKS)]
    # each rank reads the whole stream as GRPOTrainer repeats it (dispatch_batches=False) ...
    streams = [iter(repeat_iterable_dataset(r.dataset, GROUP, PROMPTS)) for r in ranks]
    size = GROUP * PROMPTS
    per_rank = size // RANKS
    played = []
    for step in range(3):
        order = list(range(RANKS))
        random.Random(step).shuffle(order)  # ranks reach the stream in any order
        batches = {r: [row_of(next(streams[r])["prompt"]) for _ in range(size)] for r in order}
        assert all(batches[r] == batches[0] for r in order)  # every rank sees the same rows
        # ... keeps its contiguous slice, plays it, and records its rollouts, the ranks interleaved
        records = []
        for r in order:
            for position in range(r * per_rank, (r + 1) * per_rank):
                pin = batches[r][position]
                task = ranks[r].tasks.task_for(pin)
                records.append((r, task, pin["proposal_id"], outcome(task, step * size + position)))
        random.Random(100 + step).shuffle(records)
        for r, task, proposal_id, success in records:
            ranks[r].tasks.record(task, success, proposal_id)
        played += [(task, proposal_id, success) for _, task, proposal_id, success in records]
        assert shared.end_step()["curriculum/groups"] == PROMPTS  # every straddling group closed once
    state = shared.state()
    assert state["groups_completed"] == 3 * PROMPTS and state["open_groups"] == 0
    # one process fed the same groups in the same order
    one = trl_environment(ENV_ID, GROUP)
    stream = iter(repeat_iterable_dataset(one.dataset, GROUP, PROMPTS))
    for step in range(3):
        rows = [row_of(next(stream)["prompt"]) for _ in range(size)]
        assert [p["proposal_id"] for p in rows] == [p["proposal_id"] for p in batches_at(step, shared)]
        for task, proposal_id, success in played[step * size : (step + 1) * size]:
            one.tasks.record(task, success, proposal_id)
    assert one.tasks.curriculum.state() == state
    fresh = CurriculumService.for_env(ENV_ID, group_size=GROUP)
    replay(fresh, shared.log())
    assert fresh.state() == state


def batches_at(step: int, service: CurriculumService) -> list[dict]:
    """The rows of a step's global batch as the shared curriculum proposed them (each prompt GROUP times)."""
    proposals = [e for e in service.log() if e["event"] == "propose" and "index" in e]
    ids = [e["ids"][0] for e in proposals[step * PROMPTS : (step + 1) * PROMPTS]]
    return [{"proposal_id": i} for i in ids for _ in range(GROUP)]


@pytest.mark.slow
def test_two_grpo_trainer_processes_share_one_curriculum(tmp_path) -> None:
    """GRPOTrainer in two CPU processes (torchrun, gloo), each group of 4 split 2 + 2 over the ranks: both
    play the same proposal in each step, and the Ray actor closes each group once."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    require("ray", "pip install 'genenv-gym[verl]'")
    import ray

    helpers = Path(__file__).parents[1] / "helpers"
    context = ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        env = {
            **os.environ,
            "OMP_NUM_THREADS": "1",
            "PYTHONPATH": os.pathsep.join([str(helpers.parents[1]), str(helpers)]),
        }
        cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2"]
        cmd += [str(helpers / "trl_ranks_worker.py"), str(tmp_path), context.address_info["gcs_address"]]
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=400)
        assert done.returncode == 0, done.stderr[-3000:]
        ranks = [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in range(2)]
        steps = [[set(batch) for batch in rank["played"]] for rank in ranks]
        assert steps[0] == steps[1] and all(len(ids) == 1 for ids in steps[0])  # one proposal per step
        # each group closed once, on whichever rank recorded its last rollout (a curriculum per rank: none)
        assert len(ranks[0]["updates"]) + len(ranks[1]["updates"]) == 2
    finally:
        ray.shutdown()
