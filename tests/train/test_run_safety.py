"""Training runs never lose or mix data: resumable warm start, refused run folders, atomic files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

import torch
from test_train_loop import TINY, tiny_config

from genenv_gym.atomic_write import atomic_open
from genenv_gym.cli.main import main
from genenv_gym.train.config import load_config
from genenv_gym.train.loop import Trainer


def _rows(path: Path) -> list[dict]:
    rows = [json.loads(line) for line in (path / "metrics.jsonl").read_text().splitlines()]
    return [{k: v for k, v in row.items() if not k.endswith("seconds")} for row in rows]


#: a warm start of 6 steps whose learning rate decays (so a resume must pick the schedule up where it was)
WARM6 = ("warmstart.steps=6", "warmstart.final_lr_ratio=0.5")


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_a_stop_during_the_warm_start_resumes_to_the_uninterrupted_run(tmp_path: Path, dtype: str) -> None:
    """bfloat16 (the GPU's dtype, here on a CPU): at this learning rate most steps show only in the
    optimizer's float32 master weights, which the checkpoint must carry."""
    common = (*WARM6, "warmstart.lr=1e-5", f"model.dtype={dtype}", "run.epochs=1")
    Trainer(tiny_config(tmp_path / "straight", *common)).run()

    trainer = Trainer(tiny_config(tmp_path / "split", *common))
    assert next(trainer.model.parameters()).dtype == getattr(torch, dtype)
    import genenv_gym.train.loop as loop

    original = loop.sft_step
    calls = {"n": 0}

    def step_then_signal(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 2:
            trainer._request_stop(2, None)  # what Ctrl-C does
        return original(*args, **kwargs)

    loop.sft_step = step_then_signal
    try:
        rows = trainer.run()
    finally:
        loop.sft_step = original
    assert rows == [] and trainer.warmstart_step == 2
    assert (tmp_path / "split" / "checkpoint.pt").exists()

    resumed = Trainer(tiny_config(tmp_path / "split", *common))
    resumed.run(resume=True)
    assert resumed.warmstart_step == 6
    assert _rows(tmp_path / "split") == _rows(tmp_path / "straight")
    straight = torch.load(tmp_path / "straight" / "checkpoint.pt", weights_only=False)["model"]
    split = torch.load(tmp_path / "split" / "checkpoint.pt", weights_only=False)["model"]
    assert all(torch.equal(straight[k], split[k]) for k in straight)


def test_the_warm_start_learning_rate_falls_linearly_to_its_final_ratio(tmp_path: Path, monkeypatch) -> None:
    import genenv_gym.train.loop as loop

    seen: list[float] = []
    original = loop.sft_step

    def record_lr(model, optimizer, batch):
        seen.append(optimizer.param_groups[0]["lr"])
        return original(model, optimizer, batch)

    monkeypatch.setattr(loop, "sft_step", record_lr)
    trainer = Trainer(
        tiny_config(tmp_path, "warmstart.steps=4", "warmstart.lr=0.01", "warmstart.final_lr_ratio=0.2")
    )
    trainer.warm_start()
    assert seen == pytest.approx([0.01, 0.008, 0.006, 0.004])
    assert trainer.cfg.warmstart.lr_at(4) == pytest.approx(0.002)
    constant = tiny_config(tmp_path, "warmstart.steps=4", "warmstart.lr=0.01").warmstart
    assert [constant.lr_at(i) for i in range(5)] == [0.01] * 5
    with pytest.raises(ValueError, match=r"final_lr_ratio must be in \[0, 1\]"):
        tiny_config(tmp_path, "warmstart.final_lr_ratio=1.5").validate()


def test_a_warm_start_with_stop_loss_ends_at_the_loss_and_stays_ended_on_resume(tmp_path: Path) -> None:
    from genenv_gym.train.config import STOP_WINDOW

    # a stop loss every loss is below: the warm start ends as soon as it has a full window of losses
    cfg = tiny_config(
        tmp_path, f"warmstart.steps={STOP_WINDOW + 30}", "warmstart.stop_loss=1000", "run.epochs=0"
    )
    trainer = Trainer(cfg)
    rows = trainer.run()
    assert trainer.warmstart_step == STOP_WINDOW and trainer.warm_started
    assert rows[0]["warmstart_steps"] == STOP_WINDOW
    resumed = Trainer(
        tiny_config(tmp_path, f"warmstart.steps={STOP_WINDOW + 30}", "warmstart.stop_loss=1000")
    )
    resumed.run(resume=True)
    assert resumed.warmstart_step == STOP_WINDOW and resumed.epoch == 2  # went on to train, no more SFT
    # a stop loss no loss reaches: every step runs
    never = Trainer(tiny_config(tmp_path / "never", "warmstart.steps=4", "warmstart.stop_loss=1e-12"))
    never.warm_start()
    assert never.warmstart_step == 4
    with pytest.raises(ValueError, match="stop_loss"):
        tiny_config(tmp_path, "warmstart.stop_loss=-1").validate()


def test_a_fresh_run_removes_the_earlier_checkpoint_before_anything_else(tmp_path: Path) -> None:
    Trainer(tiny_config(tmp_path, "run.epochs=1")).run()
    fresh = Trainer(tiny_config(tmp_path, "run.epochs=1"))
    fresh._start = lambda: (_ for _ in ()).throw(KeyboardInterrupt())  # dies before its first checkpoint
    with pytest.raises(KeyboardInterrupt):
        fresh.run()
    assert not (tmp_path / "checkpoint.pt").exists() and not (tmp_path / "metrics.jsonl").exists()


def _train_cli(tmp_path: Path, *extra: str) -> int:
    config = tmp_path / "defaults.yaml"  # not a run file: the defaults, as TrainConfig() has them
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("{}\n")
    return main(["train", "--config", str(config), *extra, *TINY, "run.epochs=1", f"run.out_dir={tmp_path}"])


def test_genenv_train_refuses_a_used_folder_and_names_its_files(tmp_path: Path, capsys) -> None:
    assert _train_cli(tmp_path) == 0
    out = capsys.readouterr().out
    assert "run files:" in out and str(tmp_path / "metrics.jsonl") in out
    assert _train_cli(tmp_path) == 2
    err = capsys.readouterr().err
    assert "already holds a run" in err and "--resume" in err and "--overwrite" in err
    assert _train_cli(tmp_path, "--overwrite") == 0
    assert [r["epoch"] for r in _rows(tmp_path)] == [0, 1]


def test_genenv_train_resume_without_a_checkpoint_says_so(tmp_path: Path, capsys) -> None:
    assert _train_cli(tmp_path, "--resume") == 2
    assert "nothing to resume" in capsys.readouterr().err


def test_a_run_killed_during_its_first_checkpoint_write_resumes_from_the_beginning(
    tmp_path: Path, capsys
) -> None:
    """``kill -9`` while the first checkpoint is written leaves the run record, epoch 0's metrics and an
    empty temporary file, no checkpoint: ``--resume`` removes the temporary file and runs it again."""
    assert _train_cli(tmp_path / "straight") == 0
    assert _train_cli(tmp_path / "killed") == 0
    (tmp_path / "killed" / "checkpoint.pt").unlink()
    lines = (tmp_path / "killed" / "metrics.jsonl").read_text().splitlines()
    (tmp_path / "killed" / "metrics.jsonl").write_text(lines[0] + "\n")
    stale = tmp_path / "killed" / ".checkpoint.pt-x1y2z3.tmp"
    stale.write_bytes(b"")
    capsys.readouterr()
    assert _train_cli(tmp_path / "killed", "--resume") == 0
    err = capsys.readouterr().err
    assert "removed" in err and "starting it from the beginning" in err
    assert not stale.exists()
    assert _rows(tmp_path / "killed") == _rows(tmp_path / "straight")
    # a record of another config is not this run's: refused as before
    (tmp_path / "killed" / "checkpoint.pt").unlink()
    config = str(tmp_path / "killed" / "defaults.yaml")
    other = main(
        ["train", "--config", config, "--resume", *TINY, "run.epochs=2", f"run.out_dir={tmp_path / 'killed'}"]
    )
    assert other == 2 and "nothing to resume" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("run.epochs=twelve", "run.epochs expects an integer, got 'twelve'"),
        ("run.epoch=3", "unknown key run.epoch (did you mean 'epochs'?)"),
        ("rnu.epochs=3", "unknown config section 'rnu' (did you mean 'run'?)"),
        ("run.plots=maybe", "run.plots expects a boolean (true/false), got 'maybe'"),
        ("agent.lr=fast", "agent.lr expects a number, got 'fast'"),
        ("simulator.hidden_size=16", "simulator.hidden_size is set as simulator.model.hidden_size"),
        ("simulator.model.hidden_size=wide", "simulator.model.hidden_size expects an integer, got 'wide'"),
        ("simulator.model=tiny", "simulator.model is a section: set its keys"),
        ("model.dtype=bf16", "model.dtype: unknown dtype 'bf16' (did you mean 'bfloat16'?)"),
        ("simulator.model.dtype=fp16", "simulator.model.dtype: unknown dtype 'fp16'"),
    ],
)
def test_bad_overrides_name_the_key_and_the_expected_type(override: str, message: str) -> None:
    with pytest.raises(ValueError) as error:
        load_config(None, [override])
    assert str(error.value).startswith(message)


def test_a_named_dtype_holds_on_a_cpu_and_auto_is_float32_there(tmp_path: Path) -> None:
    bf16 = Trainer(tiny_config(tmp_path / "bf16", "model.dtype=bfloat16", "run.epochs=0"))
    assert {p.dtype for p in bf16.model.parameters()} == {torch.bfloat16}
    auto = Trainer(tiny_config(tmp_path / "auto", "run.epochs=0"))
    assert {p.dtype for p in auto.model.parameters()} == {torch.float32}


def test_yaml_values_of_the_wrong_type_name_the_key(tmp_path: Path) -> None:
    config = tmp_path / "bad.yaml"
    config.write_text("run:\n  epochs: twelve\n")
    with pytest.raises(ValueError, match=r"run\.epochs expects an integer"):
        load_config(config)


def test_a_yaml_key_of_the_simulator_model_at_its_old_flat_place_names_the_new_key(tmp_path: Path) -> None:
    config = tmp_path / "flat.yaml"
    config.write_text("simulator:\n  kind: llm\n  source: tiny\n")
    with pytest.raises(ValueError, match=r"simulator\.source is set as simulator\.model\.source.*`model:`"):
        load_config(config)
    config.write_text("simulator:\n  kind: llm\n  model:\n    source: tiny\n    hidden_size: 16\n")
    assert load_config(config).simulator.model.hidden_size == 16


def test_an_atomic_write_that_fails_keeps_the_old_content(tmp_path: Path) -> None:
    path = tmp_path / "metrics.jsonl"
    path.write_text('{"epoch": 0}\n')
    with pytest.raises(RuntimeError), atomic_open(path) as handle:
        handle.write(b'{"epoch": 1')
        raise RuntimeError("crash mid-write")
    assert path.read_text() == '{"epoch": 0}\n'
    assert [p.name for p in tmp_path.iterdir()] == ["metrics.jsonl"]


def test_a_torn_metrics_line_and_stale_temp_files_do_not_block_resume(tmp_path: Path, capsys) -> None:
    assert _train_cli(tmp_path) == 0
    with (tmp_path / "metrics.jsonl").open("a") as metrics:
        metrics.write('{"epoch": 2, "r_e')  # a write cut short by a kill
    stale = tmp_path / ".checkpoint.pt-k1ll3d.tmp"
    stale.write_bytes(b"half a checkpoint")
    capsys.readouterr()
    assert _train_cli(tmp_path, "--resume") == 0
    err = capsys.readouterr().err
    assert "dropped a torn last line" in err and f"removed {stale}" in err
    assert not stale.exists()
    assert [r["epoch"] for r in _rows(tmp_path)] == [0, 1]


def test_a_metrics_file_damaged_before_its_last_line_names_the_line(tmp_path: Path) -> None:
    from genenv_gym.train.metrics import DamagedMetricsError, read_metrics

    path = tmp_path / "metrics.jsonl"
    path.write_text('{"epoch": 0}\n{"epo\n{"epoch": 1}\n')
    with pytest.raises(DamagedMetricsError, match=r"metrics\.jsonl: line 2 is not a JSON row.*--overwrite"):
        read_metrics(path)


@pytest.mark.parametrize("content", [b"", b"PK\x03\x04 not a zip"])
def test_an_empty_or_corrupt_checkpoint_names_the_file_and_what_to_do(
    tmp_path: Path, capsys, content: bytes
) -> None:
    (tmp_path / "checkpoint.pt").write_bytes(content)
    assert _train_cli(tmp_path, "--resume") == 2
    err = capsys.readouterr().err
    assert f"{tmp_path / 'checkpoint.pt'} ({len(content)} bytes) is not a readable checkpoint" in err
    assert "--overwrite" in err and "Traceback" not in err
