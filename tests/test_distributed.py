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
    worker = Path(__file__).with_name("ddp_worker.py")
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(Path(__file__).parents[1])}
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
