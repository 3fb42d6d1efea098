"""Two CPU processes under torchrun (gloo): a DDP-wrapped agent update leaves the ranks with equal weights."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")


def test_ddp_agent_update_keeps_ranks_identical(tmp_path: Path) -> None:
    worker = Path(__file__).parents[1] / "helpers" / "ddp_worker.py"
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(Path(__file__).parents[2])}
    cmd = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        "--nproc_per_node",
        "2",
        str(worker),
        str(tmp_path),
    ]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    rank0 = torch.load(tmp_path / "rank0.pt")
    rank1 = torch.load(tmp_path / "rank1.pt")
    assert rank0.keys() == rank1.keys()
    for key in rank0:
        assert torch.equal(rank0[key], rank1[key]), key
    torch.manual_seed(0)  # the update moved the weights (the test is not vacuous)
    from micro_model import micro_qwen2

    initial = micro_qwen2().state_dict()
    assert any(not torch.equal(initial[k], rank0[k]) for k in rank0)


def test_trainer_under_torchrun_keeps_ranks_in_step(tmp_path: Path) -> None:
    """Two ranks share the rollouts and stay identical: weights, skill tracker, simulator and metrics."""
    from test_train_loop import TINY

    worker = Path(__file__).parents[1] / "helpers" / "train_worker.py"
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(Path(__file__).parents[2])}
    overrides = [*TINY, "agent.replay_tasks=2"]
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2"]
    done = subprocess.run(
        [*cmd, str(worker), str(tmp_path), *overrides], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rank0, rank1 = torch.load(tmp_path / "rank0.pt"), torch.load(tmp_path / "rank1.pt")
    for key in rank0["weights"]:
        assert torch.equal(rank0["weights"][key], rank1["weights"][key]), key
    assert str(rank0["skill"]) == str(rank1["skill"]) and str(rank0["simulator"]) == str(rank1["simulator"])
    assert rank0["rows"][-1]["gen_success"] == rank1["rows"][-1]["gen_success"]
    assert all("pg_loss" in r for r in rank0["rows"][1:])  # the update ran on both epochs
    # one checkpoint and one metrics file (rank 0), counting both ranks' samples: (4 + 2) tasks x G = 2
    logged = (tmp_path / "metrics.jsonl").read_text().splitlines()
    assert len(logged) == 3 and (tmp_path / "checkpoint.pt").exists()
    assert rank0["rows"][-1]["agent_samples"] == 2 * 6 * 2
