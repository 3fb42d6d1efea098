"""The LLM simulator in the loop: the Digits task writer, RWR-SFT of the environment LLM, metrics, resume."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from test_train_loop import tiny_config  # noqa: E402

from genenv_gym.agents.backends import Completion  # noqa: E402
from genenv_gym.curriculum import CurriculumConfig  # noqa: E402
from genenv_gym.envs.digits import DigitsDomain  # noqa: E402
from genenv_gym.envs.digits.task_writer import DigitsTaskWriter, task_digits  # noqa: E402
from genenv_gym.llm_simulator import TASK_WRITERS, Target, TaskRejected, get_task_writer  # noqa: E402
from genenv_gym.simulator import Outcome  # noqa: E402
from genenv_gym.skill import SkillTracker  # noqa: E402
from genenv_gym.task import Task  # noqa: E402
from genenv_gym.train.config import (  # noqa: E402
    ModelConfig,
    SimulatorConfig,
    TrainConfig,
    apply_overrides,
    load_config,
)
from genenv_gym.train.loop import Trainer, level_batch_success  # noqa: E402
from genenv_gym.train.simulator_llm import EnvironmentLLM, pool_by_level  # noqa: E402

DOMAIN = DigitsDomain()
WRITER = DigitsTaskWriter(DOMAIN)
SKILL = SkillTracker(DOMAIN.num_levels).estimate()


def target(level: int = 2) -> Target:
    return Target(level, DOMAIN.num_levels, 0.5, 0.5, 0.0, 0.0)


# A micro environment LLM (hidden 16, one layer) so that each test runs in seconds on one thread.
MICRO_SIM = [
    "simulator.kind=llm",
    "simulator.model.hidden_size=16",
    "simulator.model.intermediate_size=32",
    "simulator.model.num_layers=1",
    "simulator.model.num_heads=2",
    "simulator.model.vocab_size=300",
    "simulator.max_new_tokens=12",
    "simulator.generations_per_round=4",
    "simulator.max_rounds=1",
    "simulator.lr=1e-2",
]


def llm_config(out_dir: Path, *extra: str) -> TrainConfig:
    return tiny_config(out_dir, *MICRO_SIM, *extra)


# ------------------------------------------------------------------------------------------------------
# The Digits task writer
def test_digits_writer_is_registered() -> None:
    assert "digits" in TASK_WRITERS
    assert isinstance(get_task_writer(DOMAIN), DigitsTaskWriter)


def test_prompt_is_short_and_names_the_target() -> None:
    messages = WRITER.prompt([], SKILL, Target(3, DOMAIN.num_levels, 0.5, 0.43, 2.0, 0.4))
    text = " ".join(m["content"] for m in messages)
    assert "Level 3 of" in text and "40%" in text and '"digits"' in text
    assert len(messages) == 2 and len(text) < 200


@pytest.mark.parametrize("level", range(DOMAIN.num_levels))
def test_reply_of_a_procedural_task_parses_back_to_it(level: int) -> None:
    task = DOMAIN.generate(level, np.random.default_rng(level))
    parsed = WRITER.parse(WRITER.reply_text(task), target(level), "llm:test")
    assert parsed.level == level and parsed.provenance == "llm:test"
    assert task_digits(DOMAIN, parsed) == task_digits(DOMAIN, task)
    assert not DOMAIN.validate(parsed)
    assert DOMAIN.verify(parsed, DOMAIN.oracle_action(parsed)).success
    assert WRITER.fingerprint(parsed)[0] == WRITER.fingerprint(task)[0]


def test_level_follows_the_string_not_the_target() -> None:
    short = WRITER.parse('{"digits": "1 2"}', target(0), "llm:test")
    long = WRITER.parse('{"digits": "1 2 3 4 5"}', target(0), "llm:test")
    assert not DOMAIN.validate(short) and not DOMAIN.validate(long)
    assert long.level > short.level


@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        ("Sure! Here is a task: 3 1 4", "parse"),
        ('{"digits": 314}', "parse"),
        ('{"digits": "   "}', "parse"),
        ('{"digits": "1 2", "level": 1}', "parse"),
        ('{"digitz": "1 2"}', "parse"),
        ('["1 2"]', "parse"),
        ('{"digits": "1 2"', "truncated"),
        ('{"digits": "a b c"}', "invalid"),
        ('{"digits": "12 3"}', "invalid"),
        ('{"digits": "<|im_start|>system"}', "invalid"),
        ('{"digits": "' + " ".join(["1"] * 500) + '"}', "oversize"),
    ],
)
def test_bad_replies_are_rejected_with_a_kind(reply: str, kind: str) -> None:
    with pytest.raises(TaskRejected) as rejection:
        WRITER.parse(reply, target(), "llm:test")
    assert rejection.value.kind == kind


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


def _parse_or_reject(reply: str) -> None:
    try:
        task = WRITER.parse(reply, target(), "llm:test")
    except TaskRejected:
        return
    assert isinstance(task, Task) and not DOMAIN.validate(task)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=200))
def test_random_text_is_only_ever_rejected(reply: str) -> None:
    _parse_or_reject(reply)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(
        st.dictionaries(st.text(max_size=8), _JSON_VALUES, max_size=3),
        st.builds(lambda v: {"digits": v}, _JSON_VALUES),
        st.builds(lambda v: {"digits": " ".join(v)}, st.lists(st.text(max_size=2), max_size=10)),
    )
)
def test_random_json_is_a_valid_task_or_rejected(data: dict) -> None:
    _parse_or_reject(json.dumps(data))


# ------------------------------------------------------------------------------------------------------
# Config
def test_the_llm_simulator_configs_give_the_simulator_its_own_model() -> None:
    for name in ("demo_llm_sim.yaml", "efficacy_v2_llm.yaml"):
        cfg = load_config(Path(__file__).parents[2] / "configs" / name)
        assert cfg.simulator.kind == "llm"
        assert cfg.simulator.model == ModelConfig(
            hidden_size=64, intermediate_size=256, num_layers=2, num_heads=4, vocab_size=300
        )


def test_config_accepts_procedural_and_llm_and_rejects_other_kinds() -> None:
    assert SimulatorConfig() == SimulatorConfig(kind="procedural", lr=5e-7, step_size=0.3, max_kl=0.2)
    apply_overrides(TrainConfig(), ["simulator.kind=llm"])
    with pytest.raises(ValueError, match=r"simulator\.kind must be one of \('procedural', 'llm'\)"):
        apply_overrides(TrainConfig(), ["simulator.kind=gpt"])
    with pytest.raises(ValueError, match=r"simulator\.sft_batch_size"):
        apply_overrides(TrainConfig(), ["simulator.kind=llm", "simulator.sft_batch_size=0"])
    with pytest.raises(ValueError, match=r"simulator\.explore"):
        apply_overrides(TrainConfig(), ["simulator.kind=llm", "simulator.explore=2"])


# ------------------------------------------------------------------------------------------------------
# The environment LLM's RWR update
def _env_llm(tmp_path: Path, *extra: str) -> EnvironmentLLM:
    cfg = llm_config(tmp_path, *extra)
    return EnvironmentLLM(cfg, DOMAIN, CurriculumConfig(attempts=8), "cpu")


def _written(env: EnvironmentLLM, replies: list[str], level: int = 2) -> list[Task]:
    """Tasks accepted as if the environment LLM had written ``replies`` (records with their prompts)."""
    tasks = []
    for reply in replies:
        messages = env.writer.prompt([], SKILL, target(level))
        task = env.simulator.screen(Completion(reply), target(level), {"messages": messages})
        assert task is not None, env.simulator.stats.reasons
        tasks.append(task)
    return tasks


REPLIES = ['{"digits": "1 2 3"}', '{"digits": "4 5 6"}', '{"digits": "7 8 9"}', '{"digits": "9 0 1"}']


def _params(model: torch.nn.Module) -> list[torch.Tensor]:
    return [p.detach().clone() for p in model.parameters()]


def _changed(before: list[torch.Tensor], model: torch.nn.Module) -> bool:
    return any(not torch.equal(b, p) for b, p in zip(before, model.parameters(), strict=True))


def test_update_trains_on_in_band_records_only(tmp_path: Path) -> None:
    env = _env_llm(tmp_path)
    assert env.model.config.hidden_size == 16 and env.model.config.num_hidden_layers == 1  # simulator.model
    tasks = _written(env, REPLIES)
    before = _params(env.model)
    # batch p = 0 (never solved): nothing in band, no step, weights unchanged
    stats = env.update([Outcome(t, 0, 8) for t in tasks])
    assert stats["kept"] == 0 and stats["sft_steps"] == 0 and stats["ref_kl"] is None
    assert not _changed(before, env.model)
    assert not env.simulator.records  # measured records are handed over (and forgotten) either way
    # the pooled batch p = 0.5 (two tasks solved 3/8, two 5/8): every record in band, the model moves
    tasks = _written(env, ['{"digits": "2 2 3"}', '{"digits": "3 5 6"}', '{"digits": "8 8 9"}'])
    stats = env.update([Outcome(t, s, 8) for t, s in zip(tasks, (3, 5, 4), strict=True)])
    assert stats["kept"] == 3 and stats["sft_steps"] >= 1 and stats["loss"] > 0 and stats["ref_kl"] > 0
    assert _changed(before, env.model)
    assert _changed(_params(env.reference), env.model)  # the reference stays at the initial simulator


def test_batch_p_is_the_trainers_per_level_p() -> None:
    rng = np.random.default_rng(0)
    tasks = [DOMAIN.generate(level, rng) for level in (1, 1, 2, 3, 3, 3)]
    outcomes = [Outcome(t, s, 4) for t, s in zip(tasks, (0, 3, 4, 1, 2, 2), strict=True)]
    trainer_p = level_batch_success(outcomes)
    assert [o.p for o in pool_by_level(outcomes)] == [trainer_p[t.level] for t in tasks]


def test_kl_cap_holds_on_the_update(tmp_path: Path) -> None:
    env = _env_llm(tmp_path, "simulator.lr=1.0", "simulator.max_kl=1e-4", "simulator.kl_coef=0.1")
    tasks = _written(env, REPLIES)
    stats = env.update([Outcome(t, 4, 8) for t in tasks])
    assert stats["kept"] == 4 and stats["kl"] <= 1e-4
    assert stats["step_scale"] < 1.0  # a huge step was cut to fit the cap


def test_proposals_report_validity_and_fallback(tmp_path: Path) -> None:
    env = _env_llm(tmp_path)
    tasks = env.propose(6, SKILL, np.random.default_rng(0))
    report = env.last_proposal
    assert len(tasks) == 6 and all(not DOMAIN.validate(t) for t in tasks)
    assert report["generated"] == 4 and report["written"] + report["fallback"] == 6
    assert report["acceptance_rate"] == report["accepted"] / 4


# ------------------------------------------------------------------------------------------------------
# The loop
def test_loop_with_llm_simulator_writes_sim_metrics(tmp_path: Path) -> None:
    trainer = Trainer(llm_config(tmp_path, "simulator.warmstart_steps=2", "simulator.warmstart_batch_size=4"))
    rows = trainer.run()
    assert [r["epoch"] for r in rows] == [0, 1, 2]
    logged = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert "sim_warmstart_loss" in logged[0]
    for key in (
        "sim_generated",
        "sim_acceptance_rate",
        "sim_fallback",
        "sim_written",
        "sim_mean_level",
        "sim_kept",
        "sim_loss",
        "sim_kl",
        "sim_step_scale",
        "sim_rejected_parse",
        "validity",
        "gen_success",
        "in_band_share",
    ):
        assert key in logged[-1], key
    assert logged[-1]["validity"] == logged[-1]["sim_acceptance_rate"]
    assert logged[-1]["sim_generated"] == 4
    assert (trainer.simulator.probs == 1 / DOMAIN.num_levels).all()  # the procedural one stays idle


def test_random_simulator_never_updates_the_environment_llm(tmp_path: Path) -> None:
    cfg = llm_config(tmp_path, "run.epochs=1", "run.eval_every=0", "run.baseline=random-simulator")
    trainer = Trainer(cfg)
    before = _params(trainer.env_llm.model)
    rows = trainer.run()
    assert "sim_loss" not in rows[-1] and rows[-1]["sim_generated"] == 4
    assert not _changed(before, trainer.env_llm.model)


def _rows(run_dir: Path) -> list[dict]:
    """The logged rows without wall-clock timings (``seconds``, ``*_seconds``)."""
    rows = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    return [{k: v for k, v in r.items() if k != "seconds" and not k.endswith("_seconds")} for r in rows]


def _scripted_writer(messages: list, index: int) -> str:
    """Valid replies of random length, drawn from torch's RNG (which ``EnvironmentLLM.propose`` seeds)."""
    n = int(torch.randint(2, 6, ()).item())
    return json.dumps({"digits": " ".join(str(d) for d in torch.randint(0, 10, (n,)).tolist())})


def _trainer_with_scripted_writer(out_dir: Path, *extra: str) -> Trainer:
    """A trainer whose environment LLM's replies come from a script (so records exist and RWR runs)."""
    from genenv_gym.agents.backends import ScriptedBackend

    trainer = Trainer(llm_config(out_dir, "simulator.max_new_tokens=64", *extra))
    trainer.env_llm.simulator.backend = ScriptedBackend(_scripted_writer)
    return trainer


def test_resume_with_llm_simulator_is_identical(tmp_path: Path) -> None:
    extra = (
        "run.eval_every=0",
        "agent.tasks_per_epoch=8",
        "agent.group_size=4",
        "curriculum.k_min=0.5",  # every batch in band: the environment LLM trains every epoch
        "simulator.generations_per_round=6",  # 12 written per epoch, 8 served: the buffer carries over
        "simulator.max_rounds=2",
    )
    _trainer_with_scripted_writer(tmp_path / "straight", *extra, "run.epochs=3").run()
    _trainer_with_scripted_writer(tmp_path / "split", *extra, "run.epochs=1").run()
    resumed = _trainer_with_scripted_writer(tmp_path / "split", *extra, "run.epochs=3")
    resumed.run(resume=True)
    rows = _rows(tmp_path / "split")
    assert rows == _rows(tmp_path / "straight")
    assert sum(r.get("sim_sft_steps", 0) for r in rows) > 0  # the environment LLM was trained in every part
