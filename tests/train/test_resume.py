"""Resuming from a checkpoint gives the same metrics as an uninterrupted run (CPU)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from test_train_loop import tiny_config

from genenv_gym.train.loop import Trainer


def _rows(path: Path) -> list[dict]:
    rows = [json.loads(line) for line in (path / "metrics.jsonl").read_text().splitlines()]
    for row in rows:
        for key in [k for k in row if k.endswith("seconds")]:
            row.pop(key)
    return rows


def test_resume_is_identical(tmp_path: Path) -> None:
    Trainer(tiny_config(tmp_path / "straight", "run.epochs=3")).run()
    Trainer(tiny_config(tmp_path / "split", "run.epochs=1")).run()
    Trainer(tiny_config(tmp_path / "split", "run.epochs=3")).run(resume=True)
    assert _rows(tmp_path / "split") == _rows(tmp_path / "straight")


def test_stop_request_leaves_a_resumable_checkpoint(tmp_path: Path) -> None:
    trainer = Trainer(tiny_config(tmp_path, "run.epochs=3", "run.checkpoint_every=100"))
    original = trainer.train_epoch

    def epoch_then_signal() -> dict:
        row = original()
        trainer._request_stop(15, None)  # what SIGTERM does
        return row

    trainer.train_epoch = epoch_then_signal  # type: ignore[method-assign]
    trainer.run()
    resumed = Trainer(tiny_config(tmp_path, "run.epochs=3"))
    resumed.run(resume=True)
    assert resumed.epoch == 3
    assert [r["epoch"] for r in _rows(tmp_path)] == [0, 1, 2, 3]
