"""The co-evolution loop end to end on a tiny model: metrics, plots, checkpoints, baselines, the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from genenv_gym.train.config import TrainConfig, apply_overrides, load_config  # noqa: E402
from genenv_gym.train.loop import Trainer  # noqa: E402

TINY = [
    "run.epochs=2",
    "run.progress=false",
    "run.tensorboard=false",
    "run.plots=false",
    "run.threads=1",
    "run.eval_tasks=16",
    "model.hidden_size=32",
    "model.intermediate_size=64",
    "model.vocab_size=300",
    "warmstart.steps=3",
    "warmstart.base_tasks=16",
    "agent.tasks_per_epoch=4",
    "agent.group_size=2",
    "agent.mini_batch_size=2",
    "agent.micro_batch_size=1",
    "agent.max_new_tokens=8",
    "agent.lr=1e-3",
    "simulator.static_tasks=8",
]


def tiny_config(out_dir: Path, *extra: str) -> TrainConfig:
    return apply_overrides(TrainConfig(), [*TINY, f"run.out_dir={out_dir}", *extra])


def test_alpha_curriculum_run_writes_metrics_and_checkpoint(tmp_path: Path) -> None:
    cfg = tiny_config(tmp_path, "run.plots=true", "agent.replay_tasks=2")
    rows = Trainer(cfg).run()
    assert [r["epoch"] for r in rows] == [0, 1, 2]
    logged = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert [r["epoch"] for r in logged] == [0, 1, 2]
    last = logged[-1]
    for key in (
        "gen_success",
        "in_band_share",
        "r_env",
        "task_level",
        "response_tokens",
        "validity",
        "heldout_acc",
        "pg_loss",
        "kl",
        "sim_kept",
    ):
        assert key in last, key
    # every epoch spends tasks x G (+ replay) agent samples
    assert last["agent_samples"] == 2 * (4 + 2) * 2
    assert (tmp_path / "checkpoint.pt").exists()
    assert (tmp_path / "curves.png").exists()


@pytest.mark.parametrize("baseline", ["static", "random-simulator", "base-only"])
def test_baselines_spend_the_same_budget(tmp_path: Path, baseline: str) -> None:
    trainer = Trainer(tiny_config(tmp_path, "run.epochs=1", "run.eval_every=0", f"run.baseline={baseline}"))
    probs_before = trainer.simulator.probs.copy()
    rows = trainer.run()
    assert rows[-1]["agent_samples"] == 4 * 2
    assert (trainer.simulator.probs == probs_before).all()  # only the alpha-curriculum trains it
    if baseline == "base-only":
        assert rows[-1]["task_level"] <= trainer.cfg.warmstart.max_level


def test_config_errors_are_actionable(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"run\.baseline"):
        apply_overrides(TrainConfig(), ["run.baseline=nope"])
    with pytest.raises(ValueError, match=r"agent\.rollout_engine"):
        apply_overrides(TrainConfig(), ["agent.rollout_engine=vllm"])
    with pytest.raises(ValueError, match="unknown key"):
        apply_overrides(TrainConfig(), ["agent.nope=1"])
    with pytest.raises(FileNotFoundError):
        load_config(tmp_path / "missing.yaml")
    demo = load_config(Path(__file__).parents[2] / "configs" / "demo.yaml")
    assert demo.run.baseline == "alpha-curriculum"


def test_cli_train_runs_a_shipped_config_by_name_from_any_folder(tmp_path: Path, monkeypatch, capsys) -> None:
    from genenv_gym.cli.main import main

    monkeypatch.chdir(tmp_path)  # not the repository: the config comes with the package
    run = [*TINY, "warmstart.batch_size=8", "run.epochs=1", "run.eval_every=0", f"run.out_dir={tmp_path}"]
    assert main(["train", "--config", "demo", *run]) == 0
    assert (tmp_path / "checkpoint.pt").exists()
    assert json.loads((tmp_path / "run.json").read_text())["config"]["warmstart"]["max_level"] == 14  # demo's
    assert main(["train", "--config", "demo", "run.nope=1"]) == 2
    capsys.readouterr()


def test_cli_train_without_a_config_lists_the_shipped_ones(capsys) -> None:
    from genenv_gym.cli.main import main

    assert main(["train", "run.epochs=1"]) == 2
    err = capsys.readouterr().err
    assert "give --config" in err and "demo" in err and "paper_bfcl" in err
    assert main(["train", "--config", "dmeo"]) == 2
    assert "config file dmeo does not exist; the shipped configs are demo, " in capsys.readouterr().err


class _LevelAgent:
    """A stand-in agent whose success depends on the level: sure below 10, a coin flip at 10, none above."""

    def __init__(self, trainer: Trainer) -> None:
        self.trainer = trainer

    def __call__(self, tasks: list) -> list:
        from genenv_gym.train.rollout import Trajectory

        G, rng = self.trainer.cfg.agent.group_size, self.trainer.rng
        rows = []
        for g, task in enumerate(tasks):
            p = 1.0 if task.level < 10 else 0.5 if task.level == 10 else 0.0
            for s in range(G):
                hit = bool(rng.random() < p)
                rows.append(Trajectory(task, g, s, actions=["x"], rewards=[float(hit)], success=hit))
        return rows


def test_simulator_moves_to_the_level_where_success_is_alpha(tmp_path: Path) -> None:
    """RWR on per-level batches concentrates the simulator on the level where the agent's p ~ alpha."""
    cfg = tiny_config(
        tmp_path,
        "run.epochs=15",
        "run.eval_every=0",
        "agent.tasks_per_epoch=32",
        "agent.group_size=8",
        "simulator.min_prob=0.01",
    )
    trainer = Trainer(cfg)
    trainer.rollout = _LevelAgent(trainer)  # type: ignore[method-assign]
    assert trainer.simulator.mean_level() == pytest.approx(7.0)  # uniform over the 15 Digits levels
    rows = trainer.run()
    probs = trainer.simulator.probs
    assert int(probs.argmax()) == 10 and probs[10] > 0.8
    last = rows[-1]
    assert abs(last["gen_success"] - 0.5) <= 0.1
    assert last["in_band_share"] > 0.7
    assert rows[1]["in_band_share"] < last["in_band_share"]


CONFIGS = sorted(Path(__file__).parents[2].glob("configs/*.yaml"))


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_shipped_configs_load(path: Path) -> None:
    cfg = load_config(path)
    assert cfg.run.epochs >= 1 and cfg.agent.group_size >= 2


def test_memory_options_leave_the_update_unchanged(tmp_path: Path) -> None:
    """Chunked vocabulary projection and activation checkpointing compute the same GRPO step."""

    def epoch_row(out: Path, *extra: str) -> dict:
        trainer = Trainer(tiny_config(out, "run.epochs=1", "run.eval_every=0", *extra))
        return trainer.run()[-1]

    plain = epoch_row(tmp_path / "plain")
    lean = epoch_row(tmp_path / "lean", "agent.logprob_chunk_tokens=5", "agent.gradient_checkpointing=true")
    assert plain["rollout_tokens"] == lean["rollout_tokens"] > 0
    assert plain["update_tokens"] == lean["update_tokens"] > 0 and lean["rollout_errors"] == 0
    for key in ("pg_loss", "kl", "grad_norm", "train_reward"):
        assert lean[key] == pytest.approx(plain[key], rel=1e-4, abs=1e-6), key


def test_named_model_shape_builds_that_architecture(tmp_path: Path) -> None:
    trainer = Trainer(tiny_config(tmp_path, "model.shape=tiny"))
    assert trainer.model.config.num_hidden_layers == 2 and trainer.model.config.hidden_size == 64


def test_tensorboard_log_holds_every_scalar_metric(tmp_path: Path) -> None:
    pytest.importorskip("tensorboard")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    rows = Trainer(tiny_config(tmp_path, "run.tensorboard=true")).run()
    events = EventAccumulator(str(tmp_path / "tensorboard"))
    events.Reload()
    tags = set(events.Tags()["scalars"])
    assert {"gen_success", "in_band_share", "r_env", "heldout_acc", "pg_loss"} <= tags
    logged = [(e.step, e.value) for e in events.Scalars("gen_success")]
    assert logged == [(r["epoch"], pytest.approx(r["gen_success"])) for r in rows[1:]]


def test_skill_probe_fills_the_tracker_before_the_first_epoch(tmp_path: Path) -> None:
    trainer = Trainer(tiny_config(tmp_path, "run.epochs=0", "run.skill_probe_tasks=2"))
    row = trainer.run()[0]
    assert 0.0 <= row["probe_success"] <= 1.0 and row["probe_frontier"] == trainer.skill.frontier()
    assert trainer.skill.attempts == pytest.approx([1.95] * 15)  # 2 attempts per level (decay 0.95)
    with pytest.raises(ValueError, match="skill_probe_tasks"):
        tiny_config(tmp_path, "run.skill_probe_tasks=-1")


def test_a_float32_run_with_truncated_importance_sampling_logs_weights_of_one(tmp_path: Path) -> None:
    """In float32 the rollout engine and the update agree to rounding: every weight is 1, none is capped."""
    rows = Trainer(tiny_config(tmp_path, "agent.tis_cap=2", "run.epochs=1")).run()
    assert rows[-1]["tis_weight"] == pytest.approx(1.0, abs=1e-4)
    assert rows[-1]["tis_capped"] == 0.0
