"""The named task samplers (genenv_gym/samplers.py) and what the trainer measures with them: the exact
held-out metric, the learning-signal diagnostics, the per-run domain seed, the samplers' saved state."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from genenv_gym.curriculum import CurriculumConfig
from genenv_gym.envs.ladder import LadderDomain
from genenv_gym.samplers import SAMPLERS, build_standalone
from genenv_gym.samplers.learnability import LearnabilitySampler, TaskLearnabilitySampler, task_key
from genenv_gym.samplers.oracle_frontier import OracleFrontierSampler
from genenv_gym.samplers.rank_trimming import RankTrimSampler, trim_by_rank
from genenv_gym.samplers.uniform import UniformSampler
from genenv_gym.simulator import Outcome, ProceduralSimulator
from genenv_gym.skill import SkillTracker
from genenv_gym.train.metrics import tensorboard_scalars

SKILL = SkillTracker(8).estimate()


def test_every_sampler_says_what_it_does_and_where_it_comes_from() -> None:
    from genenv_gym.train.config import BASELINES

    assert set(BASELINES) == set(SAMPLERS)
    for name, info in SAMPLERS.items():
        assert info.name == name and len(info.summary) > 20 and info.source
    assert "Gen-Verse/GenEnv" in SAMPLERS["as-released"].source
    assert "2408.15099" in SAMPLERS["learnability-task"].source


def test_the_uniform_sampler_draws_every_level_alike() -> None:
    tasks = UniformSampler(LadderDomain()).propose(4000, SKILL, np.random.default_rng(0))
    counts = np.bincount([t.level for t in tasks], minlength=8) / 4000
    assert np.abs(counts - 1 / 8).max() < 0.02


def test_learnability_with_a_uniform_mix_keeps_that_share_of_tasks_at_every_level() -> None:
    tracker = SkillTracker(8)
    for level in range(8):  # levels 0-2 and 4-7 solved, level 3 at p = 0.5: the control's favourite
        for k in range(40):
            tracker.update(level, level != 3 or k % 2 == 0)
    skill, domain, curriculum = tracker.estimate(), LadderDomain(), CurriculumConfig()
    plain = LearnabilitySampler(domain, curriculum)
    mixed = build_standalone("learnability", domain, curriculum, uniform_mix=0.2)
    draws = 10_000
    shares = {}
    for name, sampler in (("plain", plain), ("mixed", mixed)):
        tasks = sampler.propose(draws, skill, np.random.default_rng(7))
        shares[name] = np.bincount([t.level for t in tasks], minlength=8) / draws
    # plain learnability starves the solved levels; the mix keeps at least 0.2 / 8 of the tasks at each
    assert shares["plain"][3] > 0.85 and np.delete(shares["plain"], 3).max() < 0.025
    assert np.delete(shares["mixed"], 3).min() > 0.2 / 8 - 0.005
    # the observed share off level 3 is the mix's uniform share there plus what R_env gives those levels
    expected = 0.8 * np.delete(plain.probs(skill), 3).sum() + 0.2 * 7 / 8
    assert np.delete(shares["mixed"], 3).sum() == pytest.approx(expected, abs=0.01)
    assert mixed.probs(skill) == pytest.approx(0.8 * plain.probs(skill) + 0.2 / 8)
    uniform = LearnabilitySampler(domain, curriculum, uniform_mix=1.0).probs(skill)
    assert uniform == pytest.approx(np.full(8, 1 / 8))
    with pytest.raises(ValueError, match="uniform_mix"):
        LearnabilitySampler(domain, curriculum, uniform_mix=1.5)


def test_the_task_sampler_replays_single_tasks_by_p_one_minus_p() -> None:
    domain = LadderDomain()
    sampler = TaskLearnabilitySampler(domain, explore=0.25)
    rng = np.random.default_rng(0)
    assert len(sampler.propose(8, SKILL, rng)) == 8  # nothing known yet: all fresh
    half, solved, hopeless = (domain.make_task(s, 3, f"t{s}") for s in "ABC")
    stats = sampler.update([Outcome(half, 4, 8), Outcome(solved, 8, 8), Outcome(hopeless, 0, 8)])
    assert stats == {"known_tasks": 3.0, "learnable_share": pytest.approx(1 / 3)}
    tasks = sampler.propose(400, SKILL, rng)
    replayed = [t for t in tasks if t.id in ("tA", "tB", "tC")]
    assert len(replayed) == 300 and {t.id for t in replayed} == {"tA"}  # only the task with a signal
    # a fresh draw of the same prompt is the same task for the statistics
    again = domain.generate(3, np.random.default_rng(5))
    assert task_key(again) == task_key(domain.make_task(again.messages[0]["content"][-1], 3, "x"))
    sampler.update([Outcome(half, 8, 8)])  # now solved: no known task has a signal, all fresh again
    assert all(t.id not in ("tA", "tB", "tC") for t in sampler.propose(50, SKILL, rng))
    clone = TaskLearnabilitySampler(domain)
    clone.load_state_dict(json.loads(json.dumps({"tasks": {}, "last_p": sampler.state_dict()["last_p"]})))
    assert clone.last_p == sampler.last_p


def test_rank_trimming_drops_the_easiest_and_hardest_tenth_by_rank_as_the_release_does() -> None:
    scores = [0.0] * 6 + [0.25, 0.5, 0.75] + [1.0] * 11  # 20 prompts, ties at both ends
    kept = trim_by_rank(scores, 0.1)
    assert len(kept) == 16
    assert kept == [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]  # stable sort: the first ties go
    assert trim_by_rank(scores[:9], 0.1) == list(range(9))  # int(0.9) = 0: nothing dropped


def test_the_as_released_sampler_scores_trims_and_writes_one_similar_task_per_kept_prompt() -> None:
    domain = LadderDomain()
    scored: list[int] = []

    def score(tasks, samples):  # the agent solves levels 0-2, never 5-7, half of 3-4
        scored.append(len(tasks) * samples)
        return [samples if t.level <= 2 else 0 if t.level >= 5 else samples // 2 for t in tasks]

    sampler = RankTrimSampler(domain, score, pool_tasks=40, samples=4, trim=0.1)
    rng = np.random.default_rng(1)
    first = sampler.propose(16, SKILL, rng)
    assert len(first) == 16 and len(sampler.original) == 40 and sampler.generated == []
    stats = sampler.update([])
    assert stats["scored_tasks"] == 40 and stats["scoring_samples"] == 160 and stats["kept"] == 32
    assert scored == [160]
    sampler.propose(16, SKILL, rng)
    assert len(sampler.generated) == 32 and len(sampler.current) == 72
    assert sorted(t.level for t in sampler.generated) == sorted(sampler.original[i].level for i in
        trim_by_rank([score([t], 4)[0] / 4 for t in sampler.original], 0.1))  # fmt: skip
    state = sampler.state_dict()
    clone = RankTrimSampler(domain, score)
    clone.load_state_dict(state)
    assert clone.current == sampler.current


def test_the_oracle_frontier_is_the_lowest_level_not_yet_mastered() -> None:
    domain = LadderDomain()
    exact = {0: 0.99, 1: 0.95, 2: 0.4, 3: 0.1, 4: 0.0, 5: 0.0, 6: 0.0, 7: 0.0}
    moving = OracleFrontierSampler(domain, lambda: exact, threshold=0.8)
    assert {t.level for t in moving.propose(10, SKILL, np.random.default_rng(0))} == {2}
    assert moving.update([]) == {"frontier": 2.0}
    assert OracleFrontierSampler(domain, lambda: dict.fromkeys(range(8), 1.0)).choose_level() == 7
    fixed = OracleFrontierSampler(domain, lambda: pytest.fail("a fixed level reads no oracle"), level=5)
    assert {t.level for t in fixed.propose(5, SKILL, np.random.default_rng(0))} == {5}
    with pytest.raises(ValueError, match="level must be"):
        OracleFrontierSampler(domain, dict, level=8)


def test_the_soft_rule_moves_the_policy_when_no_batch_is_in_band() -> None:
    domain = LadderDomain()
    curriculum = CurriculumConfig(alpha=0.5, beta=20.0, k_min=0.1, attempts=8)
    # level 2 solved (7/8), level 3 hard (1/8): neither batch is in the band
    outcomes = [Outcome(domain.make_task("A", 2, "a"), 7, 8), Outcome(domain.make_task("A", 3, "b"), 1, 8)]
    paper = ProceduralSimulator(domain, curriculum, step_size=1.0, max_kl=1.0, min_prob=0.005)
    before = paper.probs.copy()
    assert paper.update(outcomes)["kept"] == 0 and np.array_equal(paper.probs, before)
    soft = ProceduralSimulator(domain, curriculum, 0.5, 1.0, 0.01, band_filter=False)
    stats = soft.update(outcomes)
    assert stats["kept"] == 2 and soft.probs[2] > before[2] and soft.probs[3] > before[3]
    assert soft.probs.min() >= 0.01 - 1e-12 and soft.probs.sum() == pytest.approx(1.0)


def test_list_metrics_reach_tensorboard_per_index() -> None:
    row = {"epoch": 3, "signal_share": 0.5, "level_p": [1.0, None, 0.25], "sim_updated": None, "name": "x"}
    assert tensorboard_scalars(row) == {"signal_share": 0.5, "level_p/0": 1.0, "level_p/2": 0.25}


# --- the trainer -----------------------------------------------------------------------------------------
torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from tiny_runs import QUIET, TINY_RUN  # noqa: E402

from genenv_gym.train.config import load_config  # noqa: E402
from genenv_gym.train.gold_probability import gold_logprobs  # noqa: E402
from genenv_gym.train.loop import Trainer  # noqa: E402
from genenv_gym.train.rwr_sft import encode_chat_example  # noqa: E402

TINY = [*TINY_RUN, *QUIET, "sampler.pool_tasks=6"]


def test_the_gold_probability_is_the_product_of_the_reference_tokens_probabilities() -> None:
    cfg = load_config("configs/efficacy_v4.yaml", [*TINY, "run.domain_seed=4"])
    trainer = Trainer(cfg)
    tasks = trainer.heldout[:5]
    logprobs = gold_logprobs(trainer.model, trainer.tokenizer, tasks, trainer.domain.oracle_action)
    for task, lp in zip(tasks, logprobs, strict=True):  # token by token, no batching or padding
        prompt, target = encode_chat_example(
            trainer.tokenizer, task.messages, trainer.domain.oracle_action(task)
        )
        ids = torch.tensor([prompt + target])
        with torch.no_grad():
            logits = trainer.model(input_ids=ids).logits[0].log_softmax(-1)
        expected = sum(float(logits[len(prompt) + i - 1, tok]) for i, tok in enumerate(target))
        assert lp == pytest.approx(expected, abs=1e-4)
    metrics = trainer.exact_metrics()
    assert metrics["heldout_gold_prob"] == pytest.approx(np.mean(np.exp(trainer.last_gold_logprobs)))
    levels = {f"heldout_gold_prob_level_{lv}" for lv in range(8)}
    assert set(metrics) == {"heldout_gold_prob", *levels}


@pytest.mark.parametrize(
    "baseline", ["uniform", "learnability-task", "soft-alpha-rwr", "as-released", "oracle-frontier"]
)
def test_every_new_sampler_trains_from_the_config_and_logs_the_learning_signal(
    baseline: str, tmp_path: Path
) -> None:
    cfg = load_config(
        "configs/efficacy_v4.yaml",
        [
            *TINY,
            f"run.baseline={baseline}",
            f"run.out_dir={tmp_path}",
            "run.domain_seed=2",
            "run.eval_samples=2",
        ],
    )
    trainer = Trainer(cfg)
    assert trainer.domain.permutations == LadderDomain(seed=2).permutations
    rows = trainer.run()
    row = rows[-1]
    assert row["signal_share"] + row["too_easy_share"] + row["too_hard_share"] == pytest.approx(1.0)
    assert len(row["level_p"]) == 8 and "heldout_gold_prob" in row and "heldout_sampled_acc" in row
    assert row["sim_updated"] == (1.0 if baseline == "soft-alpha-rwr" else None)
    assert (row["scoring_samples"] > 0) == (baseline == "as-released")
    logged = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert logged[-1]["too_hard_share"] == row["too_hard_share"]
    state = torch.load(tmp_path / "checkpoint.pt", weights_only=False)
    assert (state["sampler"] is not None) == (baseline in ("learnability-task", "as-released"))


def test_a_domain_seed_needs_a_domain_that_takes_one() -> None:
    with pytest.raises(ValueError, match="takes no seed"):
        Trainer(load_config("configs/demo.yaml", [*TINY, "run.domain_seed=3"]))
    with pytest.raises(ValueError, match="procedural"):
        load_config("configs/demo_llm_sim.yaml", ["run.baseline=soft-alpha-rwr"])


def test_the_warm_start_stop_loss_waits_for_min_steps(tmp_path: Path) -> None:
    over = [*TINY, "warmstart.steps=30", "warmstart.stop_loss=100.0", f"run.out_dir={tmp_path}"]
    early = Trainer(load_config("configs/efficacy_v4.yaml", [*over, "warmstart.min_steps=0"]))
    assert early.warm_start()["warmstart_steps"] == 20  # the first full window of 20 losses
    late = Trainer(load_config("configs/efficacy_v4.yaml", [*over, "warmstart.min_steps=25"]))
    assert late.warm_start()["warmstart_steps"] == 25
    with pytest.raises(ValueError, match="min_steps"):
        load_config("configs/efficacy_v4.yaml", ["warmstart.min_steps=-1"])


@pytest.mark.parametrize("signal_only", [False, True])
def test_signal_groups_only_takes_no_step_on_groups_without_a_signal(
    signal_only: bool, tmp_path: Path
) -> None:
    from genenv_gym.train.rollout import Trajectory

    cfg = load_config(
        "configs/efficacy_v4.yaml",
        [
            *TINY,
            f"agent.signal_groups_only={signal_only}",
            "agent.mini_batch_size=1",
            "agent.micro_batch_size=1",
        ],
    )
    trainer = Trainer(cfg)
    task = trainer.domain.make_task("A", 2, "t")
    prompt, target = encode_chat_example(trainer.tokenizer, task.messages, trainer.domain.oracle_action(task))
    ids, mask = prompt + target, [0] * len(prompt) + [1] * len(target)
    rows = [
        Trajectory(task, g, s, token_ids=ids, mask=mask, logprobs=[0.0] * len(ids), rewards=[float(r)])
        for g, rewards in enumerate([(1, 0), (1, 1), (0, 0), (0, 0)])  # one group with a signal of four
        for s, r in enumerate(rewards)
    ]
    steps = []
    trainer.optimizer.step = lambda *a, **k: steps.append(1)  # count the optimizer's steps
    trainer.grpo_update(rows)
    passes = cfg.agent.ppo_epochs  # each pass over the samples steps once per mini-batch
    assert len(steps) == passes * (1 if signal_only else 4)
